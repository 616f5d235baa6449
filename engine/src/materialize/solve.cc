// Schedule::solve, one candidate pair at a time (seed 000; phases in
// solve.h). Every per-producer table is a vector over positions in the
// consumer's sorted work list.
#include "solve.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "stage_order.h"

namespace tilesched::materialize_internal {

int64_t raw_key(const Graph& g, RawValue r) {
  const int64_t n = g.op_count();
  return (static_cast<int64_t>(r.kind) * n + r.op) * n + r.agent;
}

std::vector<OpId> collect_candidate_producers(const Graph& g, const ValueMaps& maps,
                                              OpId consumer) {
  std::vector<OpId> work;
  for (int e : maps.needed_in[consumer]) work.push_back(g.edges[e].from);
  std::sort(work.begin(), work.end());
  work.erase(std::unique(work.begin(), work.end()), work.end());
  return work;
}

ConsumerWork prepare_consumer(const Graph& g, const Schedule& s, const ValueMaps& maps,
                              OpId consumer) {
  ConsumerWork cw;
  cw.consumer = consumer;
  const std::vector<OpId> by_id = collect_candidate_producers(g, maps, consumer);
  cw.work = by_id;
  sort_by_stage_order(s, cw.work);
  const size_t k = cw.work.size();
  std::vector<int> position_by_id(k);  // by_id[i]'s position in work
  for (size_t p = 0; p < k; ++p) {
    const auto it = std::lower_bound(by_id.begin(), by_id.end(), cw.work[p]);
    position_by_id[it - by_id.begin()] = static_cast<int>(p);
  }
  cw.info.resize(k);
  for (size_t p = 0; p < k; ++p) {
    ConsumerWork::Info& info = cw.info[p];
    info.stage = s.stage[cw.work[p]];
    info.order = s.order[cw.work[p]];
    info.async = is_async(g, cw.work[p]);
  }
  cw.carried.reserve(maps.needed_in[consumer].size());
  for (int e : maps.needed_in[consumer]) {
    const auto it = std::lower_bound(by_id.begin(), by_id.end(), g.edges[e].from);
    const int p = position_by_id[it - by_id.begin()];
    cw.info[p].edges.push_back(e);
    if (maps.live[e]) {
      cw.info[p].keys.push_back(raw_key(g, maps.raw[e]));
      cw.carried.push_back({raw_key(g, maps.raw[e]), p});
    }
  }
  for (ConsumerWork::Info& info : cw.info) {
    std::sort(info.edges.begin(), info.edges.end());
    std::sort(info.keys.begin(), info.keys.end());
    info.keys.erase(std::unique(info.keys.begin(), info.keys.end()), info.keys.end());
  }
  std::sort(cw.carried.begin(), cw.carried.end());
  cw.carried.erase(std::unique(cw.carried.begin(), cw.carried.end()), cw.carried.end());
  return cw;
}

namespace {

// The positions carrying `key`, as a range of cw.carried.
std::pair<size_t, size_t> carriers(const ConsumerWork& cw, int64_t key) {
  const auto lo =
      std::lower_bound(cw.carried.begin(), cw.carried.end(), std::pair<int64_t, int>{key, -1});
  auto hi = lo;
  while (hi != cw.carried.end() && hi->first == key) ++hi;
  return {static_cast<size_t>(lo - cw.carried.begin()),
          static_cast<size_t>(hi - cw.carried.begin())};
}

}  // namespace

SolveMaps build_solve_maps(const Graph& g, const ConsumerWork& cw, RawValue raw) {
  SolveMaps sm;
  sm.filtered.assign(cw.work.size(), 1);
  const auto [lo, hi] = carriers(cw, raw_key(g, raw));
  for (size_t i = lo; i < hi; ++i) sm.filtered[cw.carried[i].second] = 0;
  return sm;
}

std::vector<int> close_under_live_at_consumer(const ConsumerWork& cw, const SolveMaps& sm) {
  const int k = static_cast<int>(cw.work.size());
  std::vector<char> in(k, 0);
  std::vector<int> frontier;
  for (int i = 0; i < k; ++i) {
    if (!sm.filtered[i]) {
      in[i] = 1;
      frontier.push_back(i);
    }
  }
  // Keys already followed, marked at the first entry of their range in
  // cw.carried (every key a candidate carries has one).
  std::vector<char> expanded(cw.carried.size(), 0);
  while (!frontier.empty()) {
    const int i = frontier.back();
    frontier.pop_back();
    for (int64_t key : cw.info[i].keys) {
      const auto [lo, hi] = carriers(cw, key);
      if (lo == hi || expanded[lo]) continue;
      expanded[lo] = 1;
      for (size_t j = lo; j < hi; ++j) {
        const int p = cw.carried[j].second;
        if (!in[p]) {
          in[p] = 1;
          frontier.push_back(p);
        }
      }
    }
  }
  std::vector<int> live;
  for (int i = 0; i < k; ++i) {
    if (in[i]) live.push_back(i);
  }
  return live;
}

DisjointSets union_shared_origins(const ConsumerWork& cw, const std::vector<int>& live) {
  DisjointSets dsu(static_cast<int>(live.size()));
  // (key, index into live) for every value a live producer carries.
  std::vector<std::pair<int64_t, int>> by_key;
  for (int i = 0; i < static_cast<int>(live.size()); ++i) {
    for (int64_t key : cw.info[live[i]].keys) by_key.push_back({key, i});
  }
  std::sort(by_key.begin(), by_key.end());
  for (size_t a = 0; a < by_key.size();) {
    size_t b = a + 1;
    for (; b < by_key.size() && by_key[b].first == by_key[a].first; ++b) {
      dsu.unite(by_key[a].second, by_key[b].second);
    }
    a = b;
  }
  return dsu;
}

std::vector<PipeDraft> emit_group_pipes(const Graph& g, const Schedule& s, const ValueMaps& maps,
                                        const ConsumerWork& cw, const std::vector<int>& live,
                                        DisjointSets& dsu, OwnerMap& owners) {
  std::vector<PipeDraft> drafts;
  std::vector<int> from;
  const std::vector<int> roots = dsu.roots();
  drafts.reserve(roots.size() + 1);  // and the fallback solve_pair may add
  for (int root : roots) {
    PipeDraft d;
    d.consumer = cw.consumer;
    for (int i : dsu.member_span(root)) d.producers.push_back(cw.work[live[i]]);
    sort_by_stage_order(s, d.producers);
    d.owner = d.producers.front();  // choose_earliest_owner
    d.depth = 0;
    for (OpId u : d.producers) {
      from.clear();
      append_edges_from(maps, g, u, cw.consumer, from);
      for (int e : from) {
        if (!maps.live[e]) continue;
        d.edges.push_back(e);
        d.depth = std::max(d.depth, maps.depth[e]);
      }
    }
    std::sort(d.edges.begin(), d.edges.end());
    for (int i : dsu.member_span(root)) owners.owner[live[i]] = d.owner;
    drafts.push_back(std::move(d));
  }
  return drafts;
}

PipeDraft consumer_only_pipe(const ValueMaps& maps, OpId consumer) {
  PipeDraft d;
  d.consumer = consumer;
  d.owner = consumer;
  d.depth = 1;
  for (int e : maps.data_in[consumer]) {
    if (!maps.live[e]) d.edges.push_back(e);
  }
  std::sort(d.edges.begin(), d.edges.end());
  return d;
}

SolveOutcome solve_pair(const Graph& g, const Schedule& s, const ValueMaps& maps,
                        const ConsumerWork& cw, RawValue raw, OwnerMap& owners) {
  assert(owners.owner.size() == cw.work.size());
  SolveOutcome out;
  out.record.raw = raw;
  out.record.consumer = cw.consumer;
  out.record.candidates = static_cast<int>(cw.work.size());

  const SolveMaps sm = build_solve_maps(g, cw, raw);
  bool any = false;
  for (size_t i = 0; i < sm.filtered.size(); ++i) {
    if (sm.filtered[i]) continue;
    any = true;
    if (owners.owner[i] >= 0) {  // an owner-map hit: the group is out already
      out.record.repeat_of = owners.owner[i];
      return out;
    }
  }
  if (!any && owners.fallback) {
    out.record.fallback = true;
    out.record.repeat_of = cw.consumer;
    return out;
  }

  const std::vector<int> live = close_under_live_at_consumer(cw, sm);
  for (int pos : live) out.record.live.push_back(cw.work[pos]);

  DisjointSets dsu = union_shared_origins(cw, live);
  out.drafts = emit_group_pipes(g, s, maps, cw, live, dsu, owners);
  out.record.groups = static_cast<int>(out.drafts.size());

  if (live.empty()) {
    out.drafts.push_back(consumer_only_pipe(maps, cw.consumer));
    out.record.fallback = true;
    owners.fallback = true;
  }
  return out;
}

}  // namespace tilesched::materialize_internal
