// `tilesched import --from hatschet GRAPH.graphml --resources RM.xml` and
// `tilesched import --from ttgir FILE [--list] [--loop N] [--strict] [--no-smem-bound]
// [--no-triton-rules]`:
// convert a loop graph from another tool into tilesched.loop/1 JSON
// (generators/include/tilesched/graphgen/hatschet.h and ttgir_import.h
// describe the mappings; docs/TTGIR.md the TTGIR one in full).
#include <filesystem>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "option_rules.h"
#include "tilesched/graphgen/hatschet.h"
#include "tilesched/graphgen/ttgir_import.h"
#include "tilesched/json_io.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

struct ImportFlags {
  std::string from, input_path, resources_path, target;
  int loop = -1;
};

// import_hatschet; GRAPH "-" is read from standard input and the graph
// named "hatschet/stdin".
StatusOr<Graph> import_hatschet_input(const std::string& graph_path,
                                      const std::string& resources_path) {
  if (graph_path != kStdio) return graphgen::import_hatschet(graph_path, resources_path);
  StatusOr<std::string> graphml = read_standard_input();
  if (!graphml.ok()) return graphml.status();
  StatusOr<std::string> rm = read_file(resources_path);
  if (!rm.ok()) return rm.status();
  return graphgen::import_hatschet_text(*graphml, kStdinName, *rm, resources_path,
                                        "hatschet/stdin");
}

StatusOr<std::string> read_input(const std::string& path) {
  return path == kStdio ? read_standard_input() : read_file(path);
}

// A header line, then one line per loop: its index (--loop), FILE:LINE,
// function, op, the graph ops an import makes, dot, load, innermost,
// whether Triton's schedule is on it, and which loop is the default.
std::string loop_table(const std::vector<graphgen::TtgirLoop>& loops, const std::string& name) {
  const std::optional<int> chosen = graphgen::default_ttgir_loop(loops);
  std::ostringstream out;
  out << "loop\tlocation\tfunction\top\tops\tdot\tload\tnesting\ttriton\tdefault\n";
  for (const graphgen::TtgirLoop& l : loops) {
    out << l.index << "\t" << name << ":" << l.line << "\t" << l.function << "\t" << l.op << "\t"
        << l.op_count << "\t" << (l.has_dot ? "dot" : "-") << "\t" << (l.has_load ? "load" : "-") << "\t"
        << (l.innermost ? "innermost" : "outer") << "\t"
        << (l.triton_schedule ? "triton-schedule" : "-") << "\t"
        << (chosen == l.index ? "default" : "-") << "\n";
  }
  return out.str();
}

int run_ttgir(const ImportFlags& f, const po::variables_map& vm) {
  if (vm.count("resources")) {
    return fail("import", Status::InvalidInput(
                              "--resources applies to --from hatschet only (a TTGIR file "
                              "carries no resource model: the hopper target's costs apply)"));
  }
  if (!f.target.empty() && f.target != "hopper") {
    return fail("import", Status::InvalidInput("--target: the TTGIR importer models only the "
                                               "hopper target, not '" + f.target + "'"));
  }
  if (Status s = check_option_rules("import", vm); !s.ok()) return fail("import", s);
  StatusOr<std::string> text = read_input(f.input_path);
  if (!text.ok()) return fail("import", text.status());
  const std::string name = input_name(f.input_path);
  if (vm.count("list")) {
    StatusOr<std::vector<graphgen::TtgirLoop>> loops = graphgen::list_ttgir_loops(*text, name);
    if (!loops.ok()) return fail("import", loops.status());
    if (Status s = emit(output_path(vm), loop_table(*loops, name)); !s.ok()) return fail("import", s);
    return kExitOk;
  }
  graphgen::TtgirOptions options;
  if (vm.count("loop")) options.loop = f.loop;
  options.strict = vm.count("strict") > 0;
  options.smem_stage_bound = vm.count("no-smem-bound") == 0;
  options.triton_rules = vm.count("no-triton-rules") == 0;
  const std::string stem =
      f.input_path == kStdio ? "stdin" : std::filesystem::path(f.input_path).stem().string();
  StatusOr<graphgen::TtgirImport> imported = graphgen::import_ttgir_text(*text, name, options, "");
  if (!imported.ok()) return fail("import", imported.status());
  imported->graph.name = "ttgir/" + stem + "/loop" + std::to_string(imported->loop);
  if (!imported->unknown_ops.empty() && !quiet(vm)) {
    std::string names;
    for (const std::string& op : imported->unknown_ops) names += (names.empty() ? "" : ", ") + op;
    std::cerr << "tilesched import: warning: " << name << ": " << imported->unknown_ops.size()
              << " unknown op kind(s) imported as generic: " << names << "\n";
  }
  if (Status s = emit(output_path(vm), write_graph_json(imported->graph)); !s.ok()) {
    return fail("import", s);
  }
  return kExitOk;
}

}  // namespace

