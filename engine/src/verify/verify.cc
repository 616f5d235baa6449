// The verifier: rules L1-L7, the derived stage, order and stage count
// (docs/CONTRACT.md), and the carried Pipe_/Mutex_ values; docs/VERIFIER.md
// states every formula it checks.
//
// It computes everything from the definitions and shares no code with the
// generators or the materializer: no reservation table, no footprint
// lowering, no derive_stage_order, no edge rule of materialize/ (the values
// are derived again in verify_values.cc). It must survive any schedule a user hands it, so
// nothing here allocates or loops in proportion to II or to a start cycle:
// the modulo rules (L2, L3) are an interval sweep over the triples, and sums
// that can pass 2^63 (L3, L4) are taken in 128 bits.
#include "tilesched/verify.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilesched/limits.h"
#include "verify_values.h"

namespace tilesched {

namespace {

__extension__ typedef __int128 Wide;

std::string wide_to_string(Wide x) {
  if (x == 0) return "0";
  const bool negative = x < 0;
  std::string digits;
  while (x != 0) {
    const int d = static_cast<int>(x % 10);
    digits.push_back(static_cast<char>('0' + (d < 0 ? -d : d)));
    x /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string str(int64_t x) { return std::to_string(x); }

// Ops named in a message: all of them, up to a point.
constexpr size_t kNamedOpsInMessage = 16;

std::string op_list(const Graph& g, const std::vector<OpId>& ops) {
  std::string out;
  for (size_t i = 0; i < ops.size() && i < kNamedOpsInMessage; ++i) {
    if (i > 0) out += ", ";
    out += g.ops[ops[i]].name;
  }
  if (ops.size() > kNamedOpsInMessage) {
    out += ", and " + std::to_string(ops.size() - kNamedOpsInMessage) + " more";
  }
  return out;
}

class Reporter {
 public:
  void add(Rule rule, std::vector<OpId> ops, std::string message) {
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    violations_.push_back({rule, std::move(ops), std::move(message)});
  }
  bool empty() const { return violations_.empty(); }

  // Rule order, then by first op; a violation that names no op comes
  // first within its rule, and ties keep the order they were found in.
  VerifyReport finish() && {
    auto key = [](const Violation& v) {
      return std::pair<int, OpId>(static_cast<int>(v.rule), v.ops.empty() ? -1 : v.ops.front());
    };
    std::stable_sort(violations_.begin(), violations_.end(),
                     [&](const Violation& a, const Violation& b) { return key(a) < key(b); });
    VerifyReport report;
    report.violations = std::move(violations_);
    return report;
  }

 private:
  std::vector<Violation> violations_;
};

// ---------------------------------------------------------------- shape

// Graph references the other rules index with. A validated graph always
// passes; the check only keeps a hand-made graph from reading out of bounds.
void check_graph_references(const Graph& g, Reporter& out) {
  const int n = g.op_count();
  for (int e = 0; e < g.edge_count(); ++e) {
    const Edge& edge = g.edges[e];
    if (edge.from < 0 || edge.from >= n || edge.to < 0 || edge.to >= n) {
      out.add(Rule::kShape, {},
              "graph edge " + std::to_string(e) + " names an op outside the graph");
    }
  }
  const int slots = g.target.slot_count();
  const int pools = static_cast<int>(g.target.pools.size());
  for (OpId v = 0; v < n; ++v) {
    for (const Triple& t : g.ops[v].resources) {
      if (t.slot < 1 || t.slot > slots) {
        out.add(Rule::kShape, {v},
                "op " + g.ops[v].name + " claims slot " + std::to_string(t.slot) +
                    ", outside 1.." + std::to_string(slots));
      }
    }
    for (const PoolUse& p : g.ops[v].pools) {
      if (p.pool < 0 || p.pool >= pools) {
        out.add(Rule::kShape, {v},
                "op " + g.ops[v].name + " uses pool " + std::to_string(p.pool) +
                    ", outside 0.." + std::to_string(pools - 1));
      }
    }
  }
}

void check_shape(const Graph& g, const Schedule& s, Reporter& out) {
  check_graph_references(g, out);
  const size_t n = g.ops.size();
  if (s.ii < 1 || s.ii > limits::kMaxII) {
    out.add(Rule::kShape, {},
            "II " + str(s.ii) + " is outside [1, " + str(limits::kMaxII) + "]");
  }
  if (s.start.size() != n) {
    out.add(Rule::kShape, {},
            "schedule has " + std::to_string(s.start.size()) + " start cycles for " +
                std::to_string(n) + " ops");
  }
  for (size_t v = 0; v < n && v < s.start.size(); ++v) {
    if (s.start[v] < 0 || s.start[v] > limits::kMaxStart) {
      out.add(Rule::kShape, {static_cast<OpId>(v)},
              "op " + g.ops[v].name + " starts at " + str(s.start[v]) + ", outside [0, " +
                  str(limits::kMaxStart) + "]");
    }
  }
  if (s.stage.size() != n) {
    out.add(Rule::kShape, {},
            "schedule has " + std::to_string(s.stage.size()) + " stages for " +
                std::to_string(n) + " ops");
  }
  if (s.order.size() != n) {
    out.add(Rule::kShape, {},
            "schedule has " + std::to_string(s.order.size()) + " orders for " +
                std::to_string(n) + " ops");
  }
}

// ---------------------------------------------------------------- L1

void check_dependences(const Graph& g, const Schedule& s, Reporter& out) {
  for (const Edge& e : g.edges) {
    // Wide: a distance beyond the graph limits must not overflow either.
    const Wide lhs = Wide{s.start[e.to]} + Wide{e.distance} * s.ii;
    const Wide rhs = Wide{s.start[e.from]} + e.latency;
    if (lhs >= rhs) continue;
    const std::string& from = g.ops[e.from].name;
    const std::string& to = g.ops[e.to].name;
    std::string starts = str(s.start[e.to]);
    if (e.distance != 0) {
      starts += " + " + str(e.distance) + "*" + str(s.ii) + " = " + wide_to_string(lhs);
    }
    out.add(Rule::kDependence, {e.from, e.to},
            std::string(e.kind == EdgeKind::kOrder ? "order edge " : "edge ") + from + " -> " +
                to + " (latency " + str(e.latency) + ", distance " + str(e.distance) +
                "): " + to + " starts at " + starts + " < " + str(s.start[e.from]) + " + " +
                str(e.latency));
  }
}

// ------------------------------------------------- L2 and L3: modulo sweep

// `amount` units held for the cycles [start, start + duration).
struct Hold {
  OpId op = 0;
  int64_t start = 0;
  int64_t duration = 0;
  int64_t amount = 0;
};

struct Overload {
  int64_t row = 0;
  Wide load = 0;
  std::vector<OpId> ops;  // the holds covering `row`, ascending
};

// The first modulo row r in [0, ii) whose load, the sum of `amount` over
// every (hold, k) with k in [0, duration) and (start + k) mod ii = r,
// exceeds `capacity`. A hold covers floor(duration / ii) full turns, which
// add to every row, plus a partial arc of duration mod ii rows from
// start mod ii, possibly wrapping; the arcs become +/- events, swept in
// position order. O(H log H) in the number of holds, whatever ii is.
std::optional<Overload> first_overload(const std::vector<Hold>& holds, int64_t ii,
                                       int64_t capacity) {
  struct Event {
    int64_t pos;
    Wide delta;
  };
  std::vector<Event> events;
  events.reserve(holds.size() * 2);
  Wide base = 0;
  for (const Hold& h : holds) {
    if (h.duration <= 0 || h.amount <= 0) continue;
    base += Wide{h.amount} * (h.duration / ii);
    const int64_t part = h.duration % ii;
    if (part == 0) continue;
    const int64_t begin = h.start % ii;
    const int64_t end = begin + part;  // < 2 * ii, no overflow
    events.push_back({begin, Wide{h.amount}});
    if (end <= ii) {
      events.push_back({end, -Wide{h.amount}});
    } else {  // wraps: [begin, ii) runs to the end of the table, then [0, end - ii)
      events.push_back({0, Wide{h.amount}});
      events.push_back({end - ii, -Wide{h.amount}});
    }
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.pos < b.pos; });

  std::optional<int64_t> row;
  Wide load = 0;
  Wide current = 0;
  int64_t segment = 0;  // the rows [segment, next event) carry base + current
  size_t i = 0;
  for (;;) {
    const int64_t next = i < events.size() ? events[i].pos : ii;
    if (next > segment && segment < ii && base + current > capacity) {
      row = segment;
      load = base + current;
      break;
    }
    if (i == events.size()) break;
    segment = next;
    for (; i < events.size() && events[i].pos == next; ++i) current += events[i].delta;
  }
  if (!row) return std::nullopt;

  Overload o;
  o.row = *row;
  o.load = load;
  for (const Hold& h : holds) {
    if (h.duration <= 0 || h.amount <= 0) continue;
    const int64_t part = h.duration % ii;
    const int64_t begin = h.start % ii;
    const int64_t offset = (o.row - begin + ii) % ii;  // cycles after the arc starts
    if (h.duration >= ii || offset < part) o.ops.push_back(h.op);
  }
  std::sort(o.ops.begin(), o.ops.end());
  o.ops.erase(std::unique(o.ops.begin(), o.ops.end()), o.ops.end());
  return o;
}

void check_slots(const Graph& g, const Schedule& s, Reporter& out) {
  const int slots = g.target.slot_count();
  std::vector<std::vector<Hold>> by_slot(slots);
  for (OpId v = 0; v < g.op_count(); ++v) {
    for (const Triple& t : g.ops[v].resources) {
      by_slot[t.slot - 1].push_back({v, s.start[v], t.duration, t.occupancy});
    }
  }
  for (int j = 1; j <= slots; ++j) {
    const Slot& slot = g.target.slots[j - 1];
    const std::optional<Overload> o = first_overload(by_slot[j - 1], s.ii, slot.capacity);
    if (!o) continue;
    out.add(Rule::kSlots, o->ops,
            "slot " + std::to_string(j) + " (" + slot.name + "), capacity " +
                str(slot.capacity) + ", at II " + str(s.ii) + ": row " + str(o->row) +
                " holds " + wide_to_string(o->load) + " (" + op_list(g, o->ops) + ")");
  }
}

// The footprint duration D_v, the pools' holding time: footprint_duration
// of graph.h (the model's definition, not a generator's lowering).
void check_rate_pools(const Graph& g, const Schedule& s, Reporter& out) {
  const int pools = static_cast<int>(g.target.pools.size());
  std::vector<std::vector<Hold>> by_pool(pools);
  for (OpId v = 0; v < g.op_count(); ++v) {
    const int64_t footprint = footprint_duration(g.ops[v]);
    for (const PoolUse& p : g.ops[v].pools) {
      by_pool[p.pool].push_back({v, s.start[v], footprint, p.count});
    }
  }
  for (int p = 0; p < pools; ++p) {
    const Pool& pool = g.target.pools[p];
    if (pool.kind != PoolKind::kRate) continue;
    const std::optional<Overload> o = first_overload(by_pool[p], s.ii, pool.capacity);
    if (!o) continue;
    out.add(Rule::kRatePools, o->ops,
            "rate pool " + pool.name + ", capacity " + str(pool.capacity) + ", at II " +
                str(s.ii) + ": row " + str(o->row) + " holds " + wide_to_string(o->load) +
                " (" + op_list(g, o->ops) + ")");
  }
}

// ---------------------------------------------------------------- L4

// lifetime_v = max(1, max over data edges e = (v -> w) of
// (s_w + delta_e * II + D_w) - s_v); the pool holds bytes_v once per
// overlapped iteration, ceil(lifetime_v / II) times.
void check_storage(const Graph& g, const Schedule& s, Reporter& out) {
  const std::optional<int> storage = g.target.storage_pool();
  if (!storage) return;
  const Pool& pool = g.target.pools[*storage];
  const int n = g.op_count();

  std::vector<Wide> lifetime(n, 1);
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData) continue;
    const Wide end = Wide{s.start[e.to]} + Wide{e.distance} * s.ii +
                     footprint_duration(g.ops[e.to]);
    lifetime[e.from] = std::max(lifetime[e.from], end - s.start[e.from]);
  }

