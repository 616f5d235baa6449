// The ordering phase of swing modulo scheduling (see order.h).
#include "order.h"

#include <algorithm>
#include <span>
#include <tuple>

#include "graph/graph_algo.h"
#include "tilesched/mii.h"

namespace tilesched::sms {

namespace {

// RecMII of one component: the recurrence bound of the subgraph of its
// ops and internal edges.
int64_t component_rec_mii(const Graph& g, const std::vector<OpId>& members,
                          const std::vector<int>& local, const std::vector<int>& comp, int c) {
  Graph sub;
  sub.target = g.target;
  sub.ops.reserve(members.size());
  for (OpId v : members) sub.ops.push_back(g.ops[v]);
  for (const Edge& e : g.edges) {
    if (comp[e.from] != c || comp[e.to] != c) continue;
    Edge local_edge = e;
    local_edge.from = local[e.from];
    local_edge.to = local[e.to];
    sub.edges.push_back(local_edge);
  }
  return recurrence_mii(sub);
}

// Marks every op reachable from the marked ones, forward (out-edges) or
// backward (in-edges), over every edge.
std::vector<char> reach(const Graph& g, const Adjacency& adj, std::vector<char> marked,
                        bool forward) {
  std::vector<OpId> stack;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (marked[v]) stack.push_back(v);
  }
  const std::vector<int>& begin = forward ? adj.out_begin : adj.in_begin;
  const std::vector<int>& list = forward ? adj.out_edges : adj.in_edges;
  while (!stack.empty()) {
    const OpId v = stack.back();
    stack.pop_back();
    for (int p = begin[v]; p < begin[v + 1]; ++p) {
      const Edge& e = g.edges[list[p]];
      const OpId w = forward ? e.to : e.from;
      if (!marked[w]) {
        marked[w] = 1;
        stack.push_back(w);
      }
    }
  }
  return marked;
}

// A recurrence: a cyclic strongly connected component, its RecMII and its
// first op.
struct Recurrence {
  int64_t rec_mii;
  OpId first;
  int comp;
};

// The graph's recurrences, highest RecMII first (ties by first op), with
// each component's members (`members`, ascending).
std::vector<Recurrence> recurrences_by_rec_mii(const Graph& g, const Components& comps,
                                               std::vector<std::vector<OpId>>& members) {
  const int n = g.op_count();
  members.assign(static_cast<size_t>(comps.count), {});
  std::vector<int> local(static_cast<size_t>(n));
  for (OpId v = 0; v < n; ++v) {
    std::vector<OpId>& m = members[comps.component[v]];
    local[v] = static_cast<int>(m.size());
    m.push_back(v);
  }
  std::vector<char> cyclic(static_cast<size_t>(comps.count), 0);
  for (const Edge& e : g.edges) {
    if (comps.component[e.from] == comps.component[e.to]) cyclic[comps.component[e.from]] = 1;
  }
  std::vector<Recurrence> recurrences;
  for (int c = 0; c < comps.count; ++c) {
    if (!cyclic[c]) continue;
    recurrences.push_back(
        {component_rec_mii(g, members[c], local, comps.component, c), members[c].front(), c});
  }
  std::sort(recurrences.begin(), recurrences.end(), [](const Recurrence& a, const Recurrence& b) {
    return std::tie(b.rec_mii, a.first) < std::tie(a.rec_mii, b.first);
  });
  return recurrences;
}

}  // namespace

NodeSets find_node_sets(const Graph& g, const Adjacency& adj) {
  const int n = g.op_count();
  const Components comps = strongly_connected(g, adj, EdgeFilter::kAll);
  std::vector<std::vector<OpId>> members;
  const std::vector<Recurrence> recurrences = recurrences_by_rec_mii(g, comps, members);
  NodeSets out;
  std::vector<char> assigned(static_cast<size_t>(n), 0);
  for (const Recurrence& r : recurrences) {
    if (assigned[r.first]) continue;  // taken whole as a path component
    std::vector<char> in_set(static_cast<size_t>(n), 0);
    for (OpId v : members[r.comp]) in_set[v] = 1;
    if (!out.sets.empty()) {
      // Ops on a path from an earlier set to this one, or back.
      const std::vector<char> from_earlier = reach(g, adj, assigned, true);
      const std::vector<char> to_earlier = reach(g, adj, assigned, false);
      const std::vector<char> from_this = reach(g, adj, in_set, true);
      const std::vector<char> to_this = reach(g, adj, in_set, false);
      for (OpId v = 0; v < n; ++v) {
        if (assigned[v] || in_set[v]) continue;
        if ((from_earlier[v] && to_this[v]) || (from_this[v] && to_earlier[v])) in_set[v] = 1;
      }
    }
    std::vector<OpId> set;
    for (OpId v = 0; v < n; ++v) {
      if (in_set[v]) {
        set.push_back(v);
        assigned[v] = 1;
      }
    }
    out.sets.push_back(std::move(set));
    out.rec_mii.push_back(r.rec_mii);
    ++out.recurrences;
  }
  std::vector<OpId> rest;
  for (OpId v = 0; v < n; ++v) {
    if (!assigned[v]) rest.push_back(v);
  }
  if (!rest.empty()) {
    out.sets.push_back(std::move(rest));
    out.rec_mii.push_back(0);
  }
  return out;
}

