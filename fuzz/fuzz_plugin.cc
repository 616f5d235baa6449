// fuzz_plugin: bytes -> a structured loop graph (fuzz_support.h), then a
// foreign scheduler's plug-in (tilesched/plugin.h) named by
// $TILESCHED_FUZZ_PLUGIN, a path to its library, under a stage cap drawn
// from the input (none, 1, 2 or 3). Checks, on the plug-in: it answers
// with no failure kind (NULL, an error, another op count, a start or II out
// of range, an II above the request's cap or more stages than asked: each
// a finding); a schedule it gives passes our verifier (L1-L7, stage/order,
// the Pipe_/Mutex_ values materialized from it) with II >= MII; on one
// input in four a rerun gives the same answer (as in fuzz_schedule). With
// $TILESCHED_FUZZ_PLUGIN unset or "ims", the built-in ims generator runs
// instead, through the same checks: the yardstick of the plug-in's
// throughput (docs/PLUGINS.md).
#include <cstdlib>
#include <cstring>
#include <memory>

#include "fuzz_support.h"
#include "tilesched/foreign.h"
#include "tilesched/materialize.h"

using namespace tilesched;

namespace {

// The plug-in, loaded once; nullptr for the ims yardstick.
const ForeignScheduler* plugin() {
  static const std::unique_ptr<const ForeignScheduler> loaded =
      []() -> std::unique_ptr<const ForeignScheduler> {
    const char* path = std::getenv("TILESCHED_FUZZ_PLUGIN");
    if (path == nullptr || *path == '\0' || std::strcmp(path, "ims") == 0) return nullptr;
    StatusOr<ForeignScheduler> s = resolve_foreign(std::string("plugin:") + path);
    if (!s.ok()) fuzz::fail("TILESCHED_FUZZ_PLUGIN does not load", s.status().message());
    return std::make_unique<const ForeignScheduler>(std::move(*s));
  }();
  return loaded.get();
}

Schedule run_plugin(const ForeignScheduler& p, const Graph& g, int64_t max_stages) {
  ForeignRequest req;
  req.max_stages = max_stages;
  ForeignOutcome o = run_foreign(p, g, req);
  FUZZ_CHECK(o.schedule.has_value(),
             p.name + ": " + std::string(foreign_failure_name(o.failure)) + ": " + o.message,
             fuzz::describe(g));
  Schedule s = std::move(*o.schedule);
  if (s.feasible) {
    StatusOr<Materialization> m = materialize(g, s);
    if (m.ok()) attach_materialization(s, std::move(*m));
  }
  return s;
}

// The plug-in's answer, or the yardstick's (ims) when there is no plug-in.
Schedule answer(const ForeignScheduler* p, const Graph& g, int64_t cap) {
  if (p != nullptr) return run_plugin(*p, g, cap);
  GenerateOptions opts;
  opts.generator = GeneratorKind::kIms;
  opts.max_stages = cap;
  StatusOr<Schedule> s = generate_schedule(g, opts);
  FUZZ_CHECK(s.ok(), "ims returned an error", s.status().message());
  return std::move(*s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const StatusOr<Graph> g = fuzz::consume_graph(in, fuzz::scheduling_caps());
  if (!g.ok()) return 0;  // fuzz_schedule checks the refusals
  const int64_t cap = in.ConsumeIntegralInRange<int64_t>(0, 3);
  const ForeignScheduler* p = plugin();
  const std::string name = p != nullptr ? p->name : "ims";
  const Schedule s = answer(p, *g, cap);
  if (s.feasible) {
    const VerifyReport report = verify_schedule(*g, s);
    FUZZ_CHECK(report.legal(), name + " returned an illegal schedule",
               fuzz::describe(report) + fuzz::describe(*g, s));
    FUZZ_CHECK(s.ii >= s.mii.max(), name + ": a legal II below MII (our bound is wrong)",
               fuzz::describe(*g, s));
  }
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {  // a rerun on one input in four
    const Schedule again = answer(p, *g, cap);
    FUZZ_CHECK(fuzz::same_result(s, again), name + " is not deterministic",
               fuzz::describe(*g, s));
  }
  return 0;
}
