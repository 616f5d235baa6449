// Tests of the verifier's own derivation of the Pipe_/Mutex_ values
// (verify_values.h): what each edge needs, that the materializer's values
// pass on every bundled graph, and that the verifier rejects values broken
// in each way it guards against -- a dropped loop-carried pipe first.
#include "verify_values.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "testing/test_files.h"
#include "tilesched/generate.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/materialize.h"
#include "tilesched/verify.h"

namespace tilesched {
namespace {

using verify_internal::check_values;
using verify_internal::edge_needs;
using verify_internal::EdgeNeed;
using verify_internal::Need;

// Two TMA loads arriving at one wait, an accumulator carried across
// iterations (synchronous, so only its distance asks for a pipe), a read
// of it, and the buffer released back to the first load two iterations on.
// Ids: la 0, lb 1, w 2, acc 3, out 4.
Graph mainloop() {
  GraphBuilder b(blackwell_target(), "values-mainloop");
  const OpId la = b.op("la", "tiled_tma_load");
  const OpId lb = b.op("lb", "tiled_tma_load");
  const OpId w = b.generic("w", 1);
  const OpId acc = b.generic("acc", 2);
  const OpId out = b.generic("out", 1);
  b.edge(la, w);             // 0: arrival
  b.edge(lb, w);             // 1: arrival
  b.edge(w, acc);            // 2: synchronous, same stage under serial
  b.edge(acc, acc, 2, 1);    // 3: loop-carried accumulator
  b.edge(acc, out);          // 4
  b.edge(out, la, 0, 2, EdgeKind::kOrder);  // 5: the buffer goes back to la
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? std::move(g).value() : Graph{};
}

// A zero-latency edge p -> c into an op with the lower id: c 0, p 1.
Graph consumer_first() {
  GraphBuilder b(blackwell_target(), "consumer-first");
  const OpId c = b.generic("c", 1);
  const OpId p = b.generic("p", 0);
  b.edge(p, c, 0);
  StatusOr<Graph> g = b.build();
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? std::move(g).value() : Graph{};
}

std::vector<int64_t> stages(const Schedule& s) {
  std::vector<int64_t> out;
  for (int64_t start : s.start) out.push_back(start / s.ii);
  return out;
}

Schedule generated(const Graph& g, GeneratorKind kind) {
  GenerateOptions o;
  o.generator = kind;
  StatusOr<Schedule> s = generate_schedule(g, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s).value() : Schedule{};
}

std::string lines(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& l : v) out += l + "\n";
  return out.empty() ? "(none)\n" : out;
}

// Renames the pipes Pipe_0.. after one was removed, so only the removal shows.
void renumber(Schedule& s) {
  for (size_t i = 0; i < s.pipes.size(); ++i) s.pipes[i].id = "Pipe_" + std::to_string(i);
}

TEST(VerifyValues, WhatEachEdgeNeeds) {
  const Graph g = mainloop();
  Schedule s;
  s.ii = 10;
  s.start = {0, 1, 9, 12, 14};  // acc and out in stage 1
  const std::vector<EdgeNeed> n = edge_needs(g, s, stages(s));
  ASSERT_EQ(n.size(), 6u);
  EXPECT_EQ(n[0].need, Need::kPipe);  // asynchronous producer
  EXPECT_TRUE(n[0].arrival && n[1].arrival);
  EXPECT_EQ(n[2].need, Need::kPipe);  // w in stage 0, acc in stage 1
  EXPECT_FALSE(n[2].arrival);
  EXPECT_EQ(n[2].depth, 2);
  EXPECT_EQ(n[3].need, Need::kPipe);  // loop-carried
  EXPECT_TRUE(n[3].live);
  EXPECT_EQ(n[3].depth, 2);
  EXPECT_EQ(n[4].need, Need::kNone);  // synchronous, same stage, same iteration
  EXPECT_TRUE(n[4].live);
  EXPECT_EQ(n[5].need, Need::kMutex);
  EXPECT_EQ(n[5].depth, 0 - 1 + 2 + 1);
  // A zero-latency edge between ops started in one cycle, the consumer
  // first by id: the value does not exist where the consumer runs.
  const Graph tie = consumer_first();
  Schedule t;
  t.ii = 4;
  t.start = {0, 0};
  const EdgeNeed e = edge_needs(tie, t, stages(t))[0];
  EXPECT_FALSE(e.live);
  EXPECT_EQ(e.need, Need::kPipe);
}

// The materializer's values agree with the verifier's own account on the
// test graph and every bundled example, under each generator.
TEST(VerifyValues, TheMaterializersValuesPass) {
  std::vector<Graph> graphs = {mainloop()};
  for (const std::string& file : example_files()) {
    StatusOr<Graph> g = read_graph_file(file);
    ASSERT_TRUE(g.ok()) << g.status().message();
    graphs.push_back(std::move(g).value());
  }
  int checked = 0;
  for (const Graph& g : graphs) {
    for (GeneratorKind kind : {GeneratorKind::kSerial, GeneratorKind::kCostBased}) {
      const Schedule s = generated(g, kind);
      SCOPED_TRACE(g.name + " " + s.generator);
      if (!s.feasible) continue;
      EXPECT_TRUE(verify_internal::carries_values(s));
      EXPECT_EQ(lines(check_values(g, s, stages(s))), "(none)\n");
      EXPECT_TRUE(verify_schedule(g, s).legal());
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * static_cast<int>(graphs.size()));  // every one feasible
}

// A materialization that drops the Pipe_ of a loop-carried edge: the
// verifier rejects it, naming the edge, and nothing else.
TEST(VerifyValues, VerifyRejectsADroppedLoopCarriedPipe) {
  const Graph g = mainloop();
  Schedule s = generated(g, GeneratorKind::kSerial);
  ASSERT_TRUE(s.feasible);
  ASSERT_TRUE(verify_schedule(g, s).legal());
  const auto carried = std::find_if(s.pipes.begin(), s.pipes.end(), [](const Pipe& p) {
    return p.consumer == 3 && p.producers == std::vector<OpId>{3};
  });
  ASSERT_NE(carried, s.pipes.end()) << "no pipe carries acc -> acc";
  s.pipes.erase(carried);
  renumber(s);
  const VerifyReport r = verify_schedule(g, s);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].rule, Rule::kMaterialization);
  EXPECT_EQ(r.violations[0].message,
            "edge acc -> acc (distance 1) needs a pipe and no pipe carries it");
  // The same schedule written and read back as JSON.
  StatusOr<Schedule> back = parse_schedule_json(write_schedule_json(g, s), "dropped.json", g);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(verify_schedule(g, *back).violates(Rule::kMaterialization));
}

