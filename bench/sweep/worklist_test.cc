// Work lists: list and range parsing, generator expansion, shards (their
// union is the full list, they are disjoint and keep its order), --graphs
// files, and the row keys a sweep signature describes.
#include "sweep/worklist.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "sweep/context.h"
#include "sweep/csv.h"
#include "sweep/row.h"
#include "tilesched/graphgen/families.h"
#include "tilesched/json_io.h"

namespace tilesched::sweep {
namespace {

std::vector<int64_t> ints(std::string_view text) {
  StatusOr<std::vector<int64_t>> v = parse_int_list(text, "--ops", 0, 100000);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : std::vector<int64_t>{};
}

TEST(WorkList, ListsAndRangesExpandInOrderWithoutDuplicates) {
  EXPECT_EQ(ints("8,16,32"), (std::vector<int64_t>{8, 16, 32}));
  EXPECT_EQ(ints("1-5"), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(ints("16-1024x2"), (std::vector<int64_t>{16, 32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(ints("16-100x2"), (std::vector<int64_t>{16, 32, 64}));
  EXPECT_EQ(ints("0-100:25"), (std::vector<int64_t>{0, 25, 50, 75, 100}));
  EXPECT_EQ(ints("3,1-4,3"), (std::vector<int64_t>{3, 1, 2, 4}));  // duplicates dropped
  EXPECT_EQ(ints("7-7"), (std::vector<int64_t>{7}));
}

TEST(WorkList, BadListsAreRefusedWithTheOptionName) {
  for (const char* bad : {"", "a", "1,,2", "5-1", "1-", "-", "0-8x2", "1-8x1", "1-8:0", "1.5",
                          "100001", "-3", "1-3,x"}) {
    StatusOr<std::vector<int64_t>> v = parse_int_list(bad, "--ops", 0, 100000);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.status().message().rfind("--ops", 0), 0u) << v.status().message();
  }
}

TEST(WorkList, FamiliesAndGeneratorsExpandInOrder) {
  StatusOr<std::vector<std::string>> all = parse_families("all");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), graphgen::families().size());
  for (size_t i = 0; i < all->size(); ++i) EXPECT_EQ((*all)[i], graphgen::families()[i].name);
  EXPECT_FALSE(parse_families("random_layered,nope").ok());
  StatusOr<std::vector<GeneratorConfig>> g =
      parse_generators("serial,cost-based,exact", "first-success,best-cost");
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->size(), 4u);
  EXPECT_EQ((*g)[0].name(), "serial");
  EXPECT_EQ((*g)[0].arm_policy_text(), "");
  EXPECT_EQ((*g)[1].arm_policy_text(), "first-success");
  EXPECT_EQ((*g)[2].arm_policy_text(), "best-cost");
  EXPECT_EQ((*g)[3].name(), "exact");
  EXPECT_FALSE(parse_generators("serial,greedy", "first-success").ok());
  EXPECT_FALSE(parse_generators("cost-based", "worst").ok());
}

TEST(WorkList, ShardsParseAndBadOnesAreRefused) {
  StatusOr<Shard> s = parse_shard("3/8");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 8);
  for (const char* bad : {"0/4", "5/4", "1/0", "1", "a/b", "1/4/2", "-1/4", ""}) {
    EXPECT_FALSE(parse_shard(bad).ok()) << bad;
  }
}

TEST(WorkList, ShardsAreDisjointAndTheirUnionIsTheFullList) {
  SweepSpec spec;
  spec.families = *parse_families("all");
  spec.ops = {8, 16, 32};
  spec.seeds = {1, 2, 3, 4, 5, 6, 7};
  const std::vector<GraphKey> all = expand_graphs(spec);
  size_t builds = 0;  // (family, ops) pairs the families build
  for (const std::string& f : spec.families) {
    for (int ops : spec.ops) builds += graphgen::find_family(f)->builds(ops) ? 1 : 0;
  }
  ASSERT_GT(builds, 2 * spec.families.size());
  ASSERT_EQ(all.size(), builds * 7);
  auto id = [](const GraphKey& k) {
    return k.family + "/" + std::to_string(k.ops) + "/" + std::to_string(k.seed);
  };
  for (int n : {1, 2, 3, 5, 7, 64}) {
    std::multiset<std::string> seen;
    for (int k = 1; k <= n; ++k) {
      const std::vector<GraphKey> part = shard_graphs(all, Shard{k, n});
      // Each shard keeps the canonical order.
      size_t pos = 0;
      for (const GraphKey& g : part) {
        while (pos < all.size() && !(all[pos] == g)) ++pos;
        ASSERT_LT(pos, all.size());
        seen.insert(id(g));
      }
    }
    ASSERT_EQ(seen.size(), all.size()) << n;
    for (const GraphKey& g : all) EXPECT_EQ(seen.count(id(g)), 1u) << n;
  }
}

TEST(WorkList, PresetsParse) {
  for (const char* name : {"quick", "default", "paper"}) {
    const Preset* p = find_preset(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_TRUE(parse_families(p->families).ok());
    EXPECT_TRUE(parse_int_list(p->ops, "--ops", 1, 8192).ok());
    EXPECT_TRUE(parse_int_list(p->seeds, "--seeds", 0, INT64_MAX).ok());
    EXPECT_TRUE(parse_generators(p->generators, p->arm_policies).ok());
  }
  EXPECT_EQ(find_preset("nope"), nullptr);
}

// A temporary directory, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char name[] = "/tmp/worklist_test.XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories((path / rel).parent_path());
    std::ofstream(path / rel) << text;
  }
};

