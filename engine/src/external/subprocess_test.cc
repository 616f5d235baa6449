// The bounded child process (subprocess.h): output, exit status, signals,
// the time limit with the whole group killed, the output caps, a program
// that does not exist, and input it never reads.
#include "external/subprocess.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>

namespace tilesched::external {
namespace {

using End = SpawnResult::End;

SpawnResult sh(const std::string& script, const std::string& input = "",
               SpawnLimits limits = SpawnLimits()) {
  return run_process({"/bin/sh", "-c", script}, input, limits);
}

TEST(Subprocess, InputInOutputAndStatusOut) {
  const SpawnResult r = sh("cat; echo oops >&2; exit 3", "hello");
  EXPECT_EQ(r.end, End::kExited);
  EXPECT_EQ(r.exit_status, 3);
  EXPECT_EQ(r.out, "hello");
  EXPECT_EQ(r.err, "oops\n");
}

TEST(Subprocess, ASignalIsNamed) {
  const SpawnResult r = sh("kill -SEGV $$");
  EXPECT_EQ(r.end, End::kSignaled);
  EXPECT_EQ(r.term_signal, SIGSEGV);
}

TEST(Subprocess, TheTimeLimitKillsTheWholeGroup) {
  SpawnLimits limits;
  limits.time_limit_ms = 300;
  const auto t0 = std::chrono::steady_clock::now();
  // A grandchild holding stdout open would keep a naive reader waiting.
  const SpawnResult r = sh("sleep 30 & sleep 30", "", limits);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.end, End::kTimedOut);
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST(Subprocess, OutputCapsKill) {
  SpawnLimits limits;
  limits.max_stdout = 1000;
  limits.max_stderr = 1000;
  SpawnResult r = sh("yes", "", limits);
  EXPECT_EQ(r.end, End::kStdoutLimit);
  EXPECT_EQ(r.out.size(), 1000u);
  r = sh("yes >&2", "", limits);
  EXPECT_EQ(r.end, End::kStderrLimit);
  EXPECT_EQ(r.err.size(), 1000u);
}

TEST(Subprocess, AMissingProgramDoesNotRun) {
  const SpawnResult r = run_process({"/nonexistent/program"}, "", SpawnLimits());
  EXPECT_EQ(r.end, End::kSpawnFailed);
  EXPECT_NE(r.error.find("/nonexistent/program"), std::string::npos);
}

TEST(Subprocess, InputTheChildNeverReadsDoesNotBlockOrKillUs) {
  const std::string big(8 << 20, 'x');  // far more than a pipe holds
  const SpawnResult r = sh("exit 0", big);
  EXPECT_EQ(r.end, End::kExited);
  EXPECT_EQ(r.exit_status, 0);
}

}  // namespace
}  // namespace tilesched::external
