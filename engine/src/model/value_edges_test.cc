// The edges each Pipe_ and Mutex_ carries, derived from its fields
// (value_edges.h): on every bundled example's materialized cost-based
// schedule, derive_value_edges gives back what the materializer recorded,
// value by value the same as pipe_edges and mutex_edges; values naming ops
// out of range, or a schedule whose stage and order disagree with the
// graph, carry nothing.
#include "value_edges.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/test_graphs.h"
#include "tilesched/generate.h"

namespace tilesched {
namespace {

Schedule Materialized(const Graph& g) {
  GenerateOptions opts;
  opts.generator = GeneratorKind::kCostBased;
  StatusOr<Schedule> s = generate_schedule(g, opts);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : Schedule{};
}

TEST(ValueEdges, DerivedEdgesAreTheMaterializersOnEveryExample) {
  int values = 0;
  for (const std::string name :
       {"attention_forward", "constraints", "gemm_mainloop", "generic_dsp",
        "seed_worked_example", "spec_example"}) {
    const Graph g = Example(name + ".loop.json");
    const Schedule recorded = Materialized(g);
    ASSERT_TRUE(recorded.feasible) << name;
    Schedule s = recorded;
    for (Pipe& p : s.pipes) p.edges = {7};  // to be replaced
    for (Mutex& m : s.mutexes) m.edges.clear();
    derive_value_edges(g, s);
    EXPECT_EQ(s.pipes, recorded.pipes) << name;
    EXPECT_EQ(s.mutexes, recorded.mutexes) << name;
    for (const Pipe& p : s.pipes) EXPECT_EQ(p.edges, pipe_edges(g, s, p)) << name << " " << p.id;
    for (const Mutex& m : s.mutexes) EXPECT_EQ(m.edges, mutex_edges(g, m)) << name << " " << m.id;
    values += static_cast<int>(s.pipes.size() + s.mutexes.size());
  }
  EXPECT_GT(values, 20);
}

TEST(ValueEdges, ValuesOutOfRangeOrAMisSizedScheduleCarryNothing) {
  const Graph g = Example("gemm_mainloop.loop.json");
  Schedule s = Materialized(g);
  ASSERT_FALSE(s.pipes.empty());
  ASSERT_FALSE(s.pipes.front().edges.empty());
  Schedule far = s;
  far.pipes.front().consumer = g.op_count();
  far.pipes.front().producers = {-1, g.op_count() + 3};
  derive_value_edges(g, far);
  EXPECT_TRUE(far.pipes.front().edges.empty());
  Schedule short_order = s;
  short_order.order.pop_back();
  derive_value_edges(g, short_order);
  for (const Pipe& p : short_order.pipes) EXPECT_TRUE(p.edges.empty()) << p.id;
  EXPECT_EQ(short_order.mutexes, s.mutexes);  // a mutex needs no (stage, order)
}

}  // namespace
}  // namespace tilesched
