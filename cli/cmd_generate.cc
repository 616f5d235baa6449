// `tilesched generate`: list the loop-graph families, or write one graph
// of a family (generators/include/tilesched/graphgen/families.h) as
// tilesched.loop/1 JSON. Same family, size, parameters and seed give the
// same bytes on every machine.
#include <charconv>
#include <iostream>

#include "commands.h"
#include "tilesched/graphgen/families.h"
#include "tilesched/graphgen/retarget.h"
#include "tilesched/json_io.h"

namespace po = boost::program_options;

namespace tilesched::cli {
namespace {

void print_families() {
  for (const graphgen::Family& f : graphgen::families()) {
    std::cout << f.name << "\t" << graphgen::family_kind_name(f.kind) << "\t" << f.description << "\n";
  }
}

// The default column of a parameter the seed draws reads "seed:V1,V2,...".
void print_params(const graphgen::Family& family) {
  for (const graphgen::ParamSpec& p : family.params) {
    std::string value = std::to_string(p.default_value);
    if (!p.drawn.empty()) {
      value = "seed:";
      for (size_t i = 0; i < p.drawn.size(); ++i) {
        value += (i > 0 ? "," : "") + std::to_string(p.drawn[i]);
      }
    }
    std::cout << p.name << "\t" << value << "\t" << p.min << ".." << p.max << "\t" << p.doc
              << "\n";
  }
}

StatusOr<uint64_t> parse_seed(const std::string& text) {
  uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidInput("--seed: '" + text + "' is not an integer in 0..2^64-1");
  }
  return seed;
}

// The family's graph, moved to `target_name` when that is not the
// families' own Blackwell target (graphgen/retarget.h).
StatusOr<Graph> generate_on(const std::string& target_name, const std::string& family, int ops,
                            uint64_t seed, const graphgen::ParamMap& params) {
  const Target* target = find_builtin_target(target_name);
  if (target == nullptr) {
    return Status::InvalidInput("--target: unknown target '" + target_name + "' (" +
                                builtin_target_names() + ")");
  }
  StatusOr<Graph> graph = graphgen::generate(family, ops, seed, params);
  if (!graph.ok() || target == &blackwell_target()) return graph;
  return graphgen::retarget(*graph, *target);
}

// The graph the checked options name: the seed and the parameters parsed,
// then generated on the target.
StatusOr<Graph> generate_graph(const graphgen::Family& family, const std::string& target_name,
                               int ops, const std::string& seed_text,
                               const std::vector<std::string>& params) {
  StatusOr<uint64_t> seed = parse_seed(seed_text);
  if (!seed.ok()) return seed.status();
  StatusOr<graphgen::ParamMap> given = graphgen::parse_params(family, params);
  if (!given.ok()) return given.status();
  return generate_on(target_name, std::string(family.name), ops, *seed, *given);
}

}  // namespace

int run_generate(const Args& args) {
  std::string family_name, seed_text = "1", target_name = "blackwell";
  int ops = 0;
  std::vector<std::string> params;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("list", "print one line per family: NAME<TAB>random|structured<TAB>description")
      ("list-params", "with --family: print one line per parameter: "
       "NAME<TAB>default<TAB>min..max<TAB>description; the default of a parameter the seed "
       "draws when not given reads seed:V1,V2,...")
      ("family,f", po::value(&family_name), "the family to generate from")
      ("ops,n", po::value(&ops), "op count (structured families round down to whole units)")
      ("seed,s", po::value(&seed_text)->default_value("1"), "seed, 0..2^64-1")
      ("param,p", po::value(&params)->composing(),
       "key=value, repeatable: a family parameter (see --list-params)")
      ("target", po::value(&target_name)->default_value("blackwell"),
       "blackwell, or hopper: the graph moved to the Hopper target where every kind it uses "
       "exists there (docs/TARGETS.md)");
  add_output_option(visible, "the graph");
  add_quiet_option(visible);
  po::options_description hidden;
  po::positional_options_description positional;
  po::variables_map vm;
  if (std::optional<int> done = parse_args(
          args, "generate",
          "--list | --family NAME --ops N [--seed S] [--param k=v ...] [--target T] [-o FILE]",
          visible, hidden, positional, vm)) {
    return *done;
  }

  if (vm.count("list")) {
    print_families();
    return kExitOk;
  }
  if (!vm.count("family")) {
    return fail("generate", Status::InvalidInput("--family is required (families: " +
                                                 graphgen::family_names() + ")"));
  }
  const graphgen::Family* family = graphgen::find_family(family_name);
  if (!family) {
    return fail("generate", Status::InvalidInput("unknown family '" + family_name +
                                                 "' (families: " + graphgen::family_names() + ")"));
  }
  if (vm.count("list-params")) {
    print_params(*family);
    return kExitOk;
  }
  if (!vm.count("ops")) return fail("generate", Status::InvalidInput("--ops is required"));
  StatusOr<Graph> graph = generate_graph(*family, target_name, ops, seed_text, params);
  if (!graph.ok()) return fail("generate", graph.status());
  if (Status s = emit(output_path(vm), write_graph_json(*graph)); !s.ok()) {
    return fail("generate", s);
  }
  return kExitOk;
}

}  // namespace tilesched::cli
