// `tilesched merge OUT.csv SHARD.csv...`: the shards of one sweep (`--shard
// k/N` runs, each with its context file) joined into the file a single run
// would have written: the same header, every row once, in work-list order,
// the shards' lines as they are. Refused (InvalidInput, one line naming the
// file and the key or field): shards of different sweeps or splits, a file
// that is not a tilesched.sweep/4 CSV or is torn, a row key twice, a key the
// sweep lacks, and a key of the sweep no shard has. docs/SWEEP.md.
#pragma once

#include <string>
#include <vector>

#include "tilesched/status.h"

namespace tilesched::sweep {

struct MergeSummary {
  size_t rows = 0;
  size_t failures = 0;  // rows with verified = 0
  // The first kListedFailures of them in work-list order, each "KEY: FAILURE: REASON".
  std::vector<std::string> failed_rows;
};
inline constexpr size_t kListedFailures = 10;

// Writes `out` and `out`.json atomically, or nothing on an error. The
// context file is the single run's (its signature with shard 1/1) plus
// "shards": every shard's context file as read.
StatusOr<MergeSummary> merge_shards(const std::string& out, const std::vector<std::string>& shards,
                                    const std::string& command);

}  // namespace tilesched::sweep
