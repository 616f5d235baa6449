// The iterative modulo scheduler as a table of contents (Rau, MICRO 1994,
// "ModuloSchedule"): the serial schedule (rule L7 and the II cap), the
// per-graph facts (problem.h), then one Attempt per II from the lower
// bound upward until one places every op and passes rule L4; the schedule
// with its counters and one diagnostic per failed II. docs/BASELINES.md.
#include "tilesched/ims.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>

#include "../elapsed.h"
#include "../search.h"
#include "../storage.h"
#include "attempt.h"
#include "problem.h"
#include "tilesched/serial.h"

namespace tilesched {
namespace ims {
namespace {

struct Stats {
  int64_t ii_tried = 0;
  int64_t placement_steps = 0;
  int64_t evictions = 0;
  int64_t budget_exhausted = 0;  // IIs whose budget ran out
  int64_t storage_failures = 0;  // IIs where L4 failed (after placement or by the floor)
  int64_t no_seat = 0;           // IIs where some op fits no row (or a positive cycle)
  int64_t serial_fallback = 0;   // 1 when the serial schedule was published
};

std::vector<std::pair<std::string, int64_t>> fields(const Stats& s) {
  return {{"ii_tried", s.ii_tried},
          {"placement_steps", s.placement_steps},
          {"evictions", s.evictions},
          {"budget_exhausted", s.budget_exhausted},
          {"storage_failures", s.storage_failures},
          {"no_seat", s.no_seat},
          {"serial_fallback", s.serial_fallback}};
}

std::string format_ratio(double r) {
  char buf[32];
  const std::to_chars_result res = std::to_chars(buf, buf + sizeof buf, r);
  return std::string(buf, res.ptr);
}

// ceil(ratio * ops) placement steps, at least 1, and far below overflow.
int64_t step_budget(double ratio, int ops) {
  const double steps = std::ceil(ratio * static_cast<double>(ops));
  if (!(steps >= 1)) return 1;
  return steps > 1e15 ? int64_t{1000000000000000} : static_cast<int64_t>(steps);
}

class Generator {
 public:
  Generator(const Graph& g, const ImsOptions& opts)
      : g_(g), opts_(opts), serial_(generate_serial(g)), problem_(g), attempt_(problem_) {}

  Schedule run(std::chrono::steady_clock::time_point t0);

 private:
  Schedule keep_serial(std::string flag, std::string why) const;
  // The II search: lower bound upward to the cap, linear as in Rau.
  std::optional<int64_t> search(int64_t lower, int64_t cap);
  // False (with a diagnostic) when L4 fails at `ii` for this placement.
  bool storage_holds(int64_t ii, const std::vector<int64_t>& start);
  Schedule blank() const;

