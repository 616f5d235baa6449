// The region dump: golden text for every bundled graph and for one graph
// of each warp-specialized family (engine/testdata/regions/graphs: made by
// `tilesched generate --family F --ops 24` with the parameters each graph's
// name records and kind_latencies=1 (docs/MATERIALIZE.md has the exact
// list), and a ping-pong variant of
// warp_specialized whose two consumer warp groups are named agents) (the schedule
// `tilesched schedule G` produces, generator chosen by the selector), the
// GEMM mainloop's TMA pipes and loop-carried accumulator under both
// generators, symbol quoting, and the infeasible case.
//
// The goldens live in engine/testdata/regions/NAME.region.txt. They change
// whenever a generator changes a schedule; regenerate them deliberately,
// read the diff, and commit it with the generator change:
//
//   TILESCHED_UPDATE_GOLDEN=1 build/<dir>/engine/engine_tests
//       --gtest_filter='MaterializeRegion.GoldenDumps'
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tilesched/agents.h"
#include "tilesched/generate.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/materialize.h"
#include "tilesched/verify.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string DumpOf(const Graph& g, const GenerateOptions& opts) {
  StatusOr<Schedule> s = generate_schedule(g, opts);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return "";
  return dump_region(g, *s, carried_materialization(g, *s));
}

// On the hopper target a unit of time is 16 SM cycles: the dump says so.
TEST(MaterializeRegion, HopperTimesNameTheirUnit) {
  GraphBuilder b(hopper_target(), "hopper units");
  const OpId l = b.op("l", "tiled_tma_load");
  const OpId m = b.op("m", "wgmma");
  b.edge(l, m);
  StatusOr<Graph> g = b.build();
  ASSERT_TRUE(g.ok()) << g.status().message();
  GenerateOptions opts;
  opts.generator = GeneratorKind::kSerial;
  const std::string dump = DumpOf(*g, opts);
  EXPECT_NE(dump.find(" (units of 16 cycles: "), std::string::npos) << dump;
  EXPECT_NE(dump.find("^stage0:  // units [0, "), std::string::npos) << dump;
  EXPECT_NE(dump.find("): cycles [0, "), std::string::npos) << dump;
}

