// Importer for the HatScheT project's modulo-scheduling instances: a
// GraphML dependence graph and an XML resource model (the HLS loops of
// CHStone/MachSuite and the origami DSP set, found through the CMake option
// TILESCHED_HLS_DIR; generators/README.md says where they come from).
//
// Mapping, onto an inline generic target:
// - each <Resource> with limit >= 1 that some node uses becomes a slot of
//   capacity `limit`; a node using it claims it for `blockingTime` cycles
//   (occupancy 1). Unlimited resources (limit -1) and blockingTime 0
//   reserve nothing. Should more than 64 slots (one RRT row) result, the
//   non-binding ones are left out: a resource held 1 cycle by at most
//   `limit` nodes can never be over-subscribed.
// - each <node> becomes a `generic` op named by its GraphML id, in
//   document order, with its resource's `latency`;
// - each <edge> becomes an edge of latency latency(source) + delay and the
//   given distance; deptype Precedence gives an order edge, Data (or none)
//   a data edge. A distance above limits::kMaxDistance (65535; the
//   shared set's largest is 1282) is clamped to it and the graph's name gets
//   "/clamped_distances=N". That only tightens the edge, so every schedule
//   of the imported graph is one of the original.
// Malformed input gives InvalidInput, one line naming the file and the
// element or attribute.
#pragma once

#include <string>
#include <string_view>

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched::graphgen {

// Reads both files. The graph is named "hatschet/DIR/STEM" after the
// GraphML file's directory and stem (e.g. hatschet/sort_radix/graph1), so
// the name does not depend on where the instances live.
StatusOr<Graph> import_hatschet(const std::string& graphml_path, const std::string& rm_path);

// The same from in-memory text; `*_source` name the inputs in messages.
StatusOr<Graph> import_hatschet_text(std::string_view graphml, std::string_view graphml_source,
                                     std::string_view rm, std::string_view rm_source,
                                     std::string graph_name);

}  // namespace tilesched::graphgen
