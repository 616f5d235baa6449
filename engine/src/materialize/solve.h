// Schedule::solve for one (raw value, consumer) candidate pair, in its
// phases: collect the candidate producers, stable-sort them by (stage,
// order), build the schedule-info / filter / owner maps, close the producer
// set under live-at-consumer, union producers that share an origin value,
// pick each group's canonical owner and emit one pipe per group, or the
// consumer-only fallback. It reads the value maps and the schedule; it never
// changes a stage, an order or an II. Each phase is a function of its own so
// the tests can drive them one by one; the consumer-only phases run once per
// consumer (prepare_consumer). docs/MATERIALIZE.md gives the phases.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "dsu.h"
#include "tilesched/graph.h"
#include "tilesched/materialize.h"
#include "value_rule.h"
#include "tilesched/schedule.h"
#include "value_maps.h"

namespace tilesched::materialize_internal {

// A pipe before duplicate collapse gives it an id.
struct PipeDraft {
  std::vector<OpId> producers;  // ascending (stage, order)
  OpId consumer = 0;
  OpId owner = 0;
  int64_t depth = 1;
  std::vector<int> edges;  // ascending ids
  friend bool operator==(const PipeDraft&, const PipeDraft&) = default;
};

// A dense key per raw value, to group producers by the value they carry.
int64_t raw_key(const Graph& g, RawValue r);

// Phases 1 to 3a, per consumer: the candidates and their schedule info.
struct ConsumerWork {
  struct Info {
    int64_t stage = 0;
    int64_t order = 0;
    bool async = false;
    std::vector<int> edges;     // its pipe-needing edges into the consumer, ascending
    std::vector<int64_t> keys;  // raw keys its live ones carry, ascending, distinct
  };
  OpId consumer = 0;
  std::vector<OpId> work;  // the candidate producers, ascending (stage, order)
  std::vector<Info> info;  // schedule info, by position in `work`
  // (raw key, position) for every live pipe-needing edge, sorted, distinct:
  // the producers that carry each raw value sit together.
  std::vector<std::pair<int64_t, int>> carried;
};

// Phase 1: the distinct producers of the consumer's pipe-needing edges,
// ascending op id.
std::vector<OpId> collect_candidate_producers(const Graph& g, const ValueMaps& maps, OpId consumer);
// Phases 1, 2 (stable sort by (stage, order)) and the schedule info.
ConsumerWork prepare_consumer(const Graph& g, const Schedule& s, const ValueMaps& maps,
                              OpId consumer);

// Phase 3b, per pair: the filter map, by position.
struct SolveMaps {
  std::vector<char> filtered;  // 1: no live edge of it carries the pair's raw value
};
SolveMaps build_solve_maps(const Graph& g, const ConsumerWork& cw, RawValue raw);

// The owner map, kept across one consumer's pairs: each candidate's group's
// canonical owner once a pipe for it was emitted.
struct OwnerMap {
  explicit OwnerMap(size_t candidates) : owner(candidates, -1) {}
  std::vector<OpId> owner;  // by position; -1 until emitted
  bool fallback = false;    // the consumer-only pipe was emitted
};

// Phase 4: positions of the producers that carry the raw value on a live
// edge, closed under "carries, on a live edge, a value that a member
// carries": a producer that hands the consumer two values keeps both live
// together. Ascending positions.
std::vector<int> close_under_live_at_consumer(const ConsumerWork& cw, const SolveMaps& sm);

// Phase 5: elements are indices into `live`; producers that carry the same
// raw value on live edges are united.
DisjointSets union_shared_origins(const ConsumerWork& cw, const std::vector<int>& live);

// Phase 6: one draft per root, members in (stage, order), the first the
// owner, carrying every live data edge from a member to the consumer;
// records the owner of each member in `owners`.
std::vector<PipeDraft> emit_group_pipes(const Graph& g, const Schedule& s, const ValueMaps& maps,
                                        const ConsumerWork& cw, const std::vector<int>& live,
                                        DisjointSets& dsu, OwnerMap& owners);

// The zero-producer fallback: the consumer alone, carrying its edges that
// are not live.
PipeDraft consumer_only_pipe(const ValueMaps& maps, OpId consumer);

struct SolveOutcome {
  PairSolve record;               // `pipes` and `collapsed` are the driver's to fill
  std::vector<PipeDraft> drafts;  // empty when record.repeat_of is set
};
// REQUIRES: `owners` belongs to cw's consumer and saw its earlier pairs.
SolveOutcome solve_pair(const Graph& g, const Schedule& s, const ValueMaps& maps,
                        const ConsumerWork& cw, RawValue raw, OwnerMap& owners);

}  // namespace tilesched::materialize_internal
