// Test helpers shared by the engine's unit tests: a graph from a builder
// or a bundled example, with a test failure (not a crash) when it does not
// build or read.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "tilesched/graph.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"

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

}  // namespace tilesched
