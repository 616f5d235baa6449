// Importer for Triton's TTGIR, its entry points: the MLIR text Triton
// prints for a kernel (Triton 3.6; `*.ttgir` dumps such as
// ../shared/kernels/triton-h200/), one innermost loop of it (`scf.for` or
// `scf.while`) as a loop graph on the `hopper` target. The loop listing,
// the options and the import's result are in tilesched/graphgen/ttgir_loop.h.
// Malformed input gives InvalidInput, one line "SOURCE:LINE: problem".
// docs/TTGIR.md is the reference ("The mapping in short", then what is read,
// the loop shapes, the ops folded, the kinds, the buffers, the limits).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/graphgen/ttgir_loop.h"
#include "tilesched/status.h"

namespace tilesched::graphgen {

// The stage count Triton's shared memory allows a loop graph
// (TtgirStageBound). None when even one stage does not fit (no bound
// helps) or when kMaxBoundedStages - 1 stages still fit (no bound is
// needed).
std::optional<TtgirStageBound> ttgir_stage_bound(const Graph& g);

// Every loop (scf.for, scf.while) of the text, in file order.
StatusOr<std::vector<TtgirLoop>> list_ttgir_loops(std::string_view text, std::string_view source);

// The loop imported when none is named: the first, in file order, of the
// innermost loops that hold a dot or a load (in a *.triton-scheduled.ttgir
// file that is the first of its three dumps, the one Triton scheduled).
std::optional<int> default_ttgir_loop(const std::vector<TtgirLoop>& loops);

// Imports one loop of the text. The graph is named `graph_name`.
StatusOr<TtgirImport> import_ttgir_text(std::string_view text, std::string_view source,
                                        const TtgirOptions& options, std::string graph_name);

// The same from a file; the graph is named "ttgir/STEM/loopN" after the
// file name (without directory and its last extension) and the loop index.
StatusOr<TtgirImport> import_ttgir(const std::string& path, const TtgirOptions& options);

}  // namespace tilesched::graphgen
