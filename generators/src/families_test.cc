// Tests for the family registry: the list, parameter handling, recorded
// names, determinism (a golden hash per family), distinct seeds (random and
// structured families), what the seed draws and what a parameter fixes,
// the op count tolerance, and validity (every family at several sizes and
// seeds gets serial and cost-based schedules that the verifier accepts).
#include "tilesched/graphgen/families.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/json_io.h"
#include "tilesched/serial.h"
#include "tilesched/validate.h"
#include "tilesched/verify.h"

namespace tilesched::graphgen {
namespace {

Graph make(std::string_view family, int ops, uint64_t seed, const ParamMap& params = {}) {
  StatusOr<Graph> g = generate(family, ops, seed, params);
  EXPECT_TRUE(g.ok()) << family << " ops " << ops << " seed " << seed << ": "
                      << g.status().message();
  return g.ok() ? std::move(g).value() : Graph{};
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// The parameters a generated graph's name records ("k=v" between the seed
// and the derived sizes), as `--param` would give them.
ParamMap params_in_name(const Family& f, const std::string& name) {
  ParamMap out;
  for (const ParamSpec& p : f.params) {
    const std::string key = "/" + std::string(p.name) + "=";
    const size_t at = name.find(key);
    EXPECT_NE(at, std::string::npos) << name << " lacks " << p.name;
    if (at == std::string::npos) continue;
    out[std::string(p.name)] = std::stoll(name.substr(at + key.size()));
  }
  return out;
}

// Seeds 1-5 of `f` at `ops` give five graphs of distinct content (every
// field but the name).
void expect_five_distinct(const Family& f, int ops) {
  std::vector<Graph> seen;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Graph g = make(f.name, ops, seed);
    g.name.clear();
    for (size_t i = 0; i < seen.size(); ++i) {
      EXPECT_NE(g, seen[i]) << f.name << " ops " << ops << ": seed " << seed << " repeats seed "
                            << i + 1;
    }
    seen.push_back(std::move(g));
  }
}

// Serial and cost-based schedules of `g` exist and verify.
void expect_schedules(const Graph& g) {
  const Schedule serial = generate_serial(g);
  ASSERT_TRUE(serial.feasible) << g.name << ": serial " << failure_reason_name(serial.failure);
  const VerifyReport sr = verify_schedule(g, serial);
  EXPECT_TRUE(sr.legal()) << g.name << ": serial: " << sr.violations.front().message;
  GenerateOptions opts;
  opts.generator = GeneratorKind::kCostBased;
  StatusOr<Schedule> cb = generate_schedule(g, opts);
  ASSERT_TRUE(cb.ok()) << g.name << ": " << cb.status().message();
  ASSERT_TRUE(cb->feasible) << g.name << ": cost-based " << failure_reason_name(cb->failure);
  const VerifyReport cr = verify_schedule(g, *cb);
  EXPECT_TRUE(cr.legal()) << g.name << ": cost-based: " << cr.violations.front().message;
  EXPECT_LE(cb->ii, serial.ii) << g.name;
}

TEST(Families, ListHasSixOfEachKind) {
  int random = 0, structured = 0;
  std::set<std::string_view> names;
  bool structured_seen = false;
  for (const Family& f : families()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_EQ(find_family(f.name), &f);
    (f.kind == FamilyKind::kRandom ? random : structured) += 1;
    if (f.kind == FamilyKind::kStructured) structured_seen = true;
    EXPECT_FALSE(structured_seen && f.kind == FamilyKind::kRandom) << "random after structured";
    EXPECT_FALSE(f.description.empty());
    EXPECT_EQ(f.op_tolerance == 0, f.kind == FamilyKind::kRandom) << f.name;
    for (size_t i = 0; i < f.params.size(); ++i) {
      const ParamSpec& p = f.params[i];
      EXPECT_LE(p.min, p.default_value) << f.name << "." << p.name;
      EXPECT_LE(p.default_value, p.max) << f.name << "." << p.name;
      for (int64_t v : p.drawn) {
        EXPECT_TRUE(v >= p.min && v <= p.max) << f.name << "." << p.name << " draws " << v;
      }
      EXPECT_TRUE(p.drawn.empty() || f.kind == FamilyKind::kStructured) << f.name;
      EXPECT_FALSE(p.doc.empty());
      if (i > 0) {
        EXPECT_LT(f.params[i - 1].name, p.name) << f.name << ": not in name order";
      }
    }
  }
  EXPECT_GE(random, 6);
  EXPECT_GE(structured, 6);
  EXPECT_EQ(find_family("no_such_family"), nullptr);
}

TEST(Families, NameRecordsFamilySizeParamsAndSeed) {
  const Graph g = make("gemm_mainloop", 32, 1, {{"stages", 3}});
  EXPECT_EQ(g.name,
            "gemm_mainloop/ops=32/seed=1/kind_latencies=0/stages=3/tile_kib=32/k_tiles=6");
  const Graph r = make("chains", 10, 5);
  EXPECT_EQ(r.name,
            "chains/ops=10/seed=5/chains=2/close_per_mille=1000/cross_per_mille=100/lat_max=32/"
            "lat_min=4/max_distance=2");
}

TEST(Families, SeedWorkedExampleWithTheDesignsNumbersIsTheSeedsGraph) {
  Graph g = make("seed_worked_example", 4, 3, {{"kind_latencies", 1}, {"store_bytes", 16384}});
  StatusOr<Graph> seed = read_graph_file(std::string(TILESCHED_EXAMPLES_DIR) +
                                         "/seed_worked_example.loop.json");
  ASSERT_TRUE(seed.ok()) << seed.status().message();
  g.name = seed->name;
  EXPECT_EQ(g, *seed);
}

TEST(Families, ParameterErrorsNameTheParameter) {
  auto message = [](std::string_view family, int ops, const ParamMap& p) {
    StatusOr<Graph> g = generate(family, ops, 1, p);
    EXPECT_FALSE(g.ok());
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidInput);
    return g.ok() ? std::string() : g.status().message();
  };
  EXPECT_NE(message("nope", 10, {}).find("families: chains, "), std::string::npos);
  EXPECT_NE(message("chains", 10, {{"chainz", 2}}).find("unknown parameter 'chainz'"),
            std::string::npos);
  const std::string range = message("chains", 10, {{"chains", 0}});
  EXPECT_NE(range.find("chains=0 is out of range 1..64"), std::string::npos) << range;
  EXPECT_NE(range.find("lat_min (0..1024)"), std::string::npos) << range;
  EXPECT_NE(message("chains", 10, {{"lat_min", 9}, {"lat_max", 3}}).find("lat_min"),
            std::string::npos);
  EXPECT_NE(message("chains", 0, {}).find("ops 0 is out of range"), std::string::npos);
  EXPECT_NE(message("gemm_mainloop", 4, {}).find("ops 4 is out of range 5.."), std::string::npos);
  EXPECT_NE(message("grouped_gemm", 30, {{"groups", 8}}).find("smallest graph"),
            std::string::npos);

