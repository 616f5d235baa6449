// Test helpers shared by the engine's unit tests: a graph from a builder
// or a bundled example, with a test failure (not a crash) when it does not
// build or read.
#pragma once

#include <gtest/gtest.h>

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

}  // namespace tilesched
