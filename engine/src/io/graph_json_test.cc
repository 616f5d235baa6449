// tilesched.loop/1: reading with defaults and overrides, writing without
// defaults, parse(write(g)) == g on varied graphs, the size and depth
// limits, the one-line error shape, and every file of the bad-input corpus
// (engine/testdata/bad) refused at its JSON path. Also file_io.cc.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "testing/test_files.h"
#include "tilesched/json_io.h"
#include "tilesched/limits.h"
#include "tilesched/validate.h"
#include "util/text.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

const std::string kBadDir = std::string(TILESCHED_TESTDATA_DIR) + "/bad";

// Expects a refusal "SOURCE: PATH: ..." containing `needle`, on one line.
void ExpectRefused(const Status& s, const std::string& source, const std::string& path,
                   const std::string& needle) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  const std::string& m = s.message();
  EXPECT_EQ(m.rfind(source + ": " + path + ": ", 0), 0u) << m;
  EXPECT_NE(m.find(needle), std::string::npos) << "no \"" << needle << "\" in: " << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(m.find('\r'), std::string::npos) << m;
}

StatusOr<Graph> Parse(const std::string& text) { return parse_graph_json(text, "t.json"); }

void ExpectParseRefused(const std::string& text, const std::string& path,
                        const std::string& needle) {
  StatusOr<Graph> g = Parse(text);
  ASSERT_FALSE(g.ok()) << "accepted: " << text.substr(0, 200);
  ExpectRefused(g.status(), "t.json", path, needle);
}

// A blackwell document with the given ops and edges arrays.
std::string Doc(const std::string& ops, const std::string& edges = "[]") {
  return R"({"format": "tilesched.loop/1", "target": "blackwell", "ops": )" + ops +
         R"(, "edges": )" + edges + "}";
}

constexpr const char* kSpecExample = R"({
  "format": "tilesched.loop/1",
  "name": "seed-worked-example",
  "target": "blackwell",
  "attrs": { "force_serial_execution": false },
  "ops": [
    { "id": "load",  "kind": "tiled_tma_load" },
    { "id": "write", "kind": "smem_write", "store_bytes": 16384 },
    { "id": "mma",   "kind": "wgmma" },
    { "id": "read",  "kind": "smem_read" },
    { "id": "fix",   "kind": "generic", "latency": 3,
      "resources": [ { "slot": 5, "duration": 2, "occupancy": 1 } ],
      "pools": { "tmem": 1 }, "leader_gid": 2, "max_depth": 3 }
  ],
  "edges": [
    { "from": "load", "to": "read", "latency": 8 },
    { "from": "mma",  "to": "mma",  "latency": 16, "distance": 1 }
  ]
})";

// ---- reading --------------------------------------------------------------

// Well-formed UTF-8 is what a JSON reader accepts: a name the builder lets
// through must survive write -> read. Overlong forms, surrogates and code
// points above U+10FFFF are refused like stray bytes (an overlong 4-byte
// sequence in a GraphML node id reached the writer: fuzz/regressions/
// fuzz_import/overlong-utf8-node-id).
TEST(GraphJson, Utf8IsWhatJsonReadersAccept) {
  EXPECT_TRUE(text::is_utf8("plain"));
  EXPECT_TRUE(text::is_utf8("caf\xC3\xA9"));              // U+00E9
  EXPECT_TRUE(text::is_utf8("\xE0\xA0\x80"));           // U+0800, the first 3-byte
  EXPECT_TRUE(text::is_utf8("\xED\x9F\xBF"));           // U+D7FF, below the surrogates
  EXPECT_TRUE(text::is_utf8("\xF0\x90\x80\x80"));       // U+10000, the first 4-byte
  EXPECT_TRUE(text::is_utf8("\xF4\x8F\xBF\xBF"));       // U+10FFFF, the last
  EXPECT_FALSE(text::is_utf8("a\xFF"));
  EXPECT_FALSE(text::is_utf8("\xC3"));                   // cut short
  EXPECT_FALSE(text::is_utf8("\xC0\xAF"));               // overlong 2-byte
  EXPECT_FALSE(text::is_utf8("\xE0\x9F\xBF"));           // overlong 3-byte
  EXPECT_FALSE(text::is_utf8("\xED\xA0\x80"));           // U+D800, a surrogate
  EXPECT_FALSE(text::is_utf8("\xF0\x89\x89\x89"));       // overlong 4-byte (the finding)
  EXPECT_FALSE(text::is_utf8("\xF4\x90\x80\x80"));       // above U+10FFFF
}