// --graphs: a directory's *.loop.json files in byte order of their
// relative path, other files skipped; a file argument named by its file
// name; the op count read; bad files refused with their name.
TEST(WorkList, GraphFilesInByteOrderOfTheirRelativePath) {
  TempDir dir;
  const std::string g8 = write_graph_json(*graphgen::generate("chains", 8, 1, {}));
  const std::string g16 = write_graph_json(*graphgen::generate("chains", 16, 1, {}));
  dir.write("d/b.loop.json", g8);
  dir.write("d/a/z.loop.json", g16);
  dir.write("d/B.loop.json", g8);
  dir.write("d/notes.txt", "not a graph");
  dir.write("d/x.schedule.json", "{}");
  dir.write("single.json", g16);
  StatusOr<std::vector<GraphKey>> keys =
      find_graph_files({(dir.path / "d").string(), (dir.path / "single.json").string()});
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  std::vector<std::string> names;
  for (const GraphKey& k : *keys) names.push_back(k.graph);
  EXPECT_EQ(names, (std::vector<std::string>{"B.loop.json", "a/z.loop.json", "b.loop.json",
                                             "single.json"}));
  EXPECT_EQ((*keys)[1].ops, 16);
  EXPECT_EQ((*keys)[2].ops, 8);
  for (const GraphKey& k : *keys) {
    EXPECT_EQ(k.family, kFileFamily);
    EXPECT_EQ(k.seed, 0u);
  }

  dir.write("bad/broken.loop.json", "{");
  StatusOr<std::vector<GraphKey>> bad = find_graph_files({(dir.path / "bad").string()});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("broken.loop.json"), std::string::npos);
  dir.write("hls/g.graphml", "<graphml/>");
  bad = find_graph_files({(dir.path / "hls").string()});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no resource model"), std::string::npos);
  EXPECT_FALSE(find_graph_files({(dir.path / "d").string(), (dir.path / "d").string()}).ok());
  EXPECT_FALSE(find_graph_files({(dir.path / "nope").string()}).ok());
  EXPECT_FALSE(find_graph_files({}).ok());
}

// A --graphs file is read once: its key carries the graph to the signature
// and the row, so the file may go (or change) after find_graph_files.
TEST(WorkList, GraphFilesAreReadOnceAndTheirGraphTravelsWithTheKey) {
  TempDir dir;
  const Graph g = *graphgen::generate("chains", 8, 1, {});
  dir.write("a.loop.json", write_graph_json(g));
  StatusOr<std::vector<GraphKey>> keys = find_graph_files({dir.path.string()});
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  ASSERT_EQ(keys->size(), 1u);
  ASSERT_TRUE((*keys)[0].loaded);
  std::filesystem::remove(dir.path / "a.loop.json");
  StatusOr<Graph> read = read_graph_key((*keys)[0]);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(write_graph_json(*read), write_graph_json(g));
  SweepSpec spec;
  spec.files = *keys;
  spec.generators = {GeneratorConfig{GeneratorKind::kSerial, std::nullopt}};
  const nlohmann::json sig = sweep_signature(spec);
  EXPECT_EQ(sig["graphs"][0]["graph_hash"], hash_text(graph_hash(g)));
}

// The keys a signature describes are the work list's, in its order: what
// merge checks shards against.
TEST(WorkList, SignatureRowKeysFollowTheWorkList) {
  SweepSpec spec;
  spec.families = {"chains", "gemm_mainloop"};
  spec.ops = {8, 16};
  spec.seeds = {1, 2};
  spec.generators = *parse_generators("serial,cost-based", "first-success,best-cost");
  spec.shard = Shard{2, 3};  // the keys are the whole sweep's, whatever the shard
  StatusOr<std::vector<std::string>> keys = signature_row_keys(sweep_signature(spec));
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  std::vector<std::string> want;
  for (const GraphKey& g : expand_graphs(spec)) {
    for (const GeneratorConfig& c : spec.generators) {
      want.push_back(row_key(g, c).text());
    }
  }
  EXPECT_EQ(*keys, want);
  EXPECT_FALSE(signature_row_keys(nlohmann::json::object()).ok());
}

}  // namespace
}  // namespace tilesched::sweep