  const Family& chains = *find_family("chains");
  EXPECT_TRUE(parse_params(chains, {"chains=3", "lat_max=-1"}).ok());  // range checked later
  for (const char* kv : {"chains", "chains=", "chains=x", "chains=3x", "chains=1e3",
                         "chains=99999999999999999999"}) {
    StatusOr<ParamMap> p = parse_params(chains, {kv});
    ASSERT_FALSE(p.ok()) << kv;
    EXPECT_NE(p.status().message().find("parameters: chains (1..64)"), std::string::npos);
  }
  EXPECT_FALSE(parse_params(chains, {"chains=2", "chains=3"}).ok());
  StatusOr<ParamMap> resolved = resolve_params(chains, {{"chains", 7}}, 1);
  ASSERT_TRUE(resolved.ok());
  EXPECT_EQ(resolved->size(), chains.params.size());
  EXPECT_EQ(resolved->at("chains"), 7);
  EXPECT_EQ(resolved->at("lat_max"), 32);
}

TEST(Families, OpCountWithinTolerance) {
  for (const Family& f : families()) {
    for (int ops = f.min_ops; ops < f.min_ops + 70; ops += 3) {
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        const Graph g = make(f.name, ops, seed);
        EXPECT_LE(g.op_count(), ops) << g.name;
        EXPECT_GE(g.op_count(), ops - f.op_tolerance) << g.name;
      }
    }
  }
}

TEST(Families, SameSeedGivesTheSameGraph) {
  for (const Family& f : families()) {
    const std::string a = write_graph_json(make(f.name, 48, 11));
    const std::string b = write_graph_json(make(f.name, 48, 11));
    EXPECT_EQ(a, b) << f.name;
    StatusOr<Graph> back = parse_graph_json(a, "generated");
    ASSERT_TRUE(back.ok()) << f.name << ": " << back.status().message();
    EXPECT_EQ(write_graph_json(*back), a) << f.name;
  }
}

