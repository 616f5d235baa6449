// Shared command-line plumbing: option parsing with one-line usage errors,
// the options every command shares (--quiet, -o/--output), error
// reporting, inputs from a file or standard input, output to stdout or a
// file.
#include "commands.h"

#include <algorithm>
#include <cctype>
#include <iostream>

#include "option_rules.h"
#include "tilesched/hopper.h"
#include "tilesched/json_io.h"
#include "tilesched/verify.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

// The user-facing name of positional option `key` ("GRAPH"), or "" when
// `key` is not a positional option.
std::string positional_name(const std::string& key, const po::options_description& all,
                            const po::positional_options_description& positional) {
  const unsigned count = std::min(positional.max_total_count(), 64u);
  bool is_positional = false;
  for (unsigned i = 0; i < count; ++i) is_positional |= positional.name_for_position(i) == key;
  if (!is_positional) return "";
  const po::option_description* option = all.find_nothrow(key, false);
  std::string name = option ? option->semantic()->name() : "";
  if (name.empty() || name == "arg") {
    name = key;
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return name;
}

}  // namespace

std::optional<int> parse_args(const Args& args, std::string_view command,
                              std::string_view synopsis, const po::options_description& visible,
                              const po::options_description& hidden,
                              const po::positional_options_description& positional,
                              po::variables_map& vm) {
  po::options_description all;
  all.add(visible).add(hidden);
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: tilesched " << command << " " << synopsis << "\n\n" << visible
                << option_rules_help(command);
      return kExitOk;
    }
    po::notify(vm);
  } catch (const po::required_option& e) {
    std::string key = e.get_option_name();
    key.erase(0, key.find_first_not_of('-'));
    const std::string name = positional_name(key, all, positional);
    std::cerr << "tilesched " << command << ": "
              << (name.empty() ? std::string(e.what()) : "missing the " + name + " argument")
              << " (see tilesched " << command << " --help)\n";
    return kExitBadInput;
  } catch (const po::error& e) {
    std::cerr << "tilesched " << command << ": " << e.what() << " (see tilesched " << command
              << " --help)\n";
    return kExitBadInput;
  }
  return std::nullopt;
}

void add_quiet_option(po::options_description& options) {
  options.add_options()("quiet,q", "print no informational lines on stderr (errors still are)");
}

bool quiet(const po::variables_map& vm) { return vm.count("quiet") > 0; }

void add_output_option(po::options_description& options, std::string_view what) {
  options.add_options()("output,o", po::value<std::string>()->value_name("FILE"),
                        ("write " + std::string(what) +
                         " to FILE instead of standard output (- is standard output)")
                            .c_str());
}

std::optional<std::string> output_path(const po::variables_map& vm) {
  if (!vm.count("output")) return std::nullopt;
  return vm["output"].as<std::string>();
}

int fail(std::string_view command, const Status& status) {
  std::cerr << "tilesched " << command << ": " << status.message() << "\n";
  return status.exit_code();
}

Status emit(const std::optional<std::string>& path, std::string_view text) {
  if (!path || *path == kStdio) {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) return Status::IoError("cannot write to standard output");
    return Status::Ok();
  }
  return write_file_atomic(*path, text);
}

std::string ii_with_unit(const Graph& g, int64_t ii) {
  if (g.target.name != "hopper") return std::to_string(ii) + " cycles";
  return std::to_string(ii) + " units (" + std::to_string(ii * hopper::kCyclesPerUnit) +
         " SM cycles)";
}

std::string input_name(const std::string& path) {
  return path == kStdio ? std::string(kStdinName) : path;
}

StatusOr<Graph> read_graph_input(const std::string& path) {
  if (path != kStdio) return read_graph_file(path);
  StatusOr<std::string> text = read_standard_input();
  if (!text.ok()) return text.status();
  return parse_graph_json(*text, kStdinName);
}

StatusOr<Schedule> read_schedule_input(const std::string& path, const Graph& g) {
  if (path != kStdio) return read_schedule_file(path, g);
  StatusOr<std::string> text = read_standard_input();
  if (!text.ok()) return text.status();
  return parse_schedule_json(*text, kStdinName, g);
}

StatusOr<Schedule> read_stage_assignment_input(const std::string& path, const Graph& g) {
  StatusOr<Schedule> s = read_schedule_input(path, g);
  if (!s.ok() || !s->feasible) return s;
  for (const Violation& v : verify_schedule(g, *s).violations) {
    if (v.rule != Rule::kShape && v.rule != Rule::kGroups && v.rule != Rule::kMaxDepth) continue;
    return Status::InvalidInput(input_name(path) +
                                ": the stage assignment breaks the rules of graph '" + g.name +
                                "' (" + std::string(rule_name(v.rule)) + ": " + v.message +
                                "); tilesched verify lists every violation");
  }
  return s;
}

}  // namespace tilesched::cli