TEST(GraphJson, ReadsTheSpecExample) {
  StatusOr<Graph> g = Parse(kSpecExample);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->name, "seed-worked-example");
  EXPECT_EQ(g->target, blackwell_target());
  EXPECT_FALSE(g->attrs.force_serial_execution);
  ASSERT_EQ(g->op_count(), 5);
  const Op& load = g->ops[0];
  EXPECT_EQ(load.name, "load");
  EXPECT_EQ(load.kind, "tiled_tma_load");
  EXPECT_EQ(load.latency, 8);
  EXPECT_EQ(load.resources, (std::vector<Triple>{{12, 8, 1}, {16, 8, 1}}));
  EXPECT_TRUE(load.pools.empty());
  EXPECT_EQ(g->ops[1].store_bytes, 16384);
  EXPECT_EQ(g->ops[1].resources, (std::vector<Triple>{{16, 7, 1}}));
  EXPECT_EQ(g->ops[2].pools, (std::vector<PoolUse>{{1, 1}}));
  const Op& fix = g->ops[4];
  EXPECT_EQ(fix.latency, 3);
  EXPECT_EQ(fix.resources, (std::vector<Triple>{{5, 2, 1}}));
  EXPECT_EQ(fix.pools, (std::vector<PoolUse>{{1, 1}}));
  EXPECT_EQ(fix.gid, std::nullopt);
  EXPECT_EQ(fix.leader_gid, 2);
  EXPECT_EQ(fix.max_depth, 3);
  EXPECT_EQ(fix.store_bytes, 0);
  ASSERT_EQ(g->edge_count(), 2);
  EXPECT_EQ(g->edges[0], (Edge{0, 3, 8, 0, EdgeKind::kData}));
  EXPECT_EQ(g->edges[1], (Edge{2, 2, 16, 1, EdgeKind::kData}));
}

TEST(GraphJson, DefaultsForNameAttrsAndEdges) {
  StatusOr<Graph> g = Parse(R"({"format": "tilesched.loop/1", "target": "blackwell",
      "ops": [{"id": "a", "kind": "exp", "latency": 5}, {"id": "b", "kind": "alu"}],
      "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a", "distance": 2,
                 "kind": "order"}]})");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->name, "graph");
  EXPECT_FALSE(g->attrs.force_serial_execution);
  // The edge latency defaults to the source op's effective latency (5, not exp's 8).
  EXPECT_EQ(g->edges[0], (Edge{0, 1, 5, 0, EdgeKind::kData}));
  EXPECT_EQ(g->edges[1], (Edge{1, 0, 4, 2, EdgeKind::kOrder}));
  // No "edges" at all is an empty list.
  StatusOr<Graph> no_edges = Parse(
      R"({"format": "tilesched.loop/1", "target": "blackwell", "ops": [{"id": "a", "kind": "alu"}]})");
  ASSERT_TRUE(no_edges.ok()) << no_edges.status().message();
  EXPECT_TRUE(no_edges->edges.empty());
}

TEST(GraphJson, NumWarpsRoundTripsAndIsRangeChecked) {
  StatusOr<Graph> g = Parse(R"({"format": "tilesched.loop/1", "target": "hopper",
      "attrs": {"num_warps": 8}, "ops": [{"id": "a", "kind": "alu"}]})");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->attrs.num_warps, 8);
  StatusOr<Graph> back = Parse(write_graph_json(*g));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, *g);
  StatusOr<Graph> zero = Parse(R"({"format": "tilesched.loop/1", "target": "hopper",
      "attrs": {"num_warps": 0}, "ops": [{"id": "a", "kind": "alu"}]})");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("$.attrs.num_warps"), std::string::npos)
      << zero.status().message();
}

TEST(GraphJson, OverridesReplaceKindDefaults) {
  StatusOr<Graph> g = Parse(Doc(R"([
      {"id": "m", "kind": "wgmma", "resources": [], "pools": {}},
      {"id": "r", "kind": "smem_read",
       "resources": [{"slot": "tp_smem_rd", "duration": 3, "occupancy": 5}, {"slot": 24, "duration": 1}],
       "pools": {"mbarriers": 2, "tmem": 4, "cp_async_groups": 1},
       "gid": 0, "leader_gid": 2147483647, "max_depth": 0}])"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_TRUE(g->ops[0].resources.empty());
  EXPECT_TRUE(g->ops[0].pools.empty());
  EXPECT_EQ(g->ops[0].latency, 16);
  EXPECT_EQ(g->ops[1].resources, (std::vector<Triple>{{15, 3, 5}, {24, 1, 1}}));
  // Pools are stored by pool index whatever the key order.
  EXPECT_EQ(g->ops[1].pools, (std::vector<PoolUse>{{0, 1}, {1, 4}, {7, 2}}));
  EXPECT_EQ(g->ops[1].gid, 0);
  EXPECT_EQ(g->ops[1].leader_gid, limits::kMaxGroupId);
  EXPECT_EQ(g->ops[1].max_depth, 0);
}

TEST(GraphJson, ReadsAnInlineGenericTarget) {
  StatusOr<Graph> g = Parse(R"({"format": "tilesched.loop/1", "name": "dsp",
    "target": {"name": "dsp-2alu", "slots": [{"name": "alu", "capacity": 2}, {"name": "mem"}],
               "pools": [{"name": "regs", "kind": "rate", "capacity": 6},
                         {"name": "scratch", "kind": "storage", "capacity": 4096}]},
    "ops": [{"id": "ld", "kind": "generic", "latency": 2,
             "resources": [{"slot": "mem", "duration": 1}, {"slot": 1, "duration": 2, "occupancy": 2}],
             "pools": {"regs": 6}, "store_bytes": 4096},
            {"id": "nop", "kind": "generic"}]})");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Target expected =
      make_generic_target("dsp-2alu", {Slot{"alu", 2, false}, Slot{"mem", 1, false}},
                          {Pool{"regs", PoolKind::kRate, 6, 0, false},
                           Pool{"scratch", PoolKind::kStorage, 4096, 0, false}});
  EXPECT_EQ(g->target, expected);
  EXPECT_FALSE(g->target.builtin);
  EXPECT_EQ(g->ops[0].resources, (std::vector<Triple>{{2, 1, 1}, {1, 2, 2}}));
  EXPECT_EQ(g->ops[0].pools, (std::vector<PoolUse>{{0, 6}}));
  EXPECT_EQ(g->ops[0].store_bytes, 4096);
  EXPECT_EQ(g->ops[1].latency, 1);
  EXPECT_TRUE(g->ops[1].resources.empty());
}

