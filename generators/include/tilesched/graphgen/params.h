// A family's parameter values by name (tilesched/graphgen/families.h lists
// each family's parameters; the family sources read them).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace tilesched::graphgen {

// Parameter values by name. A resolved map holds every parameter of its
// family, defaults included.
using ParamMap = std::map<std::string, int64_t>;

}  // namespace tilesched::graphgen
