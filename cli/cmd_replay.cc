// `tilesched replay FILE.csv --row N | --key K`: rebuild one sweep row's
// graph, rerun its generator exactly as the sweep did (bench/sweep/row.h),
// print the schedule JSON and say whether graph hash, feasibility, II and
// stage count match the row. Exit 0 reproduced, 1 differs, 2 bad input.
#include <iostream>

#include "commands.h"
#include "sweep/csv.h"
#include "sweep/row.h"
#include "tilesched/graphgen/families.h"
#include "tilesched/json_io.h"
#include "tilesched/limits.h"

namespace po = boost::program_options;

namespace tilesched::cli {
namespace {

std::string csv_key_from_option(const std::string& text) {
  // "family,ops,seed,generator[,arm_policy]" -> the CSV's row key
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == ',') parts.emplace_back();
    else parts.back() += c;
  }
  if (parts.size() == 4) parts.emplace_back();
  if (parts.size() != 5) return {};
  return sweep::RowKey{parts[0], parts[1], parts[2], parts[3], parts[4], ""}.text();
}

// The row `--row N` or `--key K` names in `read`.
StatusOr<const sweep::ReadRow*> find_row(const sweep::ReadResult& read, const std::string& csv_path,
                                         const po::variables_map& vm, int64_t row_number,
                                         const std::string& key_text) {
  if (vm.count("row")) {
    if (row_number < 1 || static_cast<size_t>(row_number) > read.rows.size()) {
      return Status::InvalidInput(csv_path + ": --row " + std::to_string(row_number) +
                                  " is out of range 1.." + std::to_string(read.rows.size()));
    }
    return &read.rows[static_cast<size_t>(row_number - 1)];
  }
  const std::string key = csv_key_from_option(key_text);
  if (key.empty()) {
    return Status::InvalidInput("--key: '" + key_text +
                                "' is not family,ops,seed,generator[,arm_policy]");
  }
  for (const sweep::ReadRow& r : read.rows) {
    if (r.key() == key) return &r;
  }
  return Status::InvalidInput(csv_path + ": no row with key " + key_text);
}

// The graph key and generator configuration a row records.
struct RowRun {
  sweep::GraphKey key;
  sweep::GeneratorConfig config;
};

StatusOr<RowRun> row_run(const sweep::ReadRow& row, const std::string& where) {
  const std::optional<int64_t> ops = sweep::field_int(row[sweep::Col::kOps]);
  const std::optional<int64_t> seed = sweep::field_int(row[sweep::Col::kSeed]);
  const std::string& gen = row[sweep::Col::kGenerator];
  const bool foreign = is_foreign_generator(gen);
  const std::optional<GeneratorKind> kind =
      foreign ? std::optional(GeneratorKind::kSerial) : parse_generator(gen);
  if (!ops || *ops < 1 || *ops > INT32_MAX || !seed || *seed < 0 || !kind) {
    return Status::InvalidInput(where + ": bad ops, seed or generator field");
  }
  sweep::GeneratorConfig config;
  config.kind = *kind;
  if (foreign) {  // resolved as the sweep did: $TILESCHED_SCHEDULERS
    StatusOr<ForeignScheduler> f = resolve_foreign(gen);
    if (!f.ok()) return Status::InvalidInput(where + ": " + f.status().message());
    config.foreign = std::make_shared<const ForeignScheduler>(std::move(*f));
  }
  if (const std::string& p = row[sweep::Col::kArmPolicy]; !p.empty()) {
    config.arm_policy = parse_arm_policy(p);
    if (!config.arm_policy) return Status::InvalidInput(where + ": unknown arm_policy '" + p + "'");
  }
  if (const std::string& cap = row[sweep::Col::kMaxStages]; !cap.empty()) {
    const std::optional<int64_t> s = sweep::field_int(cap);
    if (!s || *s < 0 || *s > limits::kMaxMaxDepth + 1) {
      return Status::InvalidInput(where + ": bad max_stages field '" + cap + "'");
    }
    config.max_stages = *s;
  }
  return RowRun{{row[sweep::Col::kFamily], static_cast<int>(*ops), static_cast<uint64_t>(*seed)},
                config};
}

// InvalidInput for a --graphs row: its graph is a file, not a generated
// family, so replay says what it rebuilds and what to run instead.
Status check_family_row(const sweep::ReadRow& row, const std::string& where) {
  if (row[sweep::Col::kGraph].empty()) return Status::Ok();
  return Status::InvalidInput(where + ": a --graphs row (" + row[sweep::Col::kFamily] +
                              " graph '" + row[sweep::Col::kGraph] +
                              "'): replay rebuilds only the rows of a generated family "
                              "(tilesched generate --list); run tilesched schedule --generator " +
                              row[sweep::Col::kGenerator] +
                              " on that file (a GraphML one after tilesched import --from "
                              "hatschet)");
}

