// fuzz_schedule: bytes -> a structured loop graph (fuzz_support.h), then
// one generator configuration chosen by the input: serial, cost-based under
// either arm policy and either II search, ims, sms, or the seed's auto
// selector. Checks: a graph the builder refuses is an InvalidInput with a
// JSON path (never a crash); the generator answers; a feasible schedule
// passes the verifier (L1-L7, stage/order, the attached Pipe_/Mutex_
// values) and has II >= MII; an infeasible one names its reason (the
// storage budget where the stores alone exceed the storage pool); on one
// input in four a rerun gives the same schedule, and on one in two a
// feasible schedule survives the schedule JSON round trip. One
// configuration per input, and those checks on a share of the inputs,
// keep the work per input small (throughput: fuzz/README.md); over a
// campaign every configuration meets every check.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "tilesched/json_io.h"

using namespace tilesched;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const StatusOr<Graph> g = fuzz::consume_graph(in, fuzz::scheduling_caps());
  if (!g.ok()) {
    FUZZ_CHECK(g.status().code() == StatusCode::kInvalidInput, "graph refusal is not InvalidInput",
               g.status().message());
    FUZZ_CHECK(g.status().message().rfind("$", 0) == 0, "graph refusal has no JSON path",
               g.status().message());
    return 0;
  }
  const uint64_t seed = in.ConsumeIntegral<uint64_t>();
  const std::vector<fuzz::GeneratorConfig> configs = fuzz::generator_configs(seed);
  const fuzz::GeneratorConfig& config =
      configs[in.ConsumeIntegralInRange<size_t>(0, configs.size() - 1)];
  StatusOr<Schedule> s = generate_schedule(*g, config.options);
  FUZZ_CHECK(s.ok(), config.name + " returned an error", s.status().message() + "\n" + fuzz::describe(*g));
  fuzz::check_result(*g, *s, config.name);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {  // a rerun on one input in four
    StatusOr<Schedule> again = generate_schedule(*g, config.options);
    FUZZ_CHECK(again.ok() && fuzz::same_result(*s, *again), config.name + " is not deterministic",
               fuzz::describe(*g, *s));
  }
  // The JSON round trip on one feasible schedule in two.
  if (!s->feasible || in.ConsumeBool()) return 0;
  const std::string written = write_schedule_json(*g, *s);
  StatusOr<Schedule> back = parse_schedule_json(written, "written", *g);
  FUZZ_CHECK(back.ok(), config.name + ": written schedule is refused",
             back.status().message() + "\n" + fuzz::describe(*g, *s));
  FUZZ_CHECK(back->ii == s->ii && back->start == s->start && back->stage == s->stage &&
                 back->order == s->order && back->pipes == s->pipes &&
                 back->mutexes == s->mutexes && back->flags == s->flags,
             config.name + ": schedule JSON round trip changed it", fuzz::describe(*g, *s));
  return 0;
}
