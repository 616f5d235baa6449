// Why a schedule's II is not lower (docs/EXPLAIN.md). Either a lower
// bound binds (II equals the MII: the slot, pool, recurrence or stage
// bound that gives it, with its ops), or, when II > MII, a small part of
// the graph (ops, the edges among them, the slots and pools they hold)
// that has no legal schedule at any II below II on its own: found by the
// exact oracle on the whole graph, then shrunk one piece at a time while
// the oracle still proves the part infeasible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

struct ExplainOptions {
  // Wall-clock budget for all the oracle's questions together, and for one
  // question (a graph or part of it, "any legal schedule below II?").
  int64_t time_limit_ms = 20'000;
  int64_t check_limit_ms = 5'000;
};

enum class ExplainVerdict {
  kAtBound,        // II is the MII: `bound` binds, `ops` etc. give it
  kCore,           // II - 1 and below are infeasible: `ops` etc. are a core
  kLowerFeasible,  // a legal schedule with a lower II exists (`lower_ii`)
  kOpen,           // the oracle could not decide within the time limit
};
std::string_view explain_verdict_name(ExplainVerdict v);

struct Explanation {
  int64_t ii = 0;
  MiiBounds mii;
  ExplainVerdict verdict = ExplainVerdict::kOpen;
  // kAtBound: "resource", "recurrence", "fine-density" or "dependency";
  // "force-serial" when rule L7 makes the serial schedule the only one.
  std::string bound;
  std::vector<OpId> ops;                  // ascending
  std::vector<int> edges;                 // indices into Graph::edges, ascending
  std::vector<std::string> resources;     // slot and pool names
  // kCore: removing any one op, edge or resource of the core left a part
  // the oracle found feasible below II (or could not decide: then false).
  bool minimal = false;
  int64_t lower_ii = 0;                   // kLowerFeasible
  // kLowerFeasible: the oracle's legal schedule at lower_ii, the witness
  // that II is not the least (start cycles, stages and order derived; no
  // Pipe_/Mutex_ values).
  std::optional<Schedule> witness;
  int64_t checks = 0;                     // oracle questions asked
  std::string summary;                    // one or two sentences
};

// REQUIRES: g validated, ii >= 1 (the II of a legal schedule of g, or any
// II to ask about). An oracle failure is returned as its status.
StatusOr<Explanation> explain_ii(const Graph& g, int64_t ii, const ExplainOptions& opts);

}  // namespace tilesched
