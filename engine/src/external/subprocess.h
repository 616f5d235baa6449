// One child process, run to completion under bounds: argv as a list
// (posix_spawnp, no shell), `input` on its standard input, its standard
// output and error captured up to caps, a wall-clock limit after which its
// whole process group is killed. Used by the foreign-scheduler protocol
// (tilesched/foreign.h); safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tilesched::external {

struct SpawnLimits {
  int64_t time_limit_ms = 10'000;
  int64_t max_stdout = 64ll << 20;
  int64_t max_stderr = 1ll << 20;
};

struct SpawnResult {
  enum class End {
    kExited,        // exit_status holds its status
    kSignaled,      // term_signal killed it
    kTimedOut,      // killed at the time limit
    kStdoutLimit,   // killed: more standard output than max_stdout
    kStderrLimit,   // killed: more standard error than max_stderr
    kSpawnFailed,   // never ran; error says why
  };
  End end = End::kSpawnFailed;
  int exit_status = 0;
  int term_signal = 0;
  std::string out;    // at most max_stdout bytes
  std::string err;    // at most max_stderr bytes
  std::string error;  // kSpawnFailed: why
  int64_t wall_ns = 0;
  int64_t cpu_ns = 0;  // the child's user + system time (wait4)
};

// REQUIRES: argv is not empty. The child gets its own process group, the
// default signal dispositions and an empty signal mask, and no descriptor
// of ours but its three pipes.
SpawnResult run_process(const std::vector<std::string>& argv, const std::string& input,
                        const SpawnLimits& limits);

}  // namespace tilesched::external
