// The stage span bound (stage_span.h; docs/BOUNDS.md, "The stage span").
#include "stage_span.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "graph_algo.h"

namespace tilesched {

namespace {

// Resources are numbered slots first (one-based slot s is s - 1), then
// the target's pools; only rate pools take part.
struct Hold {
  int resource = 0;
  int64_t duration = 0;
  int64_t units = 0;
};

struct Resources {
  std::vector<int64_t> capacity;   // per resource; 0 for a pool that is not a rate pool
  std::vector<std::vector<Hold>> holds;       // per op: each triple and rate-pool use
  std::vector<std::vector<Hold>> heavy;       // per op: longest hold of more than half, per resource
  std::vector<std::vector<int64_t>> at_start; // per op: units held in its first cycle, per resource
};

Resources resources_of(const Graph& g) {
  Resources r;
  const int slots = g.target.slot_count();
  for (const Slot& s : g.target.slots) r.capacity.push_back(s.capacity);
  for (const Pool& p : g.target.pools) r.capacity.push_back(p.kind == PoolKind::kRate ? p.capacity : 0);
  const size_t count = r.capacity.size();
  r.holds.resize(g.ops.size());
  r.heavy.resize(g.ops.size());
  r.at_start.assign(g.ops.size(), std::vector<int64_t>(count, 0));
  std::vector<int64_t> longest(count);
  for (OpId v = 0; v < g.op_count(); ++v) {
    const Op& op = g.ops[v];
    std::fill(longest.begin(), longest.end(), 0);
    auto add = [&](int res, int64_t duration, int64_t units) {
      if (duration <= 0 || units <= 0) return;
      r.holds[v].push_back({res, duration, units});
      r.at_start[v][res] += units;
      if (2 * units > r.capacity[res]) longest[res] = std::max(longest[res], duration);
    };
    for (const Triple& t : op.resources) add(t.slot - 1, t.duration, t.occupancy);
    for (const PoolUse& u : op.pools) {
      const int res = slots + u.pool;
      if (r.capacity[res] > 0) add(res, footprint_duration(op), u.count);
    }
    for (size_t res = 0; res < count; ++res) {
      if (longest[res] > 0) r.heavy[v].push_back({static_cast<int>(res), longest[res], 0});
    }
  }
  return r;
}

// A member of K for one hold of v: w's hold of R and its distance to v.
struct Candidate {
  int resource = 0;   // R
  int64_t key = 0;    // P_wv - d_w
  int64_t duration = 0;
  int64_t asap = 0;
};

int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; }

constexpr int64_t kUnreached = INT64_MIN;

// Longest distance-0 paths into v (kUnreached where none), over the ops
// before v in the topological walk.
void paths_into(const Graph& g, const Adjacency& adj, const std::vector<OpId>& walk, int at,
                std::vector<int64_t>& to_v) {
  std::fill(to_v.begin(), to_v.end(), kUnreached);
  to_v[walk[at]] = 0;
  for (int i = at - 1; i >= 0; --i) {
    const OpId x = walk[i];
    for (int p = adj.out_begin[x]; p < adj.out_begin[x + 1]; ++p) {
      const Edge& e = g.edges[adj.out_edges[p]];
      if (e.distance == 0 && to_v[e.to] != kUnreached) {
        to_v[x] = std::max(to_v[x], to_v[e.to] + e.latency);
      }
    }
  }
}

// The bound from one hold of v in `stages` stages: per resource R, the
// prefixes of the candidates by P_wv - d_w, largest first.
int64_t hold_bound(const Hold& mine, int64_t stages, std::vector<Candidate>& candidates) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.resource, b.key, b.duration, b.asap) <
           std::tie(b.resource, a.key, a.duration, a.asap);
  });
  int64_t bound = 1, held = 0, first = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const bool opens = i == 0 || candidates[i - 1].resource != c.resource;
    held = opens ? c.duration : held + c.duration;
    first = opens ? c.asap : std::min(first, c.asap);
    const int64_t span = held + c.key;  // c.key: the least P_wv - d_w so far
    bound = std::max(bound, ceil_div(span + std::max(mine.duration, 1 + first), stages));
  }
  return bound;
}

// The steps stage_span_bound takes past its setup: a path pass per capped
// op, and per hold a scan of the walk and a sort of the heavy holds.
int64_t steps_of(const Graph& g, const Resources& res, const std::vector<OpId>& capped) {
  int64_t heavy_holds = 0;
  for (const std::vector<Hold>& h : res.heavy) heavy_holds += static_cast<int64_t>(h.size());
  if (heavy_holds == 0) return 0;
  const int64_t n = g.op_count();
  int64_t steps = 0;
  for (OpId v : capped) {
    steps += n + static_cast<int64_t>(g.edges.size()) +
             static_cast<int64_t>(res.holds[v].size()) * (n + 2 * heavy_holds);
  }
  return steps;
}

}  // namespace

int64_t stage_span_bound(const Graph& g) {
  const int n = g.op_count();
  std::vector<OpId> capped;
  for (OpId v = 0; v < n; ++v) {
    if (g.ops[v].max_depth) capped.push_back(v);
  }
  if (capped.empty()) return 1;
  const Adjacency adj = Adjacency::build(g);
  const std::vector<OpId> walk = zero_distance_walk(g, adj);
  if (static_cast<int>(walk.size()) < n) return 1;  // a zero-latency zero-distance cycle
  const Resources res = resources_of(g);
  const int64_t steps = steps_of(g, res, capped);
  if (steps == 0 || steps > kStageSpanMaxSteps) return 1;  // no heavy hold, or too much work

  const std::vector<int64_t> asap = longest_zero_distance_paths(g, adj);
  std::vector<int> position(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) position[walk[i]] = i;
  std::vector<int64_t> to_v(static_cast<size_t>(n));
  std::vector<Candidate> candidates;  // of one hold of v, every R
  int64_t bound = 1;
  for (OpId v : capped) {
    if (res.holds[v].empty()) continue;
    paths_into(g, adj, walk, position[v], to_v);
    for (const Hold& mine : res.holds[v]) {
      const int64_t room = res.capacity[mine.resource] - mine.units;  // left beside v's hold
      candidates.clear();
      for (int i = 0; i < position[v]; ++i) {
        const OpId w = walk[i];
        if (to_v[w] == kUnreached || res.at_start[w][mine.resource] <= room) continue;
        for (const Hold& h : res.heavy[w]) {
          candidates.push_back({h.resource, to_v[w] - h.duration, h.duration, asap[w]});
        }
      }
      bound = std::max(bound, hold_bound(mine, *g.ops[v].max_depth + 1, candidates));
    }
  }
  return bound;
}

}  // namespace tilesched
