// Tests of the fuzzers' input decoding (fuzz_support.h): an input must
// decode to the same graph under every compiler, since the fuzzers are
// built with clang and the replays of their findings with the project's
// compiler (g++ by default).
#include "fuzz_support.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

namespace tilesched::fuzz {
namespace {

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An input found by fuzz_differential (clang): eight generic ops on an
// inline target. g++ used to draw a generic op's resources before its
// latency (a call's arguments are evaluated in an unspecified order), so
// the g++ replay decoded another graph, one the builder refused. These are
// the fields clang decodes.
TEST(FuzzSupport, DecodesGenericOpsInOneOrderUnderEveryCompiler) {
  const std::string data = read_bytes(std::filesystem::path(TILESCHED_FUZZ_TESTDATA_DIR) / "generic-ops-8");
  ASSERT_FALSE(data.empty());
  FuzzedDataProvider in(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  GraphCaps caps;  // fuzz_differential's
  caps.max_ops = 8;
  caps.max_edges = 16;
  caps.max_latency = 8;
  caps.max_duration = 6;
  const StatusOr<Graph> g = consume_graph(in, caps);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->op_count(), 8);
  EXPECT_EQ(g->ops[0].latency, 7);
  ASSERT_EQ(g->ops[0].resources.size(), 1u);
  EXPECT_EQ(g->ops[0].resources[0].slot, 3);
  EXPECT_EQ(g->ops[0].resources[0].duration, 6);
  EXPECT_EQ(g->ops[1].latency, 3);
  EXPECT_EQ(g->ops[1].resources.size(), 2u);
  EXPECT_EQ(g->ops[2].latency, 0);
  EXPECT_TRUE(g->ops[2].resources.empty());
  EXPECT_EQ(g->edge_count(), 1);
}

}  // namespace
}  // namespace tilesched::fuzz
