// Candidate stage assignments of a TTGIR loop for Triton's pipeliner
// (docs/TTGIR.md, "Candidates"): every generator's schedule under every
// stage cap from 1 to the graph's stage bound, and Triton's own, as
// tilesched.triton/1 exports, one per distinct stage vector, each priced by
// the hopper model and ranked by its predicted time. What
// `tilesched candidates` writes and scripts/triton_campaign.py times.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/graph.h"
#include "tilesched/triton_export.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/status.h"

namespace tilesched {

struct CandidateOptions {
  // The caps tried: 1..max_cap; 0 means the graph's stage bound (1 + the
  // largest max_depth of its ops; kDefaultMaxCap when no op has one).
  int64_t max_cap = 0;
  // The generators run under each cap, in this order (auto is left out: it
  // runs one of them).
  std::vector<GeneratorKind> generators = {GeneratorKind::kSerial, GeneratorKind::kCostBased,
                                           GeneratorKind::kCostBasedSeed, GeneratorKind::kIms,
                                           GeneratorKind::kSms, GeneratorKind::kExact};
  int64_t exact_time_limit_ms = 5000;  // the oracle's budget per cap
  Effort effort = Effort::kDefault;    // the cost-based generator's (CostBasedOptions::effort)
  hopper::CtaFootprint cta;            // registers and threads (smem_bytes is ignored)
  hopper::FittedConstants fit;
};

inline constexpr int64_t kDefaultMaxCap = 6;

// The price of one stage assignment on the hopper model.
struct CandidatePrice {
  double sm_cycles = 0;      // per loop iteration on one SM (0 when one CTA does not fit)
  double cta_cycles = 0;     // per iteration of one CTA
  int64_t smem_bytes = 0;    // one CTA's shared memory
  int64_t ctas_per_sm = 0;
  std::string bound;         // hopper::bound_name of what decides the time
};

struct Candidate {
  TritonSchedule schedule;          // the export (source: the first finder)
  std::vector<int64_t> stage;       // per graph op id: the dedup key
  std::vector<std::string> found_by;  // "triton", "cost-based/cap3", ... in the order found
  CandidatePrice price;
  std::optional<std::string> refused;  // check_triton_lowering's message, when it refuses
};

// The graph's stage bound: 1 + the largest op max_depth, or kDefaultMaxCap
// when no op carries one.
int64_t stage_bound_of(const Graph& g);

// The finders in the order they are tried: Triton's own first (when the
// graph carries it), then per generator the caps 1..max_cap. Each schedule
// is made on the graph with the loaded memory latency (as `tilesched
// stages` does). A schedule no generator finds under a cap is skipped.
// Candidates are deduplicated by stage vector (the first finder's clusters
// and source are kept), priced (Triton's own as `tilesched stages` prices
// it at its stage count, hopper::predict_stages; the others as `predict`
// prices a schedule, hopper::predict_schedule), and sorted by predicted time (a candidate
// whose CTA does not fit last), then shared memory, then order found.
// An assignment the export refuses (the lowering checks, or the ops of one
// TTGIR op in two stages, which it cannot write) stays in the list with
// `refused` set (and, for the latter, no placements). A graph not imported
// from TTGIR is refused. REQUIRES: g is on the hopper target.
StatusOr<std::vector<Candidate>> triton_candidates(const Graph& g, const CandidateOptions& opts);

// tilesched.candidates/1 JSON of a ranked list (docs/FORMATS.md): per
// candidate its rank, file, finders, ops per stage, II and price.
// `files[i]` is candidate i's export file name ("" when refused).
std::string candidates_json(const Graph& g, const std::vector<Candidate>& list,
                            const std::vector<std::string>& files);

// The same as tab-separated rows under a header line.
std::string candidates_tsv(const std::vector<Candidate>& list,
                           const std::vector<std::string>& files);

}  // namespace tilesched
