// The frame every II-searching heuristic (cost-based, ims, sms) runs in,
// as HatScheT layers its schedulers over one II loop: the serial schedule
// (rule L7, the MII, the II cap and the fallback), the range, the pre-check,
// the II screen, the search (search/ii_driver.h), the serial fallback and
// the published schedule. A generator derives from it and supplies its
// attempt at one II, the seats it placed, its options text and its
// statistics; the frame runs the rest in one order:
//   1. force_serial_execution (L7, hard): the serial schedule, named as the
//      generator's, flagged "force_serial", with one line saying so;
//   2. the range (heuristic_ii_range over the generator's group span bound
//      and the IiSearchOptions), then begin(range);
//   3. search_ii with the generator's attempt, screen and walk, under the
//      options' deadline, then after_search (where cost-based's stand-in
//      and descent may move the II);
//   4. publish_search with the generator's seats and, where the frame
//      keeps the fallback (ims, sms) and no cap was given, the serial
//      schedule; then the screen's lines and the generator's finish
//      (flags, lines, statistics); the frame's `serial_fallback`
//      statistic last (add_fallback_stat).
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

}  // namespace tilesched
