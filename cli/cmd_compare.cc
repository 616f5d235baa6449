// `tilesched compare BASE.csv NEW.csv`: the regression gate over two sweep
// CSVs (bench/sweep/compare.h has the rules). Writes a summary per
// generator and family as text, Markdown or JSON (standard output, or
// -o/--output FILE); exit 1 when NEW regresses, 0 when not, 2 on bad usage
// or a malformed file.
#include <sstream>

#include "commands.h"
#include "sweep/compare.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

struct CompareArgs {
  std::string base_path, new_path;
  sweep::CompareOptions opts;
  bool quiet = false;
  std::optional<std::string> output;
};

// The command line into `out`; an exit status when there is nothing more to
// do (--help, bad usage).
std::optional<int> parse_compare(const Args& args, CompareArgs& out) {
  sweep::CompareOptions& opts = out.opts;
  double fail_ratio = 0, floor_us = 50;
  std::string format = "text";
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("format", po::value(&format)->default_value(format),
       "text, markdown (a CI job summary) or json (every regression listed)")
      ("quiet,q", "text: only the regressions and the result line")
      ("time-warn-ratio", po::value(&opts.time_warn_ratio)->default_value(1.5),
       "warn when a group's median generator time grows by more than this factor")
      ("time-fail-ratio", po::value(&fail_ratio)->default_value(0),
       "fail (exit 1) when it grows by more than this factor; 0 = timing never fails "
       "(the default: shared machines are noisy)")
      ("time-floor-us", po::value(&floor_us)->default_value(50),
       "groups whose base median time is below this many microseconds are not timed")
      ("allow-graph-changes", "rows whose graph_hash differs are skipped with a warning "
                              "instead of failing")
      ("allow-missing", "scheduled-and-verified BASE rows missing from NEW are a warning "
                        "instead of a regression (a preset deliberately shrunk)");
  add_output_option(visible, "the report");
  po::options_description hidden;
  hidden.add_options()
      ("base", po::value(&out.base_path)->required(), "baseline CSV")
      ("new", po::value(&out.new_path)->required(), "new CSV");
  po::positional_options_description positional;
  positional.add("base", 1).add("new", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "compare", "BASE.csv NEW.csv [options]", visible,
                                           hidden, positional, vm)) {
    return done;
  }
  if (fail_ratio < 0 || opts.time_warn_ratio <= 0 || floor_us < 0) {
    return fail("compare", Status::InvalidInput(
                               "--time-warn-ratio must be > 0, --time-fail-ratio and "
                               "--time-floor-us >= 0"));
  }
  if (format == "text") opts.format = sweep::CompareFormat::kText;
  else if (format == "markdown") opts.format = sweep::CompareFormat::kMarkdown;
  else if (format == "json") opts.format = sweep::CompareFormat::kJson;
  else {
    return fail("compare", Status::InvalidInput("--format: unknown format '" + format +
                                                "' (text, markdown, json)"));
  }
  if (fail_ratio > 0) opts.time_fail_ratio = fail_ratio;
  opts.time_floor_ns = static_cast<int64_t>(floor_us * 1000);
  opts.allow_graph_changes = vm.count("allow-graph-changes") > 0;
  opts.allow_missing = vm.count("allow-missing") > 0;
  out.quiet = vm.count("quiet") > 0 && opts.format == sweep::CompareFormat::kText;
  out.output = output_path(vm);
  return std::nullopt;
}

// The report, or with `quiet` only its regression and result lines.
std::string report_text(const std::string& text, bool quiet) {
  if (!quiet) return text;
  std::istringstream lines(text);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("REGRESSION: ", 0) == 0 || line.rfind("... and ", 0) == 0 ||
        line.rfind("result: ", 0) == 0) {
      out += line + "\n";
    }
  }
  return out;
}

}  // namespace

int run_compare(const Args& args) {
  CompareArgs c;
  if (std::optional<int> done = parse_compare(args, c)) return *done;
  StatusOr<sweep::ReadResult> base = sweep::read_sweep_csv(c.base_path);
  if (!base.ok()) return fail("compare", base.status());
  StatusOr<sweep::ReadResult> now = sweep::read_sweep_csv(c.new_path);
  if (!now.ok()) return fail("compare", now.status());
  StatusOr<sweep::CompareReport> report =
      sweep::compare_sweeps(*base, c.base_path, *now, c.new_path, c.opts);
  if (!report.ok()) return fail("compare", report.status());
  if (Status s = emit(c.output, report_text(report->text, c.quiet)); !s.ok()) {
    return fail("compare", s);
  }
  return report->regressed ? kExitNoSchedule : kExitOk;
}

}  // namespace tilesched::cli
