// The one meter (docs/COST_BASED.md "Effort") counts every loop of a
// cost-based call whose trip count grows with the graph. Each such loop
// reports its trips through the test seam test_seams::loop_trips; this test
// runs the generator on graphs of growing size and holds every loop's sum
// against the call's stats.work.total: a loop may make at most so many
// trips per work unit (kTripsPerUnit), whatever the graph. A loop the meter
// stops counting keeps its trips while work.total falls behind, and on the
// larger graphs passes its bound; a loop the table does not know fails at
// once. Deterministic: trips and units are counts, never times.
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

// Trips per work unit each loop may make (the loop's charge says how many
// of its trips one unit covers; the bound is twice the most this suite's
// graphs show, so that it holds on graphs it does not run and still fails
// a loop whose charge is gone). The names are the loops' own
// (count_trips calls).
const std::map<std::string, double, std::less<>>& trips_per_unit() {
  static const std::map<std::string, double, std::less<>> bounds = {
      {"rrt.probe", 4.0},    // the table's probes, one start each
      {"rrt.commit", 1.0},   // a seat taken or given back
      {"rrt.reset", 4.0},    // the table emptied for an II: its rows
      {"sat.literal", 8.0},  // the repair's model, its clauses' literals
  };
  return bounds;
}

std::map<std::string, int64_t>& trips() {
  static std::map<std::string, int64_t> t;
  return t;
}

struct Run {
  std::string what;
  int64_t work = 0;
  std::map<std::string, int64_t> trips;
};

Run Scheduled(const Graph& g, const GenerateOptions& o, std::string what) {
  trips().clear();
  test_seams::loop_trips = [](const char* loop, int64_t n) { trips()[loop] += n; };
  StatusOr<Schedule> s = generate_schedule(g, o);
  test_seams::loop_trips = nullptr;
  EXPECT_TRUE(s.ok()) << what << ": " << s.status().message();
  Run r{std::move(what), s.ok() ? s->stat("work.total") : 0, trips()};
  return r;
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
    const auto bound = trips_per_unit().find(loop);
    ASSERT_NE(bound, trips_per_unit().end())
        << r.what << ": loop " << loop << " reports trips but has no bound in this test";
    const double per_unit = static_cast<double>(n) / static_cast<double>(r.work);
    if (per_unit > most[loop].first) most[loop] = {per_unit, r.what};
    EXPECT_LE(per_unit, bound->second)
        << r.what << ": loop " << loop << " made " << n << " trips against work.total "
        << r.work << " (" << per_unit << " per unit, bound " << bound->second
        << "): the meter misses it";
  }
}

void PrintMost(const Most& most) {
  for (const auto& [loop, v] : most) {
    std::printf("  %-20s %.3f trips per unit at most (bound %.1f): %s\n", loop.c_str(), v.first,
                trips_per_unit().find(loop)->second, v.second.c_str());
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
