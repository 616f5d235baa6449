// Verifier soundness: a legal schedule broken on purpose in one rule is
// rejected by the engine's verifier, naming that rule and the ops moved; on
// arbitrary schedules the verifier agrees, rule by rule, with the
// independent checkers; and its materialization verdict agrees with the
// independent checker's on the materializer's values and on broken ones.
// A case with nothing to break (no schedule, no edge, no group, ...) is
// discarded with RC_PRE, so a generator that stops producing such cases
// makes RapidCheck give up and the property fail.
#include "prop_util.h"

#include <algorithm>
#include <map>

#include "tilesched/verify.h"

namespace tilesched::props {
namespace {

// A legal schedule to break: from a drawn scheduler, checked legal by the
// independent checkers. Discards the case when there is none.
Schedule legal_schedule(const Graph& g, Scheduler which) {
  Schedule s = feasible_schedule(g, which);
  require_none(check_legal(g, s), "legality (before mutation)", s);
  return s;
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

// The verifier's materialization verdict and the independent checker's
// (check_materialization_post) on one schedule: both must be `accept`.
void require_verdicts(const Graph& g, const Schedule& s, bool accept, const std::string& what) {
  const VerifyReport report = verify_schedule(g, s);
  const bool verifier_accepts = !report.violates(Rule::kMaterialization);
  const Problems mine = check_materialization_post(g, s);
  if (verifier_accepts == accept && mine.empty() == accept) return;
  std::string got;
  for (const Violation& v : report.violations)
    if (v.rule == Rule::kMaterialization) got += "\n  " + v.message;
  RC_FAIL(what + ": the verifier " + (verifier_accepts ? "accepts" : "rejects:" + got) +
          "\nthe independent checker " + (mine.empty() ? "accepts" : "rejects:" + join(mine)) +
          "\n(both should " + (accept ? "accept" : "reject") + ")");
}

// Breaks one carried value the way a faulty materializer would: drops a
// pipe or a mutex (when another value remains, so the schedule still
// carries values), makes one deeper than its edges, or puts an op or a
// pipe end in the wrong agent. Returns how.
std::string break_one_value(const Graph& g, Schedule& s, unsigned pick) {
  if ((pick / 3) % 4 == 0 && !s.agents.empty()) {
    const size_t v = pick % s.agents.size();
    if (!s.pipes.empty() && (pick / 12) % 2 == 0) {
      Pipe& p = s.pipes[pick % s.pipes.size()];
      p.consumer_agent += "_x";
      return "a pipe records the wrong consumer agent";
    }
    s.agents[v] += "_x";
    return "an op in the wrong agent";
  }
  const size_t pipes = s.pipes.size();
  const size_t values = pipes + s.mutexes.size();
  const size_t v = pick % values;
  if (values >= 2 && (pick / 7) % 2 == 0) {
    if (v < pipes) {
      const Pipe& p = s.pipes[v];
      const bool carried = std::any_of(g.edges.begin(), g.edges.end(), [&](const Edge& e) {
        return e.to == p.consumer && e.distance > 0 &&
               std::find(p.producers.begin(), p.producers.end(), e.from) != p.producers.end();
      });
      s.pipes.erase(s.pipes.begin() + static_cast<std::ptrdiff_t>(v));
      for (size_t i = 0; i < s.pipes.size(); ++i) s.pipes[i].id = "Pipe_" + std::to_string(i);
      return carried ? "a loop-carried pipe dropped" : "a pipe dropped";
    }
    s.mutexes.erase(s.mutexes.begin() + static_cast<std::ptrdiff_t>(v - pipes));
    for (size_t i = 0; i < s.mutexes.size(); ++i) s.mutexes[i].id = "Mutex_" + std::to_string(i);
    return "a mutex dropped";
  }
  if (v < pipes) {
    ++s.pipes[v].depth;
    return "a pipe one deeper";
  }
  ++s.mutexes[v - pipes].depth;
  return "a mutex one deeper";
}

}  // namespace

// Move an op before its predecessor's result: s_v = s_u + λ − δ·II − 1.
RC_GTEST_PROP(Verifier, RejectsOpMovedBeforePredecessorLatency,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  Schedule s = legal_schedule(g, which);
  std::vector<int> breakable;  // edges whose target can start one cycle too early
  for (int e = 0; e < g.edge_count(); ++e) {
    const Edge& edge = g.edges[e];
    if (edge.from != edge.to && s.start[edge.from] + edge.latency - edge.distance * s.ii - 1 >= 0)
      breakable.push_back(e);
  }
  RC_PRE(!breakable.empty());
  const Edge& e = g.edges[breakable[pick % breakable.size()]];
  s.start[e.to] = s.start[e.from] + e.latency - e.distance * s.ii - 1;
  restamp(s);
  require_rejects(g, s, Rule::kDependence, e.to);
}

// Shift two ops that hold one singleton slot onto the same start: both
// claim that slot in the same modulo row.
RC_GTEST_PROP(Verifier, RejectsTwoOpsOnOneSingletonRow,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  Schedule s = legal_schedule(g, which);
  std::vector<std::vector<OpId>> holders(g.target.slot_count() + 1);
  for (OpId v = 0; v < g.op_count(); ++v)
    for (const Triple& t : g.ops[v].resources)
      if (g.target.slot(t.slot).capacity == 1) holders[t.slot].push_back(v);
  std::vector<std::pair<OpId, OpId>> pairs;
  for (const auto& h : holders)
    if (h.size() >= 2) pairs.push_back({h[pick % h.size()], h[(pick + 1) % h.size()]});
  RC_PRE(!pairs.empty());
  const auto [u, v] = pairs[pick % pairs.size()];
  s.start[v] = s.start[u];
  restamp(s);
  require_rejects(g, s, Rule::kSlots, v);
}

// Split a leader group: move one member a stage later. A graph without a
// group of two gets one: two ops that share a stage in the legal schedule
// (L5 holds for them), so most cases have something to split.
RC_GTEST_PROP(Verifier, RejectsSplitLeaderGroup,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  Graph g = lg.graph;
  Schedule s = legal_schedule(g, which);
  std::map<int64_t, std::vector<OpId>> groups;
  for (OpId v = 0; v < g.op_count(); ++v)
    if (g.ops[v].leader_gid) groups[*g.ops[v].leader_gid].push_back(v);
  std::vector<std::vector<OpId>> splittable;
  for (auto& [gid, ops] : groups)
    if (ops.size() >= 2) splittable.push_back(ops);
  if (splittable.empty()) {
    std::vector<std::pair<int64_t, OpId>> by_stage;  // ungrouped ops
    for (OpId v = 0; v < g.op_count(); ++v)
      if (!g.ops[v].leader_gid) by_stage.push_back({s.stage[v], v});
    std::sort(by_stage.begin(), by_stage.end());
    for (size_t i = 1; i < by_stage.size() && splittable.empty(); ++i) {
      const size_t k = (i - 1 + pick) % (by_stage.size() - 1) + 1;
      if (by_stage[k - 1].first == by_stage[k].first)
        splittable.push_back({by_stage[k - 1].second, by_stage[k].second});
    }
    RC_PRE(!splittable.empty());
    const int64_t gid = groups.empty() ? 1 : groups.rbegin()->first + 1;
    for (OpId v : splittable[0]) g.ops[v].leader_gid = gid;
    require_none(check_groups(g, s), "L5 groups (the added group)", s);
    RC_TAG("group added");
  }
  const auto& ops = splittable[pick % splittable.size()];
  const OpId v = ops[(pick / 7) % ops.size()];
  s.start[v] += s.ii;
  restamp(s);
  require_rejects(g, s, Rule::kGroups, v);
}

// Push an op with a max_depth one stage past it. A graph without one gets
// one: an op bounded at the stage it has in the legal schedule.
RC_GTEST_PROP(Verifier, RejectsOpPastMaxDepth,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  Graph g = lg.graph;
  Schedule s = legal_schedule(g, which);
  std::vector<OpId> bounded;
  for (OpId v = 0; v < g.op_count(); ++v)
    if (g.ops[v].max_depth) bounded.push_back(v);
  if (bounded.empty()) {
    RC_PRE(g.op_count() > 0);
    const OpId v = static_cast<OpId>(pick % static_cast<unsigned>(g.op_count()));
    g.ops[v].max_depth = s.stage[v];
    bounded.push_back(v);
    RC_TAG("max_depth added");
  }
  const OpId v = bounded[pick % bounded.size()];
  s.start[v] = (*g.ops[v].max_depth + 1) * s.ii + s.start[v] % s.ii;
  restamp(s);
  require_rejects(g, s, Rule::kMaxDepth, v);
}

// Record a wrong stage for one op (its start unchanged).
RC_GTEST_PROP(Verifier, RejectsWrongRecordedStage,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  Schedule s = legal_schedule(g, which);
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

// The verifier's materialization rule (its own derivation of the values,
// verify_values.h) and the independent checker agree: both accept the
// materializer's values, and both reject them once one value is broken.
RC_GTEST_PROP(Verifier, MaterializationVerdictAgreesWithIndependentChecker,
              (const CostSizedGraph& lg, Scheduler which, unsigned pick)) {
  const Graph& g = lg.graph;
  const Schedule s = feasible_schedule(g, which);
  RC_PRE(!s.pipes.empty() || !s.mutexes.empty());
  require_verdicts(g, s, true, "the materializer's values");
  Schedule broken = s;
  const std::string how = break_one_value(g, broken, pick);
  RC_TAG(how);
  require_verdicts(g, broken, false, how);
}

}  // namespace tilesched::props