TEST(GraphJson, AcceptsLimitsExactly) {
  StatusOr<Graph> g = Parse(Doc(R"([{"id": "a", "kind": "generic", "latency": 65535,
      "resources": [{"slot": 1, "duration": 1024}], "max_depth": 1024},
      {"id": "b", "kind": "smem_write", "store_bytes": 232448}])",
                                R"([{"from": "a", "to": "a", "latency": 0, "distance": 65535}])"));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->ops[0].latency, limits::kMaxLatency);
  EXPECT_EQ(g->ops[0].resources[0].duration, limits::kMaxDuration);
  EXPECT_EQ(g->edges[0].distance, limits::kMaxDistance);
}

// ---- refusals built in memory ---------------------------------------------

TEST(GraphJson, RefusesMoreOpsThanTheLimit) {
  auto ops = [](int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) {
      if (i > 0) s += ',';
      s += R"({"id":"o)";
      s += std::to_string(i);
      s += R"(","kind":"alu"})";
    }
    s += ']';
    return s;
  };
  StatusOr<Graph> at_limit = Parse(Doc(ops(limits::kMaxOps)));
  ASSERT_TRUE(at_limit.ok()) << at_limit.status().message();
  EXPECT_EQ(at_limit->op_count(), limits::kMaxOps);
  ExpectParseRefused(Doc(ops(limits::kMaxOps + 1)), "$.ops",
                     "8193 ops, more than the limit of 8192");
}

TEST(GraphJson, RefusesMoreEdgesThanTheLimit) {
  std::string edges = "[";
  for (int i = 0; i <= limits::kMaxEdges; ++i)
    edges += i ? R"(,{"from":"a","to":"b"})" : R"({"from":"a","to":"b"})";
  edges += "]";
  ExpectParseRefused(Doc(R"([{"id":"a","kind":"alu"},{"id":"b","kind":"alu"}])", edges), "$.edges",
                     "131073 edges, more than the limit of 131072");
}

TEST(GraphJson, RefusesInputLargerThanTheFileLimit) {
  std::string text = Doc(R"([{"id":"a","kind":"alu"}])");
  text.resize(static_cast<size_t>(limits::kMaxFileBytes) + 1, ' ');
  ExpectParseRefused(text, "$", "more than the limit of 67108864 bytes");
}

TEST(GraphJson, NestingLimitIsExactAndIgnoresStrings) {
  auto nested = [](int depth) {  // the document object and "ops" count two levels
    return Doc(std::string(static_cast<size_t>(depth - 1), '[') +
               std::string(static_cast<size_t>(depth - 1), ']'));
  };
  // 64 levels pass the pre-scan and fail later, on the shape.
  ExpectParseRefused(nested(limits::kMaxJsonDepth), "$.ops[0]", "expected an object, got array");
  ExpectParseRefused(nested(limits::kMaxJsonDepth + 1), "$",
                     "nesting deeper than 64 levels at line 1");
  // Brackets inside strings, even after an escaped quote, do not count.
  std::string name = "\\\"";
  name.append(100, '[').append("{");
  StatusOr<Graph> g = Parse(R"({"format": "tilesched.loop/1", "name": ")" + name +
                            R"(", "target": "blackwell", "ops": [{"id": "a", "kind": "alu"}]})");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->name, std::string("\"").append(100, '[').append("{"));
}

TEST(GraphJson, EchoedStringsAreEscapedAndShortened) {
  const std::string long_id = std::string("bad\\nid\\u0001").append(200, 'z');
  StatusOr<Graph> g = Parse(
      Doc(R"([{"id": "a", "kind": "alu"}])", R"([{"from": "a", "to": ")" + long_id + R"("}])"));
  ASSERT_FALSE(g.ok());
  const std::string& m = g.status().message();
  ExpectRefused(g.status(), "t.json", "$.edges[0].to", "unknown op id \"bad\\nid\\u0001zzz");
  EXPECT_NE(m.find("zzz...\""), std::string::npos) << m;
  EXPECT_LT(m.size(), 140u) << m;
  // The source name is made one line too.
  StatusOr<Graph> h = parse_graph_json("{", "two\nlines");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().message().rfind("two\\nlines: $: invalid JSON", 0), 0u)
      << h.status().message();
}

