// Test helpers shared by the engine's unit tests: a graph from a builder
// or a bundled example, with a test failure (not a crash) when it does not
// build or read.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/target.h"

namespace tilesched {

inline Graph Build(const GraphBuilder& b) {
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

// engine/examples/NAME (TILESCHED_EXAMPLES_DIR, set for engine_tests).
inline Graph Example(const std::string& name) {
  StatusOr<Graph> g = read_graph_file(std::string(TILESCHED_EXAMPLES_DIR) + "/" + name);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

// A recurrence a -> b -> a: b starts 3 to II after a. `on_pool`: a holds
// slot x and b slot y, 2 cycles each, and both hold the rate pool of
// capacity 1 for those 2 cycles; otherwise both hold the singleton slot x.
// Either way, at II 4 b's 2 rows meet a's wherever b starts, while the MII
// is 4 (RecMII 3): the optimum is 5. A tail b -> c -> d outside the
// recurrence holds the pooled slot of capacity 2 (so the rows pack:
// packs_rows). The component {a, b} alone proves II 4 infeasible; the II
// screen (energy per slot, no rate pools) sees it only on slot x.
inline Graph RecurrenceWithTail(bool on_pool) {
  GraphBuilder b(make_generic_target("t", {{"x", 1, false}, {"y", 1, false}, {"pool", 2, false}},
                                     {{"rate", PoolKind::kRate, 1, 0, false}}));
  const OpId a = b.generic("a", 3, {{1, 2, 1}});
  const OpId c = b.generic("b", 0, {{on_pool ? 2 : 1, 2, 1}});
  if (on_pool) b.at(a).pools = b.at(c).pools = {{0, 1}};
  b.edge(a, c, 3);
  b.edge(c, a, 0, 1);
  const OpId d = b.generic("c", 1, {{3, 3, 1}});
  b.edge(c, d, 1);
  b.edge(d, b.generic("d", 1, {{3, 3, 1}}), 1);
  return b.build().value();
}

// Four 2-cycle ops fill the singleton slot X at II 8 (density 100 %).
// With `grouped`, op d0 shares a leader group with an op 20 cycles down a
// chain, so it must sit in stage 2: beyond the density limit (stage <= 1).
inline Graph DenseSlotGraph(bool grouped) {
  GraphBuilder b(make_generic_target("dense", {Slot{"X", 1}, Slot{"Y", 1}}, {}));
  std::vector<OpId> d;
  for (int i = 0; i < 4; ++i) d.push_back(b.generic("d" + std::to_string(i), 1, {{1, 2, 1}}));
  if (grouped) {
    const OpId c0 = b.generic("c0", 10, {{2, 1, 1}});
    const OpId c1 = b.generic("c1", 10, {{2, 1, 1}});
    const OpId u = b.generic("u", 1, {{2, 1, 1}});
    b.edge(c0, c1);
    b.edge(c1, u);
    b.at(u).leader_gid = 1;
    b.at(d[0]).leader_gid = 1;
  }
  return Build(b);
}

// Two loads hold one singleton slot for 10 cycles each and feed an MMA 40
// cycles later that holds the slot for 4, with `mma_depth` as the MMA's
// max_depth: at 0 the stage span (engine/src/graph/stage_span.h) gives
// II >= 54, the optimum, where DepMII says 41 and the resource MII 24.
// On a pooled slot (`capacity` > 1) the loads hold `load_units` and the
// MMA `mma_units` of it.
inline GraphBuilder TwoLoadsOneMma(std::optional<int64_t> mma_depth, int64_t capacity = 1,
                                   int64_t load_units = 1, int64_t mma_units = 1) {
  GraphBuilder b(make_generic_target("t", {{"copy", capacity, false}}, {}));
  const OpId l1 = b.generic("load_a", 40, {{1, 10, load_units}});
  const OpId l2 = b.generic("load_b", 40, {{1, 10, load_units}});
  const OpId mma = b.generic("mma", 1, {{1, 4, mma_units}});
  b.edge(l1, mma, 40);
  b.edge(l2, mma, 40);
  b.at(mma).max_depth = mma_depth;
  return b;
}

}  // namespace tilesched
