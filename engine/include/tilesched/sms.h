// Swing modulo scheduling (Llosa, González, Ayguadé, Valero, PACT 1996), as
// a baseline under the same rules (docs/CONTRACT.md, L1-L7), the same RRT
// and the same verifier as the other generators: node sets from the
// recurrences ordered by their RecMII, the swing order (top-down and
// bottom-up by height, depth and mobility), then one placement per II in
// that order, scanning forward from Early when only predecessors are
// placed, backward from Late when only successors are, and [Early, Late]
// when both; no backtracking, so a failure moves to the next II.
// docs/BASELINES.md describes it and how each rule is enforced.
#pragma once

#include <cstdint>

#include "tilesched/graph.h"
#include "tilesched/ii_search.h"
#include "tilesched/schedule.h"

namespace tilesched {

struct SmsOptions {
  // The II search is linear (every II from the lower bound) until this
  // many IIs in a row failed because the same op found no seat in the
  // same number of cycles (squeezed between seated neighbours, a window a
  // larger II does not widen); then it gallops over the rest of the range
  // (2, 4, 8, ... above the last II that failed) until an II places, and
  // goes linearly up from the last failure to the first II that places
  // (docs/BASELINES.md, "II search"). Never below the linear search's II.
  // 0: linear throughout.
  int64_t gallop_after = 16;
};

// Schedule.generator is "sms"; stats carry, in this order: node_sets,
// recurrence_sets, ii_tried, ii_screened, then per failure reason the
// number of IIs that failed for it (ii_failed.empty_window,
// ii_failed.max_depth, ii_failed.no_slot, ii_failed.group_stage,
// ii_failed.storage), then serial_fallback. The diagnostics give the order used, one line per
// failed II (the first 16) and, when the search gallops, one line saying
// from which II and why. When no II up to the default cap (the serial
// II) admits a placement, the legal serial schedule is published at its
// own II with the flag "serial_fallback" (serial_fallback = 1); with an
// explicit ii_cap there is no fallback. `search`: the II range and the
// deadline (tilesched/ii_search.h).
// A force_serial_execution region (L7) keeps the serial schedule.
// REQUIRES: g passed validate_graph.
Schedule generate_sms(const Graph& g, const SmsOptions& opts, const IiSearchOptions& search = {});

}  // namespace tilesched
