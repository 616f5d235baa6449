// The sweep's one door to the loop-graph families: which families exist and
// how to build one graph of a family. Everything else in the harness
// (work lists, CSV rows, replay) names families by string only, so moving to
// the family registry of issue 5 (tilesched/gen/families.h) changes
// families.cc and nothing else.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

// Every family the sweep can build, in the order `--families all` uses.
std::vector<std::string> family_names();

// One graph of `family` with about `ops` ops (exactly `ops` for the random
// families), fully determined by (family, ops, seed). InvalidInput for an
// unknown family or a size the family cannot build.
StatusOr<Graph> make_graph(const std::string& family, int ops, uint64_t seed);

}  // namespace tilesched::sweep