struct Breakage {
  std::string what;
  std::function<void(Schedule&)> apply;
  std::string expected;  // one line of check_values
};

// Each check, on the serial schedule of the test graph (values: Pipe_0
// la, lb -> w; Pipe_1 acc -> acc; Mutex_0 out -> la).
TEST(VerifyValues, EachBrokenValueIsNamed) {
  const Graph g = mainloop();
  const Schedule clean = generated(g, GeneratorKind::kSerial);
  ASSERT_EQ(lines(check_values(g, clean, stages(clean))), "(none)\n");
  ASSERT_EQ(clean.pipes.size(), 2u);
  ASSERT_EQ(clean.mutexes.size(), 1u);
  const std::vector<Breakage> breakages = {
      {"depth", [](Schedule& s) { s.pipes[0].depth = 5; },
       "Pipe_0 (la, lb -> w): depth 5, expected 1 (max of stage(consumer) - stage(producer) + "
       "distance + 1)"},
      {"owner", [](Schedule& s) { s.pipes[0].owner = 1; },
       "Pipe_0 (la, lb -> w): owner lb is not the earliest by (stage, order); expected la"},
      {"order of producers",
       [](Schedule& s) { std::swap(s.pipes[0].producers[0], s.pipes[0].producers[1]); },
       "Pipe_0 (lb, la -> w): producers are not listed once each in (stage, order)"},
      {"split arrivals",
       [](Schedule& s) {
         s.pipes[0].producers = {1};
         s.pipes[0].owner = 1;
         s.pipes[0].edges = {1};
         s.pipes.push_back({"Pipe_2", {0}, 2, 0, 1, {0}});
       },
       "the asynchronous producers of agent producer arriving at w are split across Pipe_0, "
       "Pipe_2 (they share one origin value)"},
      {"op agent", [](Schedule& s) { s.agents[0] = "consumer"; },
       "la runs in agent consumer, expected producer"},
      {"agents of some ops", [](Schedule& s) { s.agents.pop_back(); },
       "the schedule names the agents of 4 ops, not of all 5"},
      {"pipe producer agent", [](Schedule& s) { s.pipes[0].producer_agent = "consumer"; },
       "Pipe_0 (la, lb -> w): producer agent consumer, expected producer"},
      {"pipe consumer agent", [](Schedule& s) { s.pipes[0].consumer_agent = "producer"; },
       "Pipe_0 (la, lb -> w): consumer agent producer, expected consumer"},

      {"grouped non-arrival",
       [](Schedule& s) { s.pipes.push_back({"Pipe_2", {2, 3}, 4, 2, 1, {4}}); },
       "Pipe_2 (w, acc -> out): groups acc, which shares no origin value with the other producers "
       "(not an asynchronous same-iteration arrival at out)"},
      {"needless pipe", [](Schedule& s) { s.pipes.push_back({"Pipe_2", {3}, 4, 3, 1, {4}}); },
       "Pipe_2 (acc -> out): carries no edge that needs a pipe"},
      {"carried twice", [](Schedule& s) { s.pipes.push_back({"Pipe_2", {3}, 3, 3, 2, {3}}); },
       "edge acc -> acc (distance 1) is carried by 2 pipes (Pipe_1, Pipe_2), not one"},
      {"recorded edges", [](Schedule& s) { s.pipes[1].edges = {2}; },
       "Pipe_1 (acc -> acc): records edges [2] but carries [3]"},
      {"name", [](Schedule& s) { s.pipes[1].id = "Pipe_7"; },
       "pipe #1 is named Pipe_7, expected Pipe_1"},
      {"outside the graph", [](Schedule& s) { s.mutexes[0].acquirer = 9; },
       "Mutex_0 names an op outside the graph"},
      {"mutex dropped", [](Schedule& s) { s.mutexes.clear(); },
       "order edge out -> la (distance 2) needs a mutex and no mutex carries it"},
      {"mutex without edge", [](Schedule& s) { s.mutexes.push_back({"Mutex_1", 0, 4, 0, 1, {}}); },
       "Mutex_1 (la -> out): no order edge runs from la to out"},
      {"mutex depth", [](Schedule& s) { s.mutexes[0].depth = 1; },
       "Mutex_0 (out -> la): depth 1, expected 3 (max of stage(acquirer) - stage(releaser) + "
       "distance + 1)"},
      {"mutex owner", [](Schedule& s) { s.mutexes[0].owner = 4; },
       "Mutex_0 (out -> la): owner out is not the earliest by (stage, order); expected la"},
      {"flag", [](Schedule& s) { s.flags.push_back(std::string(kTrivialFallbackFlag)); },
       "the trivial-fallback flag is set but no consumer-only pipe exists"},
  };
  for (const Breakage& b : breakages) {
    SCOPED_TRACE(b.what);
    Schedule s = clean;
    b.apply(s);
    const std::vector<std::string> found = check_values(g, s, stages(s));
    EXPECT_NE(std::find(found.begin(), found.end(), b.expected), found.end()) << lines(found);
    EXPECT_TRUE(verify_schedule(g, s).violates(Rule::kMaterialization));
  }
}

