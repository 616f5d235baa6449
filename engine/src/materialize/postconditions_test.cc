// The postconditions (docs/MATERIALIZE.md): they hold on every schedule both
// generators (serial; cost-based under both arm policies) produce for every
// bundled graph and for random graphs, and each one fails, with its own
// message, when a correct materialization is broken in the one way it
// guards against. The verifier reports them under Rule::kMaterialization.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "testing/materialize_support.h"
#include "testing/test_files.h"
#include "phases.h"
#include "stage_order.h"
#include "tilesched/generate.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/materialize.h"
#include "tilesched/rng.h"
#include "tilesched/verify.h"

namespace tilesched {
namespace {

std::vector<GenerateOptions> AllGenerators() {
  std::vector<GenerateOptions> out;
  GenerateOptions serial;
  serial.generator = GeneratorKind::kSerial;
  out.push_back(serial);
  for (ArmPolicy p : {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost}) {
    GenerateOptions cb;
    cb.generator = GeneratorKind::kCostBased;
    cb.cost_based.arm_policy = p;
    out.push_back(cb);
  }
  return out;
}

std::string Describe(const GenerateOptions& o) {
  return std::string(generator_name(o.generator)) + "/" +
         std::string(arm_policy_name(o.cost_based.arm_policy));
}

// Materializes, checks, verifies and round-trips one generated schedule.
void ExpectPostconditionsHold(const Graph& g, const GenerateOptions& opts) {
  SCOPED_TRACE(g.name + " " + Describe(opts));
  StatusOr<Schedule> s = generate_schedule(g, opts);
  ASSERT_TRUE(s.ok()) << s.status().message();
  if (!s->feasible) {
    EXPECT_TRUE(s->pipes.empty() && s->mutexes.empty());
    return;
  }
  for (const std::string& d : s->diagnostics) {
    EXPECT_EQ(d.find("materialize"), std::string::npos) << d;
  }
  StatusOr<Materialization> m = materialize(g, *s);
  ASSERT_TRUE(m.ok()) << m.status().message();
  for (const std::string& v : check_materialization(g, *s, *m)) ADD_FAILURE() << v;
  EXPECT_EQ(m->pipes, s->pipes);
  EXPECT_EQ(m->mutexes, s->mutexes);
  const bool flagged =
      std::find(s->flags.begin(), s->flags.end(), kTrivialFallbackFlag) != s->flags.end();
  EXPECT_EQ(flagged, m->trivial_fallback);
  for (const Violation& v : verify_schedule(g, *s).violations) {
    ADD_FAILURE() << rule_name(v.rule) << ": " << v.message;
  }
  int order_edges = 0;
  for (const Edge& e : g.edges) order_edges += e.kind == EdgeKind::kOrder ? 1 : 0;
  EXPECT_EQ(order_edges > 0, !m->mutexes.empty());
  StatusOr<Schedule> back = parse_schedule_json(write_schedule_json(g, *s), "rt", g);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, *s);
}

TEST(MaterializePostconditions, HoldForBothGeneratorsOnEveryBundledGraph) {
  for (const std::string& file : example_files()) {
    StatusOr<Graph> g = read_graph_file(file);
    ASSERT_TRUE(g.ok()) << g.status().message();
    for (const GenerateOptions& opts : AllGenerators()) ExpectPostconditionsHold(*g, opts);
  }
}

// Random loop graphs of Blackwell kinds: forward edges in a shuffled
// topological order (so a zero-latency edge can run from a higher to a
// lower id, the case that is not live at a same-cycle consumer), loop-
// carried edges and order edges.
Graph RandomGraph(SplitMix64& rng, int index) {
  static const char* kKinds[] = {"tiled_tma_load", "wgmma",           "mbarrier_wait", "alu",
                                 "smem_read",      "mbarrier_arrive", "exp",           "tmem_load"};
  const int n = static_cast<int>(rng.uniform(2, 12));
  GraphBuilder b(blackwell_target(), "random-" + std::to_string(index));
  for (int i = 0; i < n; ++i) b.op("v" + std::to_string(i), kKinds[rng.below(8)]);
  std::vector<OpId> topo(n);
  for (int i = 0; i < n; ++i) topo[i] = i;
  rng.shuffle(topo);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (!rng.chance_per_mille(300)) continue;
      std::optional<int64_t> latency;
      if (rng.chance_per_mille(250)) latency = 0;
      b.edge(topo[i], topo[j], latency);
    }
  }
  for (int k = 0; k < n / 2; ++k) {
    const OpId u = static_cast<OpId>(rng.below(n));
    const OpId v = static_cast<OpId>(rng.below(n));
    b.edge(u, v, std::nullopt, rng.uniform(1, 3),
           rng.chance_per_mille(400) ? EdgeKind::kOrder : EdgeKind::kData);
  }
  return std::move(b.build()).value();
}

