// RapidCheck generators of loop graphs and schedules (see loop_graph_gen.h).
#include "loop_graph_gen.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <tuple>
#include <utility>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/graphgen/families.h"
#include "tilesched/json_io.h"
#include "tilesched/validate.h"

namespace tilesched::props {

namespace fam = ::tilesched::graphgen;
namespace rcg = ::rc::gen;

void showValue(const LoopGraph& g, std::ostream& os) {
  os << g.recipe << " (" << g.graph.op_count() << " ops, " << g.graph.edge_count()
     << " edges)\n"
     << write_graph_json(g.graph);
}

namespace {

[[noreturn]] void die(const std::string& what) {
  std::cerr << "loop_graph_gen: " << what << "\n";
  std::abort();
}

// Op-count ceiling at RapidCheck size `size`: grows linearly to `cap` at
// size 100 (the default max_size), so most cases are small.
int ops_ceiling(int size, int cap) {
  return std::clamp(2 + size * (cap - 2) / 100, 2, kMaxPropOps);
}

// ------------------------------------------------------------ families

struct FamilyRecipe {
  int family = 0;
  int ops = 1;
  uint64_t seed = 0;
  std::vector<std::pair<int, int64_t>> overrides;  // (param index, raw value)
};

LoopGraph build_family(const FamilyRecipe& r) {
  const fam::Family& f = fam::families()[r.family];
  fam::ParamMap params;
  for (const auto& [index, raw] : r.overrides) {
    if (f.params.empty()) break;
    const fam::ParamSpec& p = f.params[index % f.params.size()];
    params[std::string(p.name)] = p.min + raw % (p.max - p.min + 1);
  }
  StatusOr<Graph> g = fam::generate(f.name, r.ops, r.seed, params);
  std::string recipe = "family " + std::string(f.name) + " ops=" + std::to_string(r.ops) +
                       " seed=" + std::to_string(r.seed);
  for (const auto& [k, v] : params) recipe += " " + k + "=" + std::to_string(v);
  if (!g.ok()) {  // a combination the family refuses (lat_min > lat_max, ...): defaults
    g = fam::generate(f.name, r.ops, r.seed, {});
    recipe += " (refused: defaults)";
  }
  if (!g.ok()) die(recipe + ": " + g.status().message());
  return LoopGraph{std::move(g).value(), std::move(recipe)};
}

// ---------------------------------------------------------- structural

// Raw draws; build_structural maps them into range, so any shrink of them
// still gives a valid graph.
struct OpDraw {
  int kind = 0;            // Blackwell: index into the kind list
  int latency = 0;         // < 0: the kind's default (Blackwell only)
  std::vector<std::tuple<int, int, int>> triples;  // (slot, duration, occupancy), raw
  int pool = -1;           // rate pool use, raw; < 0: none
  int store = 0;           // SMEM bytes in 256-byte units; usually 0
  int group = 0;           // leader_gid; 0: none
  int depth = -1;          // max_depth; < 0: none
  int agent = -1;          // an explicit agent, consumer<agent % 2>; < 0: the default
};

struct EdgeDraw {
  int a = 0, b = 0;
  int latency = -1;        // < 0: the source op's latency
  int distance = 0;
  bool order = false;
};

struct StructuralDraw {
  int target = 0;
  bool force_serial = false;
  std::vector<OpDraw> ops;
  std::vector<EdgeDraw> edges;
};

const Target& tiny_target() {
  static const Target t = make_generic_target(
      "tiny", {{"alu", 1}, {"mem", 1}, {"lanes", 3}},
      {{"bank", PoolKind::kRate, 2}, {"smem", PoolKind::kStorage, 4096}});
  return t;
}

const Target& wide_target() {
  static const Target t = make_generic_target(
      "wide", {{"s1", 1}, {"s2", 1}, {"s3", 1}, {"p2", 2}, {"p4", 4}, {"s6", 1}},
      {{"barriers", PoolKind::kRate, 3}});
  return t;
}

const std::vector<std::string>& blackwell_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const OpKind& k : blackwell_target().kinds)
      if (k.name != "generic") out.push_back(k.name);
    return out;
  }();
  return names;
}

