// Verifier soundness: a legal schedule broken on purpose in one rule is
// rejected by the engine's verifier, naming that rule and the ops moved;
// and on arbitrary schedules the verifier agrees, rule by rule, with the
// independent checkers.
#include "prop_util.h"

#include <algorithm>
#include <map>

#include "tilesched/verify.h"

namespace tilesched::props {
namespace {

// A legal schedule to break: from a drawn scheduler, checked legal by the
// independent checkers. False when there is none.
bool legal_schedule(const Graph& g, Scheduler which, Schedule& s) {
  s = run_scheduler(g, which);
  if (!s.feasible) return false;
  require_none(check_legal(g, s), "legality (before mutation)", s);
  return true;
}

// Recomputes stage and order from the mutated starts and drops the values
// materialized from the old ones, so only the broken rule can fire.
void restamp(Schedule& s) {
  s.pipes.clear();
  s.mutexes.clear();
  s.flags.clear();
  derive_stage_order(s);
}

void require_rejects(const Graph& g, const Schedule& s, Rule rule, OpId moved) {
  const VerifyReport report = verify_schedule(g, s);
  for (const Violation& v : report.violations)
    if (v.rule == rule && std::find(v.ops.begin(), v.ops.end(), moved) != v.ops.end()) return;
  std::string got;
  for (const Violation& v : report.violations) got += "\n  " + std::string(rule_name(v.rule)) + ": " + v.message;
  RC_FAIL("verifier did not report " + std::string(rule_name(rule)) + " naming op " +
          g.ops[moved].name + "; it reported:" + (got.empty() ? " nothing" : got));
}

}  // namespace

// Move an op before its predecessor's result: s_v = s_u + λ − δ·II − 1.
RC_GTEST_PROP(Verifier, RejectsOpMovedBeforePredecessorLatency,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  Schedule s;
  if (!legal_schedule(g, which, s) || g.edge_count() == 0) return;
  for (int k = 0; k < g.edge_count(); ++k) {
    const Edge& e = g.edges[(pick + static_cast<unsigned>(k)) % g.edges.size()];
    const int64_t target = s.start[e.from] + e.latency - e.distance * s.ii - 1;
    if (e.from == e.to || target < 0) continue;
    s.start[e.to] = target;
    restamp(s);
    require_rejects(g, s, Rule::kDependence, e.to);
    RC_TAG("broken");
    return;
  }
  RC_TAG("no edge to break");
}

// Shift two ops that hold one singleton slot onto the same start: both
// claim that slot in the same modulo row.
RC_GTEST_PROP(Verifier, RejectsTwoOpsOnOneSingletonRow,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  Schedule s;
  if (!legal_schedule(g, which, s)) return;
  std::vector<std::vector<OpId>> holders(g.target.slot_count() + 1);
  for (OpId v = 0; v < g.op_count(); ++v)
    for (const Triple& t : g.ops[v].resources)
      if (g.target.slot(t.slot).capacity == 1) holders[t.slot].push_back(v);
  std::vector<std::pair<OpId, OpId>> pairs;
  for (const auto& h : holders)
    if (h.size() >= 2) pairs.push_back({h[pick % h.size()], h[(pick + 1) % h.size()]});
  if (pairs.empty()) { RC_TAG("no shared singleton slot"); return; }
  const auto [u, v] = pairs[pick % pairs.size()];
  s.start[v] = s.start[u];
  restamp(s);
  require_rejects(g, s, Rule::kSlots, v);
  RC_TAG("broken");
}

// Split a leader group: move one member a stage later.
RC_GTEST_PROP(Verifier, RejectsSplitLeaderGroup,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  Schedule s;
  if (!legal_schedule(g, which, s)) return;
  std::map<int64_t, std::vector<OpId>> groups;
  for (OpId v = 0; v < g.op_count(); ++v)
    if (g.ops[v].leader_gid) groups[*g.ops[v].leader_gid].push_back(v);
  std::vector<std::vector<OpId>> splittable;
  for (auto& [gid, ops] : groups)
    if (ops.size() >= 2) splittable.push_back(ops);
  if (splittable.empty()) { RC_TAG("no group"); return; }
  const auto& ops = splittable[pick % splittable.size()];
  const OpId v = ops[(pick / 7) % ops.size()];
  s.start[v] += s.ii;
  restamp(s);
  require_rejects(g, s, Rule::kGroups, v);
  RC_TAG("broken");
}

// Push an op with a max_depth one stage past it.
RC_GTEST_PROP(Verifier, RejectsOpPastMaxDepth,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  Schedule s;
  if (!legal_schedule(g, which, s)) return;
  std::vector<OpId> bounded;
  for (OpId v = 0; v < g.op_count(); ++v)
    if (g.ops[v].max_depth) bounded.push_back(v);
  if (bounded.empty()) { RC_TAG("no max_depth"); return; }
  const OpId v = bounded[pick % bounded.size()];
  s.start[v] = (*g.ops[v].max_depth + 1) * s.ii + s.start[v] % s.ii;
  restamp(s);
  require_rejects(g, s, Rule::kMaxDepth, v);
  RC_TAG("broken");
}

// Record a wrong stage for one op (its start unchanged).
RC_GTEST_PROP(Verifier, RejectsWrongRecordedStage,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  Schedule s;
  if (!legal_schedule(g, which, s)) return;
  const OpId v = static_cast<OpId>(pick % static_cast<unsigned>(g.op_count()));
  restamp(s);
  s.stage[v] += 1;
  require_rejects(g, s, Rule::kStageOrder, v);
}

// On arbitrary schedules, each rule of the verifier fires exactly when the
// independent checker of that rule finds a problem.
RC_GTEST_PROP(Verifier, AgreesWithIndependentCheckersOnArbitrarySchedules,
              (const LoopGraph& lg)) {
  const Graph& g = lg.graph;
  const Schedule s = *arbitrary_schedule(g);
  const VerifyReport report = verify_schedule(g, s);
  const std::pair<Rule, Problems (*)(const Graph&, const Schedule&)> rules[] = {
      {Rule::kDependence, check_dependences}, {Rule::kSlots, check_slots},
      {Rule::kRatePools, check_rate_pools},   {Rule::kStorage, check_storage},
      {Rule::kGroups, check_groups},          {Rule::kMaxDepth, check_max_depth},
      {Rule::kSerial, check_forced_serial},   {Rule::kStageOrder, check_stage_order}};
  for (const auto& [rule, check] : rules) {
    const Problems mine = check(g, s);
    if (mine.empty() == report.violates(rule))
      RC_FAIL(std::string(rule_name(rule)) + " at II " + std::to_string(s.ii) + ": verifier " +
              (report.violates(rule) ? "reports it" : "does not report it") +
              ", the independent checker " + (mine.empty() ? "finds nothing" : "finds:") +
              join(mine));
  }
  RC_CLASSIFY(report.legal(), "legal");
}

}  // namespace tilesched::props
