// A bounded child process (subprocess.h): posix_spawnp over three pipes,
// a poll loop that feeds the input and drains both outputs against their
// caps and the deadline, and the process group killed on every way out
// but a clean exit of the whole group.
#include "external/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

extern char** environ;

namespace tilesched::external {
namespace {

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  bool open() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

bool make_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.read.reset(fds[0]);
  p.write.reset(fds[1]);
  return true;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

int64_t ns_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

// SIGPIPE blocked in this thread while we write to a child that may have
// gone; a SIGPIPE this raised is consumed before the mask is restored.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old_);
    was_blocked_ = sigismember(&old_, SIGPIPE) == 1;
  }
  ~SigpipeGuard() {
    if (!was_blocked_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        sigset_t pipe_only;
        sigemptyset(&pipe_only);
        sigaddset(&pipe_only, SIGPIPE);
        const timespec zero{0, 0};
        sigtimedwait(&pipe_only, nullptr, &zero);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t old_;
  bool was_blocked_ = false;
};

// posix_spawnp's attributes: a process group of its own, default
// dispositions, nothing blocked; the pipes on 0, 1, 2 and no other
// descriptor of ours.
int spawn(const std::vector<std::string>& argv, int in, int out, int err, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

// Reads what `fd` has into `buf`, up to `cap` + 1 bytes in all (one past the
// cap tells the caller it was exceeded). False at end of file.
bool drain(Fd& fd, std::string& buf, int64_t cap) {
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n > 0) {
      const int64_t room = cap + 1 - static_cast<int64_t>(buf.size());
      buf.append(chunk, static_cast<size_t>(std::min<int64_t>(n, std::max<int64_t>(room, 0))));
      if (static_cast<int64_t>(buf.size()) > cap) return true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;  // else an error: treat as closed
  }
}

bool exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// Waits for the child to exit, without reaping it, until `deadline`. True
// when it exited. A pidfd (Linux 5.3) is polled for the exit itself; without
// one, waitid is polled at a growing interval.
bool wait_exit(pid_t pid, Clock::time_point deadline) {
#ifdef SYS_pidfd_open
  if (const int pfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); pfd >= 0) {
    Fd guard_fd;
    guard_fd.reset(pfd);
    while (!exited(pid)) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{pfd, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    }
    return true;
  }
#endif
  auto pause = std::chrono::microseconds(20);
  while (!exited(pid)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2'000));
  }
  return true;
}

// Kills what is left of the group (the child is a zombie or still running,
// so its pid names the group), reaps the child and records how it ended.
void finish(pid_t pid, SpawnResult& r) {
  ::kill(-pid, SIGKILL);
  int status = 0;
  rusage ru{};
  while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  r.cpu_ns = (static_cast<int64_t>(ru.ru_utime.tv_sec) + ru.ru_stime.tv_sec) * 1'000'000'000 +
             (static_cast<int64_t>(ru.ru_utime.tv_usec) + ru.ru_stime.tv_usec) * 1000;
  if (r.end != SpawnResult::End::kExited) return;  // a kill of ours decided it
  if (WIFEXITED(status)) {
    r.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.end = SpawnResult::End::kSignaled;
    r.term_signal = WTERMSIG(status);
  }
}


// The three pipes of a running child, our ends.
struct Ends {
  Fd in, out, err;
};

// Feeds `input` and drains both outputs until they close, a cap is passed or
// the deadline comes; sets r.end for the last two.
void pump(Ends& e, const std::string& input, const SpawnLimits& limits,
          Clock::time_point deadline, SpawnResult& r) {
  size_t written = 0;
  if (input.empty()) e.in.reset();
  while (e.out.open() || e.err.open()) {
    pollfd fds[3];
    Fd* which[3];
    int n = 0;
    for (auto [fd, events] : {std::pair{&e.in, POLLOUT}, {&e.out, POLLIN}, {&e.err, POLLIN}}) {
      if (!fd->open()) continue;
      fds[n] = {fd->get(), static_cast<short>(events), 0};
      which[n++] = fd;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      r.end = SpawnResult::End::kTimedOut;
      return;
    }
    const int ready = ::poll(fds, static_cast<nfds_t>(n), static_cast<int>(std::min<int64_t>(left, 1000)));
    if (ready < 0 && errno != EINTR) return;
    for (int i = 0; i < n && ready > 0; ++i) {
      if (fds[i].revents == 0) continue;
      Fd& fd = *which[i];
      if (&fd == &e.in) {
        const ssize_t w = ::write(fd.get(), input.data() + written, input.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) fd.reset();
        continue;
      }
      const bool is_out = &fd == &e.out;
      std::string& buf = is_out ? r.out : r.err;
      const int64_t cap = is_out ? limits.max_stdout : limits.max_stderr;
      if (!drain(fd, buf, cap)) fd.reset();
      if (static_cast<int64_t>(buf.size()) > cap) {
        buf.resize(static_cast<size_t>(cap));
        r.end = is_out ? SpawnResult::End::kStdoutLimit : SpawnResult::End::kStderrLimit;
        return;
      }
    }
  }
}

}  // namespace

SpawnResult run_process(const std::vector<std::string>& argv, const std::string& input,
                        const SpawnLimits& limits) {
  SpawnResult r;
  const Clock::time_point t0 = Clock::now();
  const Clock::time_point deadline = t0 + std::chrono::milliseconds(limits.time_limit_ms);
  Pipe in, out, err;
  if (!make_pipe(in) || !make_pipe(out) || !make_pipe(err)) {
    r.error = std::string("cannot create pipes: ") + std::strerror(errno);
    return r;
  }
  SigpipeGuard guard;
  pid_t pid = 0;
  if (const int rc = spawn(argv, in.read.get(), out.write.get(), err.write.get(), pid); rc != 0) {
    r.error = "cannot run '" + argv[0] + "': " + std::strerror(rc);
    r.wall_ns = ns_since(t0);
    return r;
  }
  in.read.reset();  // the child's ends
  out.write.reset();
  err.write.reset();
  Ends ends;
  ends.in.reset(in.write.release());
  ends.out.reset(out.read.release());
  ends.err.reset(err.read.release());
  for (Fd* fd : {&ends.in, &ends.out, &ends.err}) set_nonblocking(fd->get());
  r.end = SpawnResult::End::kExited;
  pump(ends, input, limits, deadline, r);
  if (r.end == SpawnResult::End::kExited && !wait_exit(pid, deadline)) {
    r.end = SpawnResult::End::kTimedOut;
  }
  finish(pid, r);
  r.wall_ns = ns_since(t0);
  return r;
}

}  // namespace tilesched::external