// (With seed 2024 the cost-based generator also seats zero-latency pairs
// in one cycle, so trivial fallbacks occur here too; that depends on the
// generator, so only the grouping, which any legal schedule shows, is
// asserted to occur.)
TEST(MaterializePostconditions, HoldForBothGeneratorsOnRandomGraphs) {
  SplitMix64 rng(2024);
  int grouped = 0;
  for (int i = 0; i < 60; ++i) {
    const Graph g = RandomGraph(rng, i);
    for (const GenerateOptions& opts : AllGenerators()) {
      ExpectPostconditionsHold(g, opts);
      if (HasFatalFailure()) return;
      StatusOr<Schedule> s = generate_schedule(g, opts);
      for (const Pipe& p : s->pipes) grouped += p.producers.size() > 1 ? 1 : 0;
    }
  }
  EXPECT_GT(grouped, 0) << "no multi-producer group: the test no longer covers the DSU";
}

// ------------------------------------------------ each postcondition fails

struct Case {
  Graph g;
  Schedule s;
  Materialization m;
};

// la, lb -> w (one barrier), w -> mma, mma -> mma (loop-carried), mma -> fr
// (stage 1), fr -> la and fr -> lb order edges; x and y feed z across a stage.
Case Fixture() {
  GraphBuilder b(blackwell_target(), "fixture");
  const OpId la = b.op("la", "tiled_tma_load");
  const OpId lb = b.op("lb", "tiled_tma_load");
  const OpId w = b.op("w", "mbarrier_wait");
  const OpId mma = b.op("mma", "wgmma");
  const OpId fr = b.op("fr", "mbarrier_arrive");
  const OpId x = b.op("x", "alu");
  const OpId y = b.op("y", "alu");
  const OpId z = b.op("z", "alu");
  b.edge(la, w);
  b.edge(lb, w);
  b.edge(w, mma);
  b.edge(mma, mma, 16, 1);
  b.edge(mma, fr);
  b.edge(fr, la, 1, 3, EdgeKind::kOrder);
  b.edge(fr, lb, 1, 3, EdgeKind::kOrder);
  b.edge(x, z);
  b.edge(y, z);
  Case c;
  c.g = std::move(b.build()).value();
  c.s = At(20, {0, 8, 16, 17, 33, 0, 1, 25});
  StatusOr<Materialization> m = materialize(c.g, c.s);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (m.ok()) c.m = *m;
  return c;
}

int PipeOf(const Case& c, std::string_view consumer) {
  for (size_t p = 0; p < c.m.pipes.size(); ++p) {
    if (c.g.ops[c.m.pipes[p].consumer].name == consumer) return static_cast<int>(p);
  }
  return -1;
}

void Renumber(Case& c) {
  for (size_t p = 0; p < c.m.pipes.size(); ++p) c.m.pipes[p].id = "Pipe_" + std::to_string(p);
  for (size_t x = 0; x < c.m.mutexes.size(); ++x) c.m.mutexes[x].id = "Mutex_" + std::to_string(x);
  c.m.region = materialize_internal::rebuild_region(c.g, c.s, c.m.pipes, c.m.mutexes);
}

void ExpectViolation(const Case& c, const std::string& needle) {
  const std::vector<std::string> v = check_materialization(c.g, c.s, c.m);
  if (!materialize_internal::stage_order_problem(c.g, c.s)) {
    // The pass driver's entry, given the value maps it built, finds the same.
    EXPECT_EQ(materialize_internal::check_materialization_with(
                  c.g, c.s, c.m, materialize_internal::build_value_maps(c.g, c.s)),
              v);
  }
  std::string all;
  for (const std::string& line : v) all += line + "\n";
  EXPECT_TRUE(
      std::any_of(v.begin(), v.end(),
                  [&](const std::string& line) { return line.find(needle) != std::string::npos; }))
      << "no \"" << needle << "\" among:\n"
      << all;
}