// "col old -> new; ..." for every column of `now` that differs from the
// recorded `row`, but the timing columns and optimal_ii / proven (those
// come from the graph's exact row, not from this one).
StatusOr<std::string> row_differences(const sweep::ReadRow& row, const sweep::SweepRow& now_row,
                                      sweep::ReadResult& again) {
  std::string line = sweep::format_row(now_row);
  line.pop_back();
  StatusOr<sweep::ReadResult> r =
      sweep::parse_sweep_csv(sweep::header_text() + line + "\n", "<replay>");
  if (!r.ok()) return r.status();
  again = std::move(r).value();
  const sweep::ReadRow& now = again.rows.front();
  std::string diffs;
  for (size_t c = 0; c < sweep::kFixedColumnCount; ++c) {
    const auto col = static_cast<sweep::Col>(c);
    if (sweep::is_timing_column(col)) continue;
    if (col == sweep::Col::kOptimalIi || col == sweep::Col::kProven ||
        col == sweep::Col::kStagesProven) {
      continue;
    }
    if (now.fields[c] != row.fields[c]) {
      diffs += std::string(diffs.empty() ? "" : "; ") + std::string(sweep::column_name(col)) +
               " " + row.fields[c] + " -> " + now.fields[c];
    }
  }
  return diffs;
}

// Prints whether the replayed row reproduced the recorded one; the exit
// status: 0 reproduced, 1 it differs.
int report(const sweep::ReadRow& row, const std::string& where, const sweep::SweepRow& now_row,
           bool quiet_run) {
  sweep::ReadResult again;
  StatusOr<std::string> diffs = row_differences(row, now_row, again);
  if (!diffs.ok()) return fail("replay", diffs.status());
  const sweep::ReadRow& now = again.rows.front();
  if (diffs->empty()) {
    if (quiet_run) return kExitOk;
    std::cerr << "tilesched replay: " << where << " (" << row.key() << "): ";
    std::cerr << "reproduced (ii " << now[sweep::Col::kIi] << ", stage_count "
              << now[sweep::Col::kStageCount] << ", verified " << now[sweep::Col::kVerified]
              << ")\n";
    return kExitOk;
  }
  std::cerr << "tilesched replay: " << where << " (" << row.key() << "): differs: " << *diffs
            << "\n";
  return kExitNoSchedule;
}

}  // namespace

int run_replay(const Args& args) {
  std::string csv_path, key_text;
  int64_t row_number = 0;
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("row", po::value(&row_number), "the N-th data row (1 = the first row after the header)")
      ("key", po::value(&key_text),
       "the row with this key: family,ops,seed,generator[,arm_policy]")
      ("graph-out", po::value<std::string>()->value_name("FILE"),
       "also write the regenerated graph JSON to FILE");
  add_output_option(visible, "the schedule JSON");
  add_quiet_option(visible);
  po::options_description hidden;
  hidden.add_options()("csv", po::value(&csv_path)->value_name("FILE.csv")->required(),
                       "sweep CSV");
  po::positional_options_description positional;
  positional.add("csv", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "replay", "FILE.csv (--row N | --key K) [options]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  if (vm.count("row") == vm.count("key")) {
    return fail("replay", Status::InvalidInput("give exactly one of --row N and --key K"));
  }
  StatusOr<sweep::ReadResult> read = sweep::read_sweep_csv(csv_path);
  if (!read.ok()) return fail("replay", read.status());
  StatusOr<const sweep::ReadRow*> found = find_row(*read, csv_path, vm, row_number, key_text);
  if (!found.ok()) return fail("replay", found.status());
  const sweep::ReadRow& row = **found;
  const std::string where = csv_path + ": line " + std::to_string(row.line_number);
  StatusOr<RowRun> recorded = row_run(row, where);
  if (!recorded.ok()) return fail("replay", recorded.status());
  const sweep::GraphKey& key = recorded->key;
  if (Status s = check_family_row(row, where); !s.ok()) return fail("replay", s);
  StatusOr<Graph> g = graphgen::generate(key.family, key.ops, key.seed, {});
  if (!g.ok()) return fail("replay", Status::InvalidInput(where + ": " + g.status().message()));
  if (vm.count("graph-out")) {
    if (Status s = write_file_atomic(vm["graph-out"].as<std::string>(), write_graph_json(*g));
        !s.ok()) {
      return fail("replay", s);
    }
  }
  const sweep::ConfigRun run = sweep::run_config(*g, key, recorded->config);
  if (run.schedule) {
    if (Status s = emit(output_path(vm), write_schedule_json(*g, *run.schedule)); !s.ok()) {
      return fail("replay", s);
    }
  }
  return report(row, where, run.row, quiet(vm));
}

}  // namespace tilesched::cli
