// Interim family table of the sweep (issue 8), until issue 5's registry
// (tilesched/gen/families.h) lands. Two families, both from
// gen::random_layered:
//   random_layered      the generator's defaults (100 loop-carried edges per
//                       1000 forward ones): graphs with recurrences;
//   random_layered_dag  the same with no loop-carried edges: acyclic graphs,
//                       where RecMII is 1 and resources alone bound II.
// When the registry lands, family_names() returns its names and
// make_graph() calls its generate(name, ops, seed, default params); the two
// names above should stay (as registry entries or aliases) so that committed
// CSVs and baselines keep their keys.
#include "sweep/families.h"

#include "tilesched/gen/random_layered.h"

namespace tilesched::sweep {
namespace {

struct Family {
  const char* name;
  int back_edge_per_mille;
};

constexpr Family kFamilies[] = {
    {"random_layered", 100},
    {"random_layered_dag", 0},
};

}  // namespace

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const Family& f : kFamilies) names.emplace_back(f.name);
  return names;
}

StatusOr<Graph> make_graph(const std::string& family, int ops, uint64_t seed) {
  for (const Family& f : kFamilies) {
    if (family != f.name) continue;
    gen::LayeredParams p;
    p.ops = ops;
    p.back_edge_per_mille = f.back_edge_per_mille;
    p.seed = seed;
    StatusOr<Graph> g = gen::random_layered(p);
    if (!g.ok()) return g.status();
    g->name = family + "-" + std::to_string(ops) + "-" + std::to_string(seed);
    return g;
  }
  return Status::InvalidInput("unknown family '" + family + "'");
}

}  // namespace tilesched::sweep