  Wide total = 0;
  std::vector<OpId> holders;
  std::string terms;
  for (OpId v = 0; v < n; ++v) {
    const int64_t bytes = g.ops[v].store_bytes;
    if (bytes <= 0) continue;
    const Wide copies = (lifetime[v] + s.ii - 1) / s.ii;
    total += Wide{bytes} * copies;
    if (holders.size() < kNamedOpsInMessage) {
      if (!terms.empty()) terms += " + ";
      terms += g.ops[v].name + " " + str(bytes) + " B x " + wide_to_string(copies) +
               " (lifetime " + wide_to_string(lifetime[v]) + ")";
    }
    holders.push_back(v);
  }
  if (total <= pool.capacity) return;
  if (holders.size() > kNamedOpsInMessage) {
    terms += " + " + std::to_string(holders.size() - kNamedOpsInMessage) + " more";
  }
  out.add(Rule::kStorage, holders,
          "storage pool " + pool.name + " at II " + str(s.ii) + ": " + terms + " = " +
              wide_to_string(total) + " B > capacity " + str(pool.capacity));
}

// ---------------------------------------------------------- L5, L6, L7

void check_groups(const Graph& g, const Schedule& s, const std::vector<int64_t>& stage,
                  Reporter& out) {
  std::vector<std::pair<int64_t, OpId>> members;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (g.ops[v].leader_gid) members.push_back({*g.ops[v].leader_gid, v});
  }
  std::sort(members.begin(), members.end());
  for (size_t i = 0; i < members.size();) {
    size_t j = i;
    bool split = false;
    for (; j < members.size() && members[j].first == members[i].first; ++j) {
      split = split || stage[members[j].second] != stage[members[i].second];
    }
    if (split) {
      std::vector<OpId> ops;
      std::string where;
      for (size_t k = i; k < j; ++k) {
        const OpId v = members[k].second;
        ops.push_back(v);
        if (k - i < kNamedOpsInMessage) {
          if (!where.empty()) where += ", ";
          where += g.ops[v].name + " in stage " + str(stage[v]);
        }
      }
      if (j - i > kNamedOpsInMessage) {
        where += ", and " + std::to_string(j - i - kNamedOpsInMessage) + " more";
      }
      out.add(Rule::kGroups, std::move(ops),
              "group leader_gid " + str(members[i].first) + " splits across stages at II " +
                  str(s.ii) + ": " + where);
    }
    i = j;
  }
}

