// The sweep's one door to the loop-graph families (the registry of
// tilesched/gen/families.h): which families exist, which sizes each
// builds, and how to build one graph. The rest of the harness names
// families by string only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

// Every family the sweep can build, in the order `--families all` uses.
std::vector<std::string> family_names();

// Whether `family` builds graphs of `ops` ops at its default parameters
// (the registry's [min_ops, max_ops]); work lists leave out the sizes a
// family does not build.
bool family_builds(const std::string& family, int ops);

// One graph of `family` with about `ops` ops (exactly `ops` for the random
// families, within the registry's tolerance for the structured ones), fully
// determined by (family, ops, seed). InvalidInput for an unknown family or
// a size the family cannot build.
StatusOr<Graph> make_graph(const std::string& family, int ops, uint64_t seed);

}  // namespace tilesched::sweep
