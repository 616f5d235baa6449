// The edges each coordination value carries (value_edges.h).
#include "value_edges.h"

#include <algorithm>

namespace tilesched {

namespace {

bool before(const Schedule& s, OpId a, OpId b) {
  if (s.stage[a] != s.stage[b]) return s.stage[a] < s.stage[b];
  if (s.order[a] != s.order[b]) return s.order[a] < s.order[b];
  return a < b;
}

// Of `candidates` (edge ids, ascending), those pipe p carries.
std::vector<int> carried_by_pipe(const Graph& g, const Schedule& s, const Pipe& p,
                                 const std::vector<int>& candidates) {
  std::vector<OpId> producers = p.producers;
  std::sort(producers.begin(), producers.end());
  std::vector<int> out;
  for (int i : candidates) {
    const Edge& e = g.edges[i];
    if (e.kind != EdgeKind::kData || e.to != p.consumer) continue;
    const bool live = live_at_consumer(s, e);
    if (producers.empty()
            ? !live
            : live && std::binary_search(producers.begin(), producers.end(), e.from)) {
      out.push_back(i);
    }
  }
  return out;
}

std::vector<int> carried_by_mutex(const Graph& g, const Mutex& m,
                                  const std::vector<int>& candidates) {
  std::vector<int> out;
  for (int i : candidates) {
    const Edge& e = g.edges[i];
    if (e.kind == EdgeKind::kOrder && e.from == m.releaser && e.to == m.acquirer) out.push_back(i);
  }
  return out;
}

std::vector<int> all_edges(const Graph& g) {
  std::vector<int> ids(g.edges.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int>(i);
  return ids;
}

}  // namespace

bool live_at_consumer(const Schedule& s, const Edge& e) {
  return e.distance > 0 || (e.from != e.to && before(s, e.from, e.to));
}

std::vector<int> pipe_edges(const Graph& g, const Schedule& s, const Pipe& p) {
  return carried_by_pipe(g, s, p, all_edges(g));
}

std::vector<int> mutex_edges(const Graph& g, const Mutex& m) {
  return carried_by_mutex(g, m, all_edges(g));
}

void derive_value_edges(const Graph& g, Schedule& s) {
  const int n = g.op_count();
  std::vector<std::vector<int>> in(n);  // edge ids into each op, ascending
  for (int i = 0; i < g.edge_count(); ++i) in[g.edges[i].to].push_back(i);
  const bool sized = s.stage.size() == g.ops.size() && s.order.size() == g.ops.size();
  const std::vector<int> none;
  for (Pipe& p : s.pipes) {
    const bool known = sized && p.consumer >= 0 && p.consumer < n;
    p.edges = known ? carried_by_pipe(g, s, p, in[p.consumer]) : none;
  }
  for (Mutex& m : s.mutexes) {
    const bool known = m.acquirer >= 0 && m.acquirer < n;
    m.edges = known ? carried_by_mutex(g, m, in[m.acquirer]) : none;
  }
}

}  // namespace tilesched
