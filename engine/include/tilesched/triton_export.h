// A schedule of a TTGIR loop in the form Triton's pipeliner reads: each
// op's `loop.stage` and `loop.cluster`, keyed by its position in the loop
// body (`Op::source_position`); clusters order the body oldest stage first,
// then by start cycle. Folded ops have no entry: whoever rewrites the TTGIR
// places each with its first user. Before anything is written the
// assignment is checked against what Triton 3.6 lowers correctly
// (check_triton_lowering). docs/TTGIR.md, "Export to Triton", gives the
// rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

struct TritonPlacement {
  int64_t position = 0;   // in the loop body (Op::source_position)
  std::string id;         // the graph op's id
  std::string source_op;  // its TTGIR op name, which the rewriter checks
  int64_t stage = 0;
  int64_t cluster = 0;
  friend bool operator==(const TritonPlacement&, const TritonPlacement&) = default;
};

struct TritonSchedule {
  std::string graph;            // the graph's name
  std::optional<int64_t> loop;  // N of a graph named ".../loopN"
  std::string source;           // the schedule's generator, or "triton" (the graph's own)
  std::optional<int64_t> ii;    // the schedule's II; absent for Triton's own
  int64_t max_stage = 0;        // tt.scheduled_max_stage
  std::vector<TritonPlacement> ops;  // one per graph op, by position
  friend bool operator==(const TritonSchedule&, const TritonSchedule&) = default;
};

// The assignment of a feasible schedule of `g`: stage floor(start / II),
// counted from the first stage that holds an op; clusters numbered from the
// oldest stage's earliest start. Refuses a graph
// not imported from TTGIR (an op without source_position) and an
// infeasible schedule or one of another graph.
StatusOr<TritonSchedule> triton_schedule_from(const Graph& g, const Schedule& s);

// The graph's own Triton schedule (the triton_stage and triton_cluster the
// importer kept), as it was; refused when an op carries none.
StatusOr<TritonSchedule> triton_schedule_own(const Graph& g);

// The rules of docs/TTGIR.md ("What the export refuses"): InvalidInput
// naming the op and the rule, or Ok. Without `buffer_rule` only the order
// rule is checked: for testing the buffer rule on a GPU, where such a
// kernel may compute wrong results.
Status check_triton_lowering(const Graph& g, const TritonSchedule& t, bool buffer_rule = true);

// tilesched.triton/1 JSON (docs/FORMATS.md), one op per line.
std::string triton_schedule_json(const TritonSchedule& t);

}  // namespace tilesched