// One drawn op on the target `which` (0 Blackwell, else generic), its raw
// draws mapped into range.
Op build_op(const OpDraw& od, size_t i, const Target& target, int which) {
  Op op;
  op.name = "op" + std::to_string(i);
  if (which == 0) {
    const auto& names = blackwell_kind_names();
    op.kind = names[od.kind % names.size()];
    apply_kind_defaults(target, op);
    if (od.latency >= 0) op.latency = od.latency % 24;
  } else {
    op.kind = "generic";
    apply_kind_defaults(target, op);
    op.latency = std::abs(od.latency) % 12;
    for (const auto& [slot_raw, dur_raw, occ_raw] : od.triples) {
      const int slot = 1 + slot_raw % target.slot_count();
      if (std::any_of(op.resources.begin(), op.resources.end(),
                      [&](const Triple& t) { return t.slot == slot; }))
        continue;
      const int64_t cap = target.slot(slot).capacity;
      op.resources.push_back({slot, 1 + dur_raw % 6, 1 + occ_raw % cap});
    }
    std::sort(op.resources.begin(), op.resources.end(),
              [](const Triple& a, const Triple& b) { return a.slot < b.slot; });
    std::vector<int> rate_pools;
    for (int p = 0; p < static_cast<int>(target.pools.size()); ++p)
      if (target.pools[p].kind == PoolKind::kRate) rate_pools.push_back(p);
    if (od.pool >= 0 && !rate_pools.empty()) {
      const int p = rate_pools[od.pool % rate_pools.size()];
      op.pools = {{p, 1 + od.pool % target.pools[p].capacity}};
    }
  }
  if (const std::optional<int> storage = target.storage_pool(); storage && od.store > 0) {
    const int64_t cap = target.pools[*storage].capacity;
    op.store_bytes = std::min<int64_t>(cap / 4, int64_t{256} * od.store);
  }
  if (od.group > 0) op.leader_gid = od.group;
  if (od.depth >= 0) op.max_depth = od.depth % 3;
  if (od.agent >= 0) op.agent = "consumer" + std::to_string(od.agent % 2);
  return op;
}

LoopGraph build_structural(const StructuralDraw& d) {
  const int which = d.target % 3;
  const Target& target = which == 0 ? blackwell_target() : which == 1 ? tiny_target()
                                                                        : wide_target();
  Graph g;
  g.target = target;
  g.name = "structural";
  g.attrs.force_serial_execution = d.force_serial;
  std::vector<OpDraw> ops = d.ops;
  if (ops.empty()) ops.emplace_back();
  for (size_t i = 0; i < ops.size(); ++i) g.ops.push_back(build_op(ops[i], i, target, which));
  const int n = g.op_count();
  for (const EdgeDraw& ed : d.edges) {
    Edge e;
    int a = ed.a % n, b = ed.b % n;
    e.distance = ed.distance % 4;
    if (e.distance == 0) {
      if (a == b) e.distance = 1;       // a self edge is loop-carried
      else if (a > b) std::swap(a, b);  // distance-0 edges run forward: no zero-distance cycle
    }
    e.from = a;
    e.to = b;
    e.latency = ed.latency < 0 ? g.ops[a].latency : ed.latency % 20;
    e.kind = ed.order ? EdgeKind::kOrder : EdgeKind::kData;
    g.edges.push_back(e);
  }
  const Status st = validate_graph(g);
  if (!st.ok()) die("structural graph does not validate: " + st.message() + "\n" +
                    write_graph_json(g));
  return LoopGraph{std::move(g), std::string("structural on ") + target.name +
                                     (d.force_serial ? " (force_serial)" : "")};
}

rc::Gen<OpDraw> op_draw() {
  return rcg::apply(
      [](int kind, int latency, std::vector<std::tuple<int, int, int>> triples, int pool,
         int store, int group, int depth, int agent) {
        return OpDraw{kind, latency, std::move(triples), pool, store, group, depth, agent};
      },
      rcg::inRange(0, 64),
      rcg::weightedOneOf<int>({{3, rcg::just(-1)}, {1, rcg::inRange(0, 24)}}),
      rcg::resize(3, rcg::container<std::vector<std::tuple<int, int, int>>>(
                         rcg::tuple(rcg::inRange(0, 64), rcg::inRange(0, 6),
                                    rcg::inRange(0, 4)))),
      rcg::weightedOneOf<int>({{3, rcg::just(-1)}, {1, rcg::inRange(0, 64)}}),
      rcg::weightedOneOf<int>({{5, rcg::just(0)}, {1, rcg::inRange(1, 64)}}),
      rcg::weightedOneOf<int>({{4, rcg::just(0)}, {1, rcg::inRange(1, 4)}}),
      rcg::weightedOneOf<int>({{4, rcg::just(-1)}, {1, rcg::inRange(0, 3)}}),
      rcg::weightedOneOf<int>({{5, rcg::just(-1)}, {1, rcg::inRange(0, 2)}}));
}