TEST(MaterializeRegion, GoldenDumps) {
  const bool update = std::getenv("TILESCHED_UPDATE_GOLDEN") != nullptr;
  const fs::path dir = fs::path(TILESCHED_TESTDATA_DIR) / "regions";
  int compared = 0;
  std::vector<fs::path> files;
  for (const fs::path& from : {fs::path(TILESCHED_EXAMPLES_DIR), dir / "graphs"}) {
    for (const auto& entry : fs::directory_iterator(from)) {
      if (entry.path().string().ends_with(".loop.json")) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    const std::string name = file.filename().string();
    const fs::path golden = dir / (name.substr(0, name.size() - 10) + ".region.txt");
    SCOPED_TRACE(golden.string());
    StatusOr<Graph> g = read_graph_file(file.string());
    ASSERT_TRUE(g.ok()) << g.status().message();
    const std::string dump = DumpOf(*g, GenerateOptions{});
    if (update) {
      std::ofstream(golden, std::ios::binary) << dump;
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << "missing; see the top of this file to create it";
    EXPECT_EQ(dump, Slurp(golden)) << "regenerate deliberately: see the top of this file";
    ++compared;
  }
  if (!update) {
    EXPECT_GE(compared, 12);
  }
}

// The warp-specialized graphs under each generator: the schedule carries
// every op's agent and every pipe's, is legal, and reads back equal; the
// ping-pong graph has three agents and its release barriers take one
// pipe per consumer warp group.
TEST(MaterializeRegion, WarpSpecializedSchedulesCarryAgentsAndRoundTrip) {
  const fs::path dir = fs::path(TILESCHED_TESTDATA_DIR) / "regions" / "graphs";
  for (const char* name : {"warp_specialized", "fa3_forward", "fa4_forward", "persistent_gemm",
                           "warp_specialized_pingpong"}) {
    StatusOr<Graph> g = read_graph_file((dir / (std::string(name) + ".loop.json")).string());
    ASSERT_TRUE(g.ok()) << g.status().message();
    for (GeneratorKind kind : {GeneratorKind::kSerial, GeneratorKind::kCostBased}) {
      SCOPED_TRACE(std::string(name) + " " + std::string(generator_name(kind)));
      GenerateOptions opts;
      opts.generator = kind;
      StatusOr<Schedule> s = generate_schedule(*g, opts);
      ASSERT_TRUE(s.ok() && s->feasible);
      ASSERT_EQ(s->agents.size(), g->ops.size());
      const AgentAssignment a = assign_agents(*g);
      EXPECT_GE(a.count(), 2);
      for (const Pipe& p : s->pipes) {
        EXPECT_EQ(p.consumer_agent, a.name_of(p.consumer)) << p.id;
        for (OpId u : p.producers) EXPECT_EQ(p.producer_agent, a.name_of(u)) << p.id;
      }
      EXPECT_TRUE(verify_schedule(*g, *s).legal());
      StatusOr<Schedule> back = parse_schedule_json(write_schedule_json(*g, *s), "s.json", *g);
      ASSERT_TRUE(back.ok()) << back.status().message();
      EXPECT_EQ(back->agents, s->agents);
      EXPECT_EQ(back->pipes, s->pipes);
      if (std::string(name) == "warp_specialized_pingpong") {
        EXPECT_EQ(a.names, (std::vector<std::string>{"producer", "consumer0", "consumer1"}));
        const OpId release = *g->find_op("release0");
        int into_release = 0;
        for (const Pipe& p : s->pipes) into_release += p.consumer == release ? 1 : 0;
        EXPECT_EQ(into_release, 2);
      }
    }
  }
}

// Whatever schedule a generator picks, the GEMM mainloop's dump shows each
// k-slice's two TMA loads producing into one pipe that the MMA's barrier
// wait consumes, and the accumulator reaching mma0 from the previous
// iteration through a loop-carried pipe.
TEST(MaterializeRegion, GemmMainloopShowsTmaPipesAndTheAccumulator) {
  StatusOr<Graph> g =
      read_graph_file(std::string(TILESCHED_EXAMPLES_DIR) + "/gemm_mainloop.loop.json");
  ASSERT_TRUE(g.ok()) << g.status().message();
  for (GeneratorKind kind : {GeneratorKind::kSerial, GeneratorKind::kCostBased}) {
    GenerateOptions opts;
    opts.generator = kind;
    StatusOr<Schedule> s = generate_schedule(*g, opts);
    ASSERT_TRUE(s.ok() && s->feasible);
    SCOPED_TRACE(s->generator);
    const std::string dump = dump_region(*g, *s, carried_materialization(*g, *s));
    const Pipe* tma0 = nullptr;
    const Pipe* acc = nullptr;
    for (const Pipe& p : s->pipes) {
      if (g->ops[p.consumer].name == "wait0") tma0 = &p;
      if (g->ops[p.consumer].name == "mma0" && p.producers.size() == 1 &&
          g->ops[p.producers[0]].name == "mma1") {
        acc = &p;
      }
    }
    ASSERT_NE(tma0, nullptr) << dump;
    ASSERT_NE(acc, nullptr) << dump;
    EXPECT_NE(
        dump.find("%" + tma0->id + " = tileas.pipe producers(@load_a0, @load_b0) consumer(@wait0)"),
        std::string::npos)
        << dump;
    EXPECT_NE(dump.find("tileas.pipe.produce %" + tma0->id + ", %load_a0\n"), std::string::npos);
    EXPECT_NE(dump.find("tileas.pipe.produce %" + tma0->id + ", %load_b0\n"), std::string::npos);
    EXPECT_NE(dump.find("%wait0 = tileas.mbarrier_wait(%" + tma0->id + ")"), std::string::npos)
        << dump;
    EXPECT_NE(dump.find("producers(@load_a1, @load_b1) consumer(@wait1)"), std::string::npos);
    EXPECT_NE(dump.find("%" + acc->id + " = tileas.pipe producers(@mma1) consumer(@mma0)"),
              std::string::npos);
    EXPECT_NE(dump.find("loop-carried from i-1"), std::string::npos);
    const size_t mma0 = dump.find("    %mma0 = tileas.wgmma(");
    ASSERT_NE(mma0, std::string::npos) << dump;
    const std::string line = dump.substr(mma0, dump.find('\n', mma0) - mma0);
    EXPECT_NE(line.find("%" + acc->id + "[i-1]"), std::string::npos) << line;
    EXPECT_NE(dump.find("tileas.mutex releaser(@free0) acquirer(@load_a0)"), std::string::npos);
  }
}

// One agent (the load is put in the consumer's): no agent_switch.
TEST(MaterializeRegion, StagesAreBlocksAndValuesAreSplicedIn) {
  GraphBuilder b(blackwell_target(), "two stages");
  const OpId l = b.op("l", "tiled_tma_load");
  const OpId r = b.op("my read", "smem_read");
  b.at(l).agent = "consumer";
  b.edge(l, r);
  b.edge(r, l, 0, 1, EdgeKind::kOrder);
  const Graph g = std::move(b.build()).value();
  Schedule s;
  s.feasible = true;
  s.generator = "hand";
  s.ii = 10;
  s.start = {0, 12};
  derive_stage_order(s);
  StatusOr<Materialization> m = materialize(g, s);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(dump_region(g, s, *m), R"(// graph "two stages", generator hand
// II 10, 2 stages, 2 ops, 1 pipe, 1 mutex
tileas.scheduled_region @"two stages" {ii = 10, stage_count = 2} {
  %Mutex_0 = tileas.mutex releaser(@"my read") acquirer(@l) {owner = @l, depth = 1}
  %Pipe_0 = tileas.pipe producers(@l) consumer(@"my read") {owner = @l, depth = 2}  // async, stage 0 -> 1
  ^stage0:  // cycles [0, 10)
    tileas.mutex.acquire %Mutex_0
    %l = tileas.tiled_tma_load() {start = 0, order = 0}
    tileas.pipe.produce %Pipe_0, %l
  ^stage1:  // cycles [10, 20)
    %"my read" = tileas.smem_read(%Pipe_0) {start = 12, order = 0}
    tileas.mutex.release %Mutex_0
}
)");
}

// Two agents: each stage is an agent_switch with one case per agent that
// runs an op there; the values name the agents they join.
TEST(MaterializeRegion, AgentSwitchPartitionsEachStage) {
  GraphBuilder b(blackwell_target(), "ws");
  const OpId l = b.op("l", "tiled_tma_load");
  const OpId w = b.op("w", "mbarrier_wait");
  const OpId x = b.op("x", "alu");
  const OpId f = b.op("f", "mbarrier_arrive");
  b.edge(l, w);
  b.edge(w, x);
  b.edge(x, f);
  b.edge(f, l, 0, 1, EdgeKind::kOrder);
  const Graph g = std::move(b.build()).value();
  Schedule s;
  s.feasible = true;
  s.generator = "hand";
  s.ii = 10;
  s.start = {0, 8, 12, 16};
  derive_stage_order(s);
  StatusOr<Materialization> m = materialize(g, s);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(dump_region(g, s, *m), R"(// graph ws, generator hand
// II 10, 2 stages, 4 ops, 2 pipes, 1 mutex
// 2 agents: producer, consumer
tileas.scheduled_region @ws {ii = 10, stage_count = 2} {
  %Mutex_0 = tileas.mutex releaser(@f) acquirer(@l) {owner = @l, depth = 1, agents = consumer -> producer}
  %Pipe_0 = tileas.pipe producers(@l) consumer(@w) {owner = @l, depth = 1, agents = producer -> consumer}  // async, across agents
  %Pipe_1 = tileas.pipe producers(@w) consumer(@x) {owner = @w, depth = 2, agents = consumer -> consumer}  // stage 0 -> 1
  ^stage0:  // cycles [0, 10)
    cute_nvgpu.arch.agent_switch {
    ^agent_producer:  // 1 op
      tileas.mutex.acquire %Mutex_0
      %l = tileas.tiled_tma_load() {start = 0, order = 0}
      tileas.pipe.produce %Pipe_0, %l
    ^agent_consumer:  // 1 op
      %w = tileas.mbarrier_wait(%Pipe_0) {start = 8, order = 1}
      tileas.pipe.produce %Pipe_1, %w
    }
  ^stage1:  // cycles [10, 20)
    cute_nvgpu.arch.agent_switch {
    ^agent_consumer:  // 2 ops
      %x = tileas.alu(%Pipe_1) {start = 12, order = 0}
      %f = tileas.mbarrier_arrive(%x) {start = 16, order = 1}
      tileas.mutex.release %Mutex_0
    }
}
)");
}

TEST(MaterializeRegion, InfeasibleScheduleSaysSo) {
  GraphBuilder b(blackwell_target(), "g");
  b.op("a", "alu");
  const Graph g = std::move(b.build()).value();
  Schedule s;
  s.generator = "serial";
  s.feasible = false;
  EXPECT_EQ(dump_region(g, s, Materialization{}),
            "// graph g, generator serial\n// no feasible schedule: nothing to materialize\n");
}

}  // namespace
}  // namespace tilesched
