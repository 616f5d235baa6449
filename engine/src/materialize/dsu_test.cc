// The disjoint-set forest: singletons, inline groups of up to three, the
// spill to the heap beyond three, unions of every shape, and determinism
// (the same unions give the same roots and member lists), checked against
// a naive labelling on random union sequences.
#include "dsu.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tilesched/rng.h"

namespace tilesched::materialize_internal {
namespace {

TEST(DsuTest, StartsAsSingletons) {
  DisjointSets d(4);
  EXPECT_EQ(d.element_count(), 4);
  EXPECT_EQ(d.roots(), (std::vector<int>{0, 1, 2, 3}));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d.find(i), i);
    EXPECT_EQ(d.members(i), std::vector<int>{i});
    EXPECT_EQ(d.set_size(i), 1);
    EXPECT_FALSE(d.spilled(i));
  }
  DisjointSets empty(0);
  EXPECT_TRUE(empty.roots().empty());
}

TEST(DsuTest, GroupsOfUpToThreeStayInline) {
  DisjointSets d(5);
  EXPECT_TRUE(d.unite(3, 1));  // equal sizes: the lower root id survives
  EXPECT_EQ(d.find(3), 1);
  EXPECT_EQ(d.members(1), (std::vector<int>{1, 3}));
  EXPECT_TRUE(d.unite(4, 3));  // the larger set survives
  EXPECT_EQ(d.find(4), 1);
  EXPECT_EQ(d.members(1), (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(d.set_size(1), 3);
  EXPECT_FALSE(d.spilled(1));
  EXPECT_FALSE(d.unite(3, 4));  // already one set
  EXPECT_TRUE(d.same(1, 4));
  EXPECT_FALSE(d.same(0, 4));
  EXPECT_EQ(d.roots(), (std::vector<int>{0, 1, 2}));
}

TEST(DsuTest, SpillsToTheHeapBeyondThree) {
  DisjointSets d(9);
  d.unite(0, 1);
  d.unite(0, 2);
  ASSERT_FALSE(d.spilled(0));
  d.unite(0, 3);  // the fourth member moves the group to the heap
  EXPECT_TRUE(d.spilled(0));
  EXPECT_EQ(d.members(0), (std::vector<int>{0, 1, 2, 3}));
  // A spilled set absorbing an inline pair, then two spilled sets merging.
  d.unite(5, 6);
  d.unite(2, 6);
  EXPECT_EQ(d.members(0), (std::vector<int>{0, 1, 2, 3, 5, 6}));
  DisjointSets e(9);
  for (int i : {5, 6, 7}) e.unite(4, i);
  for (int i : {1, 2, 3}) e.unite(0, i);
  ASSERT_TRUE(e.spilled(0) && e.spilled(4));
  e.unite(7, 1);  // equal sizes 4 and 4: root 0 wins, 4's members follow
  EXPECT_EQ(e.find(7), 0);
  EXPECT_EQ(e.members(0), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(e.set_size(0), 8);
  EXPECT_EQ(e.roots(), (std::vector<int>{0, 8}));
  // An inline pair joining a larger inline singleton path: 2 + 1 stays inline.
  DisjointSets f(3);
  f.unite(1, 2);
  f.unite(0, 2);
  EXPECT_EQ(f.find(0), 1);
  EXPECT_EQ(f.members(1), (std::vector<int>{1, 2, 0}));
  EXPECT_FALSE(f.spilled(1));
}

// Random union sequences against a naive labelling: the same partition,
// every member listed once at its root, and the same result on a rerun.
TEST(DsuTest, MatchesNaiveLabellingAndIsDeterministic) {
  SplitMix64 rng(42);
  for (int round = 0; round < 200; ++round) {
    const int n = static_cast<int>(rng.uniform(1, 40));
    std::vector<std::pair<int, int>> unions;
    const int count = static_cast<int>(rng.uniform(0, 2 * n));
    for (int k = 0; k < count; ++k) {
      unions.push_back({static_cast<int>(rng.below(n)), static_cast<int>(rng.below(n))});
    }
    auto run = [&](DisjointSets& d) {
      for (auto [a, b] : unions) d.unite(a, b);
    };
    DisjointSets d(n);
    run(d);
    std::vector<int> label(n);
    for (int i = 0; i < n; ++i) label[i] = i;
    for (auto [a, b] : unions) {
      const int from = label[b];
      const int to = label[a];
      for (int& l : label) {
        if (l == from) l = to;
      }
    }
    for (int a = 0; a < n; ++a) {
      for (int b = 0; b < n; ++b) ASSERT_EQ(d.same(a, b), label[a] == label[b]);
    }
    std::vector<int> all;
    for (int r : d.roots()) {
      const std::vector<int> m = d.members(r);
      ASSERT_EQ(static_cast<int>(m.size()), d.set_size(r));
      ASSERT_EQ(d.spilled(r), m.size() > 3);
      ASSERT_EQ(m.front(), r) << "a root lists itself first";
      for (int x : m) ASSERT_EQ(d.find(x), r);
      all.insert(all.end(), m.begin(), m.end());
    }
    std::sort(all.begin(), all.end());
    for (int i = 0; i < n; ++i) ASSERT_EQ(all[i], i);
    DisjointSets again(n);
    run(again);
    ASSERT_EQ(again.roots(), d.roots());
    for (int r : d.roots()) ASSERT_EQ(again.members(r), d.members(r));
  }
}

}  // namespace
}  // namespace tilesched::materialize_internal
