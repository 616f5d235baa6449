// The verifier: checks a schedule against L1-L7, the stage/order totality
// (docs/CONTRACT.md) and its Pipe_/Mutex_ values, straight from the
// definitions (docs/VERIFIER.md). It shares no code with any generator or
// with the materializer, so a bug there cannot hide itself here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched {

enum class Rule {
  kShape,       // II < 1, a start missing or negative, sizes disagree
  kDependence,  // L1
  kSlots,       // L2
  kRatePools,   // L3
  kStorage,     // L4
  kGroups,      // L5
  kMaxDepth,    // L6
  kSerial,      // L7
  kStageOrder,  // a recorded stage, order or stage_count disagrees
  kMaterialization,  // carried pipes/mutexes differ from the ones the schedule needs
};
std::string_view rule_name(Rule r);  // "L1-dependence", ...

struct Violation {
  Rule rule;
  std::vector<OpId> ops;  // the ops involved, ascending
  std::string message;    // names ops by their JSON ids
};

struct VerifyReport {
  std::vector<Violation> violations;  // in rule order, then by first op
  bool legal() const { return violations.empty(); }
  bool violates(Rule r) const;
};

// Checks s.ii and s.start against every rule, and s.stage, s.order and
// s.stage_count against the values they must have. A schedule that carries
// pipes or mutexes (or the trivial-fallback flag) also has them checked
// against the values the verifier derives from the graph, II and the starts
// (docs/VERIFIER.md, "materialization").
VerifyReport verify_schedule(const Graph& g, const Schedule& s);

}  // namespace tilesched
