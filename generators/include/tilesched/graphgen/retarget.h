// Moving a generated graph from one built-in target to another
// (`tilesched generate --target hopper`): every op keeps its kind, which the
// new target must have under the same name, and takes the new kind's
// defaults wherever it had the old kind's; values a family set on purpose
// are kept as numbers, and on `hopper` an op that kept its defaults is costed
// by the bytes the graph states. A graph whose ops override their kind's
// resources or pools, or that has an inline target, does not retarget:
// InvalidInput names the op or the target. The kinds shared and the costs:
// docs/TARGETS.md.
#pragma once

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched::graphgen {

// REQUIRES: `target` is a built-in target. The graph's name gets
// "/target=NAME" appended.
StatusOr<Graph> retarget(const Graph& g, const Target& target);

}  // namespace tilesched::graphgen