void check_max_depth(const Graph& g, const Schedule& s, const std::vector<int64_t>& stage,
                     Reporter& out) {
  for (OpId v = 0; v < g.op_count(); ++v) {
    const std::optional<int64_t>& depth = g.ops[v].max_depth;
    if (!depth || stage[v] <= *depth) continue;
    out.add(Rule::kMaxDepth, {v},
            "op " + g.ops[v].name + " is in stage " + str(stage[v]) + " (start " +
                str(s.start[v]) + ", II " + str(s.ii) + ") > max_depth " + str(*depth));
  }
}

void check_serial(const Graph& g, const Schedule& s, const std::vector<int64_t>& stage,
                  Reporter& out) {
  if (!g.attrs.force_serial_execution) return;
  int64_t makespan = 0;  // starts <= 2^40 and durations are small: no overflow
  for (OpId v = 0; v < g.op_count(); ++v) {
    makespan = std::max(makespan, s.start[v] + footprint_duration(g.ops[v]));
    if (stage[v] == 0) continue;
    out.add(Rule::kSerial, {v},
            "force_serial_execution: op " + g.ops[v].name + " is in stage " + str(stage[v]) +
                " (start " + str(s.start[v]) + ", II " + str(s.ii) + "), not stage 0");
  }
  if (s.ii >= makespan) return;
  std::vector<OpId> last;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (s.start[v] + footprint_duration(g.ops[v]) == makespan) last.push_back(v);
  }
  out.add(Rule::kSerial, last,
          "force_serial_execution: II " + str(s.ii) + " < makespan " + str(makespan) +
              " (ending last: " + op_list(g, last) + ")");
}

