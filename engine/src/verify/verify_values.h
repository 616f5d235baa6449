// The verifier's own account of the Pipe_ and Mutex_ values a schedule must
// carry (docs/VERIFIER.md, "materialization"): which edges need a value,
// how deep it is, which producers may share one, who owns it. Derived here
// from the graph, II and the starts, from the definitions, and checked
// against the values the schedule carries. Nothing of the materializer is
// used (its edge rule, maps, solve or postcondition check), so a
// materializer that drops or mis-sizes a value cannot hide the mistake by
// sharing it with its checker.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched::verify_internal {

// What one edge asks of the values.
enum class Need {
  kNone,   // a synchronous same-stage same-iteration same-agent data edge: read directly
  kPipe,   // a data edge through a Pipe_
  kMutex,  // every order edge
};

struct EdgeNeed {
  Need need = Need::kNone;
  // Data edges: the value exists where the consumer runs in the rebuilt
  // body (loop-carried, or the producer comes first).
  bool live = false;
  // A live same-iteration edge from an asynchronous producer: it arrives on
  // the consumer's one barrier, shared with every other such edge.
  bool arrival = false;
  int64_t depth = 0;  // stage(to) - stage(from) + distance + 1
};

// Per edge id. REQUIRES: s passed the verifier's shape check (II >= 1, one
// start per op, edges inside the graph); stage[v] = floor(start[v] / II).
std::vector<EdgeNeed> edge_needs(const Graph& g, const Schedule& s,
                                 const std::vector<int64_t>& stage);

// True when the schedule carries values to check: a pipe, a mutex or the
// trivial-fallback flag. A schedule that carries none was not materialized
// and is not asked about them.
bool carries_values(const Schedule& s);

// Every way the carried pipes, mutexes and flag differ from what edge_needs
// demands, one line each; empty when they are right. Same REQUIRES.
std::vector<std::string> check_values(const Graph& g, const Schedule& s,
                                      const std::vector<int64_t>& stage);

}  // namespace tilesched::verify_internal
