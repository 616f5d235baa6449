// The engine's version and the git revision it was built from; the CSV's
// engine_version column and `tilesched --version` print them.
#pragma once

#include <string_view>

namespace tilesched {

std::string_view engine_version();  // "0.1.0"
std::string_view engine_git_sha();  // `git describe --always --dirty`, or "unknown"

}  // namespace tilesched
