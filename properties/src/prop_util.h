// Shared helpers of the property files: one property body run as one
// test per scheduler under test, and failure messages that say which
// scheduler broke which rule. The shrunk graph itself is printed by
// RapidCheck through showValue (loop_graph_gen.h) as tilesched.loop/1 JSON.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checkers.h"
#include "loop_graph_gen.h"

namespace tilesched::props {

inline void require_none(const Problems& p, const std::string& rule, const Schedule& s) {
  if (!p.empty())
    RC_FAIL(rule + " broken by the " + s.generator + " schedule at II " + std::to_string(s.ii) +
            ":" + join(p));
}

// Runs `which` on g. A case without a schedule is discarded (RC_PRE), not
// passed: RapidCheck needs its full count of cases with a schedule and
// gives up -- failing the property -- after ten discards per success, so a
// scheduler that stops producing schedules fails the gate.
inline Schedule feasible_schedule(const Graph& g, Scheduler which) {
  Schedule s = run_scheduler(g, which);
  RC_PRE(s.feasible);
  return s;
}

}  // namespace tilesched::props

// PROP_FOR_EACH_SCHEDULER(Suite, Name, body): tests Suite.NameSerial,
// Suite.NameCostFirstSuccess, Suite.NameCostBestCost and Suite.NameIms,
// each calling `body(const LoopGraph&, Scheduler)`; the cost-based ones
// draw graphs sized for it (CostSizedGraph).
#define PROP_FOR_EACH_SCHEDULER(Suite, Name, body)                               \
  RC_GTEST_PROP(Suite, Name##Serial, (const ::tilesched::props::LoopGraph& g)) { \
    body(g, ::tilesched::props::Scheduler::kSerial);                             \
  }                                                                              \
  RC_GTEST_PROP(Suite, Name##CostFirstSuccess,                                   \
                (const ::tilesched::props::CostSizedGraph& g)) {                 \
    body(g, ::tilesched::props::Scheduler::kCostFirstSuccess);                   \
  }                                                                              \
  RC_GTEST_PROP(Suite, Name##CostBestCost,                                       \
                (const ::tilesched::props::CostSizedGraph& g)) {                 \
    body(g, ::tilesched::props::Scheduler::kCostBestCost);                       \
  }                                                                              \
  RC_GTEST_PROP(Suite, Name##Ims, (const ::tilesched::props::LoopGraph& g)) {    \
    body(g, ::tilesched::props::Scheduler::kIms);                                \
  }
