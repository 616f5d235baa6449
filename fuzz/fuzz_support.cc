// Shared pieces of the libFuzzer targets; see fuzz_support.h.
#include "fuzz_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/target.h"

namespace tilesched::fuzz {
namespace {

Target consume_generic_target(FuzzedDataProvider& in, const GraphCaps& caps) {
  std::vector<Slot> slots;
  const int slot_count = in.ConsumeIntegralInRange<int>(1, caps.max_slots);
  for (int s = 0; s < slot_count; ++s) {
    // Mostly singleton slots (one RRT bit), some pooled ones (counters).
    const int64_t capacity = in.ConsumeBool() ? 1 : in.ConsumeIntegralInRange<int64_t>(1, 4);
    slots.push_back({"s" + std::to_string(s), capacity, false});
  }
  std::vector<Pool> pools;
  const int pool_count = in.ConsumeIntegralInRange<int>(0, caps.max_pools);
  bool have_storage = false;
  for (int p = 0; p < pool_count; ++p) {
    Pool pool;
    pool.name = "p" + std::to_string(p);
    if (!have_storage && in.ConsumeBool()) {
      pool.kind = PoolKind::kStorage;
      pool.capacity = in.ConsumeIntegralInRange<int64_t>(1, 4096);
      have_storage = true;
    } else {
      pool.kind = PoolKind::kRate;
      pool.capacity = in.ConsumeIntegralInRange<int64_t>(1, 4);
    }
    pools.push_back(std::move(pool));
  }
  const int64_t register_budget = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<int64_t>(1, 256);
  return make_generic_target("fuzz", std::move(slots), std::move(pools), register_budget);
}

// Up to three triples on distinct slots of `target`.
std::vector<Triple> consume_resources(FuzzedDataProvider& in, const Target& target,
                                      const GraphCaps& caps) {
  std::vector<Triple> resources;
  const int count = in.ConsumeIntegralInRange<int>(0, 3);
  uint64_t used = 0;
  for (int i = 0; i < count; ++i) {
    const int slot = in.ConsumeIntegralInRange<int>(1, target.slot_count());
    if ((used & slot_bit(slot)) != 0) continue;
    used |= slot_bit(slot);
    Triple t;
    t.slot = slot;
    t.duration = in.ConsumeIntegralInRange<int64_t>(1, caps.max_duration);
    t.occupancy = in.ConsumeIntegralInRange<int64_t>(1, target.slot(slot).capacity);
    resources.push_back(t);
  }
  return resources;
}

// Counts on rate pools, sorted by pool index (the model's invariant).
std::vector<PoolUse> consume_pools(FuzzedDataProvider& in, const Target& target) {
  std::vector<PoolUse> uses;
  for (int p = 0; p < static_cast<int>(target.pools.size()); ++p) {
    const Pool& pool = target.pools[p];
    if (pool.kind != PoolKind::kRate || !in.ConsumeBool()) continue;
    uses.push_back({p, in.ConsumeIntegralInRange<int64_t>(1, std::min<int64_t>(pool.capacity, 4))});
  }
  return uses;
}

// Op v: a Blackwell kind with its defaults (sometimes overridden), or a
// generic op; then its store, leader group, stage bound and gid. The draws
// are in one fixed order (the corpus decodes to the same graph forever).
void consume_op(FuzzedDataProvider& in, const GraphCaps& caps, const Target& target,
                bool blackwell, int v, GraphBuilder& b) {
  const std::string name = "v" + std::to_string(v);
  OpId id = 0;
  if (blackwell) {
    const auto& kinds = target.kinds;
    const std::string kind = kinds[in.ConsumeIntegralInRange<size_t>(0, kinds.size() - 1)].name;
    id = b.op(name, kind);
    // Defaults mostly; sometimes each field is overridden (the reader's rule).
    if (kind == "generic" || in.ConsumeIntegralInRange<int>(0, 7) == 0) {
      b.at(id).latency = in.ConsumeIntegralInRange<int64_t>(0, caps.max_latency);
    }
    if (kind == "generic" || in.ConsumeIntegralInRange<int>(0, 7) == 0) {
      b.at(id).resources = consume_resources(in, target, caps);
    }
    if (in.ConsumeIntegralInRange<int>(0, 7) == 0) b.at(id).pools = consume_pools(in, target);
  } else {
    // One draw per statement: a call's arguments are evaluated in an
    // unspecified order (clang left to right, g++ right to left), and an
    // input must decode to the same graph in the clang fuzzers and the
    // g++ replays.
    const int64_t latency = in.ConsumeIntegralInRange<int64_t>(0, caps.max_latency);
    std::vector<Triple> resources = consume_resources(in, target, caps);
    id = b.generic(name, latency, std::move(resources));
    b.at(id).pools = consume_pools(in, target);
  }
  Op& op = b.at(id);
  if (const std::optional<int> storage = target.storage_pool();
      storage && in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    const int64_t cap = target.pools[*storage].capacity;
    op.store_bytes = in.ConsumeIntegralInRange<int64_t>(0, cap);
  }
  const uint8_t attrs = in.ConsumeIntegral<uint8_t>();
  if ((attrs & 0x07) == 1) op.leader_gid = in.ConsumeIntegralInRange<int64_t>(0, 3);
  if ((attrs & 0x38) == 0x08) op.max_depth = in.ConsumeIntegralInRange<int64_t>(0, 3);
  if ((attrs & 0xc0) == 0x40) op.gid = in.ConsumeIntegralInRange<int64_t>(0, 3);
}

// Forward-only distance-0 edges keep most graphs acyclic in-iteration;
// the other mode lets zero-distance cycles (refused, or unorderable at
// latency 0) through as well.
void consume_edges(FuzzedDataProvider& in, const GraphCaps& caps, int op_count, GraphBuilder& b) {
  const bool any_direction = in.ConsumeIntegralInRange<int>(0, 3) == 0;
  const int edge_count = in.ConsumeIntegralInRange<int>(0, caps.max_edges);
  for (int e = 0; e < edge_count && in.remaining_bytes() > 0; ++e) {
    OpId from = in.ConsumeIntegralInRange<int>(0, op_count - 1);
    OpId to = in.ConsumeIntegralInRange<int>(0, op_count - 1);
    int64_t distance = 0;
    if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
      distance = in.ConsumeIntegralInRange<int64_t>(1, caps.max_distance);
    } else if (!any_direction && from >= to) {
      if (from == to) continue;
      std::swap(from, to);
    }
    std::optional<int64_t> latency;
    if (in.ConsumeBool()) latency = in.ConsumeIntegralInRange<int64_t>(0, caps.max_latency);
    const EdgeKind kind = in.ConsumeIntegralInRange<int>(0, 4) == 0 ? EdgeKind::kOrder
                                                                    : EdgeKind::kData;
    b.edge(from, to, latency, distance, kind);
  }
}

}  // namespace

