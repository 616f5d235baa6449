// tilesched.schedule/1: the writer's exact text and key order, reading
// back with derived stage/order, parse(write(s)) == s for feasible and
// infeasible schedules (with materialized pipes and mutexes too), pipes and
// mutexes in docs/FORMATS.md's shape with their edges derived on reading,
// and every file of engine/testdata/bad_schedules refused at its JSON path
// against engine/testdata/small.loop.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "tilesched/json_io.h"
#include "tilesched/limits.h"
#include "tilesched/materialize.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

const std::string kTestdata = TILESCHED_TESTDATA_DIR;

Graph SmallGraph() {
  StatusOr<Graph> g = read_graph_file(kTestdata + "/small.loop.json");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? *g : Graph{};
}

// The schedule of small.loop.json that testdata/small.schedule.json holds.
Schedule SmallSchedule() {
  Schedule s;
  s.graph = "small";
  s.generator = "cost-based";
  s.options = {{"arm_policy", "first-success"}, {"ii_cap", "64"}};
  s.selection = "cost-based: graph has a recurrence";
  s.feasible = true;
  s.ii = 16;
  s.mii = MiiBounds{8, 16, 8, 1};
  s.start = {0, 8, 24};
  derive_stage_order(s);
  s.flags = {"async"};
  s.diagnostics = {"note: \"quoted\"\nand a newline", "ü"};
  s.time_ns = 41250;
  return s;
}

void ExpectRefused(const Status& s, const std::string& source, const std::string& path,
                   const std::string& needle) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  const std::string& m = s.message();
  EXPECT_EQ(m.rfind(source + ": " + path + ": ", 0), 0u) << m;
  EXPECT_NE(m.find(needle), std::string::npos) << "no \"" << needle << "\" in: " << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST(ScheduleJson, WritesTheDocumentedKeysInOrder) {
  const Graph g = SmallGraph();
  EXPECT_EQ(write_schedule_json(g, SmallSchedule()), R"({
  "format": "tilesched.schedule/1",
  "graph": "small",
  "generator": "cost-based",
  "options": {"arm_policy": "first-success", "ii_cap": "64"},
  "selection": "cost-based: graph has a recurrence",
  "feasible": true,
  "ii": 16,
  "mii": {"resource": 8, "recurrence": 16, "fine_density": 8, "dependency": 1, "max": 16},
  "stage_count": 2,
  "ops": [
    {"id": "load", "start": 0, "stage": 0, "order": 0},
    {"id": "mma", "start": 8, "stage": 0, "order": 1},
    {"id": "store", "start": 24, "stage": 1, "order": 0}
  ],
  "pipes": [],
  "mutexes": [],
  "flags": ["async"],
  "diagnostics": ["note: \"quoted\"\nand a newline", "ü"],
  "time_ns": 41250
}
)");
}

// SmallSchedule with its values: load -> mma (TMA), mma -> mma (the
// accumulator, loop-carried), mma -> store (stage 1); plus a hand-made
// mutex store -> load, for the shape (small.loop.json has no order edge).
Schedule SmallMaterialized(const Graph& g) {
  Schedule s = SmallSchedule();
  StatusOr<Materialization> m = materialize(g, s);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (m.ok()) attach_materialization(s, *m);
  Mutex mx;
  mx.id = "Mutex_0";
  mx.releaser = 2;
  mx.acquirer = 0;
  mx.owner = 0;
  mx.depth = 1;
  s.mutexes.push_back(mx);
  return s;
}

// A schedule names its graph; one of another graph is refused at $.graph
// even when its op ids match (verify and draw.py read through here).
TEST(ScheduleJson, ScheduleOfAnotherGraphIsRefusedAtItsGraphName) {
  const Graph g = SmallGraph();
  Schedule s = SmallSchedule();
  EXPECT_TRUE(parse_schedule_json(write_schedule_json(g, s), "s.json", g).ok());
  s.graph = "other";
  ExpectRefused(parse_schedule_json(write_schedule_json(g, s), "s.json", g).status(), "s.json",
                "$.graph", "the schedule is of graph \"other\", not of \"small\"");
}

TEST(ScheduleJson, WritesPipesAndMutexesInTheSpecShape) {
  const Graph g = SmallGraph();
  const std::string text = write_schedule_json(g, SmallMaterialized(g));
  EXPECT_NE(text.find(R"(  "pipes": [
    {"id": "Pipe_0", "producers": ["load"], "consumer": "mma", "owner": "load", "depth": 1, "producer_agent": "producer", "consumer_agent": "consumer"},
    {"id": "Pipe_1", "producers": ["mma"], "consumer": "mma", "owner": "mma", "depth": 2, "producer_agent": "consumer", "consumer_agent": "consumer"},
    {"id": "Pipe_2", "producers": ["mma"], "consumer": "store", "owner": "mma", "depth": 2, "producer_agent": "consumer", "consumer_agent": "consumer"}
  ],
  "mutexes": [
    {"id": "Mutex_0", "releaser": "store", "acquirer": "load", "owner": "load", "depth": 1}
  ],
)"),
            std::string::npos)
      << text;
}

