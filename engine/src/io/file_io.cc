// Whole-file reads with the input-size limit, and whole-file writes that
// never leave a partial output behind (docs/CONTRACT.md, "Exit status"):
// a regular file or a new path gets a temporary file beside it, renamed
// over it; a symbolic link is followed and its target replaced that way,
// so the link stays a link; a FIFO, a terminal, /dev/null or /dev/stdout
// is opened and written in place, never replaced (docs/FORMATS.md,
// "Reading and writing files").
// POSIX calls, for errno-accurate messages.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include "tilesched/json_io.h"
#include "tilesched/limits.h"
#include "util/text.h"

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

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// "dir/.name.tmp<pid>.<n>" beside `path`; n counts up within the process.
std::string temp_path_for(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  const size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return dir_of(path) + "." + base + ".tmp" + std::to_string(::getpid()) + "." +
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

// Reads `fd` to the end; `shown` names it in messages. Reads to the end
// even when fstat gives a size: pipes and /proc files lie.
StatusOr<std::string> read_all(int fd, const std::string& shown) {
  std::string text;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (st.st_size > limits::kMaxFileBytes) {
      return Status::InvalidInput(shown + ": $: file is " + std::to_string(st.st_size) +
                                  " bytes, more than the limit of " +
                                  std::to_string(limits::kMaxFileBytes) + " bytes");
    }
    text.reserve(static_cast<size_t>(st.st_size));
  }
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return Status::IoError(shown + ": cannot read: " + errno_text(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (static_cast<int64_t>(text.size()) > limits::kMaxFileBytes) {
      return Status::InvalidInput(shown + ": $: input is more than the limit of " +
                                  std::to_string(limits::kMaxFileBytes) + " bytes");
    }
  }
  return text;
}

// The descriptor number a path names by itself: /dev/stdout, /dev/stderr,
// /dev/fd/N and /proc/self/fd/N. Writing to the descriptor keeps the
// shell's redirection as it is (its offset, its append mode), which
// opening the path again would not.
std::optional<int> descriptor_alias(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  constexpr std::string_view kPrefixes[] = {"/dev/fd/", "/proc/self/fd/"};
  for (std::string_view prefix : kPrefixes) {
    if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0) {
      int fd = -1;
      const char* first = path.data() + prefix.size();
      const char* last = path.data() + path.size();
      const auto [end, ec] = std::from_chars(first, last, fd);
      if (ec == std::errc() && end == last && fd >= 0) return fd;
    }
  }
  return std::nullopt;
}

// How an output path is written.
struct OutputPlan {
  enum class Way { kReplace, kInPlace, kDescriptor } way = Way::kReplace;
  std::string path;          // kReplace: the file to replace (a link's target)
  int descriptor = -1;       // kDescriptor
  std::optional<mode_t> mode;  // kReplace over an existing file: its permissions
};

// Follows `path` through symbolic links (at most 40, as the kernel does)
// and decides how to write it. A link into /proc is written in place: its
// target is a descriptor, not a name that can be replaced.
StatusOr<OutputPlan> plan_output(const std::string& path, const std::string& shown) {
  OutputPlan plan;
  if (std::optional<int> fd = descriptor_alias(path)) {
    plan.way = OutputPlan::Way::kDescriptor;
    plan.descriptor = *fd;
    return plan;
  }
  std::string at = path;
  for (int hops = 0;; ++hops) {
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0) {
      // A new path (also a dangling link's target) is created; any other
      // failure is reported when the temporary file cannot be made.
      plan.path = at;
      return plan;
    }
    if (S_ISLNK(st.st_mode)) {
      if (hops == 40) return Status::IoError(shown + ": too many levels of symbolic links");
      char target[PATH_MAX];
      const ssize_t n = ::readlink(at.c_str(), target, sizeof target - 1);
      if (n < 0) {
        const int err = errno;
        return Status::IoError(shown + ": cannot read the link: " + errno_text(err));
      }
      const std::string next(target, static_cast<size_t>(n));
      at = !next.empty() && next[0] == '/' ? next : dir_of(at) + next;
      if (at.rfind("/proc/", 0) == 0) {
        plan.way = OutputPlan::Way::kInPlace;
        plan.path = path;
        return plan;
      }
      continue;
    }
    if (S_ISDIR(st.st_mode)) return Status::IoError(shown + ": is a directory");
    if (S_ISREG(st.st_mode)) {
      plan.path = at;
      plan.mode = st.st_mode & 07777;
      return plan;
    }
    plan.way = OutputPlan::Way::kInPlace;  // FIFO, character or block device, socket
    plan.path = at;
    return plan;
  }
}

