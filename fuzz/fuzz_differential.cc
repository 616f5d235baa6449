// fuzz_differential: tiny fuzzed graphs through serial and cost-based (both
// arm policies, both II searches) and, once issue 9 lands, the exact
// oracle. Checks, with MII from compute_mii (mii.h), not from a generator:
//   every feasible schedule is legal (verifier) and has MII <= II;
//   both generators report that same MII;
//   where the serial schedule is legal, every cost-based run is feasible
//   with II <= the serial II (its default II cap is the serial II);
//   exact: MII <= exact II <= every cost-based II.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tilesched/mii.h"

using namespace tilesched;

namespace {

// Runs a generator and checks what holds of any feasible schedule.
Schedule run_checked(const Graph& g, const fuzz::GeneratorConfig& config, int64_t mii) {
  StatusOr<Schedule> s = generate_schedule(g, config.options);
  FUZZ_CHECK(s.ok(), config.name + " returned an error", s.status().message() + "\n" + fuzz::describe(g));
  fuzz::check_result(g, *s, config.name);
  FUZZ_CHECK(!s->feasible || s->ii >= mii, config.name + ": II below MII " + std::to_string(mii),
             fuzz::describe(g, *s));
  FUZZ_CHECK(s->mii == compute_mii(g), config.name + " reports another MII", fuzz::describe(g, *s));
  return std::move(s).value();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz::GraphCaps caps;
  caps.max_ops = 8;
  caps.max_edges = 16;
  caps.max_latency = 8;
  caps.max_duration = 6;
  const StatusOr<Graph> g = fuzz::consume_graph(in, caps);
  if (!g.ok()) return 0;
  const int64_t mii = compute_mii(*g).max();
  const std::vector<fuzz::GeneratorConfig> configs = fuzz::generator_configs(in.ConsumeIntegral<uint64_t>());

  const Schedule serial = run_checked(*g, configs[0], mii);  // configs[0] is serial
  int64_t best_cost_based = -1;  // the smallest cost-based II, -1: none feasible
  for (size_t c = 1; c < configs.size(); ++c) {
    if (configs[c].options.generator != GeneratorKind::kCostBased) continue;
    const Schedule s = run_checked(*g, configs[c], mii);
    if (serial.feasible) {
      FUZZ_CHECK(s.feasible, configs[c].name + " is infeasible where serial is legal",
                 fuzz::describe(*g, serial));
      FUZZ_CHECK(s.ii <= serial.ii,
                 configs[c].name + ": II " + std::to_string(s.ii) + " above serial II " +
                     std::to_string(serial.ii),
                 fuzz::describe(*g, s));
    }
    if (s.feasible && (best_cost_based < 0 || s.ii < best_cost_based)) best_cost_based = s.ii;
  }

  // ---- The exact oracle (issue 9): MII <= exact <= cost-based. ---------
  // generate_schedule answers InvalidInput ("not available in this build")
  // until GeneratorKind::kExact is implemented; then these checks run. Once
  // the oracle reports whether its II is proven optimal, gate the upper
  // bound on that (a time-limited best-found II may exceed cost-based).
  fuzz::GeneratorConfig exact{"exact", {}};
  exact.options.generator = GeneratorKind::kExact;
  StatusOr<Schedule> x = generate_schedule(*g, exact.options);
  if (!x.ok()) {
    FUZZ_CHECK(x.status().code() == StatusCode::kInvalidInput, "exact returned an unexpected error",
               x.status().message());
    return 0;  // not in this build
  }
  if (x->feasible) {
    const VerifyReport report = verify_schedule(*g, *x);
    FUZZ_CHECK(report.legal(), "exact returned an illegal schedule",
               fuzz::describe(report) + fuzz::describe(*g, *x));
    FUZZ_CHECK(x->ii >= mii, "exact: II below MII", fuzz::describe(*g, *x));
    FUZZ_CHECK(best_cost_based < 0 || x->ii <= best_cost_based, "exact: II above cost-based",
               fuzz::describe(*g, *x));
  } else {
    FUZZ_CHECK(best_cost_based < 0, "exact finds nothing where cost-based does", fuzz::describe(*g));
  }
  return 0;
}
