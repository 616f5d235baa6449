// `tilesched compare BASE.csv NEW.csv`: match the rows of two sweeps by key
// (family, ops, seed, generator, arm policy), summarise each generator and
// family side by side, and decide whether NEW regresses against BASE.
//
// Regressions (exit 1), docs/SWEEP.md explains why these and not others:
//   - a matched row whose II went up (both feasible), or that was feasible
//     and verified in BASE and is not in NEW (feasible and verified there);
//   - a BASE row feasible and verified that NEW lacks (a lost row: a
//     generator configuration or graph dropped from the sweep), unless
//     allow_missing;
//   - a NEW row with a schedule that failed verification;
//   - a matched row whose graph_hash differs (the family generator changed:
//     the rows no longer measure the same thing; regenerate the baseline),
//     unless allow_graph_changes;
//   - no row in common;
//   - with time_fail_ratio set: a group whose median generator time grew by
//     more than that ratio. Without it, timing only warns (shared machines
//     are noisy).
#pragma once

#include <optional>
#include <string>

#include "sweep/csv.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

// How the report is written: a text table, GitHub-flavoured Markdown (for
// a CI job summary), or JSON (every regression listed).
enum class CompareFormat { kText, kMarkdown, kJson };

struct CompareOptions {
  CompareFormat format = CompareFormat::kText;
  double time_warn_ratio = 1.5;          // warn when a group's median time grows past this
  std::optional<double> time_fail_ratio;  // fail past this (off by default)
  int64_t time_floor_ns = 50000;          // groups faster than this are not timed
  bool allow_graph_changes = false;
  bool allow_missing = false;  // lost rows are warnings, not regressions
};

struct CompareReport {
  std::string text;  // the report in the chosen format, the result included
  bool regressed = false;
};

// InvalidInput naming the file and line for a malformed numeric field or a
// row key found twice in one file.
StatusOr<CompareReport> compare_sweeps(const ReadResult& base, const std::string& base_name,
                                       const ReadResult& now, const std::string& now_name,
                                       const CompareOptions& opts);

}  // namespace tilesched::sweep
