// The checks every foreign scheduler's answer goes through, whichever the
// route (a process's JSON reply, a plug-in's arrays), before the verifier
// sees it: the shape, the graph it is of, one start per op, the starts'
// and the II's ranges, the request's II cap and stage cap (docs/FORMATS.md,
// "Foreign schedulers"). The outcome's schedule is of `g`, with the MII,
// stages and order derived; what it is not is a failure kind with one line.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tilesched/foreign_types.h"
#include "tilesched/graph.h"

namespace tilesched::external {

// The request's bounds, resolved (ii_max filled in).
struct Bounds {
  int64_t ii_min = 1;
  int64_t ii_max = 0;
  int64_t max_stages = 0;
};

// A tilesched.schedule/1 reply (the documented subset or more) from the
// scheduler named `who`.
ForeignOutcome check_reply_json(std::string_view text, const Graph& g, const Bounds& b,
                                const std::string& who);

// An II and one start per op (a plug-in's answer).
ForeignOutcome check_reply_values(int64_t ii, std::span<const int64_t> start, const Graph& g,
                                  const Bounds& b, const std::string& who);

// A reply that says there is no schedule: feasible = false, with the reason.
ForeignOutcome no_schedule(const Graph& g, const std::string& who, std::string reason);

}  // namespace tilesched::external
