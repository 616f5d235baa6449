// How the shared II search (engine/src/search/ii_driver.h) walks its range:
// linear, from the lower bound up, as Rau and the seeds do; or galloping
// then bisecting, as seed 000's sub_988080. Every heuristic generator's
// options name one.
#pragma once

#include <optional>
#include <string_view>

namespace tilesched {

enum class IiSearch { kLinear, kGalloping };

// "linear" or "galloping", the names the command line and the sweep use.
std::string_view ii_search_name(IiSearch s);
std::optional<IiSearch> parse_ii_search(std::string_view name);

}  // namespace tilesched