TEST(ScheduleJson, ReadsPipesAndDerivesTheirEdges) {
  const Graph g = SmallGraph();
  StatusOr<Schedule> s = parse_schedule_json(R"({"format": "tilesched.schedule/1", "ii": 16,
      "ops": [{"id": "load", "start": 0}, {"id": "mma", "start": 8}, {"id": "store", "start": 24}],
      "pipes": [{"id": "Pipe_0", "producers": ["mma"], "consumer": "mma", "owner": "mma", "depth": 2},
                {"id": "P", "producers": [], "consumer": "store", "owner": "store", "depth": 0}],
      "mutexes": [{"id": "Mutex_0", "releaser": "store", "acquirer": "load", "owner": "load",
                   "depth": 3}]})",
                                             "p.json", g);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->pipes.size(), 2u);
  EXPECT_EQ(s->pipes[0].producers, std::vector<OpId>{1});
  EXPECT_EQ(s->pipes[0].edges, std::vector<int>{2});  // mma -> mma, distance 1
  EXPECT_EQ(s->pipes[1].id, "P");                     // read as written; the verifier judges
  EXPECT_TRUE(s->pipes[1].edges.empty());             // no edge into store is not live
  EXPECT_EQ(s->pipes[1].depth, 0);
  ASSERT_EQ(s->mutexes.size(), 1u);
  EXPECT_EQ(s->mutexes[0].releaser, 2);
  EXPECT_EQ(s->mutexes[0].depth, 3);
  EXPECT_TRUE(s->mutexes[0].edges.empty());  // small.loop.json has no order edge
}

// Agents: on every op or on none (a file from before agents), read as
// written; a pipe's two agents likewise.
TEST(ScheduleJson, ReadsAgentsOnEveryOpOrNone) {
  const Graph g = SmallGraph();
  StatusOr<Schedule> s = parse_schedule_json(R"({"format": "tilesched.schedule/1", "ii": 16,
      "ops": [{"id": "load", "start": 0, "agent": "producer"},
              {"id": "mma", "start": 8, "agent": "consumer"},
              {"id": "store", "start": 24, "agent": "elsewhere"}],
      "pipes": [{"id": "Pipe_0", "producers": ["mma"], "consumer": "mma", "owner": "mma",
                 "depth": 2, "producer_agent": "consumer", "consumer_agent": "x"}]})",
                                             "a.json", g);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->agents, (std::vector<std::string>{"producer", "consumer", "elsewhere"}));
  EXPECT_EQ(s->pipes[0].producer_agent, "consumer");
  EXPECT_EQ(s->pipes[0].consumer_agent, "x");  // read as written; the verifier judges

  StatusOr<Schedule> none = parse_schedule_json(R"({"format": "tilesched.schedule/1", "ii": 16,
      "ops": [{"id": "load", "start": 0}, {"id": "mma", "start": 8}, {"id": "store", "start": 24}]})",
                                                "none.json", g);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_TRUE(none->agents.empty());

  StatusOr<Schedule> some = parse_schedule_json(R"({"format": "tilesched.schedule/1", "ii": 16,
      "ops": [{"id": "load", "start": 0, "agent": "producer"}, {"id": "mma", "start": 8},
              {"id": "store", "start": 24}]})",
                                                "some.json", g);
  ASSERT_FALSE(some.ok());
  EXPECT_NE(some.status().message().find(
                "$.ops: either every op or none names its \"agent\" (1 of 3 do)"),
            std::string::npos)
      << some.status().message();
}

TEST(ScheduleJson, WritesInfeasibleSchedulesWithTheirReason) {
  const Graph g = SmallGraph();
  Schedule s;
  s.graph = "small";
  s.generator = "serial";
  s.feasible = false;
  s.failure = FailureReason::kIiCapReached;
  s.mii = MiiBounds{8, 16, 8, 1};
  const std::string text = write_schedule_json(g, s);
  EXPECT_NE(text.find("  \"feasible\": false,\n  \"failure\": \"ii-cap-reached\",\n  \"ii\": 0,\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  \"ops\": [],\n"), std::string::npos) << text;
  EXPECT_EQ(write_schedule_json(g, SmallSchedule()).find("\"failure\""), std::string::npos);
}

