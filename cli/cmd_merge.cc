// `tilesched merge OUT.csv SHARD.csv...`: the shards of one sweep joined
// into the file a single run would have written, or exit 2 and one line
// when they are not the shards of one sweep (bench/sweep/merge.h has the
// rules; docs/SWEEP.md the recipes).
#include <iostream>

#include "commands.h"
#include "sweep/merge.h"

namespace po = boost::program_options;

namespace tilesched::cli {

int run_merge(const Args& args) {
  std::string out;
  std::vector<std::string> shards;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("quiet,q", "no summary line on stderr");
  po::options_description hidden;
  hidden.add_options()
      ("out", po::value(&out)->required(), "the merged CSV")
      ("shard", po::value(&shards)->required(), "the shards' CSVs");
  po::positional_options_description positional;
  positional.add("out", 1).add("shard", -1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "merge", "OUT.csv SHARD.csv... [options]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  std::string command = "tilesched merge";
  for (const std::string& a : args) command += " " + a;
  StatusOr<sweep::MergeSummary> summary = sweep::merge_shards(out, shards, command);
  if (!summary.ok()) return fail("merge", summary.status());
  if (!vm.count("quiet")) {
    std::cerr << "tilesched merge: " << summary->rows << " rows from " << shards.size()
              << " shard(s) in " << out << "\n";
  }
  // Listed whether or not --quiet: a Slurm merge job's log is where they are read.
  if (summary->failures > 0) {
    std::cerr << "tilesched merge: " << summary->failures << " row(s) not verified (the failure "
              << "and reason columns of " << out << ")"
              << (summary->failures > summary->failed_rows.size() ? "; the first:\n" : ":\n");
    for (const std::string& row : summary->failed_rows) std::cerr << "  " << row << "\n";
  }
  return kExitOk;
}

}  // namespace tilesched::cli
