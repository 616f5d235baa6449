// Tests that the exact oracle keeps its time limit (docs/EXACT.md, "The
// time limit"): every phase of a SAT model's build polls its deadline
// inside its loop, a build the deadline passes stops at its next poll and
// the diagnostics say so, a check that stops late is kept in the budget's
// reserve, a model's size stands for its solver's stretches before its
// first check, and a thread that gets little of the CPU keeps more of the
// clock in reserve. None of them times anything: the test seams of
// util/test_seams.h stand in for a slow machine.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "search/ii_driver.h"
#include "testing/test_graphs.h"
#include "bounds.h"
#include "query.h"
#include "tilesched/exact.h"
#include "tilesched/graph_builder.h"
#include "tilesched/mii.h"
#include "tilesched/verify.h"
#include "util/test_seams.h"

namespace tilesched {
namespace {

using exact_internal::Clock;

// `ops` ops in a chain, each holding the one singleton slot for a cycle:
// MII `ops`; at 70, enough ops, edges and rows for every loop of a build
// that polls every 64 to poll twice.
Graph LongChain(int ops = 70) {
  GraphBuilder b(make_generic_target("t", {{"x", 1, false}}, {}));
  OpId prev = b.generic("v0", 1, {{1, 1, 1}});
  for (int i = 1; i < ops; ++i) {
    const OpId v = b.generic("v" + std::to_string(i), 1, {{1, 1, 1}});
    b.edge(prev, v, 1);
    prev = v;
  }
  return b.build().value();
}

exact_internal::ModelSpec SpecAtMii(const Graph& g, Clock::time_point deadline) {
  exact_internal::ModelSpec spec;
  spec.ii = compute_mii(g).max();
  spec.stage_bound = exact_internal::stage_bound(g, spec.ii);
  spec.asap = *exact_internal::longest_paths(g, spec.ii, false);
  spec.tail = *exact_internal::longest_paths(g, spec.ii, true);
  spec.deadline = deadline;
  return spec;
}

std::map<std::string, int>& polls() {
  static std::map<std::string, int> counts;
  return counts;
}

int64_t Stat(const Schedule& s, const std::string& name) {
  for (const auto& [key, value] : s.stats) {
    if (key == name) return value;
  }
  return -1;
}

// A phase that built its part of the CNF without polling could run on
// for seconds past the deadline on a large graph (md_grid graph7's
// dependences took 1.3 s of the clock under load between two polls).
TEST(ExactLimit, EveryPhaseOfASatModelsBuildPollsInsideItsLoop) {
  const Graph g = LongChain();
  test_seams::build_poll = [](const char* phase) { ++polls()[phase]; };
  for (SatEncoding encoding : {SatEncoding::kRowStage, SatEncoding::kTimeIndexed}) {
    SCOPED_TRACE(static_cast<int>(encoding));
    polls().clear();
    const auto backend = exact_internal::make_sat_backend(encoding);
    const auto model = backend->build(g, SpecAtMii(g, Clock::now() + std::chrono::hours(1)));
    ASSERT_NE(model, nullptr);
    EXPECT_GE(polls()["variables"], 2);     // every 64 ops: 0, 64
    EXPECT_GE(polls()["dependences"], 69);  // every edge
    EXPECT_GE(polls()["resources"], 2);     // every 64 rows of the 70

    // Once the deadline has passed, the first poll ends the build.
    polls().clear();
    EXPECT_THROW(backend->build(g, SpecAtMii(g, Clock::now() - std::chrono::seconds(1))),
                 exact_internal::ModelDeadline);
    int total = 0;
    for (const auto& [phase, n] : polls()) total += n;
    EXPECT_EQ(total, 1);
  }
  test_seams::build_poll = nullptr;
}

// The deadline passing while a model is built (here: the first poll
// sleeps past the whole limit) ends the call with the heuristic's
// schedule, and the diagnostics name the build that was cut.
TEST(ExactLimit, ADeadlinePassingDuringABuildEndsTheCallAndSaysSo) {
  const Graph g = Example("attention_forward.loop.json");  // MII 27, cost-based 34
  static int total;
  total = 0;
  test_seams::build_poll = [](const char*) {
    if (++total == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  };
  ExactOptions opts;
  opts.time_limit_ms = 1000;
  StatusOr<ExactResult> r = generate_exact(g, opts);
  test_seams::build_poll = nullptr;
  ASSERT_TRUE(r.ok()) << r.status().message();
  // The sleeping poll and at most one more (a component's model, then
  // the graph's): each found the deadline passed and threw.
  EXPECT_GE(total, 1);
  EXPECT_LE(total, 2);
  const Schedule& s = r->schedule;
  ASSERT_TRUE(s.feasible);
  EXPECT_TRUE(verify_schedule(g, s).legal());
  EXPECT_FALSE(s.proven_optimal);
  bool named = false;
  for (const std::string& d : s.diagnostics) {
    named = named || d.find("the time limit ended while the model at II") != std::string::npos;
  }
  EXPECT_TRUE(named);
}

// A check that stops after its own limit (here the seam sleeps 200 ms
// after the first check, whose limit is 1 ms) may stop as late again in
// the last check: the oracle keeps that much in reserve, both backends.
TEST(ExactLimit, ACheckThatStopsLateIsKeptInReserve) {
  const Graph g = Example("attention_forward.loop.json");
  for (ExactBackend backend : {ExactBackend::kSat, ExactBackend::kSmt}) {
    SCOPED_TRACE(exact_backend_name(backend));
    static int checks;
    checks = 0;
    test_seams::between_checks = [] {
      if (++checks == 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    };
    ExactOptions opts;
    opts.backend = backend;
    opts.time_limit_ms = 60'000;
    test_seams::per_check_limit_ms = 1;
    StatusOr<ExactResult> r = generate_exact(g, opts);
    test_seams::per_check_limit_ms = 0;
    test_seams::between_checks = nullptr;
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_GE(checks, 1);
    EXPECT_GE(Stat(r->schedule, "exact.reserve_us"), 199'000);
    ASSERT_TRUE(r->schedule.feasible);
    EXPECT_TRUE(verify_schedule(g, r->schedule).legal());
  }
}

// Before its first check a SAT model's solver has shown no stretch
// without a poll: the model estimates one from its size, larger for a
// larger CNF, and a check never lowers it.
TEST(ExactLimit, ASatModelEstimatesItsUnpolledStretchFromItsSize) {
  const Graph small = LongChain();
  const Graph large = LongChain(100);
  const Clock::time_point far = Clock::now() + std::chrono::hours(1);
  for (SatEncoding encoding : {SatEncoding::kRowStage, SatEncoding::kTimeIndexed}) {
    const std::unique_ptr<exact_internal::Backend> backend = exact_internal::make_sat_backend(encoding);
    const exact_internal::ModelSpec small_spec = SpecAtMii(small, far);
    const std::unique_ptr<exact_internal::IiProblem> a = backend->build(small, small_spec);
    const std::unique_ptr<exact_internal::IiProblem> z = backend->build(large, SpecAtMii(large, far));
    ASSERT_TRUE(a && z);
    const int64_t before = a->unpolled_cpu_us();
    EXPECT_GT(before, 0);
    EXPECT_GT(z->unpolled_cpu_us(), before);
    a->check(small_spec.stage_bound, far, 0);
    EXPECT_GE(a->unpolled_cpu_us(), before);
  }
}

// Sleeping at every poll of the builds (a thread the machine leaves
// waiting) lowers the CPU share the oracle measures, and its reserve on the
// clock is the CPU reserve stretched by that share.
TEST(ExactLimit, ALowCpuShareStretchesTheReserve) {
  const Graph g = Example("attention_forward.loop.json");
  test_seams::build_poll = [](const char*) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  ExactOptions opts;
  opts.backend = ExactBackend::kSat;
  opts.time_limit_ms = 60'000;
  test_seams::per_check_limit_ms = 1;
  StatusOr<ExactResult> r = generate_exact(g, opts);
  test_seams::per_check_limit_ms = 0;
  test_seams::build_poll = nullptr;
  ASSERT_TRUE(r.ok()) << r.status().message();
  const int64_t share = Stat(r->schedule, "exact.cpu_share_pct");
  const int64_t cpu = Stat(r->schedule, "exact.reserve_cpu_us");
  ASSERT_GT(cpu, 0);  // a model was built and checked
  EXPECT_LE(share, 50);
  // The stat rounds the share down to a whole percent.
  EXPECT_GE(Stat(r->schedule, "exact.reserve_us"), cpu * 100 / (share + 1));
  EXPECT_GT(Stat(r->schedule, "exact.reserve_us"), 2 * cpu);
  ASSERT_TRUE(r->schedule.feasible);
  EXPECT_TRUE(verify_schedule(g, r->schedule).legal());
}

// The heuristics the oracle starts from are inside its limit: each has a
// share of what remains, and one its share cuts short is named. Here every
// II attempt of a heuristic search sleeps 100 ms (the driver's seam), so
// first-success cost-based, which attempts six IIs on its way to 34, cannot
// finish within a 200 ms limit: without the shares the heuristics alone
// took seconds.
TEST(ExactLimit, HeuristicsKeepToTheirShareOfTheLimitAndAreNamedWhenCut) {
  const Graph g = Example("attention_forward.loop.json");  // MII 27, cost-based 34
  test_seams::before_ii_attempt = [](int64_t) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); };
  ExactOptions opts;
  opts.time_limit_ms = 200;
  StatusOr<ExactResult> r = generate_exact(g, opts);
  test_seams::before_ii_attempt = nullptr;
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Schedule& s = r->schedule;
  // The oracle's own account of when the start was chosen: within the
  // limit, and one attempt's sleep past it at most (the attempt that began
  // just before the deadline).
  EXPECT_LE(Stat(s, "exact.heuristic_us"), 200'000 + 100'000);
  bool named = false;
  for (const std::string& d : s.diagnostics) {
    named = named || (d.rfind("exact: the time limit ended before ", 0) == 0 &&
                      d.find("cost-based (first-success)") != std::string::npos);
  }
  EXPECT_TRUE(named);
  ASSERT_TRUE(s.feasible);  // the serial start
  EXPECT_TRUE(verify_schedule(g, s).legal());
}

}  // namespace
}  // namespace tilesched
