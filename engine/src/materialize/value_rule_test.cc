// The edge rule of docs/MATERIALIZE.md (and its one extra case), the depth
// formula, the raw value each edge carries, and the edges a pipe or mutex
// carries.
#include <gtest/gtest.h>

#include "testing/materialize_support.h"
#include "tilesched/graph_builder.h"
#include "tilesched/materialize.h"
#include "value_rule.h"

namespace tilesched {
namespace {

TEST(MaterializeEdgeRule, AsyncComesFromTheKindFlags) {
  GraphBuilder b(blackwell_target());
  const OpId tma = b.op("tma", "tiled_tma_load");   // tma flag
  const OpId mma = b.op("mma", "wgmma");            // wgmma flag
  const OpId cp = b.op("cp", "cp_async");           // async flag
  const OpId wait = b.op("wait", "mbarrier_wait");  // none
  const OpId gen = b.generic("gen", 1);
  const Graph g = std::move(b.build()).value();
  EXPECT_TRUE(is_async(g, tma));
  EXPECT_TRUE(is_async(g, mma));
  EXPECT_TRUE(is_async(g, cp));
  EXPECT_FALSE(is_async(g, wait));
  EXPECT_FALSE(is_async(g, gen));
  Graph unknown = g;
  unknown.ops[tma].kind = "no_such_kind";
  EXPECT_FALSE(is_async(unknown, tma));
}

TEST(MaterializeEdgeRule, WhichEdgesNeedAPipe) {
  GraphBuilder b(blackwell_target());
  const OpId load = b.op("load", "tiled_tma_load");
  const OpId x = b.op("x", "alu");
  const OpId y = b.op("y", "alu");
  const OpId z = b.op("z", "alu");
  const int async_edge = b.edge(load, x);  // async producer, same stage
  const int plain = b.edge(x, y);          // same stage, sync, in order
  const int cross = b.edge(y, z);          // z one stage later
  const int carried = b.edge(z, x, 1, 1);  // loop-carried
  const int order = b.edge(z, load, 0, 1, EdgeKind::kOrder);
  const Graph g = std::move(b.build()).value();
  const Schedule s = At(20, {0, 8, 12, 24});
  ASSERT_EQ(s.stage, (std::vector<int64_t>{0, 0, 0, 1}));
  EXPECT_TRUE(needs_pipe(g, s, assign_agents(g), async_edge));
  EXPECT_FALSE(needs_pipe(g, s, assign_agents(g), plain));
  EXPECT_TRUE(needs_pipe(g, s, assign_agents(g), cross));
  EXPECT_TRUE(needs_pipe(g, s, assign_agents(g), carried));
  EXPECT_FALSE(needs_pipe(g, s, assign_agents(g), order));  // a mutex, not a pipe
  EXPECT_EQ(edge_depth(s, g.edges[async_edge]), 1);
  EXPECT_EQ(edge_depth(s, g.edges[cross]), 2);
  EXPECT_EQ(edge_depth(s, g.edges[carried]), 0 - 1 + 1 + 1);
  EXPECT_EQ(edge_depth(s, g.edges[order]), 0 - 1 + 1 + 1);
}

// The depth formula: stage(v) - stage(u) + distance + 1, buffers in flight.
TEST(MaterializeEdgeRule, DepthIsStageDifferencePlusDistancePlusOne) {
  GraphBuilder b(blackwell_target());
  const OpId u = b.op("u", "alu");
  const OpId v = b.op("v", "alu");
  b.edge(u, v, 1, 0);
  b.edge(u, v, 1, 3);
  b.edge(v, u, 1, 2);
  const Graph g = std::move(b.build()).value();
  const Schedule s = At(10, {5, 31});  // stages 0 and 3
  EXPECT_EQ(edge_depth(s, g.edges[0]), 3 - 0 + 0 + 1);
  EXPECT_EQ(edge_depth(s, g.edges[1]), 3 - 0 + 3 + 1);
  EXPECT_EQ(edge_depth(s, g.edges[2]), 0 - 3 + 2 + 1);
}

// Only a zero-latency edge between ops started in the same cycle can run
// against (stage, order): the consumer comes first, so the value is not
// live there and the edge needs a (fallback) pipe.
TEST(MaterializeEdgeRule, AnEdgeAgainstRegionOrderIsNotLive) {
  GraphBuilder b(blackwell_target());
  const OpId c = b.op("c", "alu");
  const OpId p = b.op("p", "alu");
  const int back = b.edge(p, c, 0);  // p has the higher id: c comes first at a tie
  const int self = b.edge(c, c, 0, 1);
  const Graph g = std::move(b.build()).value();
  const Schedule s = At(4, {0, 0});
  EXPECT_FALSE(live_at_consumer(s, g.edges[back]));
  EXPECT_TRUE(needs_pipe(g, s, assign_agents(g), back));
  EXPECT_EQ(raw_value(g, s, assign_agents(g), back), (RawValue{RawValue::Kind::kUnproduced, p}));
  EXPECT_TRUE(live_at_consumer(s, g.edges[self]));  // the previous iteration's value
  const Schedule later = At(4, {1, 0});
  EXPECT_TRUE(live_at_consumer(later, g.edges[back]));
  EXPECT_FALSE(needs_pipe(g, later, assign_agents(g), back));
}

TEST(MaterializeEdgeRule, RawValueIsTheArrivalOrTheProducersValue) {
  GraphBuilder b(blackwell_target());
  const OpId la = b.op("la", "tiled_tma_load");
  const OpId lb = b.op("lb", "tiled_tma_load");
  const OpId w = b.op("w", "mbarrier_wait");
  const OpId m = b.op("m", "wgmma");
  const int ea = b.edge(la, w);
  const int eb = b.edge(lb, w);
  const int ew = b.edge(w, m);
  const int em = b.edge(m, m, 16, 1);
  const Graph g = std::move(b.build()).value();
  const Schedule s = At(40, {0, 8, 16, 17});
  EXPECT_EQ(raw_value(g, s, assign_agents(g), ea), (RawValue{RawValue::Kind::kArrival, w}));
  EXPECT_EQ(raw_value(g, s, assign_agents(g), eb), (RawValue{RawValue::Kind::kArrival, w}));
  EXPECT_EQ(raw_value(g, s, assign_agents(g), ew), (RawValue{RawValue::Kind::kValue, w}));
  EXPECT_EQ(raw_value(g, s, assign_agents(g), em), (RawValue{RawValue::Kind::kValue, m}));  // loop-carried: its own
  EXPECT_EQ(raw_value_kind_name(RawValue::Kind::kArrival), "arrival");
  EXPECT_EQ(raw_value_kind_name(RawValue::Kind::kUnproduced), "unproduced");
}

TEST(MaterializeEdgeRule, EdgesAValueCarries) {
  GraphBuilder b(blackwell_target());
  const OpId c = b.op("c", "alu");
  const OpId p = b.op("p", "tiled_tma_load");
  const OpId q = b.op("q", "alu");
  const int dead = b.edge(p, c, 0);        // same cycle, p after c
  const int carried = b.edge(p, c, 0, 1);  // the previous iteration's
  const int fromq = b.edge(q, c, 1, 1);
  const int o1 = b.edge(q, p, 0, 1, EdgeKind::kOrder);
  const int o2 = b.edge(q, p, 2, 2, EdgeKind::kOrder);
  b.edge(p, q, 0, 1, EdgeKind::kOrder);
  const Graph g = std::move(b.build()).value();
  const Schedule s = At(20, {0, 0, 9});
  Pipe group;
  group.producers = {p};
  group.consumer = c;
  EXPECT_EQ(pipe_edges(g, s, group), std::vector<int>{carried});
  Pipe both = group;
  both.producers = {p, q};
  EXPECT_EQ(pipe_edges(g, s, both), (std::vector<int>{carried, fromq}));
  Pipe fallback;
  fallback.consumer = c;
  EXPECT_EQ(pipe_edges(g, s, fallback), std::vector<int>{dead});
  Mutex mx;
  mx.releaser = q;
  mx.acquirer = p;
  EXPECT_EQ(mutex_edges(g, mx), (std::vector<int>{o1, o2}));
}

}  // namespace
}  // namespace tilesched
