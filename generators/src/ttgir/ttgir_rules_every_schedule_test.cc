// Triton's rules as constraints, on every loop at hand (docs/TTGIR.md,
// "Triton's rules as constraints"): every generator's schedule (serial,
// cost-based with both arm policies, cost-based-seed, ims, sms, exact with
// a short time limit, auto), uncapped and at every cap from 1 to the stage
// bound, of every shared configuration (TILESCHED_KERNELS_DIR; without it,
// the committed scheduled dumps) and of every loop of the test shapes:
// imported with the rules, the export takes it (0 refusals); imported
// without them, the export refuses exactly the schedules
// testdata/ttgir/export_refusals_without_rules.tsv lists (those the binary
// before the rules refused, written by scripts/triton_rules_check.py), but for
// the oracle's, which depend on how far it gets in its time limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tilesched/generate.h"
#include "tilesched/triton_export.h"
#include "tilesched/graphgen/ttgir_import.h"
#include "tilesched/json_io.h"

namespace tilesched::graphgen {
namespace {

namespace fs = std::filesystem;

const std::string kTestdata = std::string(TILESCHED_GEN_TESTDATA) + "/ttgir";
const std::string kKernelsDir = TILESCHED_KERNELS_DIR;

struct Input {
  std::string name;  // the file's name to its first '.', "/loopN" for a shape's loop
  std::string path;
  int loop = 0;
};

std::vector<std::string> sorted_files(const std::string& dir, std::string_view suffix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > suffix.size() && name.ends_with(suffix)) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Input> inputs() {
  std::vector<Input> out;
  std::vector<std::string> configs = sorted_files(kKernelsDir, ".triton-scheduled.ttgir");
  if (configs.empty()) configs = sorted_files(kTestdata, ".triton-scheduled.ttgir");
  for (const std::string& p : configs) {
    const std::string file = fs::path(p).filename().string();
    out.push_back({file.substr(0, file.find('.')), p, 0});
  }
  for (const std::string& p : sorted_files(kTestdata + "/shapes", ".ttgir")) {
    StatusOr<std::string> text = read_file(p);
    StatusOr<std::vector<TtgirLoop>> loops = text.ok() ? list_ttgir_loops(*text, p)
                                                       : StatusOr<std::vector<TtgirLoop>>(text.status());
    if (!loops.ok()) continue;  // the shapes' own tests report it
    for (const TtgirLoop& l : *loops) {
      if (l.innermost) {
        out.push_back({fs::path(p).stem().string() + "/loop" + std::to_string(l.index), p, l.index});
      }
    }
  }
  return out;
}

struct Variant {
  std::string label;  // as the expected file names it
  GenerateOptions options;
};

std::vector<Variant> variants() {
  std::vector<Variant> out;
  for (const char* name : {"serial", "cost-based", "cost-based+best-cost", "cost-based-seed", "ims",
                           "sms", "exact", "auto"}) {
    Variant v{name, {}};
    const std::string_view label = name;
    v.options.generator = *parse_generator(label.substr(0, label.find('+')));
    if (label.ends_with("+best-cost")) v.options.cost_based.arm_policy = ArmPolicy::kBestCost;
    v.options.exact.time_limit_ms = 100;
    out.push_back(v);
  }
  return out;
}

// What the export says of a schedule: "" when it takes it, else the
// rule that refuses it (buffer, order, whole-op) or the message.
std::string export_outcome(const Graph& g, const Schedule& s) {
  StatusOr<TritonSchedule> t = triton_schedule_from(g, s);
  Status st = t.ok() ? check_triton_lowering(g, *t, true) : t.status();
  if (st.ok()) return "";
  const std::string& m = st.message();
  if (m.find("a buffer must be read in the stage that writes it") != std::string::npos) return "buffer";
  if (m.find("refuses an op scheduled before its operands") != std::string::npos) return "order";
  if (m.find("places a whole op in one stage") != std::string::npos) return "whole-op";
  return m;
}

// A variant's schedules: uncapped, then under caps 1..bound. Where auto
// chooses cost-based (its uncapped schedule says so, and is cost-based's),
// its capped schedules are cost-based's under the same caps (`cost_based`):
// auto runs the cost-based generator under each cap (generate.h).
StatusOr<std::vector<Schedule>> schedules_of(const Graph& g, const Variant& v, int64_t bound,
                                             const std::vector<Schedule>& cost_based) {
  StatusOr<Schedule> uncapped = generate_schedule(g, v.options);
  if (!uncapped.ok()) return uncapped.status();
  std::vector<Schedule> all = {std::move(*uncapped)};
  if (v.label == "auto" && all[0].generator == "cost-based" && !cost_based.empty()) {
    EXPECT_EQ(all[0].start, cost_based[0].start) << g.name << ": auto is not cost-based";
    all.insert(all.end(), cost_based.begin() + 1, cost_based.end());
    return all;
  }
  StatusOr<std::vector<Schedule>> capped = generate_schedules_per_stage_cap(g, v.options, bound);
  if (!capped.ok()) return capped.status();
  for (Schedule& s : *capped) all.push_back(std::move(s));
  return all;
}

// Every variant's schedule, uncapped and under caps 1..bound: "WHERE\tOUTCOME"
// per schedule the export refuses; ADD_FAILURE for a generator error.
std::set<std::string> refusals(const Input& in, const Graph& g, int64_t bound, bool with_exact) {
  std::set<std::string> out;
  std::vector<Schedule> cost_based;
  for (const Variant& v : variants()) {
    if (v.label == "exact" && !with_exact) continue;
    StatusOr<std::vector<Schedule>> all = schedules_of(g, v, bound, cost_based);
    if (!all.ok()) {
      ADD_FAILURE() << in.name << " " << v.label << ": " << all.status().message();
      continue;
    }
    if (v.label == "cost-based") cost_based = *all;
    for (size_t cap = 0; cap < all->size(); ++cap) {
      const std::string where = in.name + " " + v.label + " cap=" + (cap ? std::to_string(cap) : "-");
      if (!(*all)[cap].feasible) {
        ADD_FAILURE() << where << ": no schedule";
        continue;
      }
      if (std::string why = export_outcome(g, (*all)[cap]); !why.empty()) out.insert(where + "\t" + why);
    }
  }
  return out;
}

// The expected file's lines for `name`, the oracle's left out.
std::set<std::string> expected_for(const std::string& name) {
  StatusOr<std::string> text = read_file(kTestdata + "/export_refusals_without_rules.tsv");
  EXPECT_TRUE(text.ok()) << text.status().message();
  std::set<std::string> out;
  std::istringstream lines(text.ok() ? *text : "");
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(name + " ") && line.find(" exact cap=") == std::string::npos) {
      out.insert(line);
    }
  }
  return out;
}

