// Examples for the independent checkers themselves: a checker that accepts
// everything would make every property pass, so each one is shown to
// reject a schedule that breaks its rule (the seed's worked example) and to
// accept a legal one.
#include "checkers.h"

#include <gtest/gtest.h>

#include "tilesched/json_io.h"
#include "tilesched/mii.h"

namespace tilesched::props {
namespace {

Graph Example(const std::string& file) {
  StatusOr<Graph> g = read_graph_file(std::string(TILESCHED_EXAMPLES_DIR) + "/" + file);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? *g : Graph{};
}

Schedule At(int64_t ii, std::vector<int64_t> start) {
  Schedule s;
  s.feasible = true;
  s.ii = ii;
  s.start = std::move(start);
  derive_stage_order(s);
  return s;
}

TEST(Checkers, AcceptTheWorkedExampleAtFifteen) {
  const Graph g = Example("seed_worked_example.loop.json");  // load, write, mma, read
  EXPECT_TRUE(check_legal(g, At(15, {0, 8, 0, 8})).empty()) << join(check_legal(g, At(15, {0, 8, 0, 8})));
}

TEST(Checkers, RejectEachBrokenRule) {
  const Graph g = Example("seed_worked_example.loop.json");
  // II 8, all at 0: slot 16 twice in row 0 (L2); load -> read latency 8 (L1).
  const Schedule bad = At(8, {0, 0, 0, 0});
  EXPECT_FALSE(check_slots(g, bad).empty());
  EXPECT_FALSE(check_dependences(g, bad).empty());
  Schedule wrong_stage = At(15, {0, 8, 0, 8});
  wrong_stage.order[1] = 0;
  EXPECT_FALSE(check_stage_order(g, wrong_stage).empty());
  Graph grouped = g;
  grouped.ops[0].leader_gid = 1;
  grouped.ops[2].leader_gid = 1;
  grouped.ops[2].max_depth = 0;
  EXPECT_FALSE(check_groups(grouped, At(15, {0, 8, 15, 23})).empty());
  EXPECT_FALSE(check_max_depth(grouped, At(15, {0, 8, 15, 23})).empty());
  grouped.attrs.force_serial_execution = true;
  EXPECT_FALSE(check_forced_serial(grouped, At(15, {0, 8, 15, 23})).empty());
  EXPECT_FALSE(check_forced_serial(grouped, At(15, {0, 8, 0, 9})).empty());  // makespan 16
}

TEST(Checkers, StorageCountsLoopCarriedLifetimes) {
  const Graph g = Example("seed_worked_example.loop.json");
  Graph heavy = g;
  const int64_t cap = heavy.target.pools[*heavy.target.storage_pool()].capacity;
  heavy.ops[1].store_bytes = cap / 2 + 1;  // two copies do not fit
  heavy.edges.push_back({1, 3, 0, 1, EdgeKind::kData});  // read one iteration later
  EXPECT_TRUE(check_storage(heavy, At(15, {0, 8, 0, 8})).empty() == false);
  heavy.edges.back().kind = EdgeKind::kOrder;  // an order edge carries no value
  EXPECT_TRUE(check_storage(heavy, At(15, {0, 8, 0, 8})).empty());
}

TEST(Checkers, OwnBoundsMatchTheEngineOnTheExamples) {
  for (const char* file : {"seed_worked_example.loop.json", "gemm_mainloop.loop.json",
                           "attention_forward.loop.json", "constraints.loop.json",
                           "generic_dsp.loop.json", "spec_example.loop.json"}) {
    const Graph g = Example(file);
    EXPECT_EQ(own_mii(g), compute_mii(g)) << file;
    EXPECT_FALSE(has_positive_cycle(g, own_mii(g).recurrence)) << file;
  }
}

}  // namespace
}  // namespace tilesched::props
