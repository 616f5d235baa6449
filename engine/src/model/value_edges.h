// The edges a Pipe_ or a Mutex_ carries (tilesched/pipes.h), derived from
// its own fields and the schedule's (stage, order) alone
// (docs/MATERIALIZE.md, "Which edges need values"). Part of the model: the
// materializer fills them as it emits the values, the schedule reader
// recomputes them (the JSON leaves them out). The verifier derives its own.
#pragma once

#include <vector>

#include "tilesched/graph.h"
#include "tilesched/pipes.h"
#include "tilesched/schedule.h"

namespace tilesched {

// Each REQUIRES: s.stage and s.order hold one entry per op of g.

// A data edge u -> v is live at its consumer when the value it reads
// exists when v runs in region order: it is loop-carried (distance > 0),
// or u comes strictly before v in (stage, order) (ties, which a valid
// schedule never has, broken by op id).
bool live_at_consumer(const Schedule& s, const Edge& e);

// Ascending ids. A pipe with producers carries every live data edge from
// one of them to its consumer; a pipe without producers (the fallback)
// carries every data edge into its consumer that is not live. A mutex
// carries every order edge from its releaser to its acquirer.
std::vector<int> pipe_edges(const Graph& g, const Schedule& s, const Pipe& p);
std::vector<int> mutex_edges(const Graph& g, const Mutex& m);

// Fills every pipe's and mutex's `edges` in `s` as above, through an index
// of each op's in-edges (linear in the edges, not edges x values). Values
// naming ops out of range carry nothing; when s.stage or s.order disagree
// with the graph in size, the pipes carry nothing.
void derive_value_edges(const Graph& g, Schedule& s);

}  // namespace tilesched
