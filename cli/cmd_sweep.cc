// `tilesched sweep`: run generators over families, sizes and seeds (or
// over graph files, --graphs) and write one verified CSV row per (graph,
// generator), with a context file (docs/SWEEP.md). A thin wrapper around tilesched::harness (bench/sweep/).
// Exit 0 when every row verified, 1 when some did not, 2 bad usage/input.
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "commands.h"
#include "option_rules.h"
#include "sweep/context.h"
#include "sweep/estimate.h"
#include "sweep/runner.h"
#include "tilesched/limits.h"

namespace po = boost::program_options;

namespace tilesched::cli {
namespace {

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_./,:=+%@") == std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The options given as text, before they are checked.
struct SweepFlags {
  std::string families = "all", ops = "8,16,32,64", seeds = "1-5", generators = "serial,cost-based",
              arm_policy = "first-success", shard = "1/1", max_stages = "0", out, out_alias,
              preset, estimate, effort = "default";
  std::vector<std::string> graphs;
  int jobs = 1;
};

po::options_description sweep_options(SweepFlags& f, int cpus) {
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("preset", po::value(&f.preset),
       "a documented standard sweep: quick (the CI gate), default (scripts/run), paper; "
       "options given explicitly override its values")
      ("families", po::value(&f.families)->default_value(f.families), "A,B,... or all")
      ("ops", po::value(&f.ops)->default_value(f.ops),
       "graph sizes: a list of values and ranges (8,16,32; 8-64:8; 16-1024x2 doubles)")
      ("seeds", po::value(&f.seeds)->default_value(f.seeds), "graph seeds, same syntax (1-100)")
      ("generators", po::value(&f.generators)->default_value(f.generators),
       ("comma-separated, of: " + generator_names() +
        ", and foreign schedulers ext:NAME, plugin:PATH (docs/PLUGINS.md)").c_str())
      ("arm-policy", po::value(&f.arm_policy)->default_value(f.arm_policy),
       "cost-based arm policies: first-success, best-cost, or both comma-separated")
      ("effort", po::value(&f.effort)->default_value(f.effort),
       "the cost-based generator's effort: fast, default or full (tilesched schedule "
       "--effort); the rows' effort column")
      ("max-stages", po::value(&f.max_stages)->default_value(f.max_stages),
       "stage caps, same syntax (0 = none, 0,2,3): every generator configuration runs once per "
       "cap (tilesched schedule --max-stages); a row's cap is its max_stages column")
      ("graphs", po::value(&f.graphs)->multitoken(),
       "PATH...: sweep these graphs instead of the families: loop graph JSON files, HatScheT "
       "GraphML files (resource model STEM_RM.xml or STEMRM.xml beside each), or directories "
       "searched for *.loop.json and *.graphml")
      ("jobs,j", po::value(&f.jobs)->default_value(cpus),
       "worker threads (default: the CPUs this process may use, as nproc counts them)")
      ("shard", po::value(&f.shard)->default_value(f.shard),
       "k/N: run only the k-th of N deterministic slices of the graph list (1 <= k <= N)")
      ("output,o", po::value(&f.out), "the CSV to write (context: OUTPUT.json)")
      ("estimate", po::value(&f.estimate),
       "TIMINGS.csv: run nothing; print the CPU and wall time this shard would take at --jobs, "
       "from an earlier sweep's per-row times (docs/SWEEP.md)")
      ("resume", "continue an interrupted sweep of the same parameters: rows already in "
                 "OUTPUT(.partial) are kept, the rest are run")
      ("quiet,q", "no progress and no summary line on stderr (errors still are)");
  return visible;
}

// --preset: its values for every list option not given explicitly.
Status apply_preset(const po::variables_map& vm, SweepFlags& f) {
  if (!vm.count("preset")) return Status::Ok();
  const sweep::Preset* p = sweep::find_preset(f.preset);
  if (!p) {
    return Status::InvalidInput("--preset: unknown preset '" + f.preset + "' (" +
                                sweep::preset_names() + ")");
  }
  auto take = [&](const char* name, std::string& field, const char* value) {
    if (vm[name].defaulted()) field = value;
  };
  take("families", f.families, p->families);
  take("ops", f.ops, p->ops);
  take("seeds", f.seeds, p->seeds);
  take("generators", f.generators, p->generators);
  take("arm-policy", f.arm_policy, p->arm_policies);
  return Status::Ok();
}

// The generators the sweep runs, for the option table (option_rules.h):
// --generators, or the preset's when not given; a name that is not a
// generator is left to sweep_spec to refuse.
std::vector<GeneratorKind> generator_kinds(const po::variables_map& vm, SweepFlags f) {
  (void)apply_preset(vm, f);
  std::vector<GeneratorKind> out;
  for (size_t b = 0; b <= f.generators.size();) {
    size_t e = f.generators.find(',', b);
    if (e == std::string::npos) e = f.generators.size();
    if (std::optional<GeneratorKind> k = parse_generator(f.generators.substr(b, e - b))) {
      out.push_back(*k);
    }
    b = e + 1;
  }
  return out;
}

// The work list the flags describe; InvalidInput names the option.
StatusOr<sweep::SweepSpec> sweep_spec(const SweepFlags& f) {
  sweep::SweepSpec spec;
  StatusOr<std::vector<std::string>> fams = sweep::parse_families(f.families);
  if (!fams.ok()) return fams.status();
  spec.families = *fams;
  StatusOr<std::vector<int64_t>> op_list =
      sweep::parse_int_list(f.ops, "--ops", 1, limits::kMaxOps);
  if (!op_list.ok()) return op_list.status();
  for (int64_t v : *op_list) spec.ops.push_back(static_cast<int>(v));
  StatusOr<std::vector<int64_t>> seed_list =
      sweep::parse_int_list(f.seeds, "--seeds", 0, INT64_MAX);
  if (!seed_list.ok()) return seed_list.status();
  for (int64_t v : *seed_list) spec.seeds.push_back(static_cast<uint64_t>(v));
  StatusOr<std::vector<sweep::GeneratorConfig>> gens =
      sweep::parse_generators(f.generators, f.arm_policy);
  if (!gens.ok()) return gens.status();
  const std::optional<Effort> effort = parse_effort(f.effort);
  if (!effort) {
    return Status::InvalidInput("--effort: unknown level '" + f.effort + "' (fast, default, full)");
  }
  for (sweep::GeneratorConfig& g : *gens) g.effort = *effort;
  StatusOr<std::vector<int64_t>> caps =
      sweep::parse_int_list(f.max_stages, "--max-stages", 0, limits::kMaxMaxDepth + 1);
  if (!caps.ok()) return caps.status();
  spec.generators = sweep::with_stage_caps(*gens, *caps);
  StatusOr<sweep::Shard> sh = sweep::parse_shard(f.shard);
  if (!sh.ok()) return sh.status();
  spec.shard = *sh;
  return spec;
}

// --graphs: the files instead of the families; the family lists do not apply.
Status add_graph_files(const po::variables_map& vm, const SweepFlags& f, sweep::SweepSpec& spec) {
  if (!vm.count("graphs")) return Status::Ok();
  for (const char* name : {"families", "ops", "seeds"}) {
    if (!vm[name].defaulted()) {
      return Status::InvalidInput(std::string("--") + name + ": not with --graphs (the files are "
                                  "the work list)");
    }
  }
  StatusOr<std::vector<sweep::GraphKey>> files = sweep::find_graph_files(f.graphs);
  if (!files.ok()) return files.status();
  spec.files = *std::move(files);
  return Status::Ok();
}

// --output: given once (under its name or its old name --out), and a
// regular file: the sweep keeps OUTPUT.partial and OUTPUT.json beside its
// CSV, so not standard output, a device or a FIFO.
Status check_output(const po::variables_map& vm, SweepFlags& f) {
  if (vm.count("out") && vm.count("output")) {
    return Status::InvalidInput("--out: give --output only (--out is its old name)");
  }
  if (vm.count("out")) f.out = f.out_alias;
  if (!vm.count("out") && !vm.count("output")) {
    return Status::InvalidInput("--output FILE.csv is required");
  }
  if (f.out.empty()) return Status::InvalidInput("--output: empty file name");
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(f.out, ec);
  const bool special = f.out == "-" || f.out.rfind("/dev/", 0) == 0 || f.out.rfind("/proc/", 0) == 0;
  if (special || (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))) {
    return Status::InvalidInput("--output: " + f.out +
                                " is not a regular file (the sweep writes "
                                "OUTPUT.partial and OUTPUT.json beside it)");
  }
  return Status::Ok();
}

// The sweep's options from the checked flags.
StatusOr<sweep::SweepOptions> sweep_options_of(const po::variables_map& vm, SweepFlags& f,
                                               double progress_seconds) {
  if (Status s = apply_preset(vm, f); !s.ok()) return s;
  sweep::SweepOptions opts;
  StatusOr<sweep::SweepSpec> spec = sweep_spec(f);
  if (!spec.ok()) return spec.status();
  opts.spec = *std::move(spec);
  if (Status s = add_graph_files(vm, f, opts.spec); !s.ok()) return s;
  if (f.jobs < 1 || f.jobs > 1024) {
    return Status::InvalidInput("--jobs: " + std::to_string(f.jobs) + " is out of range 1..1024");
  }
  if (Status s = check_output(vm, f); !s.ok()) return s;
  if (!(progress_seconds >= 0)) return Status::InvalidInput("--progress-seconds: must be >= 0");
  opts.out = f.out;
  opts.jobs = f.jobs;
  opts.resume = vm.count("resume") > 0;
  opts.progress = vm.count("quiet")                ? sweep::Progress::kNone
                  : isatty(STDERR_FILENO) == 1 ? sweep::Progress::kBar
                                               : sweep::Progress::kLines;
  opts.progress_seconds = progress_seconds;
  return opts;
}

// --estimate TIMINGS.csv: the shard's time from an earlier sweep's rows;
// nothing is run or written.
int run_estimate(const po::variables_map& vm, SweepFlags& f) {
  if (Status s = apply_preset(vm, f); !s.ok()) return fail("sweep", s);
  StatusOr<sweep::SweepSpec> spec = sweep_spec(f);
  if (!spec.ok()) return fail("sweep", spec.status());
  if (Status s = add_graph_files(vm, f, *spec); !s.ok()) return fail("sweep", s);
  if (f.jobs < 1) return fail("sweep", Status::InvalidInput("--jobs: must be >= 1"));
  StatusOr<sweep::ReadResult> timings = sweep::read_sweep_csv(f.estimate);
  if (!timings.ok()) return fail("sweep", timings.status());
  StatusOr<sweep::ShardEstimate> e = sweep::estimate_shard(*spec, *timings, f.estimate);
  if (!e.ok()) return fail("sweep", e.status());
  std::cout << sweep::estimate_text(*e, *spec, f.jobs, f.estimate);
  return kExitOk;
}

}  // namespace