// One pinned hash per family (ops 24, seed 7, no parameter given): a change
// to a generator, or to the random stream it draws, shows up here. Update
// the table only on purpose, and say so in the commit.
TEST(Families, GoldenHashes) {
  const std::vector<std::pair<std::string_view, uint64_t>> golden = {
#include "families_golden.inc"
  };
  std::set<std::string_view> pinned;
  for (const auto& [name, hash] : golden) {
    pinned.insert(name);
    const std::string json = write_graph_json(make(name, 24, 7));
    EXPECT_EQ(fnv1a(json), hash) << name << " changed: new hash 0x" << std::hex << fnv1a(json);
  }
  for (const Family& f : families()) EXPECT_TRUE(pinned.count(f.name)) << f.name << " not pinned";
}

TEST(Families, DistinctSeedsGiveDistinctRandomGraphs) {
  for (const Family& f : families()) {
    if (f.kind != FamilyKind::kRandom) continue;
    std::set<std::string> seen;
    for (uint64_t seed = 0; seed < 8; ++seed) {
      Graph g = make(f.name, 32, seed);
      g.name.clear();
      EXPECT_TRUE(seen.insert(write_graph_json(g)).second) << f.name << " seed " << seed;
    }
  }
}

// Every size from the smallest up to 160 ops, then a few larger ones
// (FamiliesSlow goes on to 8192).
TEST(Families, SeedsOneToFiveGiveDistinctStructuredGraphsAtEverySize) {
  for (const Family& f : families()) {
    if (f.kind != FamilyKind::kStructured) continue;
    for (int ops = f.min_ops; ops <= 160; ++ops) expect_five_distinct(f, ops);
    for (int ops : {250, 512}) expect_five_distinct(f, ops);
  }
}

TEST(Families, AGivenParameterFixesWhatItNamesAndNothingElse) {
  for (const Family& f : families()) {
    if (f.kind != FamilyKind::kStructured) continue;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const Graph drawn = make(f.name, 48, seed);
      const ParamMap recorded = params_in_name(f, drawn.name);
      // Every parameter of the name given explicitly: the same graph.
      EXPECT_EQ(write_graph_json(make(f.name, 48, seed, recorded)), write_graph_json(drawn));
      // One parameter given: it takes the value given, every other one the
      // value it was drawn or defaulted to.
      for (const ParamSpec& p : f.params) {
        ParamMap expected = recorded;
        expected[std::string(p.name)] = p.min;
        const Graph fixed = make(f.name, 48, seed, {{std::string(p.name), p.min}});
        EXPECT_EQ(params_in_name(f, fixed.name), expected) << fixed.name;
      }
    }
  }
}

TEST(Families, KindLatenciesOneKeepsEveryKindsDefault) {
  for (const Family& f : families()) {
    if (f.kind != FamilyKind::kStructured) continue;
    for (uint64_t seed = 1; seed <= 5; ++seed) {
      const Graph g = make(f.name, 40, seed, {{"kind_latencies", 1}});
      for (const Op& op : g.ops) {
        Op fresh;
        fresh.kind = op.kind;
        apply_kind_defaults(g.target, fresh);
        EXPECT_EQ(op.latency, fresh.latency) << g.name << " " << op.name;
        EXPECT_EQ(op.resources, fresh.resources) << g.name << " " << op.name;
      }
    }
  }
}

TEST(Families, EveryFamilySchedulesAndVerifies) {
  for (const Family& f : families()) {
    for (int ops : {f.min_ops, 17, 40, 96}) {
      if (ops < f.min_ops) continue;
      for (uint64_t seed : {1, 2, 3}) {
        const Graph g = make(f.name, ops, seed);
        ASSERT_TRUE(validate_graph(g).ok()) << g.name;
        EXPECT_LE(serial_storage_bytes(g), 232448) << g.name;
        expect_schedules(g);
      }
    }
  }
}