TEST(MaterializePostconditions, TheFixtureIsClean) {
  const Case c = Fixture();
  ASSERT_EQ(c.m.pipes.size(), 5u);  // la+lb -> w, mma -> mma, x -> z, y -> z, mma -> fr
  EXPECT_TRUE(check_materialization(c.g, c.s, c.m).empty());
}

TEST(MaterializePostconditions, EveryNeededEdgeIsCarriedExactlyOnce) {
  Case missing = Fixture();
  missing.m.pipes.erase(missing.m.pipes.begin() + PipeOf(missing, "fr"));
  Renumber(missing);
  ExpectViolation(missing, "edge mma -> fr needs a pipe and no pipe carries it");

  Case twice = Fixture();
  twice.m.pipes.push_back(twice.m.pipes[PipeOf(twice, "fr")]);
  Renumber(twice);
  ExpectViolation(twice, "edge mma -> fr is carried by 2 pipes (Pipe_");
  ExpectViolation(twice, "duplicates Pipe_");

  Case spurious = Fixture();  // w -> mma needs no pipe (same stage, w is synchronous)
  Pipe extra;
  extra.producers = {2};
  extra.consumer = 3;
  extra.owner = 2;
  extra.depth = 1;
  extra.edges = {2};
  spurious.m.pipes.push_back(extra);
  Renumber(spurious);
  ExpectViolation(spurious, "carries no edge that needs a pipe");
}

// The agents: a TMA load (producer) and an MMA (consumer) both arriving at
// one op make two pipes, one per producer agent; a synchronous edge that
// crosses agents goes through a pipe too. Each broken on purpose.
TEST(MaterializePostconditions, NothingCrossesAgentsButThroughAPipe) {
  GraphBuilder b(blackwell_target(), "agents");
  const OpId l = b.op("l", "tiled_tma_load");
  const OpId mma = b.op("mma", "wgmma");
  const OpId c = b.op("c", "alu");
  const OpId p = b.op("p", "alu");
  const OpId q = b.op("q", "alu");
  b.at(p).agent = "side";
  b.edge(l, c);
  b.edge(mma, c);
  b.edge(p, q, 1);  // synchronous, same stage, but side -> consumer
  Case clean;
  clean.g = std::move(b.build()).value();
  clean.s = At(100, {0, 0, 20, 0, 4});
  StatusOr<Materialization> m = materialize(clean.g, clean.s);
  ASSERT_TRUE(m.ok()) << m.status().message();
  clean.m = *m;
  ASSERT_EQ(clean.m.agents, (std::vector<std::string>{"producer", "consumer", "consumer",
                                                       "side", "consumer"}));
  ASSERT_EQ(clean.m.pipes.size(), 3u);  // p -> q, then l -> c and mma -> c
  auto from = [&](OpId u) {
    for (size_t i = 0; i < clean.m.pipes.size(); ++i) {
      if (clean.m.pipes[i].producers == std::vector<OpId>{u}) return static_cast<int>(i);
    }
    return -1;
  };
  ASSERT_EQ(from(p), 0);
  ASSERT_EQ(from(l), 1);
  ASSERT_EQ(from(mma), 2);
  for (const Pipe& pipe : clean.m.pipes) {
    EXPECT_EQ(pipe.producer_agent, clean.m.agents[pipe.producers.front()]);
    EXPECT_EQ(pipe.consumer_agent, clean.m.agents[pipe.consumer]);
  }
  EXPECT_TRUE(check_materialization(clean.g, clean.s, clean.m).empty());

  Case merged = clean;  // the two arrivals in one pipe: two producer agents
  merged.m.pipes[1].producers = {l, mma};
  merged.m.pipes[1].edges = {0, 1};
  merged.m.pipes.pop_back();
  Renumber(merged);
  ExpectViolation(merged, "Pipe_1 (l, mma -> c): its producers run in 2 agents, not one");

  Case crossing = clean;  // p -> q read directly across agents
  crossing.m.pipes.erase(crossing.m.pipes.begin());
  Renumber(crossing);
  ExpectViolation(crossing, "edge p -> q crosses from agent side to consumer and no pipe carries it");

  Case wrong_op = clean;
  wrong_op.m.agents[q] = "side";
  ExpectViolation(wrong_op, "q runs in agent side, expected consumer");

  Case missing = clean;
  missing.m.agents.clear();
  ExpectViolation(missing, "the materialization names the agents of 0 ops, not of all 5");

  Case wrong_pipe = clean;
  wrong_pipe.m.pipes[0].producer_agent = "consumer";
  wrong_pipe.m.pipes[0].consumer_agent = "side";
  ExpectViolation(wrong_pipe, "Pipe_0 (p -> q): producer agent consumer, expected side");
  ExpectViolation(wrong_pipe, "Pipe_0 (p -> q): consumer agent side, expected consumer");
}