TEST(ScheduleJson, RoundTripsFeasibleAndInfeasibleSchedules) {
  const Graph g = SmallGraph();
  std::vector<Schedule> schedules;
  schedules.push_back(SmallSchedule());
  schedules.push_back(SmallMaterialized(g));
  Schedule later = SmallSchedule();  // several stages, recorded order kept
  later.ii = 9;
  later.start = {40, 3, 21};
  later.options.clear();
  later.flags.clear();
  derive_stage_order(later);
  schedules.push_back(later);
  for (FailureReason r :
       {FailureReason::kNone, FailureReason::kDependenceCycle, FailureReason::kStorageBudget,
        FailureReason::kIiCapReached, FailureReason::kBudgetExhausted}) {
    Schedule none;
    none.graph = "small";
    none.generator = "exact";
    none.feasible = false;
    none.failure = r;
    none.diagnostics = {"gave up"};
    schedules.push_back(none);
  }
  Schedule partial = schedules.back();  // infeasible but with a last attempt recorded
  partial.ii = 12;
  partial.start = {0, 12, 30};
  derive_stage_order(partial);
  schedules.push_back(partial);
  for (const Schedule& s : schedules) {
    const std::string text = write_schedule_json(g, s);
    StatusOr<Schedule> back = parse_schedule_json(text, "s.json", g);
    ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << text;
    EXPECT_EQ(*back, s) << text;
    EXPECT_EQ(write_schedule_json(g, *back), text);
  }
}

TEST(ScheduleJson, DerivesWhatIsLeftOut) {
  const Graph g = SmallGraph();
  // Ops in any order; stage, order and stage_count derived from ii and start.
  StatusOr<Schedule> s = parse_schedule_json(R"({"format": "tilesched.schedule/1", "ii": 10,
      "ops": [{"id": "store", "start": 25}, {"id": "load", "start": 0}, {"id": "mma", "start": 8}]})",
                                             "min.json", g);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->graph, "small");
  EXPECT_TRUE(s->feasible);
  EXPECT_EQ(s->failure, FailureReason::kNone);
  EXPECT_EQ(s->ii, 10);
  EXPECT_EQ(s->start, (std::vector<int64_t>{0, 8, 25}));
  EXPECT_EQ(s->stage, (std::vector<int64_t>{0, 0, 2}));
  EXPECT_EQ(s->order, (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(s->stage_count, 3);
  EXPECT_EQ(s->mii, MiiBounds{});
  EXPECT_TRUE(s->options.empty());
  EXPECT_EQ(s->time_ns, 0);
}

TEST(ScheduleJson, KeepsRecordedValuesThatDisagree) {
  // `verify` reports wrong stage/order/stage_count, so the reader keeps them.
  const Graph g = SmallGraph();
  StatusOr<Schedule> s = parse_schedule_json(R"({"format": "tilesched.schedule/1", "ii": 16,
      "stage_count": 7, "ops": [{"id": "load", "start": 0, "stage": 3},
      {"id": "mma", "start": 8, "order": 5}, {"id": "store", "start": 24}]})",
                                             "odd.json", g);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->stage, (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(s->order, (std::vector<int64_t>{0, 5, 0}));
  EXPECT_EQ(s->stage_count, 7);
}

TEST(ScheduleJson, ReadsTheBundledSchedule) {
  const Graph g = SmallGraph();
  StatusOr<Schedule> s = read_schedule_file(kTestdata + "/small.schedule.json", g);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->generator, "hand-written");
  EXPECT_EQ(s->ii, 16);
  EXPECT_EQ(s->start, (std::vector<int64_t>{0, 8, 24}));
  EXPECT_EQ(s->stage_count, 2);
  EXPECT_EQ(s->mii.max(), 16);
  StatusOr<Schedule> missing = read_schedule_file(kTestdata + "/none.schedule.json", g);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
}

TEST(ScheduleJson, LimitsOnStartAndIi) {
  const Graph g = SmallGraph();
  auto doc = [](const std::string& ii, const std::string& start) {
    return R"({"format": "tilesched.schedule/1", "ii": )" + ii +
           R"(, "ops": [{"id": "load", "start": 0}, {"id": "mma", "start": )" + start +
           R"(}, {"id": "store", "start": 24}]})";
  };
  StatusOr<Schedule> at_limit =
      parse_schedule_json(doc("2147483647", "1099511627776"), "s.json", g);
  ASSERT_TRUE(at_limit.ok()) << at_limit.status().message();
  EXPECT_EQ(at_limit->start[1], limits::kMaxStart);
  EXPECT_EQ(at_limit->ii, limits::kMaxII);
  ExpectRefused(parse_schedule_json(doc("2147483648", "8"), "s.json", g).status(), "s.json", "$.ii",
                "2147483648 is out of range 1..2147483647");
  ExpectRefused(parse_schedule_json(doc("16", "1099511627777"), "s.json", g).status(), "s.json",
                "$.ops[1].start", "1099511627777 is out of range 0..1099511627776");
}

struct BadCase {
  const char* path;
  const char* needle;
};

