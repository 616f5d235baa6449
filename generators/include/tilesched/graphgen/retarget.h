// Moving a generated graph from one built-in target to another
// (`tilesched generate --target hopper`): every op keeps its kind, which
// the new target must have under the same name (docs/TARGETS.md lists the
// kinds `blackwell` and `hopper` share), and takes the new kind's
// defaults wherever it had the old kind's; values a family set on purpose
// (a latency, a register footprint, store_bytes, an edge latency other
// than its source's) are kept as numbers. On `hopper`, whose kind
// defaults are the costs of a reference tile, an op that kept its kind's
// defaults is costed by the bytes the graph states (a load's buffer, a
// wgmma's operand tile), and the graph says num_warps 8, the reference
// tiles' warps, unless it states its own (docs/TARGETS.md). A graph
// whose ops override their kind's resources or pools, or that has an
// inline target, does not retarget: InvalidInput names the op or the
// target.
#pragma once

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched::graphgen {

// REQUIRES: `target` is a built-in target. The graph's name gets
// "/target=NAME" appended.
StatusOr<Graph> retarget(const Graph& g, const Target& target);

}  // namespace tilesched::graphgen
