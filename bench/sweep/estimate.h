// `tilesched sweep ... --estimate TIMINGS.csv`: how long a shard of a sweep
// will take, from the per-row CPU times of an earlier sweep; nothing is run.
// A row's time is modelled from its generator configuration and op count
// (the pooled mean at a known op count, a log-log least-squares line at
// another, an exact row at most the oracle's limit); a shard's wall time at
// J workers is the sum / J, or its largest graph when longer. The model in
// full: docs/SWEEP.md, "How long a shard takes".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sweep/csv.h"
#include "sweep/worklist.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

struct ConfigEstimate {
  std::string config;          // "cost-based best-cost", "ims max_stages=2"
  size_t rows = 0;
  double cpu_seconds = 0;
  size_t extrapolated = 0;     // rows above the largest op count TIMINGS.csv has for them
  // A capped configuration TIMINGS.csv has no row of, timed from its
  // uncapped rows: their times x (1 + cap), the uncapped run and at most
  // one capped run per cap (stage_cap.h); 0 when timed at its own cap.
  int64_t from_uncapped_cap = 0;
};

struct ShardEstimate {
  size_t graphs = 0;
  size_t rows = 0;
  double cpu_seconds = 0;
  double largest_graph_seconds = 0;   // the longest graph: one of the largest op count
  std::vector<ConfigEstimate> configs;  // in the sweep's configuration order
  size_t timing_rows = 0;               // rows of TIMINGS.csv used
  int largest_timed_ops = 0;
  double wall_seconds(int jobs) const;
};

// The estimate of `spec`'s shard from `timings` (named `source` in
// messages). InvalidInput when a configuration of the sweep has no timed row
// in it.
StatusOr<ShardEstimate> estimate_shard(const SweepSpec& spec, const ReadResult& timings,
                                       const std::string& source);

// The report: rows, CPU hours per configuration, wall time at `jobs`.
std::string estimate_text(const ShardEstimate& e, const SweepSpec& spec, int jobs,
                          const std::string& source);

}  // namespace tilesched::sweep
