// Tests for the random layered family: valid graphs for many seeds and
// sizes with the promised structure (forward zero-distance edges,
// loop-carried distances 1..3, SMEM within budget), determinism, and
// parameter checks.
#include "tilesched/graphgen/random_layered.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "graph/graph_algo.h"
#include "tilesched/limits.h"
#include "tilesched/serial.h"
#include "tilesched/validate.h"
#include "tilesched/verify.h"

namespace tilesched::graphgen {
namespace {

Graph make(const LayeredParams& p) {
  StatusOr<Graph> g = random_layered(p);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

TEST(RandomLayered, ValidAcrossSeedsAndSizes) {
  const std::set<std::string> kinds = {"tiled_tma_load", "smem_write", "smem_read", "wgmma",
                                       "alu", "exp", "tmem_load", "mbarrier_arrive",
                                       "mbarrier_wait", "named_barrier"};
  int graphs = 0;
  int64_t back_edges = 0;
  for (int ops : {1, 2, 3, 7, 16, 64, 200, 1024}) {
    for (uint64_t seed = 0; seed < 12; ++seed) {
      LayeredParams p;
      p.ops = ops;
      p.seed = seed;
      p.layers = static_cast<int>(seed % 3 == 0 ? 0 : seed);
      p.edge_per_mille = static_cast<int>(seed * 80 % 1001);
      p.back_edge_per_mille = static_cast<int>(seed * 50 % 301);
      const Graph g = make(p);
      ASSERT_EQ(g.op_count(), ops);
      ASSERT_TRUE(validate_graph(g).ok()) << validate_graph(g).message();
      const Adjacency adj = Adjacency::build(g);
      EXPECT_FALSE(find_zero_distance_positive_cycle(g, adj).has_value());
      int64_t bytes = 0;
      for (const Op& op : g.ops) {
        EXPECT_TRUE(kinds.count(op.kind)) << op.kind;
        bytes += op.store_bytes;
        if (op.kind != "smem_write") {
          EXPECT_EQ(op.store_bytes, 0);
        }
      }
      EXPECT_LE(bytes, 232448);
      if (ops <= 200 || seed % 4 == 0) {  // the serial schedule is legal (L4 too)
        const Schedule serial = generate_serial(g);
        ASSERT_TRUE(serial.feasible) << ops << " ops, seed " << seed << ": "
                                     << failure_reason_name(serial.failure);
        const VerifyReport report = verify_schedule(g, serial);
        EXPECT_TRUE(report.legal()) << ops << " ops, seed " << seed;
      }
      for (const Edge& e : g.edges) {
        if (e.distance == 0) {
          EXPECT_LT(e.from, e.to);  // ids run layer by layer
        } else {
          EXPECT_GE(e.from, e.to);
          EXPECT_LE(e.distance, 3);
          ++back_edges;
        }
      }
      // Every op past the first layer has a zero-distance predecessor, so
      // the ops without one (the first layer) are a prefix of the ids.
      int roots = 0;
      for (OpId v = 0; v < ops; ++v) {
        bool has_pred = false;
        for (int i = adj.in_begin[v]; i < adj.in_begin[v + 1]; ++i) {
          has_pred = has_pred || g.edges[adj.in_edges[i]].distance == 0;
        }
        if (!has_pred) {
          EXPECT_EQ(v, roots) << "op " << v << " has no predecessor past the first layer";
          ++roots;
        }
      }
      EXPECT_GE(roots, 1);
      ++graphs;
    }
  }
  EXPECT_EQ(graphs, 96);
  EXPECT_GT(back_edges, 100);
}

TEST(RandomLayered, SerialScheduleLegalAtBenchmarkShapes) {
  for (int ops : {1024, 2048}) {
    LayeredParams p;
    p.ops = ops;
    p.seed = 1;
    p.back_edge_per_mille = 300;
    const Graph g = make(p);
    const Schedule serial = generate_serial(g);
    ASSERT_TRUE(serial.feasible) << failure_reason_name(serial.failure);
    EXPECT_TRUE(verify_schedule(g, serial).legal());
  }
}

TEST(RandomLayered, ChainWhenEveryLayerHasOneOp) {
  const Graph g = make({.ops = 10, .layers = 10, .edge_per_mille = 0, .back_edge_per_mille = 0});
  ASSERT_EQ(g.edge_count(), 9);  // the forced edge per layer, nothing else
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(g.edges[i].from, i);
    EXPECT_EQ(g.edges[i].to, i + 1);
    EXPECT_EQ(g.edges[i].distance, 0);
    const Edge& e = g.edges[i];
    EXPECT_EQ(e.latency, e.kind == EdgeKind::kData ? g.ops[i].latency : 0);
  }
}

TEST(RandomLayered, OneLayerHasNoForwardEdges) {
  const Graph g = make({.ops = 20, .layers = 1, .edge_per_mille = 1000});
  EXPECT_EQ(g.edge_count(), 0);  // and so no loop-carried share either
}

TEST(RandomLayered, FanInIsCapped) {
  const Graph g = make(
      {.ops = 300, .layers = 5, .edge_per_mille = 1000, .max_fan_in = 3, .back_edge_per_mille = 0});
  const Adjacency adj = Adjacency::build(g);
  int full = 0;
  for (OpId v = 0; v < g.op_count(); ++v) {
    const int in = adj.in_begin[v + 1] - adj.in_begin[v];
    EXPECT_LE(in, 3);
    full += in == 3 ? 1 : 0;
  }
  EXPECT_GT(full, 200);  // every op past layer 0 is saturated
}

TEST(RandomLayered, BackEdgeShare) {
  const Graph g = make({.ops = 500, .back_edge_per_mille = 250, .seed = 9});
  int64_t forward = 0, back = 0;
  for (const Edge& e : g.edges) (e.distance == 0 ? forward : back) += 1;
  EXPECT_EQ(back, (forward * 250 + 500) / 1000);
}

TEST(RandomLayered, SameSeedGivesTheSameGraph) {
  LayeredParams p;
  p.ops = 256;
  p.seed = 42;
  const Graph a = make(p), b = make(p);
  EXPECT_EQ(a, b);
  p.seed = 43;
  const Graph c = make(p);
  EXPECT_FALSE(a == c);
  EXPECT_NE(a.name, c.name);
  Graph renamed = c;
  renamed.name = a.name;
  EXPECT_FALSE(a == renamed);  // not just the name differs
}

TEST(RandomLayered, SmallGraphIsPinnedToTheStream) {
  // Pins the stream: a change here changes every generated benchmark graph.
  LayeredParams p;
  p.ops = 6;
  p.layers = 3;
  p.seed = 1;
  const Graph g = make(p);
  std::string shape;
  for (const Op& op : g.ops) shape += op.kind + ":" + std::to_string(op.store_bytes) + " ";
  for (const Edge& e : g.edges) {
    shape += std::to_string(e.from) + (e.kind == EdgeKind::kData ? ">" : "~") +
             std::to_string(e.to) + "/" + std::to_string(e.latency) + "/" +
             std::to_string(e.distance) + " ";
  }
  EXPECT_EQ(shape,
            "alu:0 alu:0 tiled_tma_load:0 tiled_tma_load:0 smem_write:29372 exp:0 "
            "1>2/4/0 0~3/0/0 2>4/8/0 2>5/8/0 3>5/8/0 2>2/8/1 ");
}

TEST(RandomLayered, RejectsBadParameters) {
  // The defaults with one field set by `set`: refused?
  auto refused = [](void (*set)(LayeredParams&)) {
    LayeredParams p;
    set(p);
    return random_layered(p).status().code() == StatusCode::kInvalidInput;
  };
  EXPECT_TRUE(refused([](LayeredParams& p) { p.ops = 0; }));
  EXPECT_TRUE(refused([](LayeredParams& p) { p.ops = limits::kMaxOps + 1; }));
  EXPECT_TRUE(refused([](LayeredParams& p) { p.edge_per_mille = 1001; }));
  EXPECT_TRUE(refused([](LayeredParams& p) { p.back_edge_per_mille = -1; }));
  EXPECT_TRUE(refused([](LayeredParams& p) { p.max_fan_in = 0; }));
  EXPECT_TRUE(refused([](LayeredParams& p) { p.layers = -2; }));
  LayeredParams p;
  p.ops = limits::kMaxOps;  // the largest graph is still within the limits
  EXPECT_TRUE(random_layered(p).ok());
}

}  // namespace
}  // namespace tilesched::graphgen
