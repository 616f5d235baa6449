// A lower bound on II for ops with max_depth (rule L6, and so the stage
// cap's graphs, search/stage_cap.h) that DepMII misses: the holds an op's
// predecessors must take one after another, its own hold, and the paths
// between them must all fit in the op's stages.
//
// Take an op v with max_depth m, a hold of v (slot or rate pool R2,
// duration d_v) and a set K of v's distance-0 predecessors that hold one
// slot or rate pool R each with more than half its capacity (so no two of
// them share a modulo row of R) and each hold R2 with more units than R2
// has left beside v's. Let u be the member of K that starts first. K's
// holds of R follow one another, so the last member starts at least the
// sum of the others' durations after u, and v at least that member's
// longest distance-0 path after it: s_v - s_u >= Δ = sum over K of d_w +
// min over K of (P_wv - d_w). u and v may not share a row of R2, so
// (s_v - s_u) mod II <= II - d_v; with s_u >= 0 and s_v <= (m + 1) II - 1
// (L6), s_v - s_u <= (m + 1) II - d_v and s_v - s_u <= (m + 1) II - 1 -
// s_u. So II >= ceil((Δ + max(d_v, 1 + min over K of ASAP_w)) / (m + 1)).
// Of the sets K for one (v, R2, R), the best is a prefix of the candidates
// ordered by P_wv - d_w, largest first. The two loads and the MMA of a
// Hopper matmul capped at one stage give II >= 26 + 130 + 24 = 180, the
// exact oracle's optimum, where DepMII gives 134.
//
// The search's bottom (heuristic_ii_lower, search/ii_range.h) takes it;
// the MII (seed 002's split) does not. docs/BOUNDS.md, "The stage span".
#pragma once

#include <cstdint>

#include "tilesched/graph.h"

namespace tilesched {

// The work stage_span_bound may do: graphs whose count of steps
// (paths from every heavy holder, candidates scanned) passes it get 1.
inline constexpr int64_t kStageSpanMaxSteps = int64_t{1} << 22;

// The bound above, at least 1: 1 where no op has max_depth, where the
// distance-0 edges hold a cycle, or where the graph's steps pass
// kStageSpanMaxSteps. REQUIRES: the graph passed validate_graph.
int64_t stage_span_bound(const Graph& g, const Adjacency& adj);

}  // namespace tilesched
