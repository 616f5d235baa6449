// A loop of a TTGIR module as the importer (tilesched/graphgen/ttgir_import.h)
// sees it: its listing (TtgirLoop), the options of its import
// (TtgirOptions), and the import (TtgirImport, with the stage bound
// Triton's shared memory allows, TtgirStageBound). docs/TTGIR.md is the
// reference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::graphgen {

// One `scf.for` or `scf.while` of a module, numbered in file order from 0.
struct TtgirLoop {
  int index = 0;
  int line = 0;            // the line of its `scf.for` / `scf.while`
  std::string op;          // "scf.for" or "scf.while"
  std::string function;    // the function holding it ("@matmul"), "-" when none
  int op_count = 0;        // graph ops an import makes (folded ops and terminators left out)
  bool has_dot = false;    // a tt.dot or ttng.warp_group_dot anywhere inside
  bool has_load = false;   // a global, cp.async or TMA load anywhere inside
  bool innermost = false;  // no loop inside it (only innermost loops are imported)
  bool triton_schedule = false;  // an op of its body carries loop.stage
};

struct TtgirOptions {
  std::optional<int> loop;  // which loop (TtgirLoop::index); none: the default
  bool strict = false;      // refuse ops the importer does not know
  // Bound every op's depth by the stages whose buffers fit shared memory
  // (ttgir_stage_bound, tilesched/graphgen/ttgir_import.h).
  bool smem_stage_bound = true;
  // Add Triton's lowering rules as constraints (add_triton_rules,
  // tilesched/graphgen/ttgir_rules.h).
  bool triton_rules = true;
};

// The stage count Triton's shared memory allows a loop graph
// (ttgir_stage_bound, tilesched/graphgen/ttgir_import.h): the largest S (at
// most kMaxBoundedStages - 1) whose num_stages S buffers
// (hopper::predicted_smem_bytes) fit the 227 KiB a CTA may take, and the
// bytes at S + 1.
struct TtgirStageBound {
  int64_t stages = 0;        // the largest S that fits
  int64_t next_bytes = 0;    // predicted_smem_bytes at stages + 1
};
inline constexpr int64_t kMaxBoundedStages = 64;

// One loop imported: its graph and what the import adds about it.
struct TtgirImport {
  Graph graph;
  int loop = 0;                          // the index of the imported loop
  std::vector<std::string> unknown_ops;  // distinct unknown op names, in body order
  // The bound applied to every op's max_depth (stages - 1), when any.
  std::optional<TtgirStageBound> stage_bound;
};

}  // namespace tilesched::graphgen
