// The values a foreign scheduler's call is described by: the request's
// bounds, the failure kinds and the outcome (tilesched/foreign.h runs the
// call; docs/FORMATS.md, "Foreign schedulers", is the contract).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tilesched/schedule.h"

namespace tilesched {

inline constexpr std::string_view kSchedulersFormat = "tilesched.schedulers/1";
inline constexpr std::string_view kRequestFormat = "tilesched.request/1";
inline constexpr std::string_view kSchedulersVariable = "TILESCHED_SCHEDULERS";

// Bounds of one call (docs/FORMATS.md, "Foreign schedulers").
inline constexpr int64_t kForeignMaxStdout = 64ll << 20;  // the reply
inline constexpr int64_t kForeignMaxStderr = 1ll << 20;   // the diagnostics
inline constexpr int64_t kForeignDefaultTimeLimitMs = 10'000;
inline constexpr int64_t kForeignMaxTimeLimitMs = 86'400'000;

// What the harness asks for: the II range and the stage cap.
// (The lower end, ii_min, is always the harness's bound on the graph.)
struct ForeignRequest {
  int64_t ii_max = 0;      // the largest II accepted; 0: the serial schedule's II
  int64_t max_stages = 0;  // 0: none
};

// Why a call gave no schedule to verify. The names are the sweep CSV's
// failure values and the kinds of `schedule`'s one-line errors.
enum class ForeignFailure {
  kNone,
  kSpawn,        // "foreign-spawn": the program could not be started
  kSignal,       // "foreign-signal": killed by a signal (a crash)
  kTimeout,      // "foreign-timeout": still running at the time limit; its group killed
  kExit,         // "foreign-exit": a non-zero exit status
  kEmpty,        // "foreign-empty": nothing on standard output
  kNotJson,      // "foreign-not-json"
  kTruncated,    // "foreign-truncated": JSON that ends early (a partial write)
  kFormat,       // "foreign-format": JSON, but not the reply's shape
  kOtherGraph,   // "foreign-other-graph": a schedule of another graph
  kOpCount,      // "foreign-op-count": not one start per op
  kStart,        // "foreign-start": a start negative or above 2^40
  kIi,           // "foreign-ii": II below 1 or above 2^31-1
  kIiCap,        // "foreign-ii-cap": II above the request's ii_max
  kStageCap,     // "foreign-stage-cap": more stages than max_stages
  kStdoutLimit,  // "foreign-stdout-limit": more than 64 MiB of reply
  kStderrLimit,  // "foreign-stderr-limit": more than 1 MiB of diagnostics
  kNull,         // "foreign-null": a plug-in returned NULL
  kError,        // "foreign-error": a plug-in reported an error
};
std::string_view foreign_failure_name(ForeignFailure f);

struct ForeignOutcome {
  ForeignFailure failure = ForeignFailure::kNone;
  std::string message;  // one line: what went wrong (empty when kNone)
  // kNone: the reply as a schedule (generator = the scheduler's name,
  // mii the graph's, stage/order derived), feasible or not.
  std::optional<Schedule> schedule;
  int64_t wall_ns = 0;       // the whole call: spawn (or call) to reply checked
  int64_t child_cpu_ns = 0;  // ext: the child's user + system CPU time; plugin: 0
};

}  // namespace tilesched
