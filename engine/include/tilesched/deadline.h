// A point on the steady clock after which a generator starts no more work
// (the `deadline` of the heuristics' options). The exact oracle gives each
// heuristic it starts from a share of its own time limit this way
// (docs/EXACT.md, "Time limit"); unset, the default, never passes, and the
// generators are then deterministic.
#pragma once

#include <chrono>
#include <optional>

namespace tilesched {

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

inline bool deadline_passed(const Deadline& d) {
  return d.has_value() && std::chrono::steady_clock::now() >= *d;
}

}  // namespace tilesched
