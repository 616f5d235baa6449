// The per-kind latency draws of the structured families (kind_latencies.h).
#include "kind_latencies.h"

#include <algorithm>

namespace tilesched::graphgen::detail {

KindLatencies::KindLatencies(SplitMix64& rng, bool keep_defaults) {
  for (size_t i = 0; i < kLatencyRanges.size(); ++i) {
    const int64_t latency = rng.uniform(kLatencyRanges[i].lo, kLatencyRanges[i].hi);
    if (!keep_defaults) drawn_[i] = latency;
  }
}

void KindLatencies::apply(Op& op) const {
  for (size_t i = 0; i < kLatencyRanges.size(); ++i) {
    if (kLatencyRanges[i].kind != op.kind || drawn_[i] == 0) continue;
    const int64_t base = op.latency;
    for (Triple& t : op.resources) {
      t.duration = std::max<int64_t>(1, (t.duration * drawn_[i] + base / 2) / base);
    }
    op.latency = drawn_[i];
    return;
  }
}

}  // namespace tilesched::graphgen::detail
