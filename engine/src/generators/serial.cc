// The serial generator (seed 001; docs/CONTRACT.md, "The schedule
// generators").
//
// 1. Kahn's walk over the distance-0 edges; the ready set pops the lowest
//    program index, so the order is bitwise deterministic. A walk that
//    leaves ops behind found a (zero-latency) zero-distance cycle.
// 2. In-order issue: each op, in walk order, starts at the earliest cycle
//    that meets its distance-0 dependences, is not before the op issued
//    before it, and finds its slots and pools free in a plain (non-modulo)
//    reservation table. An op issued in the same cycle as its walk
//    predecessor must also come later in program order, else it waits a
//    cycle: that keeps order = position in the walk (seed 001) equal to the
//    rank by (start, program index) that docs/CONTRACT.md derives.
// 3. II = max(makespan, ceil((s_u + lambda - s_v) / delta) over
//    loop-carried edges). Every footprint ends inside [0, II), so the
//    modulo table equals the plain one and L2/L3/L5/L6/L7 hold; L4 is
//    checked and reported when the serial schedule exceeds the budget.
#include "tilesched/serial.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "util/elapsed.h"
#include "graph/graph_algo.h"
#include "graph/storage.h"
#include "tilesched/mii.h"

namespace tilesched {

namespace {

// Plain reservation table for in-order issue. Starts never decrease, so a
// unit held until `end` is busy for every later start below `end`, and the
// load on a slot over [s, s + d) is largest at s: each resource's earliest
// fitting start is found from the holders still active, and the op's
// start is the maximum over its resources (each condition is upward-closed).
class InOrderTable {
 public:
  explicit InOrderTable(const Target& t)
      : target_(t), busy_until_(t.slot_count(), 0),
        slot_active_(t.slot_count()), pool_active_(t.pools.size()) {}

  int64_t earliest_fit(const Op& op, int64_t from) const {
    int64_t s = from;
    for (const Triple& tr : op.resources) {
      const int64_t cap = target_.slot(tr.slot).capacity;
      if (cap == 1) {
        s = std::max(s, busy_until_[tr.slot - 1]);
      } else {
        s = std::max(s, fit(slot_active_[tr.slot - 1], cap, tr.occupancy, from));
      }
    }
    for (const PoolUse& use : op.pools) {
      s = std::max(s, fit(pool_active_[use.pool], target_.pools[use.pool].capacity,
                          use.count, from));
    }
    return s;
  }

  void hold(const Op& op, int64_t start) {
    for (const Triple& tr : op.resources) {
      if (target_.slot(tr.slot).capacity == 1) {
        busy_until_[tr.slot - 1] = start + tr.duration;
      } else {
        add(slot_active_[tr.slot - 1], start, start + tr.duration, tr.occupancy);
      }
    }
    const int64_t d = footprint_duration(op);
    for (const PoolUse& use : op.pools) add(pool_active_[use.pool], start, start + d, use.count);
  }

 private:
  struct Hold {
    int64_t end;
    int64_t units;
  };

  // Smallest s >= from at which `units` more fit under `cap`.
  static int64_t fit(const std::vector<Hold>& active, int64_t cap, int64_t units, int64_t from) {
    int64_t load = 0;
    for (const Hold& h : active) {
      if (h.end > from) load += h.units;
    }
    int64_t s = from;
    for (const Hold& h : active) {  // sorted by end
      if (load + units <= cap) break;
      if (h.end <= from) continue;
      load -= h.units;
      s = h.end;
    }
    return s;
  }

  static void add(std::vector<Hold>& active, int64_t start, int64_t end, int64_t units) {
    std::erase_if(active, [&](const Hold& h) { return h.end <= start; });
    const auto at = std::upper_bound(active.begin(), active.end(), end,
                                     [](int64_t e, const Hold& h) { return e < h.end; });
    active.insert(at, Hold{end, units});
  }

