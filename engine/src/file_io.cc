// Whole-file reads with the input-size limit, and atomic whole-file writes
// (a temporary file beside the target, renamed over it), so that a failed
// command never leaves a partial output file behind (docs/CONTRACT.md,
// "Exit status").
// POSIX calls, for errno-accurate messages.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "json_reader.h"
#include "tilesched/json_io.h"
#include "tilesched/limits.h"

namespace tilesched {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

// Closes a descriptor on every path out of a scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and reports the result; the destructor then does nothing.
  int close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

// "dir/.name.tmp<pid>.<n>" beside `path`; n counts up within the process.
std::string temp_path_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir + "." + base + ".tmp" + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1));
}

Status write_all(int fd, std::string_view contents) {
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return Status::IoError(errno_text(err));
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::string> read_file(const std::string& path_arg) {
  const std::string path = jsonio::one_line(path_arg);  // for messages
  Fd fd(::open(path_arg.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    return Status::IoError(path + ": cannot open: " + errno_text(err));
  }
  std::string text;
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode)) {
    if (st.st_size > limits::kMaxFileBytes) {
      return Status::InvalidInput(path + ": $: file is " + std::to_string(st.st_size) +
                                  " bytes, more than the limit of " +
                                  std::to_string(limits::kMaxFileBytes) + " bytes");
    }
    text.reserve(static_cast<size_t>(st.st_size));
  }
  // Read to the end even when fstat gave a size: pipes and /proc files lie.
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return Status::IoError(path + ": cannot read: " + errno_text(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (static_cast<int64_t>(text.size()) > limits::kMaxFileBytes) {
      return Status::InvalidInput(path + ": $: input is more than the limit of " +
                                  std::to_string(limits::kMaxFileBytes) + " bytes");
    }
  }
  return text;
}

Status write_file_atomic(const std::string& path, std::string_view contents) {
  const std::string shown = jsonio::one_line(path);  // for messages
  std::string temp;
  int raw = -1;
  for (unsigned attempt = 0; attempt < 100 && raw < 0; ++attempt) {
    temp = temp_path_for(path);
    raw = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (raw < 0 && errno != EEXIST) break;
  }
  if (raw < 0) {
    const int err = errno;
    return Status::IoError(shown + ": cannot create a temporary file: " + errno_text(err));
  }

  Fd fd(raw);
  Status written = write_all(fd.get(), contents);
  if (written.ok() && fd.close() != 0) {
    const int err = errno;
    written = Status::IoError(errno_text(err));
  }
  if (!written.ok()) {
    ::unlink(temp.c_str());
    return Status::IoError(shown + ": cannot write: " + written.message());
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return Status::IoError(shown + ": cannot replace: " + errno_text(err));
  }
  return Status::Ok();
}

}  // namespace tilesched
