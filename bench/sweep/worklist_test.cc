// Work lists: list and range parsing, generator expansion, shards (their
// union is the full list, they are disjoint and keep its order).
#include "sweep/worklist.h"

#include <gtest/gtest.h>

#include <set>

#include "tilesched/graphgen/families.h"

namespace tilesched::sweep {
namespace {

std::vector<int64_t> ints(std::string_view text) {
  StatusOr<std::vector<int64_t>> v = parse_int_list(text, "--ops", 0, 100000);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : std::vector<int64_t>{};
}

TEST(WorkList, ListsAndRanges) {
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

TEST(WorkList, FamiliesAndGenerators) {
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

TEST(WorkList, ShardParsing) {
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

}  // namespace
}  // namespace tilesched::sweep
