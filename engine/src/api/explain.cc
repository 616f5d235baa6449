// Why an II is not lower (see tilesched/explain.h, docs/EXPLAIN.md).
//
// At the MII the bound that binds is its own explanation, and each of the
// four has a witness: the singleton slot or pool whose holds add up to it,
// a recurrence whose ceil(sum latency / sum distance) is it (a positive
// cycle at II - 1, found by bounds/positive_cycle.h as RecMII's), or the
// distance-0 path that a stage bound squeezes. Above the MII only a proof
// says why: the exact oracle is asked whether the graph has a legal
// schedule below II, and then, piece by piece (ops in halving chunks, then
// single edges, then whole slots and pools), whether a smaller part still
// has none. What is left is a core: infeasible below II on its own.
#include "tilesched/explain.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "bounds/positive_cycle.h"
#include "graph/graph_algo.h"
#include "model/arith.h"
#include "tilesched/exact.h"
#include "tilesched/mii.h"

namespace tilesched {

std::string_view explain_verdict_name(ExplainVerdict v) {
  switch (v) {
    case ExplainVerdict::kAtBound: return "at-bound";
    case ExplainVerdict::kCore: return "core";
    case ExplainVerdict::kLowerFeasible: return "lower-feasible";
    case ExplainVerdict::kOpen: return "open";
  }
  return "open";
}

namespace {

using Clock = std::chrono::steady_clock;

std::string name_list(const Graph& g, const std::vector<OpId>& ops) {
  std::string out;
  const size_t shown = std::min<size_t>(ops.size(), 10);
  for (size_t i = 0; i < shown; ++i) out += (i == 0 ? "" : ", ") + g.ops[ops[i]].name;
  if (ops.size() > shown) out += " and " + std::to_string(ops.size() - shown) + " more";
  return out;
}

// --- The MII's witnesses ----------------------------------------------------

// The singleton slot, pooled slot or rate pool whose bound is `value`.
bool resource_witness(const Graph& g, int64_t value, bool singleton, Explanation& e) {
  const Target& t = g.target;
  for (int s = 1; s <= t.slot_count(); ++s) {
    const int64_t cap = t.slot(s).capacity;
    if ((cap == 1) != singleton) continue;
    int64_t sum = 0;
    std::vector<OpId> holders;
    for (OpId v = 0; v < g.op_count(); ++v) {
      for (const Triple& tr : g.ops[v].resources) {
        if (tr.slot != s) continue;
        sum += tr.occupancy * tr.duration;
        holders.push_back(v);
      }
    }
    if (holders.empty() || ceil_div(sum, cap) != value) continue;
    e.ops = holders;
    e.resources = {t.slot(s).name};
    e.summary = "slot " + t.slot(s).name + " (capacity " + std::to_string(cap) + ") is held " +
                std::to_string(sum) + " occupancy-cycles (units held x cycles) per iteration by " +
                name_list(g, holders) +
                ": at most " + std::to_string(cap) + " per cycle needs II >= " +
                std::to_string(value);
    return true;
  }
  if (singleton) return false;
  for (size_t p = 0; p < t.pools.size(); ++p) {
    if (t.pools[p].kind != PoolKind::kRate) continue;
    int64_t sum = 0;
    std::vector<OpId> holders;
    for (OpId v = 0; v < g.op_count(); ++v) {
      for (const PoolUse& use : g.ops[v].pools) {
        if (use.pool != static_cast<int>(p)) continue;
        sum += use.count * footprint_duration(g.ops[v]);
        holders.push_back(v);
      }
    }
    if (holders.empty() || ceil_div(sum, t.pools[p].capacity) != value) continue;
    e.ops = holders;
    e.resources = {t.pools[p].name};
    e.summary = "rate pool " + t.pools[p].name + " (capacity " +
                std::to_string(t.pools[p].capacity) + ") is held " + std::to_string(sum) +
                " occupancy-cycles (units held x cycles) per iteration by " +
                name_list(g, holders) + ": it needs II >= " +
                std::to_string(value);
    return true;
  }
  return false;
}

bool recurrence_witness(const Graph& g, int64_t value, Explanation& e) {
  if (value <= 1) return false;
  std::vector<int> cycle = positive_cycle(g, value - 1);
  if (cycle.empty()) return false;
  int64_t lat = 0, dist = 0;
  for (int i : cycle) {
    lat += g.edges[i].latency;
    dist += g.edges[i].distance;
    e.ops.push_back(g.edges[i].from);
  }
  std::sort(e.ops.begin(), e.ops.end());
  e.edges = cycle;
  std::sort(e.edges.begin(), e.edges.end());
  std::vector<OpId> walk;
  for (int i : cycle) walk.push_back(g.edges[i].from);
  e.summary = "the recurrence " + name_list(g, walk) + " takes " + std::to_string(lat) +
              " cycles over " + std::to_string(dist) + " iteration(s): II >= ceil(" +
              std::to_string(lat) + " / " + std::to_string(dist) + ") = " +
              std::to_string(ceil_div(lat, std::max<int64_t>(dist, 1)));
  return true;
}

// The op whose stage bound gives DepMII, with the longest distance-0 path
// that ends at it (each step an in-edge that realises the longest path).
bool dependency_witness(const Graph& g, int64_t value, Explanation& e) {
  const Adjacency adj = Adjacency::build(g);
  const std::vector<int64_t> lp = longest_zero_distance_paths(g, adj);
  for (OpId v = 0; v < g.op_count(); ++v) {
    const std::optional<int64_t> md = g.ops[v].max_depth;
    if (!md || ceil_div(lp[v] + 1, *md + 1) != value) continue;
    std::vector<OpId> path{v};
    std::vector<char> on(g.op_count(), 0);
    on[v] = 1;
    for (OpId u = v; lp[u] > 0;) {
      int step = -1;
      for (int p = adj.in_begin[u]; p < adj.in_begin[u + 1] && step < 0; ++p) {
        const Edge& in = g.edges[adj.in_edges[p]];
        if (in.distance == 0 && !on[in.from] && lp[in.from] + in.latency == lp[u]) {
          step = adj.in_edges[p];
        }
      }
      if (step < 0) break;
      e.edges.push_back(step);
      u = g.edges[step].from;
      on[u] = 1;
      path.push_back(u);
    }
    std::reverse(path.begin(), path.end());
    e.ops = path;
    std::sort(e.ops.begin(), e.ops.end());
    std::sort(e.edges.begin(), e.edges.end());
    e.summary = "op " + g.ops[v].name + " may be at most in stage " + std::to_string(*md) +
                " (max_depth) and ends a distance-0 path of " + std::to_string(lp[v]) +
                " cycles (" + name_list(g, path) + "): II >= ceil(" +
                std::to_string(lp[v] + 1) + " / " + std::to_string(*md + 1) + ")";
    return true;
  }
  return false;
}

Explanation at_bound(const Graph& g, int64_t ii, const MiiBounds& m) {
  Explanation e;
  e.ii = ii;
  e.mii = m;
  e.verdict = ExplainVerdict::kAtBound;
  if (ii <= 1) {
    e.summary = "II 1 is the least II there is";
    return e;
  }
  if (m.resource == ii && resource_witness(g, ii, true, e)) {
    e.bound = "resource";
  } else if (m.recurrence == ii && recurrence_witness(g, ii, e)) {
    e.bound = "recurrence";
  } else if (m.fine_density == ii && resource_witness(g, ii, false, e)) {
    e.bound = "fine-density";
  } else if (m.dependency == ii && dependency_witness(g, ii, e)) {
    e.bound = "dependency";
  }
  e.summary = "II " + std::to_string(ii) + " is the MII" +
              (e.bound.empty() ? "" : " (" + e.bound + " bound): " + e.summary);
  return e;
}

// --- A core above the MII -------------------------------------------------

// A part of the graph: the ops and edges it keeps, and the resources it
// still charges (slots 0..S-1, then the target's pools).
struct Part {
  std::vector<char> op, edge, resource;
};

Graph part_graph(const Graph& g, const Part& p) {
  const int slots = g.target.slot_count();
  Graph h;
  h.name = g.name;
  h.target = g.target;
  h.attrs = g.attrs;
  std::vector<int> id(g.op_count(), -1);
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (!p.op[v]) continue;
    id[v] = h.op_count();
    Op op = g.ops[v];
    std::erase_if(op.resources, [&](const Triple& tr) { return !p.resource[tr.slot - 1]; });
    std::erase_if(op.pools, [&](const PoolUse& u) { return !p.resource[slots + u.pool]; });
    for (size_t q = 0; q < g.target.pools.size(); ++q) {
      if (g.target.pools[q].kind == PoolKind::kStorage && !p.resource[slots + q]) {
        op.store_bytes = 0;
      }
    }
    h.ops.push_back(std::move(op));
  }
  for (int e = 0; e < g.edge_count(); ++e) {
    const Edge& edge = g.edges[e];
    if (!p.edge[e] || id[edge.from] < 0 || id[edge.to] < 0) continue;
    Edge kept = edge;
    kept.from = id[edge.from];
    kept.to = id[edge.to];
    h.edges.push_back(kept);
  }
  return h;
}

enum class Answer { kNone, kSome, kUnknown };  // legal schedules below II

// Asks the exact oracle, within the explanation's budget, whether a part
// has a legal schedule at some II below `ii`.
class Asker {
 public:
  Asker(int64_t ii, const ExplainOptions& opts)
      : ii_(ii), opts_(opts),
        deadline_(Clock::now() + std::chrono::milliseconds(opts.time_limit_ms)) {}

