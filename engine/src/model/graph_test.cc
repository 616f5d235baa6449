#include "tilesched/graph.h"
#include "tilesched/graph_builder.h"

#include <gtest/gtest.h>

#include "tilesched/limits.h"

namespace tilesched {
namespace {

// Expects `g` to be refused with a message starting with `path`.
void ExpectRefused(const StatusOr<Graph>& g, const std::string& path) {
  ASSERT_FALSE(g.ok()) << "expected a refusal at " << path;
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(g.status().message().rfind(path + ":", 0), 0u) << g.status().message();
  EXPECT_EQ(g.status().message().find('\n'), std::string::npos);
}

TEST(Graph, KindDefaultsAndEdgeLatencyFromTheSourceOp) {
  GraphBuilder b(blackwell_target());
  const OpId load = b.op("load", "tiled_tma_load");
  const OpId read = b.op("read", "smem_read");
  b.edge(load, read);
  b.at(load).latency = 11;  // the edge default follows the final op latency
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->ops[load].resources, (std::vector<Triple>{{12, 8, 1}, {16, 8, 1}}));
  EXPECT_EQ(g->edges[0].latency, 11);
  EXPECT_EQ(g->edges[0].distance, 0);
  EXPECT_EQ(g->find_op("read"), read);
  EXPECT_EQ(g->find_op("none"), std::nullopt);
}

TEST(Graph, FootprintDurationIsTheLongestTripleAndAtLeastOne) {
  Op op;
  EXPECT_EQ(footprint_duration(op), 1);
  op.resources = {{1, 3, 1}, {2, 9, 1}};
  EXPECT_EQ(footprint_duration(op), 9);
}

TEST(Graph, AdjacencyListsEdgesInIdOrder) {
  GraphBuilder b(blackwell_target());
  const OpId a = b.op("a", "alu"), c = b.op("c", "alu"), d = b.op("d", "alu");
  b.edge(a, d);
  b.edge(a, c);
  b.edge(c, d);
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok());
  const Adjacency adj = Adjacency::build(*g);
  EXPECT_EQ(std::vector<int>(adj.out_edges.begin() + adj.out_begin[a],
                             adj.out_edges.begin() + adj.out_begin[a + 1]),
            (std::vector<int>{0, 1}));
  EXPECT_EQ(std::vector<int>(adj.in_edges.begin() + adj.in_begin[d],
                             adj.in_edges.begin() + adj.in_begin[d + 1]),
            (std::vector<int>{0, 2}));
}

TEST(Graph, RefusesEachMalformedClass) {
  const Target& bw = blackwell_target();
  {
    GraphBuilder b(bw);
    ExpectRefused(b.build(), "$.ops");  // no ops
  }
  {
    GraphBuilder b(bw);
    b.op("x", "warp_drive");
    ExpectRefused(b.build(), "$.ops[0].kind");
  }
  {
    GraphBuilder b(bw);
    b.op("x", "alu");
    b.op("x", "alu");
    ExpectRefused(b.build(), "$.ops[1].id");
  }
  {  // a name the JSON writer could not write readably (found by fuzz_import)
    GraphBuilder b(bw);
    b.op("ok", "alu");
    b.op("\x89", "alu");
    ExpectRefused(b.build(), "$.ops[1].id");
  }
  {
    GraphBuilder b(make_generic_target("t", {Slot{"bad\xff", 1}}, {}));
    b.generic("x", 1);
    ExpectRefused(b.build(), "$.target.slots[0].name");
  }
  {
    GraphBuilder b(bw);
    b.generic("x", 1, {{25, 1, 1}});
    ExpectRefused(b.build(), "$.ops[0].resources[0].slot");
  }
  {
    GraphBuilder b(bw);
    b.generic("x", 1, {{3, 0, 1}});
    ExpectRefused(b.build(), "$.ops[0].resources[0].duration");
  }
  {
    GraphBuilder b(bw);
    b.generic("x", 1, {{3, 1, 1}, {3, 2, 1}});
    ExpectRefused(b.build(), "$.ops[0].resources[1].slot");
  }
  {
    GraphBuilder b(bw);
    b.generic("x", 1, {{15, 1, 6}});  // tp_smem_rd holds 5
    ExpectRefused(b.build(), "$.ops[0].resources[0].occupancy");
  }
  {
    GraphBuilder b(bw);
    b.generic("x", -1);
    ExpectRefused(b.build(), "$.ops[0].latency");
  }
  {
    GraphBuilder b(bw);
    b.generic("x", limits::kMaxLatency + 1);
    ExpectRefused(b.build(), "$.ops[0].latency");
  }
  {
    GraphBuilder b(bw);
    const OpId w = b.op("w", "smem_write");
    b.at(w).store_bytes = 232449;
    ExpectRefused(b.build(), "$.ops[0].store_bytes");
  }
  {
    GraphBuilder b(bw);
    const OpId x = b.op("x", "alu");
    b.at(x).pools = {{5, 10}};  // the storage pool is fed by store_bytes only
    ExpectRefused(b.build(), "$.ops[0].pools.smem_bytes");
  }
  {
    GraphBuilder b(bw);
    const OpId x = b.op("x", "alu");
    b.at(x).max_depth = -1;
    ExpectRefused(b.build(), "$.ops[0].max_depth");
  }
  {
    GraphBuilder b(bw);
    const OpId x = b.op("x", "alu");
    b.edge(x, 7);
    ExpectRefused(b.build(), "$.edges[0].to");
  }
  {
    GraphBuilder b(bw);
    const OpId x = b.op("x", "alu");
    b.edge(x, x, 1, -1);
    ExpectRefused(b.build(), "$.edges[0].distance");
  }
  {
    GraphBuilder b(bw);
    const OpId x = b.op("x", "alu"), y = b.op("y", "alu");
    b.edge(x, y, 0);
    b.edge(y, x, 2);
    ExpectRefused(b.build(), "$.edges[1]");
  }
  {
    GraphBuilder b(make_generic_target("g", {{"a", 1, false}}, {}));
    const OpId x = b.generic("x", 1);
    b.at(x).store_bytes = 4;
    ExpectRefused(b.build(), "$.ops[0].store_bytes");  // no storage pool
  }
  {
    GraphBuilder b(make_generic_target("g", {{"a", 0, false}}, {}));
    b.generic("x", 1);
    ExpectRefused(b.build(), "$.target.slots[0].capacity");
  }
  {
    GraphBuilder b(make_generic_target("g", {{"a", 1, false}},
                                       {{"m", PoolKind::kStorage, 10, 0, false},
                                        {"n", PoolKind::kStorage, 10, 0, false}}));
    b.generic("x", 1);
    ExpectRefused(b.build(), "$.target.pools[1].kind");
  }
}

TEST(Graph, ZeroLatencyZeroDistanceCycleIsValid) {
  GraphBuilder b(blackwell_target());
  const OpId x = b.op("x", "alu"), y = b.op("y", "alu");
  b.edge(x, y, 0);
  b.edge(y, x, 0);
  EXPECT_TRUE(b.build().ok());
}

}  // namespace
}  // namespace tilesched
