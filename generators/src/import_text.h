// Text helpers the importers share (internal): messages about input text
// stay on one line whatever the input holds.
#pragma once

#include <string>
#include <string_view>

namespace tilesched::graphgen {

// `text` with every control character (below 0x20, and 0x7f) written as
// \xNN, so that a message echoing input is one line.
std::string one_line(std::string_view text);

}  // namespace tilesched::graphgen
