// The reply checks (reply.h): each malformed reply is its failure kind, and
// a good one is a schedule of the graph with its fields derived.
#include "external/reply.h"

#include <gtest/gtest.h>

#include <string>

#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"

namespace tilesched::external {
namespace {

// a -> b (latency 2), on an inline target with one slot.
Graph two_ops() {
  StatusOr<Graph> g = parse_graph_json(R"({"format": "tilesched.loop/1", "name": "two",
    "target": {"name": "t", "slots": [{"name": "alu"}]},
    "ops": [{"id": "a", "kind": "generic", "latency": 2, "resources": [{"slot": 1, "duration": 1}]},
            {"id": "b", "kind": "generic", "latency": 1, "resources": [{"slot": 1, "duration": 1}]}],
    "edges": [{"from": "a", "to": "b"}]})", "two");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return *g;
}

std::string reply(const std::string& body) {
  return R"({"format": "tilesched.schedule/1", "graph": "two", )" + body + "}";
}

ForeignFailure kind_of(const std::string& text, int64_t ii_max = 10, int64_t max_stages = 0) {
  const Bounds b{2, ii_max, max_stages};
  return check_reply_json(text, two_ops(), b, "ext:t").failure;
}

const std::string kOps = R"("ops": [{"id": "a", "start": 0}, {"id": "b", "start": 2}])";

TEST(ForeignReply, AGoodReplyIsAScheduleWithDerivedFields) {
  const ForeignOutcome o = check_reply_json(reply(R"("ii": 2, )" + kOps), two_ops(), {2, 10, 0},
                                            "ext:t");
  ASSERT_EQ(o.failure, ForeignFailure::kNone) << o.message;
  ASSERT_TRUE(o.schedule);
  EXPECT_TRUE(o.schedule->feasible);
  EXPECT_EQ(o.schedule->generator, "ext:t");
  EXPECT_EQ(o.schedule->ii, 2);
  EXPECT_EQ(o.schedule->stage, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(o.schedule->stage_count, 2);
  EXPECT_EQ(o.schedule->mii.max(), 2);
}

TEST(ForeignReply, NoScheduleIsInfeasibleWithTheReason) {
  const ForeignOutcome o = check_reply_json(
      reply(R"("feasible": false, "ii": 0, "ops": [], "diagnostics": ["none found"])"),
      two_ops(), {2, 10, 0}, "ext:t");
  ASSERT_TRUE(o.schedule);
  EXPECT_FALSE(o.schedule->feasible);
  EXPECT_EQ(o.schedule->failure, FailureReason::kIiCapReached);
  EXPECT_EQ(o.schedule->diagnostics, (std::vector<std::string>{"none found"}));
}

TEST(ForeignReply, EachMalformedReplyIsItsKind) {
  EXPECT_EQ(kind_of(""), ForeignFailure::kEmpty);
  EXPECT_EQ(kind_of(" \n\t"), ForeignFailure::kEmpty);
  EXPECT_EQ(kind_of("II is 2"), ForeignFailure::kNotJson);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, )" + kOps).substr(0, 40)), ForeignFailure::kTruncated);
  EXPECT_EQ(kind_of(R"({"format": "tilesched.loop/1"})"), ForeignFailure::kFormat);
  EXPECT_EQ(kind_of("[1, 2]"), ForeignFailure::kFormat);
  EXPECT_EQ(kind_of(reply(kOps)), ForeignFailure::kFormat);                  // no ii
  EXPECT_EQ(kind_of(reply(R"("ii": 2.5, )" + kOps)), ForeignFailure::kFormat);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, "colour": 1, )" + kOps)), ForeignFailure::kFormat);
  EXPECT_EQ(kind_of(reply(R"("feasible": "no", "ii": 2, )" + kOps)), ForeignFailure::kFormat);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, "ops": [{"id": "a", "start": 0}, {"id": "a", "start": 1}])")),
            ForeignFailure::kFormat);                                        // a twice
  EXPECT_EQ(kind_of(R"({"format": "tilesched.schedule/1", "graph": "one", "ii": 2, )" + kOps + "}"),
            ForeignFailure::kOtherGraph);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, "ops": [{"id": "a", "start": 0}, {"id": "x", "start": 1}])")),
            ForeignFailure::kOtherGraph);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, "ops": [{"id": "a", "start": 0}])")), ForeignFailure::kOpCount);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, "ops": [{"id": "a", "start": -1}, {"id": "b", "start": 2}])")),
            ForeignFailure::kStart);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, "ops": [{"id": "a", "start": 1125899906842624},
                                               {"id": "b", "start": 2}])")),
            ForeignFailure::kStart);
  EXPECT_EQ(kind_of(reply(R"("ii": 0, )" + kOps)), ForeignFailure::kIi);
  EXPECT_EQ(kind_of(reply(R"("ii": 4294967296, )" + kOps)), ForeignFailure::kIi);
  EXPECT_EQ(kind_of(reply(R"("ii": 11, )" + kOps)), ForeignFailure::kIiCap);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, )" + kOps), 10, 1), ForeignFailure::kStageCap);
  EXPECT_EQ(kind_of(reply(R"("ii": 2, )" + kOps), 10, 2), ForeignFailure::kNone);
}

TEST(ForeignReply, TheOraclesClaimsAndValuesAreDropped) {
  const ForeignOutcome o = check_reply_json(
      reply(R"("ii": 2, "lower_bound": 2, "proven_optimal": true, )" + kOps), two_ops(),
      {2, 10, 0}, "ext:t");
  ASSERT_TRUE(o.schedule) << o.message;
  EXPECT_FALSE(o.schedule->proven_optimal);
  EXPECT_FALSE(o.schedule->lower_bound.has_value());
}

TEST(ForeignReply, ThePluginRouteSharesTheChecks) {
  const Graph g = two_ops();
  const int64_t good[] = {0, 2}, negative[] = {-1, 2};
  EXPECT_EQ(check_reply_values(2, good, g, {2, 10, 0}, "plugin:t").failure, ForeignFailure::kNone);
  EXPECT_EQ(check_reply_values(2, negative, g, {2, 10, 0}, "plugin:t").failure,
            ForeignFailure::kStart);
  EXPECT_EQ(check_reply_values(0, good, g, {2, 10, 0}, "plugin:t").failure, ForeignFailure::kIi);
  EXPECT_EQ(check_reply_values(12, good, g, {2, 10, 0}, "plugin:t").failure,
            ForeignFailure::kIiCap);
  EXPECT_EQ(check_reply_values(2, std::span<const int64_t>(good, 1), g, {2, 10, 0}, "plugin:t")
                .failure,
            ForeignFailure::kOpCount);
}

}  // namespace
}  // namespace tilesched::external