int run_sweep(const Args& args) {
  SweepFlags f;
  const po::options_description visible = sweep_options(f, sweep::usable_cpus());
  po::options_description hidden;
  double progress_seconds = 10;
  hidden.add_options()
      ("out", po::value(&f.out_alias), "the old name of --output")
      ("progress-seconds", po::value(&progress_seconds),
       "the longest gap between two progress lines (tests)");
  po::positional_options_description positional;
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "sweep", "--output FILE.csv [options]", visible,
                                           hidden, positional, vm)) {
    return *done;
  }
  if (Status s = check_option_rules("sweep", vm, generator_kinds(vm, f)); !s.ok()) {
    return fail("sweep", s);
  }
  if (vm.count("estimate")) return run_estimate(vm, f);
  StatusOr<sweep::SweepOptions> options = sweep_options_of(vm, f, progress_seconds);
  if (!options.ok()) return fail("sweep", options.status());
  sweep::SweepOptions& opts = *options;
  const bool quiet = vm.count("quiet") > 0;
  opts.command = "tilesched sweep";
  for (const std::string& a : args) opts.command += " " + shell_quote(a);

  StatusOr<sweep::SweepSummary> summary = sweep::run_sweep(opts);
  if (!summary.ok()) return fail("sweep", summary.status());
  if (!quiet) {
    std::cerr << "tilesched sweep: " << summary->rows << " rows in " << f.out;
    if (summary->kept > 0) std::cerr << " (" << summary->kept << " kept from the earlier run)";
    std::cerr << "\n";
  }
  if (summary->failures > 0) {
    std::cerr << "tilesched sweep: " << summary->failures
              << " row(s) not verified (see the failure and reason columns of " << f.out << ")\n";
    return kExitNoSchedule;
  }
  return kExitOk;
}

}  // namespace tilesched::cli
