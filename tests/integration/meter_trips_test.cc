// The one meter (docs/COST_BASED.md "Effort") counts every loop of a
// cost-based call whose trip count grows with the graph. Each such loop
// reports its trips through the test seam test_seams::loop_trips, and each
// charge to the meter names the loop it pays for (test_seams::loop_units,
// Context::count). This test runs the generator on graphs of growing size
// and holds every loop's trips against what pays for them: its own charges
// where it has them, else the call's whole stats.work.total. A loop whose
// charge is dropped then fails at once (trips, no units); a loop whose
// trips outgrow their charge passes its bound on the larger graphs; a loop
// the table does not know fails too. Deterministic: trips and units are
// counts, never times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/graphgen/families.h"
#include "util/test_seams.h"

namespace tilesched {
namespace {

// What pays for a loop's trips, and how many trips one unit may cover: for
// a loop with a charge of its own, what that charge implies (1 per unit,
// or the 8 or 16 its rate counts per unit); for a loop paid by the call's
// whole count, about twice the most this suite's graphs show.
struct Bound {
  const char* paid_by;  // a charge's name, or "total": no charge of its own
  double trips_per_unit;
};

const std::map<std::string, Bound, std::less<>>& bounds() {
  static const std::map<std::string, Bound, std::less<>> b = {
      // Loops with a charge of their own.
      {"gates.scan", {"gates.scan", 1.0}},                 // G3's scan: the starts probed
      {"seat.cost", {"seat.cost", 1.0}},                   // a seat's cost vector
      {"seat.structural", {"seat.structural", 1.0}},       // a seat's structural distance
      {"driver.ready", {"driver.ready", 1.0}},             // the ready set: ops, in-edges
      {"arms.ready", {"arms.ready", 8.0}},                 // the arms' scans of the ready set
      {"placement.conflicts", {"placement.conflicts", 8.0}},  // placed ops against a seat
      {"builder.scan", {"builder.scan", 8.0}},             // the constraint builder's scans
      {"backtrack.paths", {"backtrack.paths", 1.0}},       // the rung's order: holders' paths
      {"backtrack.room_rows", {"backtrack.room_rows", 16.0}},  // the rows its room checks read
      {"packing.steps", {"packing.steps", 16.0}},          // the packer's rows and relaxations
      {"compact.ops", {"compact.ops", 1.0}},               // stage compaction
      {"graph.reach", {"graph.reach", 8.0}},               // the reachability rows' words
      {"sat.literal", {"repair", 1.0}},                    // the repair's models' literals
      {"closure.search", {"closure.search", 8.0}},         // the II screen's closures: cells
      {"closure.ims", {"ims.start", 8.0}},                 // the IMS start's screen: cells
      {"closure.repair", {"repair", 8.0}},                 // the repair's II screen: cells
      // The windows' visits, 8 per unit with the rest carried (windows.h),
      // and the new seat's own changed labels on top.
      {"windows.relax", {"windows.relax", 12.0}},      // the longest paths: ops, edges scanned
      {"windows.ancestors", {"windows.relax", 12.0}},  // an op's earliest bound: its ancestors
      {"windows.placed", {"windows.relax", 12.0}},     // a placed op's bounds: the placed ops
      {"windows.broken", {"windows.relax", 12.0}},     // the placed ops a seat would break
      // Paid for by the call's whole count: the primitives every phase
      // calls, loops whose trips do not grow with the graph, and the
      // meter's known misses (results/records/2026-12-02-cost-based-fourth-pass.md).
      {"rrt.probe", {"total", 5.0}},         // the table's probes, one start each
      {"rrt.commit", {"total", 0.5}},        // a seat taken or given back
      {"rrt.reset", {"total", 1.0}},         // the table emptied for an II: its rows
      {"placement.window", {"total", 0.5}},  // an op's window: its builder constraints
      {"windows.closure", {"total", 2.0}},   // the closure's windows (cost-based-seed)
  };
  return b;
}

std::map<std::string, int64_t, std::less<>>& trips() {
  static std::map<std::string, int64_t, std::less<>> t;
  return t;
}
std::map<std::string, int64_t, std::less<>>& units() {
  static std::map<std::string, int64_t, std::less<>> u;
  return u;
}

struct Run {
  std::string what;
  int64_t work = 0;
  std::map<std::string, int64_t, std::less<>> trips, units;
};

Run Scheduled(const Graph& g, const GenerateOptions& o, std::string what) {
  trips().clear();
  units().clear();
  test_seams::loop_trips = [](const char* loop, int64_t n) { trips()[loop] += n; };
  test_seams::loop_units = [](const char* loop, int64_t n) { units()[loop] += n; };
  StatusOr<Schedule> s = generate_schedule(g, o);
  test_seams::loop_trips = nullptr;
  test_seams::loop_units = nullptr;
  EXPECT_TRUE(s.ok()) << what << ": " << s.status().message();
  return Run{std::move(what), s.ok() ? s->stat("work.total") : 0, trips(), units()};
}

GenerateOptions CostBased(Effort effort, ArmPolicy policy) {
  GenerateOptions o;
  o.generator = GeneratorKind::kCostBased;
  o.cost_based.effort = effort;
  o.cost_based.arm_policy = policy;
  return o;
}

// Every family at sizes up to `max_ops` (doubling from its smallest), seeds 1-2.
std::vector<std::pair<std::string, Graph>> Graphs(int max_ops) {
  std::vector<std::pair<std::string, Graph>> out;
  for (const graphgen::Family& f : graphgen::families()) {
    for (int ops = std::max(8, f.min_ops); ops <= std::min(max_ops, f.max_ops); ops *= 2) {
      for (uint64_t seed = 1; seed <= 2; ++seed) {
        StatusOr<Graph> g = graphgen::generate(f.name, ops, seed, {});
        if (!g.ok()) continue;
        out.emplace_back(std::string(f.name) + " " + std::to_string(ops) + " seed " +
                             std::to_string(seed),
                         std::move(g).value());
      }
    }
  }
  return out;
}

// The most trips per unit each loop made over a suite's runs, and where.
using Most = std::map<std::string, std::pair<double, std::string>>;

void ExpectWithinBounds(const Run& r, Most& most) {
  ASSERT_GT(r.work, 0) << r.what;
  for (const auto& [loop, n] : r.trips) {
    if (n == 0) continue;
    const auto bound = bounds().find(loop);
    ASSERT_NE(bound, bounds().end())
        << r.what << ": loop " << loop << " reports trips but has no bound in this test";
    const std::string_view paid_by = bound->second.paid_by;
    const auto charged = r.units.find(paid_by);
    const int64_t paid = paid_by == "total"         ? r.work
                         : charged != r.units.end() ? charged->second
                                                    : 0;
    // A charge rounds down (so many trips per unit), so a loop may make
    // fewer trips than one unit covers with nothing charged.
    if (paid <= 0) {
      EXPECT_LE(static_cast<double>(n), bound->second.trips_per_unit)
          << r.what << ": loop " << loop << " made " << n << " trips and nothing charged "
          << paid_by << ": the meter misses it";
      continue;
    }
    const double per_unit = static_cast<double>(n) / static_cast<double>(paid);
    if (per_unit > most[loop].first) most[loop] = {per_unit, r.what};
    EXPECT_LE(per_unit, bound->second.trips_per_unit)
        << r.what << ": loop " << loop << " made " << n << " trips against " << paid
        << " units of " << paid_by << " (bound " << bound->second.trips_per_unit
        << " per unit): the meter misses it";
  }
}

void PrintMost(const Most& most) {
  for (const auto& [loop, v] : most) {
    const Bound& b = bounds().find(loop)->second;
    std::printf("  %-20s %7.3f trips per unit of %-16s at most (bound %g): %s\n", loop.c_str(),
                v.first, b.paid_by, b.trips_per_unit, v.second.c_str());
  }
}

// First-success at fast and default on every family up to 128 ops,
// best-cost up to 64, full up to 32 (the check build's time).
TEST(MeterTrips, EveryGrowingLoopIsCountedAtEveryEffort) {
  Most most;
  for (const auto& [name, g] : Graphs(128)) {
    for (Effort e : {Effort::kFast, Effort::kDefault}) {
      for (ArmPolicy p : {ArmPolicy::kFirstSuccess, ArmPolicy::kBestCost}) {
        if (p == ArmPolicy::kBestCost && g.op_count() > 64) continue;
        ExpectWithinBounds(Scheduled(g, CostBased(e, p),
                                     name + " " + std::string(effort_name(e)) + " " +
                                         std::string(arm_policy_name(p))),
                           most);
      }
    }
    if (g.op_count() <= 32) {
      ExpectWithinBounds(
          Scheduled(g, CostBased(Effort::kFull, ArmPolicy::kFirstSuccess), name + " full"), most);
    }
  }
  PrintMost(most);
}

// The seeds' mechanism (cost-based-seed) under the same meter.
TEST(MeterTrips, TheSeedsMechanismIsCountedToo) {
  Most most;
  for (const auto& [name, g] : Graphs(32)) {
    GenerateOptions o;
    o.generator = GeneratorKind::kCostBasedSeed;
    ExpectWithinBounds(Scheduled(g, o, name + " cost-based-seed"), most);
  }
  PrintMost(most);
}

}  // namespace
}  // namespace tilesched
