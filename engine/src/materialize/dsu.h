// The disjoint-set forest Schedule::solve unions producers in (seed 000's
// UF buckets). Elements are dense ids 0..n-1; each
// set keeps its member list at its root, in a bucket that holds up to three
// members inline and moves them to one heap vector when a fourth joins --
// the seed's layout, shaped for the groups of one to three producers that
// are the common case. Union by size with the lower id winning ties, and
// path halving: every result is deterministic.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace tilesched::materialize_internal {

class DisjointSets {
 public:
  static constexpr int kInline = 3;

  explicit DisjointSets(int n);

  int element_count() const { return static_cast<int>(parent_.size()); }
  // REQUIRES: 0 <= x < element_count().
  int find(int x);
  bool same(int a, int b) { return find(a) == find(b); }
  // Merges the sets of a and b; false if they were one set already. The
  // larger set's root survives (the lower root id on equal sizes) and the
  // other set's members follow its own in the survivor's member list.
  bool unite(int a, int b);

  // The current roots, ascending.
  std::vector<int> roots();
  // REQUIRES: `root` is a root. Members in the order they joined the set.
  std::vector<int> members(int root) const;
  // The same members, as a view into the forest (valid until it changes).
  std::span<const int> member_span(int root) const;
  int set_size(int root) const { return buckets_[root].size; }
  // True when the set's members live on the heap (more than kInline).
  bool spilled(int root) const { return buckets_[root].size > kInline; }

 private:
  struct Bucket {
    int size = 1;
    std::array<int, kInline> inline_members{};  // members [0, size) while size <= kInline
    std::vector<int> heap;                      // every member once size > kInline
  };
  void append(Bucket& to, const Bucket& from);

  std::vector<int> parent_;
  std::vector<Bucket> buckets_;  // meaningful at roots only
};

}  // namespace tilesched::materialize_internal