TEST(MaterializePostconditions, GroupsAreTheSharedOrigins) {
  Case split = Fixture();
  const int p = PipeOf(split, "w");
  Pipe b = split.m.pipes[p];
  split.m.pipes[p].producers = {0};
  split.m.pipes[p].edges = {0};
  b.producers = {1};
  b.owner = 1;
  b.edges = {1};
  split.m.pipes.insert(split.m.pipes.begin() + p + 1, b);
  Renumber(split);
  ExpectViolation(split,
                  "the asynchronous producers of agent producer arriving at w are split across "
                  "Pipe_0, Pipe_1");

  Case merged = Fixture();
  const int zx = PipeOf(merged, "z");
  merged.m.pipes[zx].producers = {5, 6};
  merged.m.pipes[zx].edges = {7, 8};
  merged.m.pipes[zx].depth = 2;
  merged.m.pipes.erase(merged.m.pipes.begin() + zx + 1);
  Renumber(merged);
  ExpectViolation(merged, "groups x, which shares no origin value");

  Case stranger = Fixture();
  stranger.m.pipes[PipeOf(stranger, "fr")].producers = {2, 3};  // w feeds fr nothing
  Renumber(stranger);
  ExpectViolation(stranger, "producer w has no live data edge to fr");
}

TEST(MaterializePostconditions, WrongOwnersDepthsIdsAndEdgesAreViolations) {
  Case owner = Fixture();
  owner.m.pipes[PipeOf(owner, "w")].owner = 1;
  ExpectViolation(owner, "owner lb is not the earliest by (stage, order); expected la");

  Case zero = Fixture();
  zero.m.pipes[PipeOf(zero, "fr")].depth = 0;
  ExpectViolation(zero, "depth 0 is below 1");
  Case wrong = Fixture();
  wrong.m.pipes[PipeOf(wrong, "fr")].depth = 3;
  ExpectViolation(wrong, "depth 3, expected 2");

  Case unsorted = Fixture();
  std::vector<OpId>& prods = unsorted.m.pipes[PipeOf(unsorted, "w")].producers;
  std::swap(prods[0], prods[1]);
  ExpectViolation(unsorted, "producers are not listed once each in (stage, order)");

  Case edges = Fixture();
  edges.m.pipes[PipeOf(edges, "fr")].edges = {3};
  ExpectViolation(edges, "records edges [3] but carries [4]");

  Case ids = Fixture();
  ids.m.pipes[1].id = "Pipe_7";
  ExpectViolation(ids, "pipe #1 is named Pipe_7, expected Pipe_1");

  Case range = Fixture();
  range.m.pipes[0].producers.push_back(99);
  ExpectViolation(range, "names an op outside the graph");

  Case tie = Fixture();
  tie.s.order[1] = tie.s.order[0];
  ExpectViolation(tie, "share stage 0, order 0");
}