  StatusOr<Answer> ask(const Graph& h) {
    const int64_t left = std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline_ - Clock::now()).count();
    if (left <= 0) return Answer::kUnknown;
    ExactOptions eo;
    eo.time_limit_ms = std::min(opts_.check_limit_ms, left);
    eo.minimise_stages = false;
    ++checks_;
    StatusOr<ExactResult> r = generate_exact(h, eo);
    if (!r.ok()) return r.status();
    const Schedule& s = r->schedule;
    if (s.feasible && s.ii < ii_) {
      found_ = s;
      return Answer::kSome;
    }
    if (s.lower_bound && *s.lower_bound >= ii_) return Answer::kNone;
    return Answer::kUnknown;
  }
  // Whether the part is still infeasible below II; an undecided answer
  // (or an oracle error on a part) keeps the piece and spoils minimality.
  bool still_none(const Graph& g, const Part& p) {
    const StatusOr<Answer> a = ask(part_graph(g, p));
    if (!a.ok() || *a == Answer::kUnknown) definite_ = false;
    return a.ok() && *a == Answer::kNone;
  }
  int64_t checks() const { return checks_; }
  // The last legal schedule found below II (the whole graph's, when the
  // first question found one).
  const std::optional<Schedule>& found() const { return found_; }
  bool definite() const { return definite_; }