TEST(GraphJson, MessagesNameTheProblem) {
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "alu", "latncy": 3}])"), "$.ops[0].latncy",
                     "unknown field (expected one of: id, kind, latency, resources, pools, "
                     "store_bytes, gid, leader_gid, max_depth, registers, agent, source_op, "
                     "source_position, triton_stage, triton_cluster)");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "alu", "latency": 70000}])"), "$.ops[0].latency",
                     "70000 is out of range 0..65535");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "alu", "pools": {"weird key": 1}}])"),
                     "$.ops[0].pools[\"weird key\"]", "unknown pool \"weird key\"");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "smem_read", "pools": {"tp_smem_rd": 1}}])"),
                     "$.ops[0].pools.tp_smem_rd",
                     "give \"occupancy\" on that slot's resource triple");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "smem_write", "pools": {"smem_bytes": 1}}])"),
                     "$.ops[0].pools.smem_bytes", "give the op's bytes as \"store_bytes\"");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "alu"}, {"id": "a", "kind": "alu"}])"),
                     "$.ops[1].id", "duplicate op id \"a\" (first at $.ops[0])");
  ExpectParseRefused(
      Doc(R"([{"id": "a", "kind": "generic", "resources": [{"slot": 12, "duration": 1, "occupancy": 2}]}])"),
      "$.ops[0].resources[0].occupancy",
      "occupancy 2 is more than the capacity 1 of slot 12 (tma)");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "alu", "latency": 1e2}])"), "$.ops[0].latency",
                     "expected an integer (no fraction or exponent), got number 100.0");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "alu", "latency": 99999999999999999999}])"),
                     "$.ops[0].latency", "99999999999999999999 does not fit in 64 bits");
  ExpectParseRefused(
      Doc(R"([{"id": "a", "kind": "alu", "pools": {"tmem": -99999999999999999999}}])"),
      "$.ops[0].pools.tmem", "-99999999999999999999 does not fit in 64 bits");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "alu"}])",
                         R"([{"from": "a", "to": "a", "distance": 1}, 1e99999])"),
                     "$", "number overflow");
  ExpectParseRefused(Doc(R"([{"id": "a", "kind": "alu", "latency": null}])"), "$.ops[0].latency",
                     "expected an integer, got null");
  ExpectParseRefused(R"({"format": "tilesched.schedule/1", "ii": 3})", "$.format",
                     "expected \"tilesched.loop/1\", got \"tilesched.schedule/1\"");
}

// ---- the bad-input corpus -------------------------------------------------

struct BadCase {
  const char* path;    // JSON path the message must name
  const char* needle;  // a piece of the problem text
};

// Every file of engine/testdata/bad, with where and why it must be refused.
const std::map<std::string, BadCase>& BadCorpus() {
  static const std::map<std::string, BadCase> cases = {
      {"bad_json", {"$", "invalid JSON"}},
      {"bad_utf8", {"$", "ill-formed UTF-8 byte; last read: '\"a\\xff'"}},
      {"control_chars_in_id", {"$.edges[0].to", "unknown op id \"line\\nbreak\\u0007bell\""}},
      {"deep_nesting", {"$", "nesting deeper than 64 levels"}},
      {"distance_over_limit", {"$.edges[0].distance", "65536 is out of range 0..65535"}},
      {"duplicate_id", {"$.ops[2].id", "duplicate op id \"a\" (first at $.ops[0])"}},
      {"duplicate_key", {"$.ops[0].kind", "duplicate key \"kind\""}},
      {"duplicate_slot",
       {"$.ops[0].resources[1].slot", "slot 12 (tma) is already used by $.ops[0].resources[0]"}},
      {"duration_over_limit", {"$.ops[0].resources[0].duration", "1025 is out of range 1..1024"}},
      {"edge_kind_unknown", {"$.edges[0].kind", "expected \"data\" or \"order\", got \"anti\""}},
      {"empty_file", {"$", "invalid JSON"}},
      {"empty_id", {"$.ops[0].id", "expected a non-empty string"}},
      {"empty_ops", {"$.ops", "a graph needs at least one op"}},
      {"float_integral",
       {"$.ops[0].max_depth", "expected an integer (no fraction or exponent), got number 2.0"}},
      {"float_latency",
       {"$.ops[0].latency", "expected an integer (no fraction or exponent), got number 2.5"}},
      {"generic_bad_pool_kind",
       {"$.target.pools[0].kind", "expected \"rate\" or \"storage\", got \"slot\""}},
      {"generic_bad_target", {"$.target.slots", "a target needs at least one slot"}},
      {"generic_duplicate_slot_name", {"$.target.slots[1].name", "duplicate slot name \"alu\""}},
      {"generic_kind_not_generic", {"$.ops[0].kind", "has only the kind \"generic\""}},
      {"generic_missing_slots", {"$.target", "missing required field \"slots\""}},
      {"generic_slot_out_of_range", {"$.ops[0].resources[0].slot", "3 is out of range 1..2"}},
      {"generic_store_without_storage", {"$.ops[0].store_bytes", "has no storage pool"}},
      {"generic_target_wrong_type",
       {"$.target", "expected \"blackwell\", \"hopper\" or an inline target object, got number 3"}},
      {"generic_too_many_slots", {"$.target.slots", "65 slots, more than the limit of 64"}},
      {"generic_two_storage_pools", {"$.target.pools[1].kind", "at most one storage pool"}},
      {"generic_unknown_target_field", {"$.target.kinds", "unknown field"}},
      {"generic_zero_capacity", {"$.target.slots[0].capacity", "0 is out of range 1..65535"}},
      {"integer_overflow", {"$.ops[0].latency", "99999999999999999999999 does not fit in 64 bits"}},
      {"integer_overflow_exponent", {"$", "number overflow"}},
      {"integer_overflow_u64",
       {"$.edges[0].distance", "18446744073709551615 is out of range 0..65535"}},
      {"latency_over_limit", {"$.ops[0].latency", "65536 is out of range 0..65535"}},
      {"long_id", {"$.ops[0].id", "string of 257 bytes is longer than the limit of 256"}},
      {"max_depth_over_limit", {"$.ops[0].max_depth", "1025 is out of range 0..1024"}},
      {"missing_duration", {"$.ops[0].resources[0]", "missing required field \"duration\""}},
      {"missing_endpoint", {"$.edges[0]", "missing required field \"from\""}},
      {"missing_format", {"$", "missing required field \"format\""}},
      {"missing_kind", {"$.ops[1]", "missing required field \"kind\""}},
      {"missing_ops", {"$", "missing required field \"ops\""}},
      {"missing_target", {"$", "missing required field \"target\""}},
      {"negative_distance", {"$.edges[0].distance", "-2 is out of range 0..65535"}},
      {"negative_latency", {"$.edges[0].latency", "-1 is out of range 0..65535"}},
      {"negative_leader_gid", {"$.ops[0].leader_gid", "-1 is out of range 0..2147483647"}},
      {"negative_store_bytes", {"$.ops[0].store_bytes", "-4 is out of range"}},
      {"not_an_object", {"$", "expected an object, got array"}},
      {"occupancy_over_capacity",
       {"$.ops[0].resources[0].occupancy", "more than the capacity 1 of slot 12 (tma)"}},
      {"occupancy_zero", {"$.ops[0].resources[0].occupancy", "0 is out of range 1..65535"}},
      {"pool_over_capacity",
       {"$.ops[0].pools.tmem", "count 5 is more than the capacity 4 of pool \"tmem\""}},
      {"pool_slot_named",
       {"$.ops[0].pools.tp_smem_rd",
        "is the capacity of slot 15 (tp_smem_rd): give \"occupancy\""}},
      {"pool_storage_named", {"$.ops[0].pools.smem_bytes", "is a storage pool"}},
      {"pool_unknown",
       {"$.ops[0].pools.warp_slots", "unknown pool \"warp_slots\" on target \"blackwell\""}},
      {"pool_zero_count", {"$.ops[0].pools.tmem", "0 is out of range"}},
      {"pools_wrong_type", {"$.ops[0].pools", "expected an object, got array"}},
      {"slot_out_of_range", {"$.ops[0].resources[0].slot", "25 is out of range 1..24"}},
      {"slot_unknown_name", {"$.ops[0].resources[0].slot", "unknown slot \"warp_magic\""}},
      {"slot_zero", {"$.ops[0].resources[0].slot", "0 is out of range 1..24"}},
      {"store_over_budget", {"$.ops[1].store_bytes", "larger than the whole"}},
      {"trailing_garbage", {"$", "invalid JSON"}},
      {"unknown_attr",
       {"$.attrs.force_serial",
        "unknown field (expected one of: force_serial_execution, triton_num_stages, "
        "resident_smem_bytes, num_warps, mma_element_bits)"}},
      {"unknown_endpoint", {"$.edges[1].to", "unknown op id \"nope\""}},
      {"unknown_field", {"$.ops[0].latncy", "unknown field"}},
      {"unknown_kind",
       {"$.ops[1].kind",
        "unknown kind \"tensor_magic\" for target blackwell (kinds: tiled_tma_load,"}},
      {"unknown_target", {"$.target", "unknown target \"ampere\""}},
      {"unknown_top_field",
       {"$.optns", "unknown field (expected one of: format, name, target, attrs, ops, edges)"}},
      {"wrong_format", {"$.format", "expected \"tilesched.loop/1\", got \"tilesched.schedule/1\""}},
      {"wrong_type", {"$.ops[0].latency", "expected an integer, got string \"8\""}},
      {"wrong_type_attr",
       {"$.attrs.force_serial_execution", "expected true or false, got string \"yes\""}},
      {"wrong_type_id", {"$.ops[0].id", "expected a string, got number 7"}},
      {"wrong_type_ops", {"$.ops", "expected an array, got object"}},
      {"zero_distance_cycle", {"$.edges[", "zero-distance cycle"}},
      {"zero_duration", {"$.ops[0].resources[1].duration", "0 is out of range 1..1024"}},
  };
  return cases;
}