int run_import(const Args& args) {
  ImportFlags f;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("from", po::value(&f.from)->required(),
       "the input format: hatschet (HatScheT GraphML graph + XML resource model) or ttgir "
       "(Triton's TTGIR, docs/TTGIR.md)")
      ("resources,r", po::value(&f.resources_path), "hatschet: the resource model (RM.xml)")
      ("list", "ttgir: print the module's loops (scf.for, scf.while), a header line then one "
       "line per loop, instead of a graph")
      ("loop", po::value(&f.loop), "ttgir: import loop N of --list (default: the first "
       "innermost loop holding a dot or a load)")
      ("strict", "ttgir: refuse ops the importer does not know (exit 2) instead of importing "
       "them as generic ops with a warning")
      ("no-smem-bound", "ttgir: leave the ops' stages unbounded (by default every op's max_depth "
       "keeps a schedule within the stages whose multi-buffered copies of the loop's buffers "
       "Triton can fit in a CTA's shared memory, docs/TTGIR.md)")
      ("no-triton-rules", "ttgir: leave out the constraints that keep every schedule within "
       "what Triton's pipeliner lowers (by default each ttg.local_alloc and the ops reading its "
       "buffer share a stage, and so do the ops of one TTGIR op, docs/TTGIR.md): the "
       "unconstrained problem, whose schedules `export --to triton` may refuse")
      ("target", po::value(&f.target), "ttgir: the target the costs are for (hopper, the "
       "default and the only one)");
  add_output_option(visible, "the graph");
  add_quiet_option(visible);
  po::options_description hidden;
  hidden.add_options()("input", po::value(&f.input_path)->value_name("FILE")->required(),
                       "the input file, - for standard input");
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "import",
                                           "--from hatschet GRAPH.graphml --resources RM.xml "
                                           "[-o FILE] | --from ttgir FILE [--list] [--loop N] "
                                           "[--strict] [--no-smem-bound] [--no-triton-rules] "
                                           "[-o FILE]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  if (f.from == "ttgir") return run_ttgir(f, vm);
  if (f.from != "hatschet") {
    return fail("import", Status::InvalidInput("--from: unknown format '" + f.from +
                                               "' (hatschet, ttgir)"));
  }
  for (const char* ttgir_only : {"list", "loop", "strict", "no-smem-bound", "no-triton-rules",
                                 "target"}) {
    if (vm.count(ttgir_only)) {
      return fail("import", Status::InvalidInput(std::string("--") + ttgir_only +
                                                 " applies to --from ttgir only"));
    }
  }
  if (!vm.count("resources")) {
    return fail("import", Status::InvalidInput("--from hatschet needs --resources RM.xml"));
  }
  StatusOr<Graph> graph = import_hatschet_input(f.input_path, f.resources_path);
  if (!graph.ok()) return fail("import", graph.status());
  if (Status s = emit(output_path(vm), write_graph_json(*graph)); !s.ok()) return fail("import", s);
  return kExitOk;
}

}  // namespace tilesched::cli