 private:
  int64_t ii_;
  ExplainOptions opts_;
  Clock::time_point deadline_;
  int64_t checks_ = 0;
  std::optional<Schedule> found_;
  bool definite_ = true;
};

// Drops ops in chunks of halving size while the rest stays infeasible
// (a subset of a feasible part is feasible, so one pass at size 1 leaves
// every op necessary when every answer was definite).
void shrink_ops(const Graph& g, Asker& asker, Part& p) {
  std::vector<OpId> kept;
  for (OpId v = 0; v < g.op_count(); ++v) kept.push_back(v);
  for (size_t chunk = std::max<size_t>(1, kept.size() / 2);; chunk /= 2) {
    for (size_t i = 0; i < kept.size();) {
      const size_t end = std::min(kept.size(), i + chunk);
      if (end - i == kept.size()) break;  // never the empty part
      for (size_t j = i; j < end; ++j) p.op[kept[j]] = 0;
      if (asker.still_none(g, p)) {
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i),
                   kept.begin() + static_cast<std::ptrdiff_t>(end));
      } else {
        for (size_t j = i; j < end; ++j) p.op[kept[j]] = 1;
        i = end;
      }
    }
    if (chunk == 1) break;
  }
}

// Then single edges among the kept ops, then whole resources they hold.
void shrink_edges_and_resources(const Graph& g, Asker& asker, Part& p) {
  for (int e = 0; e < g.edge_count(); ++e) {
    if (!p.op[g.edges[e].from] || !p.op[g.edges[e].to]) continue;
    p.edge[e] = 0;
    if (!asker.still_none(g, p)) p.edge[e] = 1;
  }
  for (size_t r = 0; r < p.resource.size(); ++r) {
    p.resource[r] = 0;
    if (!asker.still_none(g, p)) p.resource[r] = 1;
  }
}

