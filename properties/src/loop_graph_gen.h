// RapidCheck generators of loop graphs and of schedules of them, both
// shrinkable: family_graph() (a family of generators/ at a drawn size, seed
// and parameters, built by graphgen::generate) and structural_graph() (ops
// and edges drawn one by one on Blackwell or a small generic target, valid by
// construction, so shrinking drops single ops and edges). A LoopGraph prints
// (on a failing property) as its recipe plus the graph as tilesched.loop/1
// JSON. How each draws and shrinks: properties/README.md.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include <rapidcheck.h>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched::props {

// Largest op count the generators draw.
inline constexpr int kMaxPropOps = 300;
// Family graphs reach this many ops at RapidCheck size 100 (the default
// max_size): for properties of the serial generator and of graphs alone.
inline constexpr int kSerialOpsAt100 = 300;
// ... and this many for properties that run the cost-based generator, whose
// best-cost policy takes seconds from about 80 ops on some families
// (gemm_mainloop: 3 s at 80 ops, 18 s at 95). RC_PARAMS="max_size=N"
// scales both ceilings by N/100 (capped at kMaxPropOps).
inline constexpr int kCostOpsAt100 = 64;

struct LoopGraph {
  Graph graph;
  std::string recipe;  // how it was drawn, e.g. "family chains ops=12 seed=3"
};

// recipe, then the graph as tilesched.loop/1 JSON.
void showValue(const LoopGraph& g, std::ostream& os);

// `cap`: the op-count ceiling at size 100.
rc::Gen<LoopGraph> family_graph(int cap);
// Up to 1 + 3/5 of the size ops (60 at size 100).
rc::Gen<LoopGraph> structural_graph();
// Both, the family generator weighted 3:2.
rc::Gen<LoopGraph> any_graph(int cap);

// A LoopGraph sized for the cost-based generator (kCostOpsAt100).
struct CostSizedGraph : LoopGraph {};
void showValue(const CostSizedGraph& g, std::ostream& os);

// The schedulers under test.
enum class Scheduler { kSerial, kCostFirstSuccess, kCostBestCost, kIms, kSms };
std::string scheduler_name(Scheduler s);
void showValue(Scheduler s, std::ostream& os);  // its name, in a failing case

// Schedules g with one scheduler through generate_schedule (so a feasible
// schedule carries its Pipe_/Mutex_ values); time_ns is zeroed so two runs
// compare equal. Aborts the property if generate_schedule returns a status.
Schedule run_scheduler(const Graph& g, Scheduler which);

// An arbitrary (usually illegal) schedule of g: an II and a start per op,
// stage and order derived. For the round-trip property.
rc::Gen<Schedule> arbitrary_schedule(const Graph& g);

}  // namespace tilesched::props

namespace rc {
template <>
struct Arbitrary<tilesched::props::LoopGraph> {
  static Gen<tilesched::props::LoopGraph> arbitrary() {
    return tilesched::props::any_graph(tilesched::props::kSerialOpsAt100);
  }
};
template <>
struct Arbitrary<tilesched::props::CostSizedGraph> {
  static Gen<tilesched::props::CostSizedGraph> arbitrary() {
    return gen::map(tilesched::props::any_graph(tilesched::props::kCostOpsAt100),
                    [](tilesched::props::LoopGraph g) {
                      return tilesched::props::CostSizedGraph{std::move(g)};
                    });
  }
};
template <>
struct Arbitrary<tilesched::props::Scheduler> {
  static Gen<tilesched::props::Scheduler> arbitrary() {
    return gen::element(tilesched::props::Scheduler::kSerial,
                        tilesched::props::Scheduler::kCostFirstSuccess,
                        tilesched::props::Scheduler::kCostBestCost,
                        tilesched::props::Scheduler::kIms,
                        tilesched::props::Scheduler::kSms);
  }
};
}  // namespace rc