TEST(Families, NonDefaultParametersScheduleAndVerify) {
  const std::vector<std::pair<std::string_view, ParamMap>> cases = {
      {"chains", {{"chains", 5}, {"max_distance", 4}, {"cross_per_mille", 600}}},
      {"constraint_heavy", {{"group_per_mille", 900}, {"max_depth_per_mille", 1000},
                            {"depth_max", 0}}},
      {"memory_bound", {{"max_distance", 8}, {"readers_max", 1}}},
      {"resource_saturated", {{"slots", 1}, {"max_duration", 9}, {"pooled_per_mille", 1000}}},
      {"series_parallel", {{"parallel_per_mille", 1000}, {"carried", 0}}},
      {"sparse_recurrent", {{"recurrence_per_mille", 2000}, {"lat_min", 0}, {"lat_max", 0}}},
      {"random_layered", {{"layers", 3}, {"back_edge_per_mille", 800}}},
      {"persistent_gemm", {{"epi_subtiles", 4}, {"tmem_buffers", 1}}},
      {"warp_specialized", {{"consumers", 1}, {"stages", 1}}},
      {"warp_specialized", {{"consumers", 4}, {"stages", 8}}},
      {"grouped_gemm", {{"groups", 1}}},
      {"grouped_gemm", {{"groups", 8}, {"skew_per_mille", 1000}}},
      {"gemm_mainloop", {{"tile_kib", 64}, {"stages", 8}}},
      {"fa4_forward", {{"kind_latencies", 1}, {"stages", 1}, {"tile_kib", 0}}},
      {"seed_worked_example", {{"store_bytes", 232448}}},
  };
  for (const auto& [name, params] : cases) {
    for (int ops : {60, 120}) expect_schedules(make(name, ops, 4, params));
  }
}

TEST(Families, SmemScaledIntoTheBudgetWhenManyTilesAreUnrolled) {
  const Graph g = make("gemm_mainloop", 500, 1, {{"tile_kib", 64}});
  EXPECT_LE(serial_storage_bytes(g), 232448);
  EXPECT_GT(serial_storage_bytes(g), 232448 * 9 / 10);
  EXPECT_GT(g.ops[0].store_bytes, 0);
}

// gemm_mainloop at 256 ops, seed 2: at its MII (1020) best-cost's seats
// spread over more stages than the SMEM budget (rule L4) allows and its
// refinement loop runs out of iterations, where first-success's seats hold.
// With the II capped at the MII, the policy fallback's whole attempt under
// first-success places it; best-cost alone (the fallback off) does not, and
// without the cap it had walked hundreds of IIs up before its descent came back.
// At full effort: at the default one the attempt's work budget runs out first.
TEST(Families, BestCostFallsBackToFirstSuccessWhereItsSeatsMissTheSmemBudget) {
  const Graph g = make("gemm_mainloop", 256, 2);
  GenerateOptions opts;
  opts.generator = GeneratorKind::kCostBased;
  opts.cost_based.arm_policy = ArmPolicy::kBestCost;
  opts.search.ii_cap = 1020;
  opts.cost_based.effort = Effort::kFull;  // the fallback's mechanism, without the work budgets
  opts.cost_based.ims_start = false;        // and without IMS's schedule to fall back on
  StatusOr<Schedule> s = generate_schedule(g, opts);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_TRUE(s->feasible) << failure_reason_name(s->failure);
  EXPECT_EQ(s->ii, 1020);
  EXPECT_TRUE(verify_schedule(g, *s).legal());
  opts.cost_based.policy_fallback = false;
  s = generate_schedule(g, opts);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_FALSE(s->feasible);
}

TEST(Families, GroupedGemmDealsTilesBySeed) {
  std::set<std::string> shapes;
  for (uint64_t seed = 0; seed < 6; ++seed) shapes.insert(make("grouped_gemm", 80, seed).name);
  EXPECT_GT(shapes.size(), 1u);
}

// Larger sizes (label generators-slow).
TEST(FamiliesSlow, SeedsOneToFiveGiveDistinctStructuredGraphsAtLargeSizes) {
  for (const Family& f : families()) {
    if (f.kind != FamilyKind::kStructured) continue;
    for (int ops : {1000, 2048, 8192}) expect_five_distinct(f, ops);
  }
}

TEST(FamiliesSlow, LargeGraphsScheduleAndVerify) {
  for (const Family& f : families()) {
    for (int ops : {200, 1000}) {
      const Graph g = make(f.name, ops, 5);
      const Schedule serial = generate_serial(g);
      ASSERT_TRUE(serial.feasible) << g.name;
      EXPECT_TRUE(verify_schedule(g, serial).legal()) << g.name;
      if (ops == 200) expect_schedules(g);
    }
  }
}

}  // namespace
}  // namespace tilesched::graphgen
