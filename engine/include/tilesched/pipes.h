// The Pipe_ and Mutex_ coordination values that MaterializeSchedule emits
// (seed 000, "Pipe and Mutex Emission"). They are plain values so
// that the schedule can carry them (schedule.h) and the schedule JSON can
// write and read them (docs/FORMATS.md); tilesched/materialize.h computes
// them and states their postconditions. docs/MATERIALIZE.md explains them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched {

// A dataflow value between a group of producers that share an origin value
// and one consumer.
struct Pipe {
  std::string id;               // "Pipe_N", N = its position in the schedule's list
  std::vector<OpId> producers;  // ascending (stage, order); empty only for the
                                // consumer-only (trivial) fallback
  OpId consumer = 0;
  OpId owner = 0;     // the earliest producer by (stage, order); the
                      // consumer when there are no producers
  int64_t depth = 1;  // buffers in flight: max over its edges of
                      // stage(consumer) - stage(producer) + distance + 1
  // The graph's data edges this pipe carries, ascending ids. Derived from
  // the fields above and the schedule (pipe_edges()), so the schedule JSON
  // does not write it; the reader recomputes it.
  std::vector<int> edges;
  // The agents (tilesched/agents.h) of its producers -- all producers of a
  // pipe share one -- and of its consumer. The consumer-only fallback has
  // the consumer's agent on both sides. Empty when the schedule file
  // predates agents.
  std::string producer_agent;
  std::string consumer_agent;
  friend bool operator==(const Pipe&, const Pipe&) = default;
};

// Written to Schedule::flags when a consumer-only fallback pipe was emitted
// (seed 000's trivial-fallback bit, Schedule.flags |= 4).
inline constexpr std::string_view kTrivialFallbackFlag = "trivial-fallback";

// An exclusion value for the order edges from one op to another
// (write-after-read on a reused buffer and the like): the acquirer of
// iteration i + distance waits until the releaser of iteration i is done.
struct Mutex {
  std::string id;          // "Mutex_N"
  OpId releaser = 0;       // the order edges' source
  OpId acquirer = 0;       // their target (may equal the releaser)
  OpId owner = 0;          // the earlier of the two by (stage, order)
  int64_t depth = 1;       // max over its edges of stage(acquirer) - stage(releaser) + distance + 1
  std::vector<int> edges;  // every order edge releaser -> acquirer, ascending ids (derived)
  friend bool operator==(const Mutex&, const Mutex&) = default;
};

}  // namespace tilesched
