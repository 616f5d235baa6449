// Subcommands of the tilesched command line and the helpers they share.
// Each subcommand parses its own options (Boost.Program_options) and
// returns the process exit status of docs/CONTRACT.md: 0 done, 1 no legal
// schedule (or an illegal one), 2 bad usage or bad input.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNoSchedule = 1;
inline constexpr int kExitBadInput = 2;

using Args = std::vector<std::string>;  // the arguments after the subcommand

int run_schedule(const Args& args);
int run_verify(const Args& args);
int run_generate(const Args& args);
int run_import(const Args& args);
int run_sweep(const Args& args);
int run_compare(const Args& args);
int run_merge(const Args& args);
int run_replay(const Args& args);
int run_export(const Args& args);
int run_explain(const Args& args);
int run_stages(const Args& args);
int run_predict(const Args& args);
int run_candidates(const Args& args);

// Parses `args` against `visible` plus positional `positional`. On a usage
// error prints one line and returns kExitBadInput; on --help prints usage
// and returns kExitOk; otherwise returns nullopt with `vm` filled. A
// missing positional argument is named by its value_name ("GRAPH"), else
// by its option name in capitals: "missing the GRAPH argument".
std::optional<int> parse_args(const Args& args, std::string_view command,
                              std::string_view synopsis,
                              const boost::program_options::options_description& visible,
                              const boost::program_options::options_description& hidden,
                              const boost::program_options::positional_options_description& positional,
                              boost::program_options::variables_map& vm);

// Options every command spells the same way.
//   --quiet/-q: no informational lines on stderr (progress, "reproduced");
//     errors and the reason for a non-zero exit are still printed.
//   -o/--output FILE: where the command's main output goes, written by
//     emit(); "-" or no option is standard output.
void add_quiet_option(boost::program_options::options_description& options);
bool quiet(const boost::program_options::variables_map& vm);
void add_output_option(boost::program_options::options_description& options, std::string_view what);
std::optional<std::string> output_path(const boost::program_options::variables_map& vm);

// Prints "tilesched COMMAND: message" on one line to stderr and returns the
// exit status for the status.
int fail(std::string_view command, const Status& status);

// Writes `text` to stdout when `path` is absent or "-", else to `path`
// through write_file_atomic (a regular file replaced atomically, a link
// written through, a FIFO or device written in place).
Status emit(const std::optional<std::string>& path, std::string_view text);

// An II (or an MII) with its unit, the same in every command's text:
// cycles of the target's clock ("32 cycles"), or on the hopper target
// units of 16 SM cycles with the SM cycles beside them ("58 units (928 SM
// cycles)", tilesched/hopper.h).
std::string ii_with_unit(const Graph& g, int64_t ii);

// Input files: "-" reads standard input, named "<stdin>" in messages.
inline constexpr std::string_view kStdio = "-";
std::string input_name(const std::string& path);
StatusOr<Graph> read_graph_input(const std::string& path);
StatusOr<Schedule> read_schedule_input(const std::string& path, const Graph& g);
// The same for the commands that read a schedule as a stage assignment
// (predict, export --to triton): refused (InvalidInput naming the file,
// the rule and the first violation) when a feasible schedule breaks a rule
// its stages decide: its shape, L5 (a group in one stage) or L6 (each op
// within its max_depth). The rules on start cycles inside a stage (L1-L4,
// L7) are left to `tilesched verify`: these commands do not read them, and
// a hand-written assignment (start = stage x II) need not keep them. An
// infeasible schedule is returned as read.
StatusOr<Schedule> read_stage_assignment_input(const std::string& path, const Graph& g);

}  // namespace tilesched::cli