TEST(MaterializePostconditions, MissingOrWrongMutexesAreViolations) {
  Case missing = Fixture();
  missing.m.mutexes.pop_back();
  Renumber(missing);
  ExpectViolation(missing,
                  "order edge fr -> lb (distance 3) needs a mutex and no mutex carries it");

  Case twice = Fixture();
  twice.m.mutexes.push_back(twice.m.mutexes[0]);
  Renumber(twice);
  ExpectViolation(twice, "is carried by 2 mutexes");

  Case reversed = Fixture();
  std::swap(reversed.m.mutexes[0].releaser, reversed.m.mutexes[0].acquirer);
  Renumber(reversed);
  ExpectViolation(reversed, "no order edge runs from la to fr");

  Case owner = Fixture();
  owner.m.mutexes[0].owner = 4;
  ExpectViolation(owner, "Mutex_0 (fr -> la): owner fr is not the earliest");

  Case depth = Fixture();
  depth.m.mutexes[1].depth = 1;
  ExpectViolation(depth, "Mutex_1 (fr -> lb): depth 1, expected 3");
}

TEST(MaterializePostconditions, RegionAgreesWithStageOrder) {
  using K = RegionStep::Kind;
  Case swapped = Fixture();
  std::vector<RegionStep>& r = swapped.m.region;
  auto first =
      std::find_if(r.begin(), r.end(), [](const RegionStep& s) { return s.kind == K::kOp; });
  auto second =
      std::find_if(first + 1, r.end(), [](const RegionStep& s) { return s.kind == K::kOp; });
  std::iter_swap(first, second);
  ExpectViolation(swapped, "against (stage, order)");

  Case unproduced = Fixture();
  std::erase_if(unproduced.m.region, [](const RegionStep& s) { return s.kind == K::kProduce; });
  ExpectViolation(unproduced, "produces into Pipe_0 0 times, not once");

  Case acquire = Fixture();
  std::vector<RegionStep>& a = acquire.m.region;
  auto acq =
      std::find_if(a.begin(), a.end(), [](const RegionStep& s) { return s.kind == K::kAcquire; });
  std::rotate(acq, acq + 1, acq + 3);  // move the acquire after its op
  ExpectViolation(acquire, "an acquire that does not sit right before its mutex's acquirer");

  Case dropped = Fixture();
  std::erase_if(dropped.m.region,
                [](const RegionStep& s) { return s.kind == K::kOp && s.op == 7; });
  ExpectViolation(dropped, "region lists z 0 times, not once");
}

TEST(MaterializePostconditions, TrivialFallbackFlag) {
  Case flagged = Fixture();
  flagged.m.trivial_fallback = true;
  ExpectViolation(flagged, "the trivial-fallback flag is set but no consumer-only pipe exists");
}

// The verifier, with its own rule (verify_values.cc), reports broken values
// under its materialization rule too.
TEST(MaterializePostconditions, VerifierReportsThemUnderMaterialization) {
  EXPECT_EQ(rule_name(Rule::kMaterialization), "materialization");
  const Case c = Fixture();
  Schedule s = c.s;
  attach_materialization(s, c.m);
  EXPECT_TRUE(verify_schedule(c.g, s).legal() ||
              !verify_schedule(c.g, s).violates(Rule::kMaterialization));
  s.pipes[0].depth = 5;
  const VerifyReport r = verify_schedule(c.g, s);
  ASSERT_TRUE(r.violates(Rule::kMaterialization));
  bool named = false;
  for (const Violation& v : r.violations) {
    named =
        named || (v.rule == Rule::kMaterialization &&
                  v.message.find("Pipe_0 (la, lb -> w): depth 5, expected 1") != std::string::npos);
  }
  EXPECT_TRUE(named);
  // Through the schedule JSON: a pipe deleted from the text.
  Schedule clean = c.s;
  clean.graph = c.g.name;  // the reader refuses a schedule of another graph
  attach_materialization(clean, c.m);
  std::string text = write_schedule_json(c.g, clean);
  const size_t at = text.find("    {\"id\": \"Pipe_4\"");
  ASSERT_NE(at, std::string::npos) << text;
  text.erase(at, text.find('\n', at) + 1 - at);
  text.replace(text.rfind("},\n", at), 3, "}\n");  // the new last element takes no comma
  StatusOr<Schedule> read = parse_schedule_json(text, "cut.json", c.g);
  ASSERT_TRUE(read.ok()) << read.status().message() << "\n" << text;
  EXPECT_TRUE(verify_schedule(c.g, *read).violates(Rule::kMaterialization));
  // A schedule without values is not asked about them.
  EXPECT_FALSE(verify_schedule(c.g, c.s).violates(Rule::kMaterialization));
}

}  // namespace
}  // namespace tilesched