// ---------------------------------------------------------- stage/order

void check_stage_order(const Graph& g, const Schedule& s, const std::vector<int64_t>& stage,
                       Reporter& out) {
  const int n = g.op_count();
  // stage = floor(start / II) grows with start, so sorting by (start, id)
  // lists the stages in turn, each one in its (start, id) order.
  std::vector<OpId> by_start(n);
  for (OpId v = 0; v < n; ++v) by_start[v] = v;
  std::sort(by_start.begin(), by_start.end(), [&](OpId a, OpId b) {
    return s.start[a] != s.start[b] ? s.start[a] < s.start[b] : a < b;
  });
  std::vector<int64_t> order(n, 0);
  for (int i = 0, rank = 0; i < n; ++i) {
    if (i > 0 && stage[by_start[i]] != stage[by_start[i - 1]]) rank = 0;
    order[by_start[i]] = rank++;
  }

  for (OpId v = 0; v < n; ++v) {
    if (s.stage[v] == stage[v] && s.order[v] == order[v]) continue;
    out.add(Rule::kStageOrder, {v},
            "op " + g.ops[v].name + " (start " + str(s.start[v]) + ", II " + str(s.ii) +
                ") records stage " + str(s.stage[v]) + ", order " + str(s.order[v]) +
                "; the definitions give stage " + str(stage[v]) + ", order " + str(order[v]));
  }

  int64_t max_stage = -1;
  for (int64_t st : stage) max_stage = std::max(max_stage, st);
  const int64_t stage_count = n == 0 ? 0 : 1 + max_stage;
  if (s.stage_count == stage_count) return;
  std::vector<OpId> deepest;
  for (OpId v = 0; v < n; ++v) {
    if (stage[v] == max_stage) deepest.push_back(v);
  }
  out.add(Rule::kStageOrder, std::move(deepest),
          "stage_count is recorded as " + str(s.stage_count) + "; the definitions give " +
              str(stage_count));
}

