// `tilesched sweep`: run generators over families, sizes and seeds and
// write one verified CSV row per (graph, generator), with a context file
// (docs/SWEEP.md). A thin wrapper around tilesched::harness (bench/sweep/).
// Exit 0 when every row verified, 1 when some did not, 2 bad usage/input.
#include <unistd.h>

#include <iostream>
#include <thread>

#include "commands.h"
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

}  // namespace

int run_sweep(const Args& args) {
  std::string families = "all", ops = "8,16,32,64", seeds = "1-5", generators = "serial,cost-based",
              arm_policy = "first-success", shard = "1/1", out, preset;
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int jobs = cpus;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("preset", po::value(&preset),
       "a documented standard sweep: quick (the CI gate), default (scripts/run), paper; "
       "options given explicitly override its values")
      ("families", po::value(&families)->default_value(families), "A,B,... or all")
      ("ops", po::value(&ops)->default_value(ops),
       "graph sizes: a list of values and ranges (8,16,32; 8-64:8; 16-1024x2 doubles)")
      ("seeds", po::value(&seeds)->default_value(seeds), "graph seeds, same syntax (1-100)")
      ("generators", po::value(&generators)->default_value(generators),
       "serial, cost-based, exact, auto (comma-separated)")
      ("arm-policy", po::value(&arm_policy)->default_value(arm_policy),
       "cost-based arm policies: first-success, best-cost, or both comma-separated")
      ("jobs,j", po::value(&jobs)->default_value(cpus), "worker threads (default: CPU count)")
      ("shard", po::value(&shard)->default_value(shard),
       "k/N: run only the k-th of N deterministic slices of the graph list (1 <= k <= N)")
      ("out,o", po::value(&out)->required(), "the CSV to write (context: OUT.json)")
      ("resume", "continue an interrupted sweep of the same parameters: rows already in "
                 "OUT(.partial) are kept, the rest are run");
  po::options_description hidden;
  po::positional_options_description positional;
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "sweep", "--out FILE.csv [options]", visible,
                                           hidden, positional, vm)) {
    return *done;
  }
  if (vm.count("preset")) {
    const sweep::Preset* p = sweep::find_preset(preset);
    if (!p) {
      return fail("sweep", Status::InvalidInput("--preset: unknown preset '" + preset + "' (" +
                                                sweep::preset_names() + ")"));
    }
    auto take = [&](const char* name, std::string& field, const char* value) {
      if (vm[name].defaulted()) field = value;
    };
    take("families", families, p->families);
    take("ops", ops, p->ops);
    take("seeds", seeds, p->seeds);
    take("generators", generators, p->generators);
    take("arm-policy", arm_policy, p->arm_policies);
  }

  sweep::SweepOptions opts;
  StatusOr<std::vector<std::string>> fams = sweep::parse_families(families);
  if (!fams.ok()) return fail("sweep", fams.status());
  opts.spec.families = *fams;
  StatusOr<std::vector<int64_t>> op_list = sweep::parse_int_list(ops, "--ops", 1, limits::kMaxOps);
  if (!op_list.ok()) return fail("sweep", op_list.status());
  for (int64_t v : *op_list) opts.spec.ops.push_back(static_cast<int>(v));
  StatusOr<std::vector<int64_t>> seed_list =
      sweep::parse_int_list(seeds, "--seeds", 0, INT64_MAX);
  if (!seed_list.ok()) return fail("sweep", seed_list.status());
  for (int64_t v : *seed_list) opts.spec.seeds.push_back(static_cast<uint64_t>(v));
  StatusOr<std::vector<sweep::GeneratorConfig>> gens =
      sweep::parse_generators(generators, arm_policy);
  if (!gens.ok()) return fail("sweep", gens.status());
  opts.spec.generators = *gens;
  StatusOr<sweep::Shard> sh = sweep::parse_shard(shard);
  if (!sh.ok()) return fail("sweep", sh.status());
  opts.spec.shard = *sh;
  if (jobs < 1 || jobs > 1024) {
    return fail("sweep", Status::InvalidInput("--jobs: " + std::to_string(jobs) +
                                              " is out of range 1..1024"));
  }
  if (out.empty()) return fail("sweep", Status::InvalidInput("--out: empty file name"));
  opts.out = out;
  opts.jobs = jobs;
  opts.resume = vm.count("resume") > 0;
  opts.progress = isatty(STDERR_FILENO) == 1;
  opts.command = "tilesched sweep";
  for (const std::string& a : args) opts.command += " " + shell_quote(a);

  StatusOr<sweep::SweepSummary> summary = sweep::run_sweep(opts);
  if (!summary.ok()) return fail("sweep", summary.status());
  std::cerr << "tilesched sweep: " << summary->rows << " rows in " << out;
  if (summary->kept > 0) std::cerr << " (" << summary->kept << " kept from the earlier run)";
  std::cerr << "\n";
  if (summary->failures > 0) {
    std::cerr << "tilesched sweep: " << summary->failures
              << " row(s) not verified (see the failure and reason columns of " << out << ")\n";
    return kExitNoSchedule;
  }
  return kExitOk;
}

}  // namespace tilesched::cli