rc::Gen<EdgeDraw> edge_draw() {
  return rcg::apply(
      [](int a, int b, int latency, int distance, bool order) {
        return EdgeDraw{a, b, latency, distance, order};
      },
      rcg::inRange(0, 1 << 16), rcg::inRange(0, 1 << 16),
      rcg::weightedOneOf<int>({{2, rcg::just(-1)}, {1, rcg::inRange(0, 20)}}),
      rcg::weightedOneOf<int>({{3, rcg::just(0)}, {1, rcg::inRange(1, 4)}}),
      rcg::weightedElement<bool>({{5, false}, {1, true}}));
}

}  // namespace

rc::Gen<LoopGraph> family_graph(int cap) {
  return rcg::withSize([cap](int size) {
    const int count = static_cast<int>(fam::families().size());
    return rcg::mapcat(rcg::inRange(0, count), [size, cap](int fi) {
      const fam::Family& f = fam::families()[fi];
      const int hi = std::clamp(ops_ceiling(size, cap), f.min_ops,
                                std::min(f.max_ops, std::max(f.min_ops, kMaxPropOps)));
      return rcg::apply(
          [fi](int ops, uint64_t seed, std::vector<std::pair<int, int64_t>> overrides) {
            return build_family(FamilyRecipe{fi, ops, seed, std::move(overrides)});
          },
          rcg::inRange(f.min_ops, hi + 1), rcg::inRange<uint64_t>(0, 1000),
          rcg::resize(2, rcg::container<std::vector<std::pair<int, int64_t>>>(rcg::pair(
                             rcg::inRange(0, 16), rcg::inRange<int64_t>(0, 1 << 20)))));
    });
  });
}

rc::Gen<LoopGraph> structural_graph() {
  return rcg::withSize([](int size) {
    const int max_ops = std::clamp(1 + size * 3 / 5, 1, kMaxPropOps);
    return rcg::apply(
        [](int target, bool force_serial, std::vector<OpDraw> ops, std::vector<EdgeDraw> edges) {
          return build_structural(StructuralDraw{target, force_serial, std::move(ops),
                                                 std::move(edges)});
        },
        rcg::inRange(0, 3), rcg::weightedElement<bool>({{7, false}, {1, true}}),
        rcg::resize(max_ops, rcg::container<std::vector<OpDraw>>(op_draw())),
        rcg::resize(max_ops * 3 / 2, rcg::container<std::vector<EdgeDraw>>(edge_draw())));
  });
}

rc::Gen<LoopGraph> any_graph(int cap) {
  return rc::gen::weightedOneOf<LoopGraph>({{3, family_graph(cap)}, {2, structural_graph()}});
}

void showValue(const CostSizedGraph& g, std::ostream& os) {
  showValue(static_cast<const LoopGraph&>(g), os);
}

void showValue(Scheduler s, std::ostream& os) { os << scheduler_name(s); }

std::string scheduler_name(Scheduler s) {
  switch (s) {
    case Scheduler::kSerial: return "serial";
    case Scheduler::kCostFirstSuccess: return "cost-based/first-success";
    case Scheduler::kCostBestCost: return "cost-based/best-cost";
    case Scheduler::kIms: return "ims";
    case Scheduler::kSms: return "sms";
  }
  return "?";
}

Schedule run_scheduler(const Graph& g, Scheduler which) {
  GenerateOptions opts;
  switch (which) {
    case Scheduler::kSerial: opts.generator = GeneratorKind::kSerial; break;
    case Scheduler::kCostFirstSuccess:
    case Scheduler::kCostBestCost: opts.generator = GeneratorKind::kCostBased; break;
    case Scheduler::kIms: opts.generator = GeneratorKind::kIms; break;
    case Scheduler::kSms: opts.generator = GeneratorKind::kSms; break;
  }
  opts.cost_based.arm_policy =
      which == Scheduler::kCostBestCost ? ArmPolicy::kBestCost : ArmPolicy::kFirstSuccess;
  StatusOr<Schedule> s = generate_schedule(g, opts);
  if (!s.ok()) RC_FAIL(scheduler_name(which) + " returned a status: " + s.status().message());
  Schedule out = std::move(s).value();
  out.time_ns = 0;
  return out;
}

rc::Gen<Schedule> arbitrary_schedule(const Graph& g) {
  const int n = g.op_count();
  return rcg::mapcat(rcg::inRange<int64_t>(1, 64), [n, name = g.name](int64_t ii) {
    return rcg::map(rcg::container<std::vector<int64_t>>(static_cast<size_t>(n),
                                                         rcg::inRange<int64_t>(0, 4 * ii)),
                    [ii, name](std::vector<int64_t> start) {
                      Schedule s;
                      s.graph = name;
                      s.generator = "arbitrary";
                      s.feasible = true;
                      s.ii = ii;
                      s.start = std::move(start);
                      derive_stage_order(s);
                      return s;
                    });
  });
}

}  // namespace tilesched::props
