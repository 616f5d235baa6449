// Schedule::solve phase by phase on one consumer with every kind of input:
// four TMA loads arriving on its barrier (a group that spills the DSU's
// inline bucket), one of them also feeding it loop-carried, a loop-carried
// ALU value, and a zero-latency edge from an op placed after it (not live:
// the consumer-only fallback).
#include "solve.h"

#include <gtest/gtest.h>

#include "stage_order.h"
#include "tilesched/graph_builder.h"

namespace tilesched::materialize_internal {
namespace {

struct Fixture {
  Graph g;
  Schedule s;
  OpId w, l0, l1, l2, l3, x, d;
  int e0, e1, e2, e3, e0_carried, ex, ed;
};

// The loads' agent: w (op 0, an mbarrier_wait with no successor) runs in
// the consumer agent, names[0]; the TMA loads in the producer agent.
constexpr int kLoads = 1;

Fixture Barrier() {
  Fixture f;
  GraphBuilder b(blackwell_target(), "barrier");
  f.w = b.op("w", "mbarrier_wait");
  f.l0 = b.op("l0", "tiled_tma_load");
  f.l1 = b.op("l1", "tiled_tma_load");
  f.l2 = b.op("l2", "tiled_tma_load");
  f.l3 = b.op("l3", "tiled_tma_load");
  f.x = b.op("x", "alu");
  f.d = b.op("d", "alu");
  f.e0 = b.edge(f.l0, f.w);
  f.e1 = b.edge(f.l1, f.w);
  f.e2 = b.edge(f.l2, f.w);
  f.e3 = b.edge(f.l3, f.w);
  f.e0_carried = b.edge(f.l0, f.w, 8, 1);
  f.ex = b.edge(f.x, f.w, 1, 1);
  f.ed = b.edge(f.d, f.w, 0);  // d starts with w and has the higher id: not live
  f.g = std::move(b.build()).value();
  f.s.feasible = true;
  f.s.ii = 100;
  f.s.start = {40, 0, 8, 16, 24, 10, 40};
  derive_stage_order(f.s);
  return f;
}

TEST(MaterializeSolve, CollectsTheDistinctProducersOfPipeNeedingEdges) {
  const Fixture f = Barrier();
  const ValueMaps maps = build_value_maps(f.g, f.s);
  // by producer (stage, order): l0, l1, x, l2, l3, then d (after w)
  EXPECT_EQ(maps.needed_in[f.w],
            (std::vector<int>{f.e0, f.e0_carried, f.e1, f.ex, f.e2, f.e3, f.ed}));
  EXPECT_EQ(collect_candidate_producers(f.g, maps, f.w),
            (std::vector<OpId>{f.l0, f.l1, f.l2, f.l3, f.x, f.d}));
  EXPECT_TRUE(collect_candidate_producers(f.g, maps, f.l0).empty());
}

TEST(MaterializeSolve, SortsWorkByStageThenOrder) {
  Fixture f = Barrier();
  std::vector<OpId> work = {f.d, f.l3, f.x, f.l0};
  sort_by_stage_order(f.s, work);
  EXPECT_EQ(work, (std::vector<OpId>{f.l0, f.x, f.l3, f.d}));
  const ConsumerWork cw = prepare_consumer(f.g, f.s, build_value_maps(f.g, f.s), f.w);
  EXPECT_EQ(cw.work, (std::vector<OpId>{f.l0, f.l1, f.x, f.l2, f.l3, f.d}));
}

TEST(MaterializeSolve, ScheduleInfoAndFilterMaps) {
  const Fixture f = Barrier();
  const ValueMaps maps = build_value_maps(f.g, f.s);
  const ConsumerWork cw = prepare_consumer(f.g, f.s, maps, f.w);
  ASSERT_EQ(cw.info.size(), 6u);
  EXPECT_EQ(cw.info[0].edges, (std::vector<int>{f.e0, f.e0_carried}));
  EXPECT_EQ(cw.info[0].keys.size(), 2u);  // the barrier and its own loop-carried value
  EXPECT_TRUE(cw.info[0].async);
  EXPECT_TRUE(cw.info[1].async);   // l1
  EXPECT_FALSE(cw.info[2].async);  // x
  EXPECT_EQ(cw.info[2].order, f.s.order[f.x]);
  EXPECT_EQ(cw.info[5].edges, std::vector<int>{f.ed});
  EXPECT_TRUE(cw.info[5].keys.empty());  // d's edge is not live: it carries nothing live
  // Filtered: x (its value is its own) and d (not live) carry no arrival.
  const SolveMaps sm = build_solve_maps(f.g, cw, {RawValue::Kind::kArrival, f.w, kLoads});
  EXPECT_EQ(sm.filtered, (std::vector<char>{0, 0, 1, 0, 0, 1}));
}

TEST(MaterializeSolve, ClosureFollowsEveryValueALiveProducerCarries) {
  const Fixture f = Barrier();
  const ValueMaps maps = build_value_maps(f.g, f.s);
  const ConsumerWork cw = prepare_consumer(f.g, f.s, maps, f.w);
  // From l0's own loop-carried value, the closure reaches the barrier
  // group: l0 hands w both, so they stay live together.
  const SolveMaps own = build_solve_maps(f.g, cw, {RawValue::Kind::kValue, f.l0});
  EXPECT_EQ(own.filtered, (std::vector<char>{0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(close_under_live_at_consumer(cw, own), (std::vector<int>{0, 1, 3, 4}));
  const SolveMaps xs = build_solve_maps(f.g, cw, {RawValue::Kind::kValue, f.x});
  EXPECT_EQ(close_under_live_at_consumer(cw, xs), (std::vector<int>{2}));
  const SolveMaps dead = build_solve_maps(f.g, cw, {RawValue::Kind::kUnproduced, f.d});
  EXPECT_TRUE(close_under_live_at_consumer(cw, dead).empty());
}

TEST(MaterializeSolve, UnionsProducersSharingAnOriginAndSpillsBeyondThree) {
  const Fixture f = Barrier();
  const ValueMaps maps = build_value_maps(f.g, f.s);
  const ConsumerWork cw = prepare_consumer(f.g, f.s, maps, f.w);
  const SolveMaps sm = build_solve_maps(f.g, cw, {RawValue::Kind::kArrival, f.w, kLoads});
  const std::vector<int> live = close_under_live_at_consumer(cw, sm);
  ASSERT_EQ(live, (std::vector<int>{0, 1, 3, 4}));
  DisjointSets dsu = union_shared_origins(cw, live);
  EXPECT_EQ(dsu.roots(), std::vector<int>{0});
  EXPECT_EQ(dsu.set_size(0), 4);
  EXPECT_TRUE(dsu.spilled(0));

  // x alone next to the loads: two sets.
  DisjointSets two = union_shared_origins(cw, {0, 1, 2, 3, 4});
  EXPECT_EQ(two.roots().size(), 2u);
  EXPECT_FALSE(two.same(0, 2));

  OwnerMap owners(cw.work.size());
  const std::vector<PipeDraft> drafts = emit_group_pipes(f.g, f.s, maps, cw, live, dsu, owners);
  ASSERT_EQ(drafts.size(), 1u);
  EXPECT_EQ(drafts[0].producers, (std::vector<OpId>{f.l0, f.l1, f.l2, f.l3}));
  EXPECT_EQ(drafts[0].owner, f.l0);  // the earliest by (stage, order)
  EXPECT_EQ(drafts[0].consumer, f.w);
  EXPECT_EQ(drafts[0].depth, 2);  // l0's loop-carried edge: 0 - 0 + 1 + 1
  EXPECT_EQ(drafts[0].edges, (std::vector<int>{f.e0, f.e1, f.e2, f.e3, f.e0_carried}));
  EXPECT_EQ(owners.owner, (std::vector<OpId>{f.l0, f.l0, -1, f.l0, f.l0, -1}));
}

TEST(MaterializeSolve, OwnerIsTheEarliestEvenWhenListedLater) {
  Fixture f = Barrier();
  f.s.start = {40, 24, 8, 16, 0, 10, 40};  // l3 now issues first
  derive_stage_order(f.s);
  const ValueMaps maps = build_value_maps(f.g, f.s);
  const ConsumerWork cw = prepare_consumer(f.g, f.s, maps, f.w);
  OwnerMap owners(cw.work.size());
  SolveOutcome out = solve_pair(f.g, f.s, maps, cw, {RawValue::Kind::kArrival, f.w, kLoads}, owners);
  ASSERT_EQ(out.drafts.size(), 1u);
  EXPECT_EQ(out.drafts[0].producers, (std::vector<OpId>{f.l3, f.l1, f.l2, f.l0}));
  EXPECT_EQ(out.drafts[0].owner, f.l3);
}

TEST(MaterializeSolve, ConsumerOnlyFallbackWhenNothingIsLive) {
  const Fixture f = Barrier();
  const ValueMaps maps = build_value_maps(f.g, f.s);
  const ConsumerWork cw = prepare_consumer(f.g, f.s, maps, f.w);
  OwnerMap owners(cw.work.size());
  const SolveOutcome out =
      solve_pair(f.g, f.s, maps, cw, {RawValue::Kind::kUnproduced, f.d}, owners);
  EXPECT_TRUE(out.record.fallback);
  EXPECT_TRUE(out.record.live.empty());
  EXPECT_EQ(out.record.groups, 0);
  EXPECT_EQ(out.record.repeat_of, -1);
  EXPECT_TRUE(owners.fallback);
  ASSERT_EQ(out.drafts.size(), 1u);
  EXPECT_TRUE(out.drafts[0].producers.empty());
  EXPECT_EQ(out.drafts[0].owner, f.w);
  EXPECT_EQ(out.drafts[0].depth, 1);
  EXPECT_EQ(out.drafts[0].edges, std::vector<int>{f.ed});
  EXPECT_EQ(consumer_only_pipe(maps, f.w), out.drafts[0]);
  // A second unproduced value at the same consumer: the fallback is out.
  const SolveOutcome again =
      solve_pair(f.g, f.s, maps, cw, {RawValue::Kind::kUnproduced, f.x}, owners);
  EXPECT_TRUE(again.record.fallback);
  EXPECT_EQ(again.record.repeat_of, f.w);
  EXPECT_TRUE(again.drafts.empty());
}

TEST(MaterializeSolve, OwnerMapAnswersARepeatedGroup) {
  const Fixture f = Barrier();
  const ValueMaps maps = build_value_maps(f.g, f.s);
  const ConsumerWork cw = prepare_consumer(f.g, f.s, maps, f.w);
  OwnerMap owners(cw.work.size());
  const SolveOutcome first =
      solve_pair(f.g, f.s, maps, cw, {RawValue::Kind::kArrival, f.w, kLoads}, owners);
  ASSERT_EQ(first.drafts.size(), 1u);
  // l0's own loop-carried value closes to the same group: answered, not re-emitted.
  const SolveOutcome second =
      solve_pair(f.g, f.s, maps, cw, {RawValue::Kind::kValue, f.l0}, owners);
  EXPECT_EQ(second.record.repeat_of, f.l0);
  EXPECT_TRUE(second.drafts.empty());
  EXPECT_TRUE(second.record.live.empty());
  // Without the owner map the same pair would emit the same group again.
  OwnerMap fresh(cw.work.size());
  const SolveOutcome alone = solve_pair(f.g, f.s, maps, cw, {RawValue::Kind::kValue, f.l0}, fresh);
  ASSERT_EQ(alone.drafts.size(), 1u);
  EXPECT_EQ(alone.drafts[0], first.drafts[0]);
}

TEST(MaterializeSolve, SolveRecordsEveryPhase) {
  const Fixture f = Barrier();
  const ValueMaps maps = build_value_maps(f.g, f.s);
  const ConsumerWork cw = prepare_consumer(f.g, f.s, maps, f.w);
  OwnerMap owners(cw.work.size());
  const SolveOutcome out = solve_pair(f.g, f.s, maps, cw, {RawValue::Kind::kValue, f.x}, owners);
  EXPECT_EQ(out.record.raw, (RawValue{RawValue::Kind::kValue, f.x}));
  EXPECT_EQ(out.record.consumer, f.w);
  EXPECT_EQ(out.record.candidates, 6);
  EXPECT_EQ(out.record.live, std::vector<OpId>{f.x});
  EXPECT_EQ(out.record.groups, 1);
  EXPECT_FALSE(out.record.fallback);
  ASSERT_EQ(out.drafts.size(), 1u);
  EXPECT_EQ(out.drafts[0].producers, std::vector<OpId>{f.x});
  EXPECT_EQ(out.drafts[0].depth, 2);
  EXPECT_EQ(out.drafts[0].edges, std::vector<int>{f.ex});
}

}  // namespace
}  // namespace tilesched::materialize_internal
