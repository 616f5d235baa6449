// `tilesched compare BASE.csv NEW.csv`: match the rows of two sweeps by key
// (family, ops, seed, generator, arm policy), summarise each generator and
// family side by side, and decide whether NEW regresses against BASE (exit
// 1): an II that went up, a feasible row lost or no longer verified, a row
// that failed verification, a changed graph_hash (unless
// allow_graph_changes), no row in common, and with time_fail_ratio a median
// time grown past it (otherwise timing only warns). docs/SWEEP.md says which
// regressions count and why.
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
