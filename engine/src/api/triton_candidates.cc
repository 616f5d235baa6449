// Candidate stage assignments of a TTGIR loop, deduplicated, priced and
// ranked (tilesched/triton_candidates.h; docs/TTGIR.md,
// "Candidates").
#include "tilesched/triton_candidates.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <utility>

#include <nlohmann/json.hpp>

namespace tilesched {

namespace {

// The stage of every graph op, by op id, from an export (whose placements
// are by position).
std::vector<int64_t> stage_by_op(const Graph& g, const TritonSchedule& t) {
  std::vector<int64_t> stage(g.ops.size(), 0);
  for (const TritonPlacement& p : t.ops) {
    if (std::optional<OpId> v = g.find_op(p.id)) stage[*v] = p.stage;
  }
  return stage;
}

// The hopper model's price of `stage` (per op id): `tilesched predict`'s
// model (hopper::predict_schedule).
CandidatePrice price_of(const Graph& g, const std::vector<int64_t>& stage,
                        const CandidateOptions& opts) {
  const hopper::StagePrediction p = hopper::predict_schedule(g, stage, opts.cta, opts.fit);
  return CandidatePrice{p.ctas_per_sm > 0 ? p.sm_cycles : 0.0, p.cta_cycles, p.smem_bytes,
                        p.ctas_per_sm, std::string(hopper::bound_name(p.bound))};
}

// Triton's own schedule at its num_stages, priced as `tilesched stages`
// and `predict --triton S` price it (hopper::predict_stages): one price of
// Triton's own in every command, though the model's Triton assignment may
// place an op (a local_alloc) in another stage than the kept one.
CandidatePrice price_of_triton(const Graph& g, int64_t stages, const CandidateOptions& opts) {
  const hopper::StagePrediction p = hopper::predict_stages(g, stages, opts.cta, opts.fit);
  return CandidatePrice{p.ctas_per_sm > 0 ? p.sm_cycles : 0.0, p.cta_cycles, p.smem_bytes,
                        p.ctas_per_sm, std::string(hopper::bound_name(p.bound))};
}

// One finder's assignment: its stage per op id and its export, or the
// export's refusal (then the candidate is listed, refused, with no file).
struct Found {
  std::string finder;
  std::vector<int64_t> stage;
  std::optional<int64_t> ii;
  StatusOr<TritonSchedule> schedule;
};

// A schedule's stage per op id, counted from the first stage that holds an
// op (as the export counts them).
std::vector<int64_t> stages_of(const Schedule& s) {
  const int64_t first = *std::min_element(s.start.begin(), s.start.end()) / s.ii;
  std::vector<int64_t> stage;
  for (const int64_t t : s.start) stage.push_back(t / s.ii - first);
  return stage;
}

// Every finder's export in the order tried: Triton's own, then per
// generator the caps 1..max_cap.
StatusOr<std::vector<Found>> find_all(const Graph& g, const CandidateOptions& opts) {
  std::vector<Found> out;
  if (StatusOr<TritonSchedule> own = triton_schedule_own(g); own.ok()) {
    std::vector<int64_t> stage = stage_by_op(g, *own);
    out.push_back({"triton", std::move(stage), std::nullopt, std::move(own)});
  }
  const int64_t caps = opts.max_cap > 0 ? opts.max_cap : stage_bound_of(g);
  const Graph loaded = hopper::with_loaded_memory_latency(g, opts.fit);
  for (const GeneratorKind kind : opts.generators) {
    GenerateOptions gen;
    gen.generator = kind;
    gen.exact.time_limit_ms = opts.exact_time_limit_ms;
    gen.cost_based.effort = opts.effort;
    StatusOr<std::vector<Schedule>> per_cap = generate_schedules_per_stage_cap(loaded, gen, caps);
    if (!per_cap.ok()) return per_cap.status();
    for (int64_t cap = 1; cap <= caps; ++cap) {
      Schedule s = (*per_cap)[cap - 1];
      if (!s.feasible || s.start.size() != g.ops.size()) continue;
      const std::string finder = std::string(generator_name(kind)) + "/cap" + std::to_string(cap);
      s.generator = finder;
      out.push_back({finder, stages_of(s), s.ii, triton_schedule_from(g, s)});
    }
  }
  return out;
}

// Refuses a graph the TTGIR importer did not make (an op without
// source_position), as the export does.
Status check_imported(const Graph& g) {
  for (const Op& op : g.ops) {
    if (!op.source_position || !op.source_op) {
      return Status::InvalidInput("graph '" + g.name + "' was not imported from TTGIR (op '" +
                                  op.name + "' has no source_position; candidates need "
                                  "`tilesched import --from ttgir`)");
    }
  }
  return Status::Ok();
}

// The candidate of a finder's assignment: its export, or where the export
// refuses it a placeholder with the refusal.
Candidate candidate_of(const Graph& g, Found& f) {
  Candidate c{{}, std::move(f.stage), {f.finder}, {}, std::nullopt};
  if (f.schedule.ok()) {
    c.schedule = std::move(*f.schedule);
    if (Status s = check_triton_lowering(g, c.schedule); !s.ok()) c.refused = s.message();
  } else {
    const int64_t max_stage = *std::max_element(c.stage.begin(), c.stage.end());
    c.schedule = TritonSchedule{g.name, std::nullopt, f.finder, f.ii, max_stage, {}};
    c.refused = f.schedule.status().message();
  }
  return c;
}

bool ranks_before(const Candidate& a, const Candidate& b) {
  const bool fa = a.price.ctas_per_sm > 0, fb = b.price.ctas_per_sm > 0;
  if (fa != fb) return fa;
  if (a.price.sm_cycles != b.price.sm_cycles) return a.price.sm_cycles < b.price.sm_cycles;
  return a.price.smem_bytes < b.price.smem_bytes;
}

// "8/0/3": the graph ops in each stage, stage 0 first.
std::string ops_per_stage(const Candidate& c) {
  std::vector<int64_t> count(c.schedule.max_stage + 1, 0);
  for (const int64_t s : c.stage) ++count[s];
  std::string out;
  for (size_t i = 0; i < count.size(); ++i) out += (i ? "/" : "") + std::to_string(count[i]);
  return out;
}

double rounded(double x) { return std::round(x * 10000.0) / 10000.0; }

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
  return out;
}

}  // namespace