Timing timing_from(std::span<const int64_t> asap, std::span<const int64_t> height) {
  Timing t;
  t.asap.assign(asap.begin(), asap.end());
  t.height.assign(height.begin(), height.end());
  int64_t longest = 0;
  for (int64_t a : t.asap) longest = std::max(longest, a);
  t.alap.resize(t.asap.size());
  for (size_t v = 0; v < t.alap.size(); ++v) t.alap[v] = longest - t.height[v];
  return t;
}

namespace {

enum class Direction { kTopDown, kBottomUp };

class Swing {
 public:
  Swing(const Graph& g, const Adjacency& adj, const Timing& timing)
      : g_(g), adj_(adj), t_(timing), n_(g.op_count()),
        ordered_(static_cast<size_t>(n_), 0), in_set_(static_cast<size_t>(n_), 0),
        in_frontier_(static_cast<size_t>(n_), 0), pred_of_ordered_(static_cast<size_t>(n_), 0),
        succ_of_ordered_(static_cast<size_t>(n_), 0) {
    order_.reserve(static_cast<size_t>(n_));
  }

  void order_set(const std::vector<OpId>& set) {
    for (OpId v : set) in_set_[v] = 1;
    size_t left = set.size();
    while (left > 0) {
      Direction dir = Direction::kBottomUp;
      collect(set, pred_of_ordered_);
      if (frontier_.empty()) {
        dir = Direction::kTopDown;
        collect(set, succ_of_ordered_);
      }
      if (frontier_.empty()) {
        dir = Direction::kBottomUp;
        OpId best = -1;
        for (OpId v : set) {
          if (!ordered_[v] && (best < 0 || t_.asap[v] > t_.asap[best])) best = v;
        }
        add(best);
      }
      while (!frontier_.empty()) {
        while (!frontier_.empty()) {
          const OpId v = pick(dir);
          take(v);
          --left;
          for_each_neighbour(v, dir == Direction::kTopDown, [&](OpId w) {
            if (in_set_[w] && !ordered_[w]) add(w);
          });
        }
        if (dir == Direction::kTopDown) {
          dir = Direction::kBottomUp;
          collect(set, pred_of_ordered_);
        } else {
          dir = Direction::kTopDown;
          collect(set, succ_of_ordered_);
        }
      }
    }
    for (OpId v : set) in_set_[v] = 0;
  }

  std::vector<OpId> take_order() { return std::move(order_); }

 private:
  template <class F>
  void for_each_neighbour(OpId v, bool successors, F&& f) const {
    const std::vector<int>& begin = successors ? adj_.out_begin : adj_.in_begin;
    const std::vector<int>& list = successors ? adj_.out_edges : adj_.in_edges;
    for (int p = begin[v]; p < begin[v + 1]; ++p) {
      const Edge& e = g_.edges[list[p]];
      if (e.distance == 0) f(successors ? e.to : e.from);
    }
  }

  // The frontier becomes the set's unordered ops that `mark` flags.
  void collect(const std::vector<OpId>& set, const std::vector<char>& mark) {
    for (OpId v : set) {
      if (!ordered_[v] && mark[v]) add(v);
    }
  }

  void add(OpId v) {
    if (in_frontier_[v]) return;
    in_frontier_[v] = 1;
    frontier_.push_back(v);
  }

  // Top-down: the largest height; bottom-up: the largest depth (asap);
  // then the smaller mobility, then the smaller id. Removes it.
  OpId pick(Direction dir) {
    size_t best = 0;
    auto key = [&](OpId v) {
      const int64_t primary = dir == Direction::kTopDown ? t_.height[v] : t_.asap[v];
      return std::make_tuple(-primary, t_.mobility(v), v);
    };
    for (size_t i = 1; i < frontier_.size(); ++i) {
      if (key(frontier_[i]) < key(frontier_[best])) best = i;
    }
    const OpId v = frontier_[best];
    frontier_[best] = frontier_.back();
    frontier_.pop_back();
    in_frontier_[v] = 0;
    return v;
  }

  void take(OpId v) {
    ordered_[v] = 1;
    order_.push_back(v);
    for_each_neighbour(v, false, [&](OpId u) { pred_of_ordered_[u] = 1; });
    for_each_neighbour(v, true, [&](OpId w) { succ_of_ordered_[w] = 1; });
  }

  const Graph& g_;
  const Adjacency& adj_;
  const Timing& t_;
  int n_;
  std::vector<char> ordered_, in_set_, in_frontier_;
  std::vector<char> pred_of_ordered_;  // has a distance-0 edge into an ordered op
  std::vector<char> succ_of_ordered_;  // has a distance-0 edge from an ordered op
  std::vector<OpId> frontier_;
  std::vector<OpId> order_;
};

}  // namespace

std::vector<OpId> swing_order(const Graph& g, const Adjacency& adj, const NodeSets& sets,
                              const Timing& timing) {
  Swing swing(g, adj, timing);
  for (const std::vector<OpId>& set : sets.sets) swing.order_set(set);
  return swing.take_order();
}

}  // namespace tilesched::sms
