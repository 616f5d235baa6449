// Legality properties (L1-L7, docs/CONTRACT.md): every schedule either scheduler
// emits, under both arm policies, is checked rule by rule against the graph
// by the independent checkers of checkers.h, never by the engine's verifier.
#include "prop_util.h"

#include "tilesched/graphgen/families.h"

namespace tilesched::props {
namespace {

// L2/L3: the reservation table rebuilt from the emitted starts.
void rrt_disjoint(const LoopGraph& lg, Scheduler which) {
  const Schedule s = feasible_schedule(lg.graph, which);
  require_none(check_shape(lg.graph, s), "shape", s);
  require_none(check_slots(lg.graph, s), "L2 slots (RRT rows)", s);
  require_none(check_rate_pools(lg.graph, s), "L3 rate pools", s);
}

// L1.
void dependences_hold(const LoopGraph& lg, Scheduler which) {
  const Schedule s = feasible_schedule(lg.graph, which);
  require_none(check_shape(lg.graph, s), "shape", s);
  require_none(check_dependences(lg.graph, s), "L1 dependence", s);
}

// Stage/order totality and derivation.
void stage_order_total(const LoopGraph& lg, Scheduler which) {
  const Schedule s = feasible_schedule(lg.graph, which);
  require_none(check_shape(lg.graph, s), "shape", s);
  require_none(check_stage_order(lg.graph, s), "stage/order", s);
}

// L4-L7.
void constraints_hold(const LoopGraph& lg, Scheduler which) {
  const Graph& g = lg.graph;
  const Schedule s = feasible_schedule(g, which);
  require_none(check_shape(g, s), "shape", s);
  require_none(check_storage(g, s), "L4 storage", s);
  require_none(check_groups(g, s), "L5 groups", s);
  require_none(check_max_depth(g, s), "L6 max depth", s);
  require_none(check_forced_serial(g, s), "L7 forced serial", s);
  RC_CLASSIFY(g.attrs.force_serial_execution, "force_serial");
}

// The four MII parts recorded in the schedule are docs/BOUNDS.md's (recomputed
// here), and II is at least each of them.
void ii_above_every_bound(const LoopGraph& lg, Scheduler which) {
  const Schedule s = feasible_schedule(lg.graph, which);
  const MiiBounds own = own_mii(lg.graph);
  const auto part = [&](const char* name, int64_t recorded, int64_t mine) {
    if (recorded != mine)
      RC_FAIL(std::string(name) + " MII recorded as " + std::to_string(recorded) +
              ", the formula gives " + std::to_string(mine));
    if (s.ii < mine)
      RC_FAIL(s.generator + " II " + std::to_string(s.ii) + " is below " + name + " MII " +
              std::to_string(mine));
  };
  part("resource", s.mii.resource, own.resource);
  part("recurrence", s.mii.recurrence, own.recurrence);
  part("fine-density", s.mii.fine_density, own.fine_density);
  part("dependency", s.mii.dependency, own.dependency);
  RC_CLASSIFY(s.ii == own.max(), "II == MII");
}

}  // namespace

PROP_FOR_EACH_SCHEDULER(RRT, SlotsAndPoolsWithinCapacity, rrt_disjoint)
PROP_FOR_EACH_SCHEDULER(Dependence, EdgeLatencyHolds, dependences_hold)
PROP_FOR_EACH_SCHEDULER(StageOrder, TotalAndDerivedFromStarts, stage_order_total)
PROP_FOR_EACH_SCHEDULER(Constraints, StorageGroupsDepthsForcedSerial, constraints_hold)
PROP_FOR_EACH_SCHEDULER(LowerBound, IiAtLeastEveryMiiPart, ii_above_every_bound)

// The serial generator: every op in stage 0, and it finds a schedule
// whenever its SMEM bound fits (each buffer live for 1 + its longest read
// distance iterations; L4 with every op inside [0, II)).
RC_GTEST_PROP(LowerBound, SerialAllInStageZeroAndFeasibleWhenSmemFits, (const LoopGraph& lg)) {
  const Graph& g = lg.graph;
  const Schedule s = run_scheduler(g, Scheduler::kSerial);
  bool fits = true;
  if (const std::optional<int> pool = g.target.storage_pool()) {
    int64_t bytes = 0;
    for (OpId v = 0; v < g.op_count(); ++v) {
      int64_t distance = 0;
      for (const Edge& e : g.edges)
        if (e.from == v && e.kind == EdgeKind::kData) distance = std::max(distance, e.distance);
      bytes += g.ops[v].store_bytes * (1 + distance);
    }
    fits = bytes <= g.target.pools[*pool].capacity;
  }
  RC_CLASSIFY(!fits, "SMEM bound exceeded");
  if (fits && !s.feasible) RC_FAIL("serial found no schedule though its SMEM bound fits");
  if (!s.feasible) return;
  for (OpId v = 0; v < g.op_count(); ++v)
    if (s.start[v] >= s.ii || s.stage[v] != 0)
      RC_FAIL("serial op " + g.ops[v].name + " starts at " + std::to_string(s.start[v]) +
              ", stage " + std::to_string(s.stage[v]) + ", at II " + std::to_string(s.ii));
  RC_ASSERT(s.stage_count == (g.op_count() > 0 ? 1 : 0));
}

}  // namespace tilesched::props
