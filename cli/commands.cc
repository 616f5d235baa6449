// Shared command-line plumbing: option parsing with one-line usage errors,
// error reporting, output to stdout or an atomically written file.
#include "commands.h"

#include <iostream>

#include "tilesched/json_io.h"

namespace po = boost::program_options;

namespace tilesched::cli {

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
      std::cout << "usage: tilesched " << command << " " << synopsis << "\n\n" << visible;
      return kExitOk;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "tilesched " << command << ": " << e.what() << " (see tilesched " << command
              << " --help)\n";
    return kExitBadInput;
  }
  return std::nullopt;
}

int fail(std::string_view command, const Status& status) {
  std::cerr << "tilesched " << command << ": " << status.message() << "\n";
  return status.exit_code();
}

Status emit(const std::optional<std::string>& path, std::string_view text) {
  if (!path) {
    std::cout << text;
    std::cout.flush();
    if (!std::cout) return Status::IoError("cannot write to standard output");
    return Status::Ok();
  }
  return write_file_atomic(*path, text);
}

}  // namespace tilesched::cli