std::vector<std::string> FilesIn(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(suffix)) names.push_back(name.substr(0, name.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(GraphJson, EveryBadFileIsRefusedAtItsPath) {
  const std::vector<std::string> names = FilesIn(kBadDir, ".loop.json");
  ASSERT_GE(names.size(), 60u);
  const std::string readme = Slurp(kBadDir + "/README.md");
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const std::string file = kBadDir + "/" + name + ".loop.json";
    auto it = BadCorpus().find(name);
    ASSERT_NE(it, BadCorpus().end()) << "add " << name << " to BadCorpus()";
    EXPECT_NE(readme.find("`" + name + ".loop.json`"), std::string::npos) << "list it in README.md";
    StatusOr<Graph> g = read_graph_file(file);
    ASSERT_FALSE(g.ok()) << "accepted";
    const std::string& m = g.status().message();
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidInput) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind(file + ": $", 0), 0u) << m;
    const std::string path = it->second.path;
    // An exact path is followed by ": "; a prefix ending in "[" is open.
    const std::string head = file + ": " + path + (path.back() == '[' ? "" : ": ");
    EXPECT_EQ(m.rfind(head, 0), 0u) << m;
    EXPECT_NE(m.find(it->second.needle), std::string::npos) << m;
  }
  for (const auto& [name, c] : BadCorpus()) {
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), name)) << "missing file " << name;
  }
}

// ---- writing and round trips ----------------------------------------------