const std::map<std::string, BadCase>& BadSchedules() {
  static const std::map<std::string, BadCase> cases = {
      {"bad_json", {"$", "invalid JSON"}},
      {"deep_nesting", {"$", "nesting deeper than 64 levels"}},
      {"duplicate_key", {"$.ii", "duplicate key \"ii\""}},
      {"duplicate_op", {"$.ops[2].id", "op \"load\" is listed twice (first at $.ops[0])"}},
      {"failure_unknown",
       {"$.failure", "unknown failure reason \"gave-up\" (expected one of: none, "}},
      {"flags_not_strings", {"$.flags[0]", "expected a string, got number 3"}},
      {"float_start",
       {"$.ops[0].start", "expected an integer (no fraction or exponent), got number 0.5"}},
      {"ii_over_limit", {"$.ii", "2147483648 is out of range 1..2147483647"}},
      {"ii_wrong_type", {"$.ii", "expected an integer, got string \"16\""}},
      {"lower_bound_above_ii", {"$.lower_bound", "17 is above the schedule's ii 16"}},
      {"proven_below_bound",
       {"$.proven_optimal", "a proven optimum needs a feasible schedule with lower_bound"}},
      {"proven_not_bool", {"$.proven_optimal", "expected true or false, got number 1"}},
      {"ii_zero", {"$.ii", "0 is out of range 1..2147483647"}},
      {"ii_zero_with_ops", {"$.ii", "a schedule with ops needs ii >= 1"}},
      {"mii_max_mismatch", {"$.mii.max", "8 is not the largest of the four bounds (16)"}},
      {"missing_format", {"$", "missing required field \"format\""}},
      {"missing_ii", {"$", "missing required field \"ii\""}},
      {"missing_op",
       {"$.ops", "op \"mma\" is missing (every op of graph \"small\" needs a start)"}},
      {"missing_ops", {"$", "missing required field \"ops\""}},
      {"missing_start", {"$.ops[0]", "missing required field \"start\""}},
      {"mutex_negative_depth", {"$.mutexes[0].depth", "-1 is out of range"}},
      {"mutexes_not_array", {"$.mutexes", "expected an array, got object"}},
      {"negative_stage", {"$.ops[0].stage", "-1 is out of range"}},
      {"negative_start", {"$.ops[0].start", "-1 is out of range 0..1099511627776"}},
      {"not_an_object", {"$", "expected an object, got string"}},
      {"ops_wrong_type", {"$.ops", "expected an array, got object"}},
      {"options_not_strings", {"$.options.arm_policy", "expected a string, got number 1"}},
      {"pipe_missing_owner", {"$.pipes[0]", "missing required field \"owner\""}},
      {"pipe_unknown_field",
       {"$.pipes[0].edges",
        "unknown field (expected one of: id, producers, consumer, owner, depth, producer_agent, "
        "consumer_agent)"}},
      {"pipe_unknown_op",
       {"$.pipes[0].producers[0]", "unknown op id \"nope\" (not in graph \"small\")"}},
      {"pipes_not_array", {"$.pipes", "expected an array, got object"}},
      {"start_over_limit", {"$.ops[1].start", "1099511627777 is out of range 0..1099511627776"}},
      {"start_overflow", {"$.ops[2].start", "99999999999999999999999 does not fit in 64 bits"}},
      {"unknown_field", {"$.extra", "unknown field"}},
      {"unknown_op", {"$.ops[2].id", "unknown op id \"epilogue\" (not in graph \"small\")"}},
      {"unknown_op_field",
       {"$.ops[0].cycle", "unknown field (expected one of: id, start, stage, order, agent)"}},
      {"wrong_format", {"$.format", "expected \"tilesched.schedule/1\", got \"tilesched.loop/1\""}},
  };
  return cases;
}

TEST(ScheduleJson, EveryBadScheduleIsRefusedAtItsPath) {
  const Graph g = SmallGraph();
  const std::string dir = kTestdata + "/bad_schedules";
  const std::string suffix = ".schedule.json";
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(suffix)) names.push_back(name.substr(0, name.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  ASSERT_GE(names.size(), 25u);
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    auto it = BadSchedules().find(name);
    ASSERT_NE(it, BadSchedules().end()) << "add " << name << " to BadSchedules()";
    const std::string file = dir + "/" + name + suffix;
    StatusOr<Schedule> s = read_schedule_file(file, g);
    ASSERT_FALSE(s.ok()) << "accepted";
    EXPECT_EQ(s.status().message().rfind(file + ": $", 0), 0u) << s.status().message();
    ExpectRefused(s.status(), file, it->second.path, it->second.needle);
  }
  for (const auto& [name, c] : BadSchedules()) {
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), name)) << "missing file " << name;
  }
}

}  // namespace
}  // namespace tilesched