// The consumer-only fallback: depth 1, the flag, the edges that are not live.
TEST(VerifyValues, TheFallbackPipe) {
  const Graph g = consumer_first();
  const OpId c = 0;
  Schedule s;
  s.feasible = true;
  s.ii = 4;
  s.start = {0, 0};
  derive_stage_order(s);
  s.pipes.push_back({"Pipe_0", {}, c, c, 1, {0}});
  s.flags.push_back(std::string(kTrivialFallbackFlag));
  EXPECT_EQ(lines(check_values(g, s, stages(s))), "(none)\n");
  EXPECT_TRUE(verify_schedule(g, s).legal());
  s.pipes[0].depth = 2;
  EXPECT_EQ(lines(check_values(g, s, stages(s))),
            "Pipe_0 (-> c): depth 2, expected 1 (a consumer-only pipe)\n");
  s.pipes[0].depth = 1;
  s.flags.clear();
  EXPECT_EQ(lines(check_values(g, s, stages(s))),
            "the trivial-fallback flag is not set but a consumer-only pipe exists\n");
}

// A schedule without values is not asked about them.
TEST(VerifyValues, AScheduleWithoutValuesIsNotAsked) {
  const Graph g = mainloop();
  Schedule s = generated(g, GeneratorKind::kSerial);
  s.pipes.clear();
  s.mutexes.clear();
  s.flags.clear();
  EXPECT_FALSE(verify_internal::carries_values(s));
  EXPECT_TRUE(verify_schedule(g, s).legal());
  EXPECT_FALSE(lines(check_values(g, s, stages(s))) == "(none)\n");
}

}  // namespace
}  // namespace tilesched
