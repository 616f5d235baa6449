// `tilesched schedule GRAPH --generator ext:NAME | plugin:PATH`: a foreign
// scheduler's schedule of one graph (tilesched/foreign.h, docs/PLUGINS.md).
#pragma once

#include <cstdint>
#include <string>

#include <boost/program_options.hpp>

namespace tilesched::cli {

struct ForeignScheduleArgs {
  std::string graph_path, generator, emit_kind;
  int64_t max_stages = 0;
  int64_t ii_cap = 0;
};

// Exit 0 with the schedule written; 1 when the scheduler says there is no
// schedule; 2, with one line, for bad usage or input, an option the foreign
// scheduler does not read, and every failure of the scheduler (its kind:
// foreign-timeout, ..., or illegal with the verifier's reason).
int run_foreign_schedule(const boost::program_options::variables_map& vm,
                         const ForeignScheduleArgs& args);

}  // namespace tilesched::cli