// Writes a temporary file beside `plan.path` and renames it over it.
Status replace_file(const OutputPlan& plan, std::string_view contents, const std::string& shown) {
  std::string temp;
  int raw = -1;
  for (unsigned attempt = 0; attempt < 100 && raw < 0; ++attempt) {
    temp = temp_path_for(plan.path);
    raw = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (raw < 0 && errno != EEXIST) break;
  }
  if (raw < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      // The path's directory is missing (or a file): say so, as `sweep` does.
      std::string dir = dir_of(plan.path);
      if (dir.size() > 1) dir.pop_back();
      if (dir.empty()) dir = ".";
      struct stat dir_st {};
      if (::stat(dir.c_str(), &dir_st) == 0) {
        // It is there: not a directory (FILE/x), or one that takes no new
        // files (/proc).
        if (!S_ISDIR(dir_st.st_mode)) {
          return Status::IoError(shown + ": " + text::one_line(dir) + " is not a directory");
        }
        return Status::IoError(shown + ": directory " + text::one_line(dir) +
                               " takes no new files, and a file is replaced through a new one "
                               "beside it");
      }
      return Status::IoError(shown + ": directory " + text::one_line(dir) + " does not exist");
    }
    return Status::IoError(shown + ": cannot create a temporary file: " + errno_text(err));
  }

  Fd fd(raw);
  Status written = write_all(fd.get(), contents);
  // Keep the replaced file's permissions (best effort: not ours to own).
  if (written.ok() && plan.mode) (void)::fchmod(fd.get(), *plan.mode);
  if (written.ok() && fd.close() != 0) {
    const int err = errno;
    written = Status::IoError(errno_text(err));
  }
  if (!written.ok()) {
    ::unlink(temp.c_str());
    return Status::IoError(shown + ": cannot write: " + written.message());
  }
  if (::rename(temp.c_str(), plan.path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return Status::IoError(shown + ": cannot replace: " + errno_text(err));
  }
  return Status::Ok();
}

// Opens an existing non-regular file (or a /proc link) and writes it.
Status write_in_place(const std::string& path, std::string_view contents,
                      const std::string& shown) {
  // O_TRUNC matters only for a /proc link to a regular file; devices ignore it.
  Fd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    return Status::IoError(shown + ": cannot open: " + errno_text(err));
  }
  Status written = write_all(fd.get(), contents);
  if (written.ok() && fd.close() != 0) {
    const int err = errno;
    written = Status::IoError(errno_text(err));
  }
  if (!written.ok()) return Status::IoError(shown + ": cannot write: " + written.message());
  return Status::Ok();
}

}  // namespace

StatusOr<std::string> read_file(const std::string& path_arg) {
  const std::string path = text::one_line(path_arg);  // for messages
  Fd fd(::open(path_arg.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    return Status::IoError(path + ": cannot open: " + errno_text(err));
  }
  // A directory opens for reading and reads as nothing ("empty file").
  if (struct stat st {}; ::fstat(fd.get(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return Status::IoError(path + ": is a directory, not a file");
  }
  return read_all(fd.get(), path);
}

StatusOr<std::string> read_standard_input() {
  return read_all(STDIN_FILENO, std::string(kStdinName));
}

Status write_file_atomic(const std::string& path, std::string_view contents) {
  const std::string shown = text::one_line(path);  // for messages
  StatusOr<OutputPlan> plan = plan_output(path, shown);
  if (!plan.ok()) return plan.status();
  switch (plan->way) {
    case OutputPlan::Way::kReplace:
      return replace_file(*plan, contents, shown);
    case OutputPlan::Way::kInPlace:
      return write_in_place(plan->path, contents, shown);
    case OutputPlan::Way::kDescriptor: {
      Status written = write_all(plan->descriptor, contents);
      if (!written.ok()) return Status::IoError(shown + ": cannot write: " + written.message());
      return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace tilesched