TEST(GraphJson, WriterLeavesOutDefaults) {
  // Fields spelled out with their default values are not written back.
  StatusOr<Graph> g =
      Parse(R"({"format": "tilesched.loop/1", "name": "golden", "target": "blackwell",
    "attrs": {"force_serial_execution": true},
    "ops": [
      {"id": "load", "kind": "tiled_tma_load", "latency": 8,
       "resources": [{"slot": "tma", "duration": 8}, {"slot": 16, "duration": 8, "occupancy": 1}],
       "pools": {}, "store_bytes": 0},
      {"id": "mma", "kind": "wgmma", "latency": 20, "pools": {"wgmma_groups": 1, "tmem": 2}},
      {"id": "fix", "kind": "generic", "latency": 3, "resources": [{"slot": 23, "duration": 2}],
       "store_bytes": 128, "gid": 4, "leader_gid": 2, "max_depth": 3}],
    "edges": [
      {"from": "load", "to": "mma", "latency": 8, "distance": 0, "kind": "data"},
      {"from": "mma", "to": "mma", "distance": 1},
      {"from": "mma", "to": "fix", "latency": 2, "kind": "order"}]})");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(write_graph_json(*g), R"({
  "format": "tilesched.loop/1",
  "name": "golden",
  "target": "blackwell",
  "attrs": {"force_serial_execution": true},
  "ops": [
    {"id": "load", "kind": "tiled_tma_load"},
    {"id": "mma", "kind": "wgmma", "latency": 20, "pools": {"tmem": 2, "wgmma_groups": 1}},
    {"id": "fix", "kind": "generic", "latency": 3, "resources": [{"slot": 23, "duration": 2, "occupancy": 1}], "store_bytes": 128, "gid": 4, "leader_gid": 2, "max_depth": 3}
  ],
  "edges": [
    {"from": "load", "to": "mma"},
    {"from": "mma", "to": "mma", "distance": 1},
    {"from": "mma", "to": "fix", "latency": 2, "kind": "order"}
  ]
}
)");
}

TEST(GraphJson, WriterSpellsOutEmptiedDefaultsAndGenericTargets) {
  StatusOr<Graph> g = Parse(R"({"format": "tilesched.loop/1", "name": "dsp",
    "target": {"name": "dsp", "slots": [{"name": "alu", "capacity": 2}, {"name": "mem"}],
               "pools": [{"name": "regs", "kind": "rate", "capacity": 4},
                         {"name": "scratch", "kind": "storage", "capacity": 4096}]},
    "ops": [{"id": "a", "kind": "generic", "resources": [{"slot": "mem", "duration": 1}]}]})");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(write_graph_json(*g), R"({
  "format": "tilesched.loop/1",
  "name": "dsp",
  "target": {
    "name": "dsp",
    "slots": [
      {"name": "alu", "capacity": 2},
      {"name": "mem", "capacity": 1}
    ],
    "pools": [
      {"name": "regs", "kind": "rate", "capacity": 4},
      {"name": "scratch", "kind": "storage", "capacity": 4096}
    ]
  },
  "ops": [
    {"id": "a", "kind": "generic", "resources": [{"slot": 2, "duration": 1, "occupancy": 1}]}
  ],
  "edges": []
}
)");
  StatusOr<Graph> emptied =
      Parse(Doc(R"([{"id": "m", "kind": "wgmma", "resources": [], "pools": {}}])"));
  ASSERT_TRUE(emptied.ok()) << emptied.status().message();
  const std::string text = write_graph_json(*emptied);
  EXPECT_NE(text.find(R"({"id": "m", "kind": "wgmma", "resources": [], "pools": {}})"),
            std::string::npos)
      << text;
}

// Deterministic generator of varied valid graphs (splitmix64).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t range(int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool coin(int percent) { return range(0, 99) < percent; }

 private:
  uint64_t state_;
};

// prefix + the decimal of i (spelled out: GCC 12 at -O3 warns falsely,
// -Wrestrict, on "literal" + std::string temporaries).
std::string Numbered(const char* prefix, int64_t i, const char* suffix = "") {
  std::string s = prefix;
  s += std::to_string(i);
  s += suffix;
  return s;
}

Target RandomGenericTarget(Rng& r) {
  std::vector<Slot> slots;
  const int64_t n_slots = r.range(1, 10);
  for (int64_t s = 0; s < n_slots; ++s)
    slots.push_back(Slot{Numbered("s", s), r.range(1, 3), false});
  std::vector<Pool> pools;
  const int64_t n_pools = r.range(0, 3);
  for (int64_t p = 0; p < n_pools; ++p)
    pools.push_back(Pool{Numbered("p", p), PoolKind::kRate, r.range(1, 8), 0, false});
  if (r.coin(50))
    pools.insert(pools.begin() + r.range(0, n_pools),
                 Pool{"mem", PoolKind::kStorage, r.range(64, 1 << 20), 0, false});
  return make_generic_target("gen \"target\" ü", std::move(slots), std::move(pools));
}

