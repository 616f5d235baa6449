// The heuristics' frame (see frame.h).
#include "frame.h"

#include <algorithm>
#include <utility>

#include "tilesched/serial.h"
#include "util/elapsed.h"

namespace tilesched {

GeneratorFrame::GeneratorFrame(const Graph& g, const IiSearchOptions& search, Setup setup)
    : g_(g), search_(search), serial_(generate_serial(g)), setup_(setup) {}

void GeneratorFrame::add_fallback_stat(Schedule& s) {
  const bool fallback =
      std::find(s.flags.begin(), s.flags.end(), "serial_fallback") != s.flags.end();
  s.stats.emplace_back("serial_fallback", fallback ? 1 : 0);
}

Schedule GeneratorFrame::run(Clock::time_point t0) {
  Schedule s;
  if (g_.attrs.force_serial_execution) {
    s = serial_;
    s.generator = std::string(setup_.name);
    s.flags.push_back("force_serial");
    s.diagnostics.push_back("force_serial_execution is set: the " + s.generator +
                            " generator keeps the serial schedule");
    finish_forced(s);
  } else {
    s = searched();
  }
  s.time_ns = elapsed_ns(t0);
  return s;
}

Schedule GeneratorFrame::searched() {
  Schedule s;
  s.graph = g_.name;
  s.generator = std::string(setup_.name);
  s.options = options();
  s.mii = serial_.mii;
  const IiRange range = heuristic_ii_range(g_, serial_.mii.max(), group_span(),
                                           search_.ii_floor, search_.ii_cap, serial_);
  begin(range);
  IiSearchResult r = search_ii(
      precheck_ii(g_), range, setup_.walk, [&](int64_t ii) { return attempt(ii); }, &screen(),
      search_.deadline);
  after_search(range, r);
  // Up to the serial II nothing placed: the serial schedule is kept, as
  // the cost-based generator's last rung does.
  const bool fallback = setup_.serial_fallback && search_.ii_cap == 0;
  publish_search(g_, range, r, starts(), fallback ? &serial_ : nullptr, s);
  for (std::string& line : screen().lines()) s.diagnostics.push_back(std::move(line));
  finish(s, range, r);
  if (setup_.serial_fallback) add_fallback_stat(s);
  return s;
}

}  // namespace tilesched