// The resources a kept op of the part still charges, by name.
std::vector<std::string> charged_resources(const Graph& g, const Part& p) {
  const int slots = g.target.slot_count();
  std::vector<char> used(p.resource.size(), 0);
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (!p.op[v]) continue;
    const Op& op = g.ops[v];
    for (const Triple& tr : op.resources) used[tr.slot - 1] = 1;
    for (const PoolUse& u : op.pools) used[slots + u.pool] = 1;
    for (size_t q = 0; q < g.target.pools.size(); ++q) {
      if (g.target.pools[q].kind == PoolKind::kStorage && op.store_bytes > 0) used[slots + q] = 1;
    }
  }
  std::vector<std::string> names;
  for (size_t r = 0; r < used.size(); ++r) {
    if (!used[r] || !p.resource[r]) continue;
    names.push_back(static_cast<int>(r) < slots
                        ? g.target.slot(static_cast<int>(r) + 1).name
                        : g.target.pools[r - slots].name);
  }
  return names;
}

std::string core_summary(const Graph& g, const Explanation& e) {
  std::string res;
  for (size_t i = 0; i < e.resources.size(); ++i) res += (i == 0 ? "" : ", ") + e.resources[i];
  return "no II below " + std::to_string(e.ii) + " is legal (proven by the exact oracle); " +
         std::to_string(e.ops.size()) + " op(s) (" + name_list(g, e.ops) + "), " +
         std::to_string(e.edges.size()) + " edge(s) among them" +
         (res.empty() ? std::string(" and no resource") : " and " + res) +
         " are infeasible below II " + std::to_string(e.ii) + " on their own" +
         (e.minimal ? "; dropping any one of them makes a lower II possible" : "");
}

}  // namespace

StatusOr<Explanation> explain_ii(const Graph& g, int64_t ii, const ExplainOptions& opts) {
  const MiiBounds m = compute_mii(g);
  if (ii <= m.max()) return at_bound(g, ii, m);
  if (g.attrs.force_serial_execution) {
    Explanation e;
    e.ii = ii;
    e.mii = m;
    e.verdict = ExplainVerdict::kAtBound;
    e.bound = "force-serial";
    e.summary = "force_serial_execution is set (rule L7): every generator publishes the "
                "serial schedule, whose II is its makespan";
    return e;
  }
  Explanation e;
  e.ii = ii;
  e.mii = m;
  Asker asker(ii, opts);
  const StatusOr<Answer> whole = asker.ask(g);
  if (!whole.ok()) return whole.status();
  if (*whole != Answer::kNone) {
    e.checks = asker.checks();
    e.verdict = *whole == Answer::kSome ? ExplainVerdict::kLowerFeasible : ExplainVerdict::kOpen;
    if (*whole == Answer::kSome) {
      e.witness = asker.found();
      e.lower_ii = e.witness->ii;
    }
    e.summary = *whole == Answer::kSome
                    ? "II " + std::to_string(e.lower_ii) + " is legal too: II " +
                          std::to_string(ii) + " is not the least"
                    : "the exact oracle could not decide within the time limit whether an II "
                      "below " + std::to_string(ii) + " is legal";
    return e;
  }
  Part p{std::vector<char>(g.op_count(), 1), std::vector<char>(g.edge_count(), 1),
         std::vector<char>(g.target.slot_count() + g.target.pools.size(), 1)};
  shrink_ops(g, asker, p);
  shrink_edges_and_resources(g, asker, p);
  e.verdict = ExplainVerdict::kCore;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (p.op[v]) e.ops.push_back(v);
  }
  for (int i = 0; i < g.edge_count(); ++i) {
    if (p.edge[i] && p.op[g.edges[i].from] && p.op[g.edges[i].to]) e.edges.push_back(i);
  }
  e.resources = charged_resources(g, p);
  e.minimal = asker.definite();
  e.checks = asker.checks();
  e.summary = core_summary(g, e);
  return e;
}

}  // namespace tilesched
