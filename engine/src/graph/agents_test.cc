// The agent (warp-role) assignment: the default rule by kind, barrier ops
// following their copies, explicit agents, a target without copy kinds,
// and the names a loop file may use.
#include "tilesched/agents.h"
#include "tilesched/graph_builder.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tilesched/json_io.h"

namespace tilesched {
namespace {

std::vector<std::string> Names(const Graph& g) {
  const AgentAssignment a = assign_agents(g);
  std::vector<std::string> out;
  for (OpId v = 0; v < g.op_count(); ++v) out.push_back(a.name_of(v));
  return out;
}

// A warp-specialized mainloop: the empty wait and the loads are the
// producer's, the full wait, the MMA and the release the consumer's.
TEST(Agents, DefaultsFollowTheKindAndTheBarriersFollowTheirCopies) {
  GraphBuilder b(blackwell_target(), "ws");
  const OpId empty = b.op("empty", "mbarrier_wait");
  const OpId la = b.op("la", "tiled_tma_load");
  const OpId lb = b.op("lb", "cp_async");
  const OpId arrive = b.op("arrive", "mbarrier_arrive");  // the copies' arrival
  const OpId full = b.op("full", "mbarrier_wait");
  const OpId mma = b.op("mma", "wgmma");
  const OpId release = b.op("release", "mbarrier_arrive");
  const OpId store = b.op("store", "tma_store");
  b.edge(empty, la, 0, 0, EdgeKind::kOrder);
  b.edge(empty, lb, 0, 0, EdgeKind::kOrder);
  b.edge(la, arrive);
  b.edge(lb, arrive);
  b.edge(la, full);
  b.edge(full, mma, 0, 0, EdgeKind::kOrder);
  b.edge(la, mma);
  b.edge(mma, release);
  b.edge(release, empty, 0, 2, EdgeKind::kOrder);
  b.edge(mma, store);
  const Graph g = std::move(b.build()).value();
  const AgentAssignment a = assign_agents(g);
  EXPECT_EQ(a.names, (std::vector<std::string>{"producer", "consumer"}));
  EXPECT_EQ(a.name_of(empty), "producer");
  EXPECT_EQ(a.name_of(la), "producer");
  EXPECT_EQ(a.name_of(lb), "producer");
  EXPECT_EQ(a.name_of(arrive), "producer");
  EXPECT_EQ(a.name_of(full), "consumer");     // its successor is the MMA
  EXPECT_EQ(a.name_of(mma), "consumer");
  EXPECT_EQ(a.name_of(release), "consumer");  // fed by the MMA
  EXPECT_EQ(a.name_of(store), "consumer");    // the epilogue
}

TEST(Agents, ABarrierWithMixedOrNoNeighboursIsTheConsumers) {
  GraphBuilder b(blackwell_target(), "mixed");
  const OpId l = b.op("l", "tiled_tma_load");
  const OpId x = b.op("x", "alu");
  const OpId w = b.op("w", "mbarrier_wait");
  const OpId arrive = b.op("arrive", "mbarrier_arrive");
  const OpId lone = b.op("lone", "mbarrier_wait");
  b.edge(w, l, 0, 0, EdgeKind::kOrder);
  b.edge(w, x);
  b.edge(l, arrive);
  b.edge(x, arrive);
  b.edge(lone, lone, 1, 1);  // a loop-carried self edge ties it to nothing
  const Graph g = std::move(b.build()).value();
  EXPECT_EQ(Names(g), (std::vector<std::string>{"producer", "consumer", "consumer", "consumer",
                                                "consumer"}));
}

TEST(Agents, ExplicitAgentsWinAndBarriersFollowRenamedCopies) {
  GraphBuilder b(blackwell_target(), "pingpong");
  const OpId empty = b.op("empty", "mbarrier_wait");
  const OpId l = b.op("l", "tiled_tma_load");
  const OpId m0 = b.op("m0", "wgmma");
  const OpId m1 = b.op("m1", "wgmma");
  b.at(l).agent = "loader";
  b.at(m0).agent = "consumer0";
  b.at(m1).agent = "consumer1";
  b.edge(empty, l, 0, 0, EdgeKind::kOrder);
  b.edge(l, m0);
  b.edge(l, m1);
  const Graph g = std::move(b.build()).value();
  const AgentAssignment a = assign_agents(g);
  EXPECT_EQ(a.names, (std::vector<std::string>{"loader", "consumer0", "consumer1"}));
  EXPECT_EQ(a.of_op, (std::vector<int>{0, 0, 1, 2}));
}

// Past the first eight names the assignment indexes them: the names stay
// in order of first use by op id, each op with its own.
TEST(Agents, ManyExplicitAgentsKeepTheirOrderOfFirstUse) {
  const Target t = make_generic_target("t", {{"alu", 4, false}}, {});
  GraphBuilder b(t, "many");
  std::vector<std::string> want_names;
  std::vector<int> want_of_op;
  for (int v = 0; v < 30; ++v) {
    const int agent = (v * 7) % 13;  // 13 agents, first used in a scrambled order
    const std::string name = "w" + std::to_string(agent);
    b.at(b.generic("op" + std::to_string(v), 1, {{1, 1, 1}})).agent = name;
    const auto it = std::find(want_names.begin(), want_names.end(), name);
    want_of_op.push_back(static_cast<int>(it - want_names.begin()));
    if (it == want_names.end()) want_names.push_back(name);
  }
  b.generic("plain", 1, {{1, 1, 1}});  // no agent: the consumer's
  want_of_op.push_back(static_cast<int>(want_names.size()));
  want_names.emplace_back("consumer");
  const Graph g = std::move(b).build().value();
  const AgentAssignment a = assign_agents(g);
  EXPECT_EQ(a.names, want_names);
  EXPECT_EQ(a.of_op, want_of_op);
}

TEST(Agents, AGenericTargetHasOneAgent) {
  const Target t = make_generic_target("t", {{"alu", 1, false}}, {});
  GraphBuilder b(t, "dsp");
  b.generic("a", 1, {{1, 1, 1}});
  b.generic("c", 1, {{1, 1, 1}});
  const Graph g = std::move(b.build()).value();
  EXPECT_EQ(assign_agents(g).names, (std::vector<std::string>{"consumer"}));
}

TEST(Agents, Names) {
  EXPECT_TRUE(valid_agent_name("producer"));
  EXPECT_TRUE(valid_agent_name("consumer_1"));
  EXPECT_TRUE(valid_agent_name("_x"));
  EXPECT_FALSE(valid_agent_name(""));
  EXPECT_FALSE(valid_agent_name("1st"));
  EXPECT_FALSE(valid_agent_name("warp group"));
  EXPECT_FALSE(valid_agent_name("a-b"));
  EXPECT_FALSE(valid_agent_name(std::string(65, 'a')));
  EXPECT_TRUE(valid_agent_name(std::string(64, 'a')));
}

// The loop file's optional "agent": read, validated, written back only
// where it was given.
TEST(Agents, AgentFieldIsReadValidatedAndWrittenOnlyWhereGiven) {
  const std::string text = R"({"format": "tilesched.loop/1", "name": "g", "target": "blackwell",
    "ops": [{"id": "l", "kind": "tiled_tma_load", "agent": "loader"}, {"id": "x", "kind": "alu"}],
    "edges": [{"from": "l", "to": "x"}]})";
  StatusOr<Graph> g = parse_graph_json(text, "g.json");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->ops[0].agent, std::optional<std::string>("loader"));
  EXPECT_EQ(g->ops[1].agent, std::nullopt);
  const std::string written = write_graph_json(*g);
  EXPECT_NE(written.find(R"("agent": "loader")"), std::string::npos) << written;
  EXPECT_EQ(written.find(R"("agent": "consumer")"), std::string::npos) << written;
  StatusOr<Graph> back = parse_graph_json(written, "back.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, *g);

  std::string bad = text;
  bad.replace(bad.find("loader"), 6, "2 bad");
  StatusOr<Graph> refused = parse_graph_json(bad, "bad.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("$.ops[0].agent"), std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace tilesched
