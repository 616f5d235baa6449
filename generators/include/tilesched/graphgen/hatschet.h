// Importer for the HatScheT project's modulo-scheduling instances: a
// GraphML dependence graph and an XML resource model (the HLS loops of
// CHStone/MachSuite and the origami DSP set, found through the CMake option
// TILESCHED_HLS_DIR; generators/README.md says where they come from), onto an
// inline generic target. Every schedule of the imported graph is one of the
// original. Malformed input gives InvalidInput, one line naming the file and
// the element or attribute. The mapping: docs/BASELINES.md, "Importing the
// HatScheT instances".
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
