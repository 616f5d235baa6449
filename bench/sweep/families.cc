// The sweep's families are the loop-graph family registry's
// (tilesched/gen/families.h), each at its default parameters; the graph's
// name is the registry's ("FAMILY/ops=N/seed=S/param=value/...").
#include "sweep/families.h"

#include "tilesched/gen/families.h"

namespace tilesched::sweep {

std::vector<std::string> family_names() {
  std::vector<std::string> names;
  for (const gen::Family& f : gen::families()) names.emplace_back(f.name);
  return names;
}

bool family_builds(const std::string& family, int ops) {
  const gen::Family* f = gen::find_family(family);
  return f != nullptr && ops >= f->min_ops && ops <= f->max_ops;
}

StatusOr<Graph> make_graph(const std::string& family, int ops, uint64_t seed) {
  return gen::generate(family, ops, seed, {});
}

}  // namespace tilesched::sweep