Graph RandomGraph(uint64_t seed) {
  Rng r(seed);
  Graph g;
  g.name = r.coin(20) ? "" : Numbered("random-", static_cast<int64_t>(seed));
  g.target = r.coin(50) ? blackwell_target() : RandomGenericTarget(r);
  const Target& t = g.target;
  g.attrs.force_serial_execution = r.coin(25);
  if (r.coin(30)) g.attrs.num_warps = r.range(1, limits::kMaxWarps);
  if (r.coin(30)) g.attrs.mma_element_bits = r.range(1, limits::kMaxElementBits);
  if (r.coin(30)) g.attrs.resident_smem_bytes = r.range(0, 1 << 20);
  const int64_t n = r.range(1, 14);
  for (int64_t v = 0; v < n; ++v) {
    Op op;
    op.name = r.coin(15) ? Numbered("op \"", v, "\"\t\\é") : Numbered("op", v);
    op.kind =
        t.kinds[static_cast<size_t>(r.range(0, static_cast<int64_t>(t.kinds.size()) - 1))].name;
    apply_kind_defaults(t, op);
    if (r.coin(40)) op.latency = r.range(0, 40);
    if (r.coin(40)) {
      op.resources.clear();
      for (int s = 1; s <= t.slot_count(); ++s) {
        if (r.coin(25))
          op.resources.push_back(Triple{s, r.range(1, 12), r.range(1, t.slot(s).capacity)});
      }
      std::reverse(op.resources.begin(), op.resources.end());  // any order round-trips
    }
    if (r.coin(40)) {
      op.pools.clear();
      for (int p = 0; p < static_cast<int>(t.pools.size()); ++p) {
        if (t.pools[p].kind == PoolKind::kRate && r.coin(40))
          op.pools.push_back(PoolUse{p, r.range(1, t.pools[p].capacity)});
      }
    }
    if (std::optional<int> sp = t.storage_pool(); sp && r.coin(40))
      op.store_bytes = r.range(1, t.pools[*sp].capacity);
    if (r.coin(30)) op.gid = r.range(0, limits::kMaxGroupId);
    if (r.coin(30)) op.leader_gid = r.range(0, 5);
    if (r.coin(30)) op.max_depth = r.range(0, 4);
    if (r.coin(30)) op.source_op = "tt.op" + std::to_string(v);
    if (r.coin(30)) op.source_position = r.range(0, limits::kMaxSourcePosition);
    if (r.coin(30)) op.triton_stage = r.range(0, 4);
    g.ops.push_back(std::move(op));
  }
  const int64_t m = r.range(0, 2 * n);
  for (int64_t e = 0; e < m; ++e) {
    Edge edge;
    edge.from = static_cast<OpId>(r.range(0, n - 1));
    edge.to = static_cast<OpId>(r.range(0, n - 1));
    // Distance-0 edges only go forward, so no zero-distance cycle appears.
    edge.distance = edge.from < edge.to ? r.range(0, 2) : r.range(1, 3);
    edge.latency = r.coin(50) ? g.ops[edge.from].latency : r.range(0, 30);
    edge.kind = r.coin(25) ? EdgeKind::kOrder : EdgeKind::kData;
    g.edges.push_back(edge);
  }
  return g;
}

TEST(GraphJson, RoundTripsVariedGraphs) {
  std::vector<Graph> graphs;
  StatusOr<Graph> spec = Parse(kSpecExample);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  graphs.push_back(*spec);
  for (uint64_t seed = 1; seed <= 200; ++seed) graphs.push_back(RandomGraph(seed));
  int generic = 0;
  for (const Graph& g : graphs) {
    SCOPED_TRACE(g.name);
    ASSERT_TRUE(validate_graph(g).ok()) << validate_graph(g).message();
    generic += g.target.builtin ? 0 : 1;
    const std::string text = write_graph_json(g);
    StatusOr<Graph> back = Parse(text);
    ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << text;
    EXPECT_EQ(*back, g) << text;
    EXPECT_EQ(write_graph_json(*back), text);
  }
  EXPECT_GT(generic, 50);
}

// ---- files ------------------------------------------------------------------

TEST(GraphJson, ReadsAndWritesFiles) {
  TempDir dir("tilesched-json");
  ASSERT_FALSE(dir.path().empty());
  StatusOr<Graph> g = Parse(kSpecExample);
  ASSERT_TRUE(g.ok());
  const std::string file = dir.path() + "/g.loop.json";
  ASSERT_TRUE(write_file_atomic(file, write_graph_json(*g)).ok());
  ASSERT_TRUE(write_file_atomic(file, write_graph_json(*g)).ok());    // replaces
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"g.loop.json"});  // no temporaries left
  StatusOr<Graph> back = read_graph_file(file);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, *g);

  StatusOr<Graph> missing = read_graph_file(dir.path() + "/none.loop.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_EQ(missing.status().message().rfind(dir.path() + "/none.loop.json: cannot open", 0), 0u)
      << missing.status().message();
  StatusOr<std::string> a_dir = read_file(dir.path());
  ASSERT_FALSE(a_dir.ok());
  EXPECT_EQ(a_dir.status().code(), StatusCode::kIoError);
}

TEST(GraphJson, WriteFileAtomicFailsCleanly) {
  TempDir dir("tilesched-json");
  ASSERT_FALSE(dir.path().empty());
  Status no_dir = write_file_atomic(dir.path() + "/missing/out.json", "x");
  EXPECT_EQ(no_dir.code(), StatusCode::kIoError);
  EXPECT_EQ(no_dir.message().rfind(dir.path() + "/missing/out.json: ", 0), 0u) << no_dir.message();
  // Renaming over a directory fails; the temporary goes away.
  ASSERT_TRUE(fs::create_directory(dir.path() + "/sub"));
  Status over_dir = write_file_atomic(dir.path() + "/sub", "x");
  EXPECT_EQ(over_dir.code(), StatusCode::kIoError);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});
  // An existing file is untouched by a failed write and replaced by a good one.
  const std::string file = dir.path() + "/keep.json";
  ASSERT_TRUE(write_file_atomic(file, "old").ok());
  ASSERT_TRUE(write_file_atomic(file, std::string(1 << 20, 'n')).ok());
  StatusOr<std::string> text = read_file(file);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, std::string(1 << 20, 'n'));
}

