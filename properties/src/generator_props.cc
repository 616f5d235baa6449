// Properties that compare schedules: the cost-based and iterative modulo
// generators against the serial one, a generator against itself (determinism), and the Pipe_/Mutex_
// values materialized from a schedule against their postconditions.
#include "prop_util.h"

namespace tilesched::props {
namespace {

// Where the serial schedule is legal (by the independent checkers), the
// cost-based and iterative modulo generators find one too, with II no
// larger (both cap their II search at the serial II).
void never_worse_than_serial(const LoopGraph& lg, Scheduler which) {
  const Graph& g = lg.graph;
  const Schedule serial = feasible_schedule(g, Scheduler::kSerial);
  require_none(check_legal(g, serial), "legality", serial);
  const Schedule cost = run_scheduler(g, which);
  if (!cost.feasible)
    RC_FAIL(scheduler_name(which) + " found no schedule; serial has a legal one at II " +
            std::to_string(serial.ii));
  if (cost.ii > serial.ii)
    RC_FAIL(scheduler_name(which) + " II " + std::to_string(cost.ii) + " > serial II " +
            std::to_string(serial.ii));
  RC_CLASSIFY(cost.ii < serial.ii, "better than serial");
}

// The same graph scheduled twice gives the same schedule, field by field
// (time_ns aside).
void deterministic(const LoopGraph& lg, Scheduler which) {
  const Schedule a = run_scheduler(lg.graph, which);
  const Schedule b = run_scheduler(lg.graph, which);
  if (a == b) return;
  std::string what = "two runs of " + scheduler_name(which) + " differ:";
  if (a.ii != b.ii) what += " ii " + std::to_string(a.ii) + " vs " + std::to_string(b.ii);
  if (a.start != b.start) what += " starts";
  if (a.pipes != b.pipes || a.mutexes != b.mutexes) what += " pipes/mutexes";
  if (a.stats != b.stats) what += " stats";
  if (a.diagnostics != b.diagnostics) what += " diagnostics";
  RC_FAIL(what);
}

// Every edge that needs a Pipe_/Mutex_ has exactly one, owners earliest,
// depths by the formula; checked from the definitions (checkers.h).
void materialized(const LoopGraph& lg, Scheduler which) {
  const Schedule s = feasible_schedule(lg.graph, which);
  require_none(check_materialization_post(lg.graph, s), "materialization", s);
  RC_CLASSIFY(!s.pipes.empty(), "has pipes");
  RC_CLASSIFY(!s.mutexes.empty(), "has mutexes");
}

}  // namespace

RC_GTEST_PROP(CostBased, NeverWorseThanSerialFirstSuccess, (const CostSizedGraph& g)) {
  never_worse_than_serial(g, Scheduler::kCostFirstSuccess);
}
RC_GTEST_PROP(CostBased, NeverWorseThanSerialBestCost, (const CostSizedGraph& g)) {
  never_worse_than_serial(g, Scheduler::kCostBestCost);
}
RC_GTEST_PROP(Ims, NeverWorseThanSerial, (const LoopGraph& g)) {
  never_worse_than_serial(g, Scheduler::kIms);
}

PROP_FOR_EACH_SCHEDULER(Determinism, SameGraphSameSchedule, deterministic)
PROP_FOR_EACH_SCHEDULER(Materialization, PipesAndMutexesExactlyOnceOwnersEarliest, materialized)

}  // namespace tilesched::props