// ------------------------------------------------------ materialization

// The Pipe_/Mutex_ values a schedule carries, against the ones the
// verifier derives on its own (verify_values.h). A schedule without values
// was not materialized and is not asked about them.
void check_carried_values(const Graph& g, const Schedule& s, const std::vector<int64_t>& stage,
                          Reporter& out) {
  if (!verify_internal::carries_values(s)) return;
  for (std::string& message : verify_internal::check_values(g, s, stage)) {
    out.add(Rule::kMaterialization, {}, std::move(message));
  }
}

}  // namespace

std::string_view rule_name(Rule r) {
  switch (r) {
    case Rule::kShape: return "shape";
    case Rule::kDependence: return "L1-dependence";
    case Rule::kSlots: return "L2-slots";
    case Rule::kRatePools: return "L3-rate-pools";
    case Rule::kStorage: return "L4-storage";
    case Rule::kGroups: return "L5-groups";
    case Rule::kMaxDepth: return "L6-max-depth";
    case Rule::kSerial: return "L7-serial";
    case Rule::kStageOrder: return "stage-order";
    case Rule::kMaterialization: return "materialization";
  }
  return "shape";
}

bool VerifyReport::violates(Rule r) const {
  return std::any_of(violations.begin(), violations.end(),
                     [r](const Violation& v) { return v.rule == r; });
}

VerifyReport verify_schedule(const Graph& g, const Schedule& s) {
  Reporter out;
  check_shape(g, s, out);
  if (!out.empty()) return std::move(out).finish();

  std::vector<int64_t> stage(g.ops.size());
  for (size_t v = 0; v < stage.size(); ++v) stage[v] = s.start[v] / s.ii;

  check_dependences(g, s, out);
  check_slots(g, s, out);
  check_rate_pools(g, s, out);
  check_storage(g, s, out);
  check_groups(g, s, stage, out);
  check_max_depth(g, s, stage, out);
  check_serial(g, s, stage, out);
  check_stage_order(g, s, stage, out);
  check_carried_values(g, s, stage, out);
  return std::move(out).finish();
}

}  // namespace tilesched