TEST(GraphJson, ReadFileRefusesFilesOverTheLimit) {
  TempDir dir("tilesched-json");
  ASSERT_FALSE(dir.path().empty());
  const std::string file = dir.path() + "/big.loop.json";
  { std::ofstream out(file); }
  ASSERT_EQ(::truncate(file.c_str(), limits::kMaxFileBytes + 1), 0);  // sparse
  StatusOr<Graph> g = read_graph_file(file);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(
      g.status().message().rfind(file + ": $: file is 67108865 bytes, more than the limit", 0), 0u)
      << g.status().message();
}

}  // namespace
}  // namespace tilesched

namespace tilesched {
namespace {

TEST(GraphJson, RegisterFootprintsDefaultByKindAndOverride) {
  const std::string text = R"({"format": "tilesched.loop/1", "target": "blackwell",
    "ops": [{"id": "a", "kind": "wgmma"}, {"id": "b", "kind": "alu", "registers": 40},
            {"id": "c", "kind": "tiled_tma_load"}]})";
  StatusOr<Graph> g = parse_graph_json(text, "r.json");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->ops[0].registers, 64);
  EXPECT_EQ(g->ops[1].registers, 40);
  EXPECT_EQ(g->ops[2].registers, 0);
  EXPECT_EQ(g->target.register_budget, 128);
  const std::string out = write_graph_json(*g);
  EXPECT_NE(out.find("\"registers\": 40"), std::string::npos) << out;
  EXPECT_EQ(out.find("\"registers\": 64"), std::string::npos) << out;  // the default is left out
  StatusOr<Graph> again = parse_graph_json(out, "again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *g);

  StatusOr<Graph> bad = parse_graph_json(
      R"({"format": "tilesched.loop/1", "target": "blackwell",
          "ops": [{"id": "a", "kind": "alu", "registers": 70000}]})", "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("bad.json: $.ops[0].registers:", 0), 0u)
      << bad.status().message();
}

TEST(GraphJson, ImportedProvenanceIsReadWrittenAndBounded) {
  const std::string text = R"({"format": "tilesched.loop/1", "target": "hopper",
    "attrs": {"triton_num_stages": 3, "num_warps": 8, "mma_element_bits": 8},
    "ops": [{"id": "a", "kind": "alu", "source_op": "arith.addf", "source_position": 7}]})";
  StatusOr<Graph> g = parse_graph_json(text, "p.json");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->attrs.num_warps, 8);
  EXPECT_EQ(g->attrs.mma_element_bits, 8);
  EXPECT_EQ(g->ops[0].source_position, 7);
  const std::string out = write_graph_json(*g);
  EXPECT_NE(out.find("\"num_warps\": 8"), std::string::npos) << out;
  EXPECT_NE(out.find("\"mma_element_bits\": 8"), std::string::npos) << out;
  EXPECT_NE(out.find("\"source_op\": \"arith.addf\", \"source_position\": 7"), std::string::npos) << out;
  for (const auto& [bad, path] :
       {std::pair{R"("attrs": {"num_warps": 0}, "ops": [{"id": "a", "kind": "alu"}])",
                  "$.attrs.num_warps"},
        std::pair{R"("attrs": {"num_warps": 1025}, "ops": [{"id": "a", "kind": "alu"}])",
                  "$.attrs.num_warps"},
        std::pair{R"("attrs": {"mma_element_bits": 0}, "ops": [{"id": "a", "kind": "alu"}])",
                  "$.attrs.mma_element_bits"},
        std::pair{R"("attrs": {"mma_element_bits": 65}, "ops": [{"id": "a", "kind": "alu"}])",
                  "$.attrs.mma_element_bits"},
        std::pair{R"("ops": [{"id": "a", "kind": "alu", "source_position": -1}])",
                  "$.ops[0].source_position"},
        std::pair{R"("ops": [{"id": "a", "kind": "alu", "source_position": 2147483648}])",
                  "$.ops[0].source_position"}}) {
    const std::string doc =
        std::string(R"({"format": "tilesched.loop/1", "target": "hopper", )") + bad + "}";
    StatusOr<Graph> refused = parse_graph_json(doc, "b.json");
    ASSERT_FALSE(refused.ok()) << doc;
    EXPECT_EQ(refused.status().message().rfind(std::string("b.json: ") + path + ":", 0), 0u)
        << refused.status().message();
  }
  Graph direct = *g;
  direct.attrs.num_warps = 0;
  EXPECT_EQ(validate_graph(direct).message().rfind("$.attrs.num_warps:", 0), 0u);
  direct = *g;
  direct.ops[0].source_position = -2;
  EXPECT_EQ(validate_graph(direct).message().rfind("$.ops[0].source_position:", 0), 0u);
}

TEST(GraphJson, GenericTargetRegisterBudgetRoundTrips) {
  const std::string text = R"({"format": "tilesched.loop/1",
    "target": {"name": "t", "slots": [{"name": "alu"}], "register_budget": 32},
    "ops": [{"id": "a", "kind": "generic", "registers": 8}]})";
  StatusOr<Graph> g = parse_graph_json(text, "g.json");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->target.register_budget, 32);
  StatusOr<Graph> again = parse_graph_json(write_graph_json(*g), "again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *g);
}

}  // namespace
}  // namespace tilesched