int64_t stage_bound_of(const Graph& g) {
  std::optional<int64_t> deepest;
  for (const Op& op : g.ops) {
    if (op.max_depth) deepest = std::max(deepest.value_or(0), *op.max_depth);
  }
  return deepest ? 1 + *deepest : kDefaultMaxCap;
}

StatusOr<std::vector<Candidate>> triton_candidates(const Graph& g, const CandidateOptions& opts) {
  if (Status s = check_imported(g); !s.ok()) return s;
  StatusOr<std::vector<Found>> found = find_all(g, opts);
  if (!found.ok()) return found.status();
  std::vector<Candidate> list;
  std::map<std::vector<int64_t>, size_t> seen;
  for (Found& f : *found) {
    if (auto it = seen.find(f.stage); it != seen.end()) {
      list[it->second].found_by.push_back(f.finder);
      continue;
    }
    seen.emplace(f.stage, list.size());
    Candidate c = candidate_of(g, f);
    c.price = f.finder == "triton" ? price_of_triton(g, c.schedule.max_stage + 1, opts)
                                   : price_of(g, c.stage, opts);
    list.push_back(std::move(c));
  }
  std::stable_sort(list.begin(), list.end(), ranks_before);
  return list;
}

std::string candidates_json(const Graph& g, const std::vector<Candidate>& list,
                            const std::vector<std::string>& files) {
  using Json = nlohmann::ordered_json;
  Json rows = Json::array();
  for (size_t i = 0; i < list.size(); ++i) {
    const Candidate& c = list[i];
    const bool fits = c.price.ctas_per_sm > 0;
    rows.push_back({{"rank", i + 1},
                    {"file", files[i].empty() ? Json(nullptr) : Json(files[i])},
                    {"source", c.schedule.source},
                    {"found_by", c.found_by},
                    {"ii", c.schedule.ii ? Json(*c.schedule.ii) : Json(nullptr)},
                    {"ii_sm_cycles", c.schedule.ii ? Json(*c.schedule.ii * hopper::kCyclesPerUnit)
                                                   : Json(nullptr)},
                    {"stages", c.schedule.max_stage + 1},
                    {"ops_per_stage", ops_per_stage(c)},
                    {"sm_cycles", fits ? Json(rounded(c.price.sm_cycles)) : Json(nullptr)},
                    {"cta_cycles", rounded(c.price.cta_cycles)},
                    {"smem_bytes", c.price.smem_bytes},
                    {"ctas_per_sm", c.price.ctas_per_sm},
                    {"bound", c.price.bound},
                    {"refused", c.refused ? Json(*c.refused) : Json(nullptr)}});
  }
  const Json doc = {{"format", "tilesched.candidates/1"}, {"graph", g.name},
                    {"candidates", rows}};
  return doc.dump(1) + "\n";
}

std::string candidates_tsv(const std::vector<Candidate>& list,
                           const std::vector<std::string>& files) {
  std::string out =
      "rank\tfile\tsource\tfound_by\tii_units\tii_sm_cycles\tstages\tops_per_stage\tsm_cycles\t"
      "smem_bytes\t"
      "ctas_per_sm\tbound\trefused\n";
  char cycles[32];
  for (size_t i = 0; i < list.size(); ++i) {
    const Candidate& c = list[i];
    std::snprintf(cycles, sizeof cycles, "%.1f", c.price.sm_cycles);
    out += std::to_string(i + 1) + "\t" + files[i] + "\t" + c.schedule.source + "\t" +
           joined(c.found_by) + "\t" + (c.schedule.ii ? std::to_string(*c.schedule.ii) : "") +
           "\t" + (c.schedule.ii ? std::to_string(*c.schedule.ii * hopper::kCyclesPerUnit) : "") +
           "\t" + std::to_string(c.schedule.max_stage + 1) + "\t" + ops_per_stage(c) + "\t" +
           (c.price.ctas_per_sm > 0 ? cycles : "") + "\t" + std::to_string(c.price.smem_bytes) +
           "\t" + std::to_string(c.price.ctas_per_sm) + "\t" + c.price.bound + "\t" +
           c.refused.value_or("") + "\n";
  }
  return out;
}

}  // namespace tilesched
