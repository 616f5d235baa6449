// The iterative modulo scheduler as a table of contents (Rau, MICRO 1994,
// "ModuloSchedule"): in the heuristics' frame (../frame.h: rule L7, the
// range, the search, the serial fallback), the per-graph facts
// (problem.h), then one Attempt per II from the lower bound upward until
// one places every op and passes rule L4; the counters and one diagnostic
// per failed II. docs/BASELINES.md.
#include "tilesched/ims.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>

#include "generators/frame.h"
#include "graph/storage.h"
#include "attempt.h"
#include "problem.h"

namespace tilesched {
namespace ims {
namespace {

struct Stats {
  int64_t ii_tried = 0;
  int64_t ii_screened = 0;       // IIs the II screen proved infeasible (ii_screen.h)
  int64_t placement_steps = 0;
  int64_t evictions = 0;
  int64_t budget_exhausted = 0;  // IIs whose budget ran out
  int64_t storage_failures = 0;  // IIs where L4 failed (after placement or by the floor)
  int64_t no_seat = 0;           // IIs where some op fits no row (or a positive cycle)
  int64_t work = 0;              // the attempts' AttemptResult::work together
};

// The counters in their order; the frame adds serial_fallback last.

std::vector<std::pair<std::string, int64_t>> fields(const Stats& s) {
  return {{"ii_tried", s.ii_tried},
          {"ii_screened", s.ii_screened},
          {"placement_steps", s.placement_steps},
          {"evictions", s.evictions},
          {"budget_exhausted", s.budget_exhausted},
          {"storage_failures", s.storage_failures},
          {"no_seat", s.no_seat},
          {"work", s.work}};
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

class Generator : public GeneratorFrame {
 public:
  Generator(const Graph& g, const ImsOptions& opts, const IiSearchOptions& search)
      : GeneratorFrame(g, search, {.name = "ims"}), opts_(opts), problem_(g), attempt_(problem_),
        budget_(step_budget(opts.budget_ratio, g.op_count())),
        screen_(g, problem_.adj, nullptr, "closure.ims") {}

 private:
  int64_t group_span() override { return problem_.group_span_bound; }
  IiScreen& screen() override { return screen_; }
  // The attempt at one II (ii_driver.h): the storage floor, the placement,
  // then L4 on the finished placement.
  IiVerdict attempt(int64_t ii) override;
  const std::vector<int64_t>& starts() override { return attempt_.starts(); }
  std::vector<std::pair<std::string, std::string>> options() const override {
    return {{"budget_ratio", format_ratio(opts_.budget_ratio)}};
  }
  void finish(Schedule& s, const IiRange& range, const IiSearchResult& r) override;
  void finish_forced(Schedule& s) override;
  // One line for the run of IIs the storage floor ruled out, if any.
  void close_floor_run(int64_t last);
  // False (with a diagnostic) when L4 fails at `ii` for this placement.
  bool storage_holds(int64_t ii, const std::vector<int64_t>& start);

  const ImsOptions& opts_;
  Problem problem_;
  Attempt attempt_;
  int64_t budget_;
  IiScreen screen_;
  Stats stats_;
  std::vector<std::string> diagnostics_;
  int64_t floor_from_ = 0;  // first II of a run of IIs the storage floor rules out
};

void Generator::finish(Schedule& s, const IiRange& range, const IiSearchResult& r) {
  if (r.end != IiSearchEnd::kFound) close_floor_run(range.cap);
  stats_.ii_tried = r.tried;
  stats_.ii_screened = r.screened;
  // The screen's closures and sweeps (as the cost-based generator counts
  // its own screen's).
  stats_.work += screen_.take_units();
  for (std::string& d : diagnostics_) s.diagnostics.push_back(std::move(d));
  s.stats = fields(stats_);
}

// Under L7: the options and the (zero) counters as after a search.
void Generator::finish_forced(Schedule& s) {
  s.options = options();
  s.stats = fields(stats_);
  add_fallback_stat(s);
}

IiVerdict Generator::attempt(int64_t ii) {
  if (problem_.storage_capacity && storage_floor(problem_, ii) > *problem_.storage_capacity) {
    // L4 proven to fail before any placement: one line per run of IIs.
    ++stats_.storage_failures;
    if (floor_from_ == 0) floor_from_ = ii;
    return IiVerdict::kStorage;
  }
  close_floor_run(ii - 1);
  const AttemptResult r = attempt_.run(ii, budget_);
  stats_.placement_steps += r.steps;
  stats_.evictions += r.evictions;
  stats_.work += r.work;
  const std::string at = "II " + std::to_string(ii) + ": ";
  switch (r.outcome) {
    case Outcome::kPlaced:
      return storage_holds(ii, attempt_.starts()) ? IiVerdict::kPlaced : IiVerdict::kStorage;
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
  return IiVerdict::kNotPlaced;
}

void Generator::close_floor_run(int64_t last) {
  if (floor_from_ == 0) return;
  diagnostics_.push_back("II " + std::to_string(floor_from_) +
                         (last > floor_from_ ? " to " + std::to_string(last) : "") +
                         ": storage: the buffers at their least lifetimes exceed the pool");
  floor_from_ = 0;
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

Schedule generate_ims(const Graph& g, const ImsOptions& opts, const IiSearchOptions& search) {
  return run_generator<ims::Generator>(g, opts, search);
}

}  // namespace tilesched
