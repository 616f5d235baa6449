// Importer for Triton's TTGIR, its entry points: the MLIR text Triton
// prints for a kernel (Triton 3.6; `*.ttgir` dumps such as
// ../shared/kernels/triton-h200/), one loop of it (`scf.for` or
// `scf.while`) as a loop graph on the `hopper` target. The loop listing,
// the options and the import's result are in
// tilesched/graphgen/ttgir_loop.h.
// docs/TTGIR.md is the reference: what is read, the loop shapes, which
// ops are folded and why, the kind each op maps to, the Triton schedule
// attributes kept, the buffers counted, the limits and the messages.
//
// Mapping, in short:
// - only innermost loops are imported (an outer loop's ops are context);
// - every op of the loop body that costs time or a resource becomes one
//   graph op, with a kind of hopper_target() and a latency and resources
//   computed from its tile types (tilesched/hopper.h); its id comes from
//   its SSA name, `source_op` keeps the TTGIR op name and `source_position`
//   its position in the body; the ops of an scf.if's branches too,
//   guarded (they read its condition); an scf.while's body is its test
//   region, then its do region;
// - ops that compile to nothing (constants, splat/broadcast/expand_dims,
//   memdesc views, ...) are folded: their users depend on their operands;
// - edges: SSA def-use inside the body (data, distance 0), values that
//   reach the next iteration through scf.yield and iter_args (distance 1,
//   more through a chain of iter_args), and order edges between two ops
//   that touch the same shared-memory buffer or barrier (one of them
//   writing);
// - `loop.stage` / `loop.cluster` on ops become `triton_stage` /
//   `triton_cluster`, the loop's `tt.num_stages` the graph attribute
//   `triton_num_stages`, the module's `ttg.num-warps` `num_warps`;
// - buffers: a ttg.local_alloc's, a pipelined load's whose value goes to
//   registers (on the load op), and those alive outside the loop
//   (`resident_smem_bytes`);
// - the stage count: every op's max_depth is lowered so that a schedule
//   has at most the stages whose multi-buffered copies of the buffers
//   Triton can allocate (hopper::predicted_smem_bytes within the 227 KiB a
//   CTA may take), unless `smem_stage_bound` is off;
// - Triton's lowering rules as constraints (add_triton_rules,
//   tilesched/graphgen/ttgir_rules.h), unless
//   `triton_rules` is off: every schedule of the graph exports;
// - an op the importer does not know becomes a `generic` op (latency one
//   unit, no resources) and is named in `unknown_ops`; with `strict` it
//   is refused instead.
// Malformed input gives InvalidInput, one line "SOURCE:LINE: problem".
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
