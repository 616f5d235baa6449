// A program using tilesched the way another project would: read a loop
// graph, schedule it, verify the schedule, and (with the generators) do the
// same for a generated graph. Prints one line per graph and the engine's
// revision; exits 1 when a schedule is missing or illegal.
#include <cstdio>
#include <string>

#include "tilesched/generate.h"
#include "tilesched/json_io.h"
#include "tilesched/verify.h"
#include "tilesched/version.h"
#ifdef CONSUMER_WITH_GRAPHGEN
#include "tilesched/graphgen/families.h"
#endif

namespace {

bool schedule_and_verify(const tilesched::Graph& g, const std::string& label) {
  auto s = tilesched::generate_schedule(g, tilesched::GenerateOptions{});
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", label.c_str(), s.status().message().c_str());
    return false;
  }
  tilesched::VerifyReport report = tilesched::verify_schedule(g, s.value());
  if (!s.value().feasible || !report.legal()) {
    std::fprintf(stderr, "%s: no legal schedule\n", label.c_str());
    return false;
  }
  std::printf("%s: %s ii=%lld legal\n", label.c_str(), s.value().generator.c_str(),
              static_cast<long long>(s.value().ii));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s GRAPH.loop.json\n", argv[0]);
    return 2;
  }
  auto g = tilesched::read_graph_file(argv[1]);
  if (!g.ok()) {
    std::fprintf(stderr, "%s\n", g.status().message().c_str());
    return 2;
  }
  bool ok = schedule_and_verify(g.value(), argv[1]);
#ifdef CONSUMER_WITH_GRAPHGEN
  auto gen = tilesched::graphgen::generate("random_layered", 24, 7, {});
  ok = gen.ok() && schedule_and_verify(gen.value(), gen.value().name) && ok;
#endif
  std::printf("engine %s (%s)\n", std::string(tilesched::engine_version()).c_str(),
              std::string(tilesched::engine_git_sha()).c_str());
  return ok ? 0 : 1;
}
