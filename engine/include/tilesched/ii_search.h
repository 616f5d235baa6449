// The shared II search (engine/src/search/ii_driver.h) as every heuristic
// generator's caller sees it: how it walks its range, and its bounds and
// deadline.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tilesched/deadline.h"

namespace tilesched {

// Linear, from the lower bound up, as Rau and the seeds do; or galloping
// then bisecting, as seed 000's sub_988080 (the cost-based generator's
// `ii_search`).
enum class IiSearch { kLinear, kGalloping };

// "linear" or "galloping", the names the command line and the sweep use.
std::string_view ii_search_name(IiSearch s);
std::optional<IiSearch> parse_ii_search(std::string_view name);

// The II range and the deadline of one heuristic generator's search
// (generate_cost_based, generate_ims, generate_sms), the same for each.
struct IiSearchOptions {
  // Smallest II tried (0: the lower bound from the graph); the stage cap's
  // runs search above the uncapped II (docs/CONTRACT.md).
  int64_t ii_floor = 0;
  // Largest II tried. 0: the serial II when the serial schedule is legal
  // (so the result is never worse than serial: where no lower II places,
  // ims and sms publish the serial schedule, flagged "serial_fallback",
  // and cost-based's last rung takes its seats), else a bound from the
  // graph. With an explicit cap there is no serial fallback in ims and sms.
  int64_t ii_cap = 0;
  // No II attempt starts after it (tilesched/deadline.h), nor, in the
  // cost-based generator, a rung, refinement iteration or stretch of 64
  // rung steps or backtracking seats; a search it cuts ends as
  // budget-exhausted.
  Deadline deadline;
};

}  // namespace tilesched
