// `tilesched merge OUT.csv SHARD.csv...`: the shards of one sweep (`--shard
// k/N` runs, each with its context file SHARD.csv.json) joined into the file
// a single run would have written: the same header, every row once, in
// work-list order. The rows are the shards' lines as they are, so they are
// byte-identical to a single run's but for the timing columns.
//
// Refused (InvalidInput, one line naming the file and the key or field):
//   - a shard whose context's sweep signature (context.h) differs from the
//     first shard's in anything but the shard: another engine revision,
//     preset, list, generator or option; shards of different splits N;
//   - a shard that is not a tilesched.sweep/4 CSV, or whose last line is torn;
//   - a row key found twice (within a shard or across shards), a key the
//     signature's sweep does not have, and a key of the sweep no shard has.
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