StatusOr<Graph> consume_graph(FuzzedDataProvider& in, const GraphCaps& caps) {
  const bool blackwell = in.ConsumeBool();
  const Target target = blackwell ? blackwell_target() : consume_generic_target(in, caps);
  GraphBuilder b(target, "fuzz");
  const int op_count = in.ConsumeIntegralInRange<int>(1, caps.max_ops);
  for (int v = 0; v < op_count; ++v) consume_op(in, caps, target, blackwell, v, b);
  consume_edges(in, caps, op_count, b);
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) b.force_serial();
  return b.build();
}

std::vector<GeneratorConfig> generator_configs(uint64_t seed) {
  std::vector<GeneratorConfig> configs;
  GenerateOptions serial;
  serial.generator = GeneratorKind::kSerial;
  configs.push_back({"serial", serial});
  for (ArmPolicy policy : {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost}) {
    for (IiSearch search : {IiSearch::kLinear, IiSearch::kGalloping}) {
      GenerateOptions o;
      o.generator = GeneratorKind::kCostBased;
      o.cost_based.arm_policy = policy;
      o.cost_based.ii_search = search;
      o.cost_based.seed = seed;
      o.cost_based.descent_budget_ratio = kFuzzDescentBudgetRatio;
      configs.push_back({"cost-based/" + std::string(arm_policy_name(policy)) + "/" +
                             std::string(ii_search_name(search)),
                         o});
    }
  }
  GenerateOptions ims;
  ims.generator = GeneratorKind::kIms;
  configs.push_back({"ims", ims});
  GenerateOptions sms;
  sms.generator = GeneratorKind::kSms;
  configs.push_back({"sms", sms});
  GenerateOptions automatic;
  automatic.generator = GeneratorKind::kAuto;
  automatic.cost_based.seed = seed;
  automatic.cost_based.descent_budget_ratio = kFuzzDescentBudgetRatio;
  configs.push_back({"auto", automatic});
  return configs;
}

void fail(std::string_view what, std::string_view context) {
  std::fprintf(stderr, "fuzz check failed: %.*s\n%.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(context.size()), context.data());
  std::fflush(stderr);
  std::abort();
}

std::string describe(const Graph& g) { return "graph:\n" + write_graph_json(g); }

std::string describe(const Graph& g, const Schedule& s) {
  return describe(g) + "schedule:\n" + write_schedule_json(g, s);
}

std::string describe(const VerifyReport& r) {
  std::string out;
  for (const Violation& v : r.violations) {
    out += std::string(rule_name(v.rule)) + ": " + v.message + "\n";
  }
  return out;
}

std::optional<int64_t> stores_over_storage(const Graph& g) {
  const std::optional<int> pool = g.target.storage_pool();
  if (!pool) return std::nullopt;
  // Each buffer once, or d + 1 times where its own op reads it d
  // iterations later: its lifetime is then d * II + D_v (D_v >= 1) in every
  // schedule. Summed with a cap (bytes <= 2^40, copies <= 2^16 + 1).
  int64_t total = 0;
  for (OpId v = 0; v < g.op_count(); ++v) {
    int64_t copies = 1;
    for (const Edge& e : g.edges) {
      if (e.kind == EdgeKind::kData && e.from == v && e.to == v && e.distance > 0) {
        copies = std::max(copies, e.distance + 1);
      }
    }
    total = std::min(total + g.ops[v].store_bytes * copies, int64_t{1} << 62);
  }
  if (total <= g.target.pools[*pool].capacity) return std::nullopt;
  return total;
}

void check_result(const Graph& g, const Schedule& s, const std::string& generator) {
  if (!s.feasible) {
    FUZZ_CHECK(s.failure != FailureReason::kNone, generator + ": infeasible without a reason",
               describe(g, s));
    // (An unorderable zero-latency cycle is a reason of its own.)
    FUZZ_CHECK(!stores_over_storage(g) || s.failure == FailureReason::kStorageBudget ||
                   s.failure == FailureReason::kDependenceCycle,
               generator + ": stores exceed the storage pool but the reason is " +
                   std::string(failure_reason_name(s.failure)),
               describe(g, s));
    return;
  }
  const VerifyReport report = verify_schedule(g, s);
  FUZZ_CHECK(report.legal(), generator + " returned an illegal schedule",
             describe(report) + describe(g, s));
  FUZZ_CHECK(s.ii >= s.mii.max(), generator + ": II below MII", describe(g, s));
}

bool same_result(const Schedule& a, const Schedule& b) {
  return a.feasible == b.feasible && a.ii == b.ii && a.start == b.start;
}

}  // namespace tilesched::fuzz
