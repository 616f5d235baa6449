// Tests for the HatScheT importer: the mapping on our own tiny instance,
// one-line refusals of malformed input, and every
// shared HLS instance importing, scheduling and verifying (skipped when
// TILESCHED_HLS_DIR is absent).
#include "tilesched/graphgen/hatschet.h"
#include "tilesched/limits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/json_io.h"
#include "tilesched/serial.h"
#include "tilesched/verify.h"
#include "schedule_expect.h"

namespace tilesched::graphgen {
namespace {

namespace fs = std::filesystem;

const std::string kTestdata = TILESCHED_GEN_TESTDATA;
const std::string kHlsDir = TILESCHED_HLS_DIR;

TEST(Hatschet, MapsTheTinyInstance) {
  StatusOr<Graph> g =
      import_hatschet(kTestdata + "/tiny.graphml", kTestdata + "/tiny_RM.xml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->name, "hatschet/testdata/tiny");
  // Limited and used resources become slots in resource-model order.
  ASSERT_EQ(g->target.slot_count(), 3);
  EXPECT_EQ(g->target.slot(1).name, "mem");
  EXPECT_EQ(g->target.slot(2).name, "mul");
  EXPECT_EQ(g->target.slot(3).name, "add");
  EXPECT_EQ(g->target.slot(3).capacity, 2);
  ASSERT_EQ(g->op_count(), 4);
  EXPECT_EQ(g->ops[0].name, "a");
  EXPECT_EQ(g->ops[1].latency, 4);
  EXPECT_EQ(g->ops[1].resources, (std::vector<Triple>{{2, 2, 1}}));
  EXPECT_EQ(g->ops[3].resources, (std::vector<Triple>{{3, 1, 1}}));
  ASSERT_EQ(g->edge_count(), 5);
  EXPECT_EQ(g->edges[1].latency, 5);  // mul latency 4 + delay 1
  EXPECT_EQ(g->edges[3].distance, 1);
  EXPECT_EQ(g->edges[3].kind, EdgeKind::kData);
  EXPECT_EQ(g->edges[4].kind, EdgeKind::kOrder);
  EXPECT_EQ(g->edges[4].latency, 1);
  EXPECT_EQ(g->edges[4].distance, 2);
  expect_every_generator_verifies(*g);
  // The JSON round trip keeps the inline target.
  StatusOr<Graph> back = parse_graph_json(write_graph_json(*g), "tiny");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, *g);
}

TEST(Hatschet, UnlimitedAndZeroBlockingReserveNothing) {
  const std::string rm =
      "<ModelInformation><Resources>"
      "<Resource name='w' limit='-1' latency='3' blockingTime='1'/>"
      "<Resource name='z' limit='1' latency='2' blockingTime='0'/>"
      "</Resources></ModelInformation>";
  const std::string gml =
      "<graphml><graph><node id='1'><data key='uses_resource'>w</data></node>"
      "<node id='2'><data key='uses_resource'>z</data></node></graph></graphml>";
  StatusOr<Graph> g = import_hatschet_text(gml, "g.graphml", rm, "rm.xml", "t");
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->target.slot_count(), 1);  // a target needs one; no op claims it
  EXPECT_EQ(g->target.slot(1).name, "unused");
  EXPECT_TRUE(g->ops[0].resources.empty());
  EXPECT_EQ(g->ops[0].latency, 3);
}

struct BadCase {
  std::string graphml, rm, expect;
};

TEST(Hatschet, RefusesMalformedInputWithOneLine) {
  const std::string rm_ok =
      "<ModelInformation><Resources>"
      "<Resource name='r' limit='1' latency='2' blockingTime='1'/>"
      "</Resources></ModelInformation>";
  auto node = [](const std::string& id, const std::string& res) {
    return "<node id='" + id + "'><data key='uses_resource'>" + res + "</data></node>";
  };
  auto edge = [](const std::string& s, const std::string& t, const std::string& delay,
                 const std::string& dist, const std::string& dep = "Data") {
    return "<edge source='" + s + "' target='" + t + "'><data key='delay'>" + delay +
           "</data><data key='distance'>" + dist + "</data><data key='deptype'>" + dep +
           "</data></edge>";
  };
  auto graph = [](const std::string& body) { return "<graphml><graph>" + body + "</graph></graphml>"; };
  const std::string two = node("1", "r") + node("2", "r");
  const std::vector<BadCase> cases = {
      {"<graphml><graph>", rm_ok, "g.graphml: not well-formed XML"},
      {graph(two), "<ModelInformation>", "rm.xml: not well-formed XML"},
      {graph(two), "<Foo/>", "rm.xml: no <ModelInformation><Resources>"},
      {"<graph/>", rm_ok, "g.graphml: no <graphml><graph>"},
      {graph(two),
       "<ModelInformation><Resources><Resource name='r' latency='2' blockingTime='1'/>"
       "</Resources></ModelInformation>",
       "rm.xml: <Resource> 0 ('r'): missing attribute 'limit'"},
      {graph(two),
       "<ModelInformation><Resources><Resource name='r' limit='x' latency='2' "
       "blockingTime='1'/></Resources></ModelInformation>",
       "rm.xml: <Resource> 0 ('r'): attribute 'limit' = 'x' is not an integer"},
      {graph(two),
       "<ModelInformation><Resources><Resource name='r' limit='0' latency='2' "
       "blockingTime='1'/></Resources></ModelInformation>",
       "attribute 'limit' = '0'"},
      {graph(two),
       "<ModelInformation><Resources><Resource name='r' limit='1' latency='-2' "
       "blockingTime='1'/></Resources></ModelInformation>",
       "attribute 'latency' = '-2'"},
      {graph(two), rm_ok + "", ""},  // the good one, for contrast
      {graph(node("1", "r") + node("1", "r")), rm_ok, "<node> 1 (id '1'): duplicate node id"},
      {graph("<node><data key='uses_resource'>r</data></node>"), rm_ok,
       "<node> 0: missing attribute 'id'"},
      {graph(node("1", "q")), rm_ok, "names resource 'q', which rm.xml does not define"},
      {graph("<node id='1'/>"), rm_ok, "<node> 0 (id '1'): no <data key=\"uses_resource\">"},
      {graph(two + edge("1", "3", "0", "0")), rm_ok,
       "<edge> 0: attribute 'target' names unknown node '3'"},
      {graph(two + "<edge target='2'/>"), rm_ok, "<edge> 0: missing attribute 'source'"},
      {graph(two + edge("1", "2", "0", "-1")), rm_ok, "<data key=\"distance\"> = '-1'"},
      {graph(two + edge("1", "2", "0", "1048577")), rm_ok, "is not an integer in 0..1048576"},
      {graph(two + edge("1", "2", "zero", "0")), rm_ok, "<data key=\"delay\"> = 'zero'"},
      {graph(two + edge("1", "2", "-5", "0")), rm_ok, "latency of the source plus delay = -3"},
      {graph(two + edge("1", "2", "0", "0", "Anti")), rm_ok, "deptype\"> = 'Anti'"},
      // a line break in an echoed value stays on one line (found by fuzz_import)
      {graph(two + edge("1", "2", "0", "0", "Pre\ncedence")), rm_ok,
       "deptype\"> = 'Pre\\x0acedence'"},
      {graph(two + "<edge source='1' target='2'><data key='delay'>0</data></edge>"), rm_ok,
       "no <data key=\"distance\">"},
      {graph(two + edge("1", "2", "0", "0") + edge("2", "1", "0", "0")), rm_ok,
       "g.graphml: $.edges"},  // a zero-distance cycle with positive latency
  };
  for (const BadCase& c : cases) {
    StatusOr<Graph> g = import_hatschet_text(c.graphml, "g.graphml", c.rm, "rm.xml", "t");
    if (c.expect.empty()) {
      EXPECT_TRUE(g.ok()) << g.status().message();
      continue;
    }
    ASSERT_FALSE(g.ok()) << c.expect;
    EXPECT_EQ(g.status().code(), StatusCode::kInvalidInput);
    const std::string& m = g.status().message();
    EXPECT_NE(m.find(c.expect), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  StatusOr<Graph> missing = import_hatschet(kTestdata + "/nope.graphml", kTestdata + "/tiny_RM.xml");
  EXPECT_FALSE(missing.ok());
}

TEST(Hatschet, ClampsDistancesBeyondTheLimit) {
  const std::string rm =
      "<ModelInformation><Resources>"
      "<Resource name='r' limit='1' latency='2' blockingTime='1'/>"
      "</Resources></ModelInformation>";
  const std::string gml =
      "<graphml><graph><node id='1'><data key='uses_resource'>r</data></node>"
      "<edge source='1' target='1'><data key='delay'>0</data>"
      "<data key='distance'>70000</data></edge></graph></graphml>";
  StatusOr<Graph> g = import_hatschet_text(gml, "g.graphml", rm, "rm.xml", "t");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->edges[0].distance, limits::kMaxDistance);
  EXPECT_EQ(g->name, "t/clamped_distances=1");
}

TEST(Hatschet, MoreThanSixtyFourBindingResourcesAreRefused) {
  // 70 limited resources, each used twice with limit 1: all binding.
  std::string rm = "<ModelInformation><Resources>", gml = "<graphml><graph>";
  for (int i = 0; i < 70; ++i) {
    const std::string r = "r" + std::to_string(i);
    rm += "<Resource name='" + r + "' limit='1' latency='1' blockingTime='1'/>";
    for (int k = 0; k < 2; ++k) {
      gml += "<node id='" + r + "_" + std::to_string(k) + "'><data key='uses_resource'>" + r +
             "</data></node>";
    }
  }
  rm += "</Resources></ModelInformation>";
  gml += "</graph></graphml>";
  StatusOr<Graph> g = import_hatschet_text(gml, "g.graphml", rm, "rm.xml", "t");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("rm.xml: more than 64 limited resources"),
            std::string::npos);
}

TEST(Hatschet, NonBindingResourcesDroppedBeyondSixtyFourSlots) {
  // 70 single-use ports (non-binding) and one shared multiplier.
  std::string rm = "<ModelInformation><Resources>"
                   "<Resource name='mul' limit='1' latency='4' blockingTime='1'/>",
              gml = "<graphml><graph><node id='m0'><data key='uses_resource'>mul</data></node>"
                    "<node id='m1'><data key='uses_resource'>mul</data></node>";
  for (int i = 0; i < 70; ++i) {
    const std::string r = "port" + std::to_string(i);
    rm += "<Resource name='" + r + "' limit='1' latency='1' blockingTime='1'/>";
    gml += "<node id='" + r + "'><data key='uses_resource'>" + r + "</data></node>";
  }
  rm += "</Resources></ModelInformation>";
  gml += "</graph></graphml>";
  StatusOr<Graph> g = import_hatschet_text(gml, "g.graphml", rm, "rm.xml", "t");
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->target.slot_count(), 1);
  EXPECT_EQ(g->target.slot(1).name, "mul");
  EXPECT_TRUE(g->ops[2].resources.empty());
}

// The resource model beside a GraphML file: graphN_RM.xml or NAMERM.xml.
std::string rm_for(const fs::path& graphml) {
  const fs::path dir = graphml.parent_path();
  const std::string stem = graphml.stem().string();
  if (fs::exists(dir / (stem + "_RM.xml"))) return (dir / (stem + "_RM.xml")).string();
  return (dir / (stem + "RM.xml")).string();
}

std::vector<fs::path> hls_instances() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(kHlsDir)) {
    if (e.is_regular_file() && e.path().extension() == ".graphml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every shared instance (about a second).
TEST(Hatschet, EveryHlsInstanceImports) {
  if (!fs::is_directory(kHlsDir)) GTEST_SKIP() << "HLS instances not found at " << kHlsDir;
  const std::vector<fs::path> all = hls_instances();
  EXPECT_EQ(all.size(), 113u);
  for (const fs::path& p : all) {
    StatusOr<Graph> g = import_hatschet(p.string(), rm_for(p));
    ASSERT_TRUE(g.ok()) << g.status().message();
    expect_every_generator_verifies(*g);
  }
}

}  // namespace
}  // namespace tilesched::graphgen