  const Target& target_;
  std::vector<int64_t> busy_until_;             // singleton slots
  std::vector<std::vector<Hold>> slot_active_;  // pooled slots, by slot - 1
  std::vector<std::vector<Hold>> pool_active_;  // rate pools, by pool index
};

using Clock = std::chrono::steady_clock;

std::string list_ops(const Graph& g, const std::vector<OpId>& ops, size_t limit) {
  std::string out;
  for (size_t i = 0; i < ops.size() && i < limit; ++i) {
    if (i > 0) out += ", ";
    out += g.ops[ops[i]].name;
  }
  if (ops.size() > limit) out += ", ... (" + std::to_string(ops.size()) + " in all)";
  return out;
}

bool has_group_or_depth(const Graph& g) {
  return std::any_of(g.ops.begin(), g.ops.end(),
                     [](const Op& op) { return op.leader_gid || op.max_depth; });
}

// The diagnostic for a walk that left ops behind (step 1).
std::string unordered_ops(const Graph& g, const std::vector<OpId>& walk) {
  const int n = g.op_count();
  std::vector<char> seen(n, 0);
  for (OpId v : walk) seen[v] = 1;
  std::vector<OpId> left;
  for (OpId v = 0; v < n; ++v) {
    if (!seen[v]) left.push_back(v);
  }
  return "dependence cycle over zero-distance edges: Kahn's walk cannot order " +
         list_ops(g, left, 8) +
         " (ops on a zero-latency cycle start in one cycle: the pipelining generators "
         "schedule them, and auto falls back to cost-based)";
}

// Step 2: the start of every op, issued in walk order; returns the makespan.
int64_t issue_in_order(const Graph& g, const Adjacency& adj, const std::vector<OpId>& walk,
                       std::vector<int64_t>& start) {
  InOrderTable table(g.target);
  int64_t makespan = 1;
  for (size_t i = 0; i < walk.size(); ++i) {
    const OpId v = walk[i];
    int64_t earliest = 0;
    if (i > 0) {
      const OpId prev = walk[i - 1];
      earliest = start[prev] + (prev < v ? 0 : 1);  // step 2 above
    }
    for (int p = adj.in_begin[v]; p < adj.in_begin[v + 1]; ++p) {
      const Edge& e = g.edges[adj.in_edges[p]];
      if (e.distance == 0) earliest = std::max(earliest, start[e.from] + e.latency);
    }
    const int64_t at = table.earliest_fit(g.ops[v], earliest);
    start[v] = at;
    table.hold(g.ops[v], at);
    makespan = std::max(makespan, at + footprint_duration(g.ops[v]));
  }
  return makespan;
}

// Step 3: the makespan, or more where a loop-carried edge needs it.
int64_t serial_ii(const Graph& g, const std::vector<int64_t>& start, int64_t makespan) {
  int64_t ii = makespan;
  for (const Edge& e : g.edges) {
    if (e.distance == 0) continue;
    const int64_t need = start[e.from] + e.latency - start[e.to];
    if (need > 0) ii = std::max(ii, (need + e.distance - 1) / e.distance);
  }
  return ii;
}

// The L4 diagnostic when the schedule needs more storage than the target
// has; nothing when it fits.
std::optional<std::string> storage_overflow(const Graph& g, const Adjacency& adj,
                                            const std::vector<int64_t>& start, int64_t ii) {
  const std::optional<int> sp = g.target.storage_pool();
  if (!sp) return std::nullopt;
  const int64_t cap = g.target.pools[*sp].capacity;
  if (storage_bytes_needed(g, adj, start, ii, cap) <= cap) return std::nullopt;
  return "the serial schedule needs more than " + std::to_string(cap) + " bytes of " +
         g.target.pools[*sp].name + " (L4); no larger II lowers it";
}

}  // namespace

Schedule generate_serial(const Graph& g) {
  Schedule s;
  s.graph = g.name;
  s.generator = "serial";
  s.mii = compute_mii(g);  // reported beside the schedule; not part of time_ns

  const Clock::time_point t0 = Clock::now();
  const Adjacency adj = Adjacency::build(g);
  const int n = g.op_count();
  if (has_group_or_depth(g)) {
    s.diagnostics.push_back(
        "serial generator ignores leader_gid groups and max_depth (seed 001 quirk); "
        "with every op in stage 0 they hold trivially");
  }

  const std::vector<OpId> walk = zero_distance_walk(g, adj);
  if (static_cast<int>(walk.size()) < n) {
    s.failure = FailureReason::kDependenceCycle;
    s.diagnostics.push_back(unordered_ops(g, walk));
    s.time_ns = elapsed_ns(t0);
    return s;
  }
  std::vector<int64_t> start(n, 0);
  const int64_t makespan = issue_in_order(g, adj, walk, start);
  const int64_t ii = serial_ii(g, start, makespan);
  if (std::optional<std::string> overflow = storage_overflow(g, adj, start, ii)) {
    s.failure = FailureReason::kStorageBudget;
    s.diagnostics.push_back(std::move(*overflow));
    s.time_ns = elapsed_ns(t0);
    return s;
  }

  s.feasible = true;
  s.ii = ii;
  s.start = std::move(start);
  s.stage.assign(n, 0);
  s.order.assign(n, 0);
  for (size_t i = 0; i < walk.size(); ++i) s.order[walk[i]] = static_cast<int64_t>(i);
  s.stage_count = 1;
  s.time_ns = elapsed_ns(t0);
  return s;
}

}  // namespace tilesched