TEST(TritonRules, TheSharedKernelsAreAtHand) {
  if (sorted_files(kKernelsDir, ".triton-scheduled.ttgir").empty()) {
    GTEST_SKIP() << "no shared kernels at " << kKernelsDir
                 << " (TILESCHED_KERNELS_DIR): EveryScheduleExports runs on the committed dumps";
  }
}

class EveryScheduleExports : public testing::TestWithParam<Input> {};

TEST_P(EveryScheduleExports, WithTheRulesAndWithoutThemRefusesWhatItRefusedBefore) {
  const Input& in = GetParam();
  for (const bool rules : {true, false}) {
    TtgirOptions options;
    options.loop = in.loop;
    options.triton_rules = rules;
    StatusOr<TtgirImport> imported = import_ttgir(in.path, options);
    ASSERT_TRUE(imported.ok()) << imported.status().message();
    const int64_t bound = imported->stage_bound ? imported->stage_bound->stages : 8;
    const std::set<std::string> refused = refusals(in, imported->graph, bound, rules);
    if (rules) {
      for (const std::string& r : refused) ADD_FAILURE() << "refused with the rules: " << r;
      continue;
    }
    const std::set<std::string> want = expected_for(in.name);
    for (const std::string& r : refused) {
      EXPECT_TRUE(want.count(r)) << "refused without the rules, not before: " << r;
    }
    for (const std::string& r : want) {
      EXPECT_TRUE(refused.count(r)) << "refused before, not without the rules: " << r;
    }
  }
}

std::string test_name(const testing::TestParamInfo<Input>& info) {
  std::string out = info.param.name;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(TritonRules, EveryScheduleExports, testing::ValuesIn(inputs()), test_name);

}  // namespace
}  // namespace tilesched::graphgen
