// Which command reads which option, and when: the one table (option_rules.cc)
// that both `--help` and the refusals read. An option is refused (exit 2,
// one line) when given explicitly where nothing reads it: with a generator
// that does not read it (`schedule -g ims --effort fast`), without the
// option it works with (`predict --persistent` without `--grid`), or with
// one that makes it meaningless (`import --list --loop 0`). Options every
// use of a command reads are not in the table.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <boost/program_options.hpp>

#include "tilesched/generate.h"
#include "tilesched/status.h"

namespace tilesched::cli {

// The rules of `command`, as lines for the end of its --help ("" when it
// has none).
std::string option_rules_help(std::string_view command);

// InvalidInput naming the first option `vm` gives explicitly that breaks a
// rule of `command`. `generators` are the generators the command runs
// (none for a command that runs no generator): an option some generators
// read must be read by at least one of them.
Status check_option_rules(std::string_view command, const boost::program_options::variables_map& vm,
                          std::span<const GeneratorKind> generators = {});

}  // namespace tilesched::cli
