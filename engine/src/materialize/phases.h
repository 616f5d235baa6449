// The phases of the MaterializeSchedule pass driver (materialize.cc),
// exposed for the tests; tilesched/materialize.h is the public entry.
#pragma once

#include <string>
#include <vector>

#include "solve.h"
#include "tilesched/materialize.h"
#include "value_maps.h"

namespace tilesched::materialize_internal {

// One Mutex_ per (releaser, acquirer) pair of order edges, ordered by the
// acquirer's (stage, order), then the releaser's; ids Mutex_0, Mutex_1, ...
std::vector<Mutex> seed_mutex_placeholders(const Graph& g, const Schedule& s,
                                           const ValueMaps& maps);

// A pipe placeholder: one pipe-needing data edge and the handle it carries.
struct PipePlaceholder {
  int edge = 0;
  RawValue raw;
  OpId consumer = 0;
};
// One per pipe-needing edge: consumers in (stage, order), each one's edges
// by producer (stage, order) then edge id.
std::vector<PipePlaceholder> seed_pipe_placeholders(const Graph& g, const Schedule& s,
                                                    const ValueMaps& maps);

// The walker's candidate pairs: the distinct (raw value, consumer) of the
// placeholders, in placeholder order.
struct CandidatePair {
  RawValue raw;
  OpId consumer = 0;
};
std::vector<CandidatePair> candidate_pairs(const std::vector<PipePlaceholder>& placeholders);

// Merges drafts with the same producers and consumer (the first keeps its
// place; depth and edges are the union) and names the survivors Pipe_0,
// Pipe_1, ... in order. solves[i] emitted drafts[i]: its record gets the
// final pipe indices and the number of its drafts that were duplicates; a
// pair the owner map answered (repeat_of) gets the pipe of the group with
// that owner at its consumer, counted as collapsed too.
std::vector<Pipe> collapse_duplicate_pipes(std::vector<std::vector<PipeDraft>> drafts,
                                           std::vector<PairSolve>& solves);

// materialize() with its trace: `solves` gets one record per candidate
// pair, in walker order (what Schedule::solve did for it).
StatusOr<Materialization> materialize_traced(const Graph& g, const Schedule& s,
                                             std::vector<PairSolve>& solves,
                                             const MaterializeOptions& opts = {});

// check_materialization for the pass driver, which has checked the stage
// order and built `maps` (build_value_maps(g, s): a function of g and s
// alone, so the same maps the checker would build again).
std::vector<std::string> check_materialization_with(const Graph& g, const Schedule& s,
                                                    const Materialization& m,
                                                    const ValueMaps& maps);

// The ops in (stage, order), with the values spliced in (RegionStep).
std::vector<RegionStep> rebuild_region(const Graph& g, const Schedule& s,
                                       const std::vector<Pipe>& pipes,
                                       const std::vector<Mutex>& mutexes);

}  // namespace tilesched::materialize_internal
