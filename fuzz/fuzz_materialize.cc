// fuzz_materialize: a fuzzed graph and a schedule of it -> MaterializeSchedule
// (docs/MATERIALIZE.md). The schedule is either a generator's (serial or
// cost-based, before generate_schedule attaches values) or drawn directly:
// an II and start cycles, with the derived stage and order. Checks:
// materialize succeeds on every schedule that meets L1 (a failure is only
// allowed where the verifier finds an L1 violation); a success meets
// check_materialization, is deterministic, and once attached passes the
// verifier's materialization rule; the region dump never crashes. A
// generator's schedule also gets fuzz::check_result (legal, or infeasible
// for the right reason). Some ops may get an explicit agent (warp role)
// first; the partition is then checked on its own: every data edge between
// two agents travels in a pipe that records exactly those two agents, and
// a pipe's producers share one agent.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "tilesched/agents.h"
#include "tilesched/cost_based.h"
#include "tilesched/materialize.h"
#include "tilesched/serial.h"

using namespace tilesched;

namespace {

// A schedule drawn from the input: II 1..16 and starts 0..63.
Schedule consume_schedule(FuzzedDataProvider& in, const Graph& g) {
  Schedule s;
  s.graph = g.name;
  s.generator = "fuzz";
  s.feasible = true;
  s.ii = in.ConsumeIntegralInRange<int64_t>(1, 16);
  for (int v = 0; v < g.op_count(); ++v) s.start.push_back(in.ConsumeIntegralInRange<int64_t>(0, 63));
  derive_stage_order(s);
  return s;
}

// Each data edge whose ends run in different agents is carried by a pipe
// from the source's agent to the target's; each pipe's producers run in
// the agent it records. One line per breach.
std::string partition_breaches(const Graph& g, const Materialization& m) {
  std::string out;
  if (m.agents.size() != g.ops.size()) return "the materialization names no agent per op\n";
  for (const Pipe& p : m.pipes) {
    for (OpId u : p.producers) {
      if (m.agents[u] != p.producer_agent) out += p.id + ": a producer outside its agent\n";
    }
    if (m.agents[p.consumer] != p.consumer_agent) out += p.id + ": the consumer outside its agent\n";
  }
  for (int e = 0; e < g.edge_count(); ++e) {
    const Edge& edge = g.edges[e];
    if (edge.kind != EdgeKind::kData || m.agents[edge.from] == m.agents[edge.to]) continue;
    bool carried = false;
    for (const Pipe& p : m.pipes) {
      carried = carried || std::find(p.edges.begin(), p.edges.end(), e) != p.edges.end();
    }
    if (!carried) out += "edge " + std::to_string(e) + " crosses agents outside a pipe\n";
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  StatusOr<Graph> g = fuzz::consume_graph(in, fuzz::scheduling_caps());
  if (!g.ok()) return 0;
  if (in.ConsumeBool()) {  // some ops in named agents (ping-pong consumers and the like)
    for (Op& op : g->ops) {
      const int pick = in.ConsumeIntegralInRange<int>(0, 3);
      if (pick > 0) op.agent = pick == 3 ? std::string(kProducerAgent) : "consumer" + std::to_string(pick);
    }
  }
  Schedule s;
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: s = generate_serial(*g); break;
    case 1: {
      CostBasedOptions o;
      o.arm_policy = in.ConsumeBool() ? ArmPolicy::kBestCost : ArmPolicy::kFirstSuccess;
      o.descent_budget_ratio = fuzz::kFuzzDescentBudgetRatio;
      s = generate_cost_based(*g, o).schedule;
      break;
    }
    default: s = consume_schedule(in, *g); break;
  }
  if (s.generator != "fuzz") fuzz::check_result(*g, s, s.generator);
  if (!s.feasible) return 0;
  const VerifyReport before = verify_schedule(*g, s);
  StatusOr<Materialization> m = materialize(*g, s);
  if (!m.ok()) {
    FUZZ_CHECK(before.violates(Rule::kDependence),
               "materialize refused a schedule that meets L1",
               m.status().message() + "\n" + fuzz::describe(*g, s));
    return 0;
  }
  const std::vector<std::string> broken = check_materialization(*g, s, *m);
  std::string lines;
  for (const std::string& b : broken) lines += b + "\n";
  FUZZ_CHECK(broken.empty(), "materialization breaks its postconditions", lines + fuzz::describe(*g, s));
  const std::string breaches = partition_breaches(*g, *m);
  FUZZ_CHECK(breaches.empty(), "the agent partition leaks", breaches + fuzz::describe(*g, s));
  StatusOr<Materialization> again = materialize(*g, s);
  FUZZ_CHECK(again.ok() && *again == *m, "materialize is not deterministic", fuzz::describe(*g, s));
  Schedule attached = s;
  attach_materialization(attached, *m);
  const VerifyReport after = verify_schedule(*g, attached);
  FUZZ_CHECK(!after.violates(Rule::kMaterialization),
             "the verifier rejects the materialized values",
             fuzz::describe(after) + fuzz::describe(*g, attached));
  FUZZ_CHECK(after.legal() == before.legal(), "attaching values changed the verdict",
             fuzz::describe(after) + fuzz::describe(*g, attached));
  const Materialization carried = carried_materialization(*g, attached);
  FUZZ_CHECK(carried.pipes == m->pipes && carried.mutexes == m->mutexes &&
                 carried.region == m->region && carried.agents == m->agents,
             "carried_materialization differs from the materialization", fuzz::describe(*g, attached));
  (void)dump_region(*g, attached, *m);
  return 0;
}
