// The frame every II-searching heuristic (cost-based, ims, sms) runs in,
// as HatScheT layers its schedulers over one II loop. A generator derives
// from GeneratorFrame and supplies its attempt at one II, the seats it
// placed, its options text and its statistics; run() does the rest in one
// order: force_serial_execution (L7), the range, the search, the serial
// fallback and the published schedule. The order in full: docs/SEARCH.md,
// "The heuristics' frame".
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "search/ii_driver.h"
#include "search/ii_screen.h"
#include "tilesched/graph.h"
#include "tilesched/ii_search.h"
#include "tilesched/schedule.h"

namespace tilesched {

class GeneratorFrame {
 public:
  using Clock = std::chrono::steady_clock;

  virtual ~GeneratorFrame() = default;
  GeneratorFrame(const GeneratorFrame&) = delete;
  GeneratorFrame& operator=(const GeneratorFrame&) = delete;

  // The generator's schedule; time_ns counts from t0 (taken before the
  // generator was built, so that it covers the serial pass too).
  Schedule run(Clock::time_point t0);

 protected:
  struct Setup {
    std::string_view name;  // Schedule.generator: "cost-based", "ims", "sms"
    IiSearch walk = IiSearch::kLinear;
    // The frame publishes the serial schedule when no II of the default
    // range places, and says so in the statistic serial_fallback (ims,
    // sms); false: the generator keeps its own fallback (cost-based's
    // last rung).
    bool serial_fallback = true;
  };
  GeneratorFrame(const Graph& g, const IiSearchOptions& search, Setup setup);

  // The statistic serial_fallback: 1 when `s` is the serial schedule the
  // frame published for want of a placement (its flag), else 0.
  static void add_fallback_stat(Schedule& s);

  const Graph& g_;
  const IiSearchOptions& search_;
  const Schedule serial_;  // generate_serial(g_), its MII the schedule's

 private:
  // The leader groups' span bound on II (the range's lower bound).
  virtual int64_t group_span() = 0;
  virtual IiScreen& screen() = 0;
  // Before the first attempt, once the range is known.
  virtual void begin(const IiRange& /*range*/) {}
  virtual IiVerdict attempt(int64_t ii) = 0;
  // After the search, before the schedule is published; may move r to
  // another found II.
  virtual void after_search(const IiRange& /*range*/, IiSearchResult& /*r*/) {}
  // The seats at r.ii when the search found it.
  virtual const std::vector<int64_t>& starts() = 0;
  virtual std::vector<std::pair<std::string, std::string>> options() const = 0;
  // The generator's flags, diagnostics and statistics after a search.
  virtual void finish(Schedule& s, const IiRange& range, const IiSearchResult& r) = 0;
  // What the generator adds to the serial schedule under L7 (nothing by
  // default).
  virtual void finish_forced(Schedule& /*s*/) {}

  Schedule searched();

  Setup setup_;
};

// A heuristic's entry point (generate_ims, generate_sms): the clock taken
// before the generator G is built, so time_ns covers its serial pass too,
// then G's run. G derives from GeneratorFrame.
template <class G, class Options>
Schedule run_generator(const Graph& g, const Options& opts, const IiSearchOptions& search) {
  const GeneratorFrame::Clock::time_point t0 = GeneratorFrame::Clock::now();
  G gen(g, opts, search);
  return gen.run(t0);
}

}  // namespace tilesched
