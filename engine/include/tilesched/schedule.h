// The plain schedule: the only thing generators publish, and the only input
// of materialization and of the verifier (seed 003, "analysis handoff";
// docs/CONTRACT.md, "Legal schedules", for the derived stage, order and
// stage count).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/pipes.h"

namespace tilesched {

// The four lower bounds on II (seed 004); MII is their maximum.
struct MiiBounds {
  int64_t resource = 1;
  int64_t recurrence = 1;
  int64_t fine_density = 1;
  int64_t dependency = 1;
  int64_t max() const;
  friend bool operator==(const MiiBounds&, const MiiBounds&) = default;
};

// Why a generator found no legal schedule. Written to the CSV.
enum class FailureReason {
  kNone,
  kDependenceCycle,    // a zero-distance cycle: the serial walk cannot order it, or its
                       // ops, which start together, over-use a slot at every II
  kStorageBudget,      // L4 cannot hold at the II the generator reached
  kIiCapReached,       // no legal placement up to the II cap
  kBudgetExhausted,    // time or attempt budget ended first
};
std::string_view failure_reason_name(FailureReason r);

struct Schedule {
  std::string graph;          // the graph's name
  std::string generator;      // "serial", "cost-based", ...
  std::vector<std::pair<std::string, std::string>> options;  // in insertion order
  std::string selection;      // which generator the selector chose and why
  bool feasible = false;
  FailureReason failure = FailureReason::kNone;
  int64_t ii = 0;
  MiiBounds mii;
  int64_t stage_count = 0;
  std::vector<int64_t> start;  // per op id
  std::vector<int64_t> stage;  // floor(start / ii)
  std::vector<int64_t> order;  // rank inside the stage by (start, op id)
  // The coordination values materialize() derived from this schedule
  // (tilesched/materialize.h); empty until it ran, and for infeasible ones.
  std::vector<Pipe> pipes;
  std::vector<Mutex> mutexes;
  // Per op id, the agent that runs it (tilesched/agents.h), with the values;
  // empty when they are.
  std::vector<std::string> agents;
  std::vector<std::string> flags;
  std::vector<std::string> diagnostics;
  // Generator counters (the cost-based generator's arms, gates, rungs and
  // give-up reasons), in a fixed order; empty for the serial generator.
  std::vector<std::pair<std::string, int64_t>> stats;
  // The counter `key` of stats, 0 where there is none.
  int64_t stat(std::string_view key) const;
  int64_t time_ns = 0;         // generator time, graph to schedule, no I/O
  // The exact oracle's proof (tilesched/exact.h): lower_bound is the
  // smallest II it did not prove infeasible, proven_optimal that every II
  // below `ii` was proven infeasible (so lower_bound == ii). Unset, and
  // false, for the heuristic generators, which prove nothing.
  std::optional<int64_t> lower_bound;
  bool proven_optimal = false;
  // The oracle proved that no legal schedule at `ii` has fewer stages than
  // stage_count (independent of proven_optimal, which is about the II).
  bool stages_proven = false;

  friend bool operator==(const Schedule&, const Schedule&) = default;
};

// Fills stage, order and stage_count from ii and start (docs/CONTRACT.md).
// REQUIRES: s.ii >= 1 and s.start.size() == number of ops.
void derive_stage_order(Schedule& s);

}  // namespace tilesched