  const Graph& g_;
  const ImsOptions& opts_;
  Schedule serial_;
  Problem problem_;
  Attempt attempt_;
  Stats stats_;
  std::vector<std::string> diagnostics_;
  std::vector<int64_t> found_start_;
  bool all_storage_ = true;  // every II tried failed on L4
};

Schedule Generator::blank() const {
  Schedule s;
  s.graph = g_.name;
  s.generator = "ims";
  s.options = {{"budget_ratio", format_ratio(opts_.budget_ratio)}};
  s.mii = serial_.mii;
  return s;
}

Schedule Generator::run(std::chrono::steady_clock::time_point t0) {
  if (g_.attrs.force_serial_execution) {
    Schedule s = keep_serial(
        "force_serial",
        "force_serial_execution is set: the iterative modulo scheduler keeps the serial schedule");
    s.time_ns = elapsed_ns(t0);
    return s;
  }
  const int64_t lower = heuristic_ii_lower(g_, serial_.mii.max(), problem_.group_span_bound);
  const int64_t cap = heuristic_ii_cap(g_, lower, opts_.ii_cap, serial_);

  Schedule s = blank();
  if (const std::optional<int64_t> stores = stores_over_storage(g_)) {
    s.failure = FailureReason::kStorageBudget;
    s.diagnostics.push_back(stores_over_storage_diagnostic(g_, *stores));
  } else if (const std::optional<int64_t> ii = search(lower, cap)) {
    s.feasible = true;
    s.ii = *ii;
    s.start = found_start_;
    derive_stage_order(s);
    s.diagnostics = std::move(diagnostics_);
  } else if (serial_.feasible && opts_.ii_cap == 0) {
    // Up to the serial II nothing placed: publish the serial schedule, as
    // the cost-based generator's last rung does, and say so.
    diagnostics_.push_back("no II up to the serial II " + std::to_string(cap) +
                           " placed every op: the serial schedule is kept");
    stats_.serial_fallback = 1;
    s = keep_serial("serial_fallback", "");
  } else {
    s.failure = all_storage_ && stats_.ii_tried > 0 ? FailureReason::kStorageBudget
                                                    : FailureReason::kIiCapReached;
    s.diagnostics = std::move(diagnostics_);
    s.diagnostics.push_back("no legal placement for II " + std::to_string(lower) + " to " +
                            std::to_string(cap) + " (the cap)");
  }
  s.stats = fields(stats_);
  s.time_ns = elapsed_ns(t0);
  return s;
}

Schedule Generator::keep_serial(std::string flag, std::string why) const {
  Schedule s = serial_;
  s.generator = "ims";
  s.options = blank().options;
  s.flags.push_back(std::move(flag));
  s.diagnostics = diagnostics_;
  if (!why.empty()) s.diagnostics.push_back(std::move(why));
  s.stats = fields(stats_);
  return s;
}

std::optional<int64_t> Generator::search(int64_t lower, int64_t cap) {
  const int64_t budget = step_budget(opts_.budget_ratio, g_.op_count());
  int64_t floor_from = 0;  // first II of a run of IIs the storage floor rules out
  for (int64_t ii = lower; ii <= cap; ++ii) {
    ++stats_.ii_tried;
    if (problem_.storage_capacity && storage_floor(problem_, ii) > *problem_.storage_capacity) {
      // L4 proven to fail before any placement: one line per run of IIs.
      ++stats_.storage_failures;
      if (floor_from == 0) floor_from = ii;
      continue;
    }
    if (floor_from != 0) {
      diagnostics_.push_back("II " + std::to_string(floor_from) +
                             (ii - 1 > floor_from ? " to " + std::to_string(ii - 1) : "") +
                             ": storage: the buffers at their least lifetimes exceed the pool");
      floor_from = 0;
    }
    const AttemptResult r = attempt_.run(ii, budget);
    stats_.placement_steps += r.steps;
    stats_.evictions += r.evictions;
    const std::string at = "II " + std::to_string(ii) + ": ";
    switch (r.outcome) {
      case Outcome::kPlaced:
        if (storage_holds(ii, attempt_.starts())) {
          found_start_ = attempt_.starts();
          return ii;
        }
        continue;
      case Outcome::kBudgetExhausted:
        ++stats_.budget_exhausted;
        diagnostics_.push_back(at + "budget exhausted: " + r.why);
        break;
      case Outcome::kNoSeat:
        ++stats_.no_seat;
        diagnostics_.push_back(at + "no seat: " + r.why);
        break;
      case Outcome::kPositiveCycle:
        ++stats_.no_seat;
        diagnostics_.push_back(at + "positive cycle: " + r.why);
        break;
    }
    all_storage_ = false;
  }
  if (floor_from != 0) {
    diagnostics_.push_back("II " + std::to_string(floor_from) +
                           (cap > floor_from ? " to " + std::to_string(cap) : "") +
                           ": storage: the buffers at their least lifetimes exceed the pool");
  }
  return std::nullopt;
}

bool Generator::storage_holds(int64_t ii, const std::vector<int64_t>& start) {
  if (!problem_.storage_capacity) return true;
  const int64_t cap = *problem_.storage_capacity;
  const int64_t need = storage_bytes_needed(g_, problem_.adj, start, ii, cap);
  if (need <= cap) return true;
  ++stats_.storage_failures;
  diagnostics_.push_back("II " + std::to_string(ii) + ": storage: the placement holds " +
                         std::to_string(need) + " bytes of SMEM buffers, more than " +
                         std::to_string(cap));
  return false;
}

}  // namespace
}  // namespace ims

Schedule generate_ims(const Graph& g, const ImsOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();  // time_ns covers the serial pass too
  ims::Generator gen(g, opts);
  return gen.run(t0);
}

}  // namespace tilesched
