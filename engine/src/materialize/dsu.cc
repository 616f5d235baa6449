// Disjoint-set forest with inline member buckets (seed 000's UF buckets).
#include "dsu.h"

#include <cassert>
#include <utility>

namespace tilesched::materialize_internal {

DisjointSets::DisjointSets(int n) : parent_(n), buckets_(n) {
  assert(n >= 0);
  for (int i = 0; i < n; ++i) {
    parent_[i] = i;
    buckets_[i].inline_members[0] = i;
  }
}

int DisjointSets::find(int x) {
  assert(x >= 0 && x < element_count());
  while (parent_[x] != x) {
    parent_[x] = parent_[parent_[x]];  // path halving
    x = parent_[x];
  }
  return x;
}

void DisjointSets::append(Bucket& to, const Bucket& from) {
  const int total = to.size + from.size;
  if (total <= kInline) {
    for (int i = 0; i < from.size; ++i) to.inline_members[to.size + i] = from.inline_members[i];
  } else {
    if (to.size <= kInline) {  // spill: the inline members move to the heap first
      to.heap.assign(to.inline_members.begin(), to.inline_members.begin() + to.size);
    }
    to.heap.reserve(total);
    if (from.size <= kInline) {
      to.heap.insert(to.heap.end(), from.inline_members.begin(),
                     from.inline_members.begin() + from.size);
    } else {
      to.heap.insert(to.heap.end(), from.heap.begin(), from.heap.end());
    }
  }
  to.size = total;
}

bool DisjointSets::unite(int a, int b) {
  int ra = find(a);
  int rb = find(b);
  if (ra == rb) return false;
  const bool b_wins =
      buckets_[rb].size > buckets_[ra].size || (buckets_[rb].size == buckets_[ra].size && rb < ra);
  if (b_wins) std::swap(ra, rb);
  parent_[rb] = ra;
  append(buckets_[ra], buckets_[rb]);
  buckets_[rb] = Bucket{};  // frees a spilled loser's heap
  buckets_[rb].size = 0;
  return true;
}

std::vector<int> DisjointSets::roots() {
  std::vector<int> out;
  for (int i = 0; i < element_count(); ++i) {
    if (parent_[i] == i) out.push_back(i);
  }
  return out;
}

std::vector<int> DisjointSets::members(int root) const {
  assert(root >= 0 && root < element_count() && parent_[root] == root);
  const Bucket& b = buckets_[root];
  if (b.size > kInline) return b.heap;
  return std::vector<int>(b.inline_members.begin(), b.inline_members.begin() + b.size);
}

std::span<const int> DisjointSets::member_span(int root) const {
  assert(root >= 0 && root < element_count() && parent_[root] == root);
  const Bucket& b = buckets_[root];
  if (b.size > kInline) return b.heap;
  return std::span<const int>(b.inline_members.data(), static_cast<size_t>(b.size));
}

}  // namespace tilesched::materialize_internal
