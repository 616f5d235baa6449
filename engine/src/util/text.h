// Text helpers for messages and names: what every reader, the validator
// and the command line use to echo user text on one line, and the UTF-8
// check a name must pass to survive a JSON write -> read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tilesched::text {

// The longest user string quote() echoes, in bytes.
inline constexpr size_t kEchoBytes = 64;

// `s` made safe to echo inside a one-line message: in double quotes,
// control characters, non-UTF-8 bytes, quotes and backslashes escaped, cut to about 64 bytes
// (on a UTF-8 boundary) with "..." when longer.
std::string quote(std::string_view s);

// True when `s` is well-formed UTF-8 (what a JSON document can hold, so a
// name a graph carries survives write -> read).
bool is_utf8(std::string_view s);

// `s` with control characters and non-UTF-8 bytes escaped, not shortened
// (source names, whole messages).
std::string one_line(std::string_view s);

}  // namespace tilesched::text
