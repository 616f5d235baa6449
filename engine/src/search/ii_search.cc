// The names of the II search's two walks (tilesched/ii_search.h).
#include "tilesched/ii_search.h"

namespace tilesched {

std::string_view ii_search_name(IiSearch s) {
  return s == IiSearch::kLinear ? "linear" : "galloping";
}

std::optional<IiSearch> parse_ii_search(std::string_view name) {
  if (name == "linear") return IiSearch::kLinear;
  if (name == "galloping") return IiSearch::kGalloping;
  return std::nullopt;
}

}  // namespace tilesched
