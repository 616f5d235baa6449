// The table of which command and generator reads which option
// (option_rules.h), and the two readers of it: --help and the refusals.
#include "option_rules.h"

#include <algorithm>
#include <vector>

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

using K = GeneratorKind;

// One option of some commands. `readers`: the generators that read it
// (empty: it does not depend on the generator). `needs`: an option without
// which nothing reads it. `not_with`: an option with which nothing reads it.
struct OptionRule {
  std::vector<std::string_view> commands;
  std::string_view option;
  std::vector<GeneratorKind> readers;
  std::string_view needs = "";
  std::string_view not_with = "";
};

const std::vector<std::string_view> kGenerating = {"schedule", "stages", "candidates"};
const std::vector<GeneratorKind> kCostBasedFamily = {K::kAuto, K::kCostBased, K::kCostBasedSeed};
const std::vector<GeneratorKind> kCostBasedOnly = {K::kAuto, K::kCostBased};

const std::vector<OptionRule>& rules() {
  static const std::vector<OptionRule> table = {
      // The generators' own options (tilesched schedule --help describes each).
      {{"schedule"}, "arm-policy", kCostBasedFamily},
      {{"schedule"}, "ii-search", kCostBasedFamily},
      {{"schedule"}, "seed", kCostBasedFamily},
      {{"schedule"}, "max-constraint-iterations", kCostBasedFamily},
      // cost-based-seed is the design as the seeds write it: no budget.
      {{"schedule", "stages", "candidates", "sweep"}, "effort", kCostBasedOnly},
      {{"sweep"}, "arm-policy", kCostBasedFamily},
      {{"schedule"}, "backtrack-budget-ratio", kCostBasedOnly},
      {{"schedule"}, "descent-budget-ratio", kCostBasedOnly},
      {{"schedule"}, "policy-fallback", kCostBasedOnly},
      {{"schedule"}, "ii-cap", {K::kAuto, K::kCostBased, K::kCostBasedSeed, K::kIms, K::kSms}},
      {{"schedule"}, "packing-repair", {K::kAuto, K::kCostBased, K::kIms, K::kSms}},
      {{"schedule"}, "serial-threshold", {K::kAuto}},
      {{"schedule"}, "ims-budget-ratio", {K::kIms}},
      {kGenerating, "time-limit", {K::kExact}},
      {{"schedule"}, "exact-backend", {K::kExact}},
      {{"schedule"}, "sat-encoding", {K::kExact}},
      {{"schedule"}, "exact-start-sum", {K::kExact}},
      // Options that only work with another, or not with another.
      {{"stages", "predict"}, "persistent", {}, "grid"},
      {{"export"}, "skip-buffer-rule", {}, "to"},
      {{"export"}, "own", {}, "to"},
      {{"import"}, "loop", {}, "", "list"},
      {{"import"}, "strict", {}, "", "list"},
      {{"import"}, "no-smem-bound", {}, "", "list"},
      {{"import"}, "no-triton-rules", {}, "", "list"},
      {{"explain"}, "generator", {}, "", "schedule"},
      {{"sweep"}, "resume", {}, "", "estimate"},
      {{"sweep"}, "output", {}, "", "estimate"},
  };
  return table;
}

bool applies(const OptionRule& r, std::string_view command) {
  return std::find(r.commands.begin(), r.commands.end(), command) != r.commands.end();
}

bool given(const po::variables_map& vm, std::string_view name) {
  const std::string key(name);
  return vm.count(key) > 0 && !vm[key].defaulted();
}

// "--list", or for a positional argument its name: "SCHEDULE".
std::string flag_name(std::string_view option) {
  if (option == "schedule") return "a SCHEDULE";
  return "--" + std::string(option);
}

std::string reader_names(const OptionRule& r) {
  std::string out;
  for (const GeneratorKind k : r.readers) {
    out += (out.empty() ? "" : ", ") + std::string(generator_name(k));
  }
  return out;
}

std::string generator_list(std::span<const GeneratorKind> generators) {
  std::string out;
  for (const GeneratorKind k : generators) {
    out += (out.empty() ? "" : ",") + std::string(generator_name(k));
  }
  return out;
}

}  // namespace

std::string option_rules_help(std::string_view command) {
  std::string out;
  for (const OptionRule& r : rules()) {
    if (!applies(r, command)) continue;
    out += "  --" + std::string(r.option) + ": ";
    if (!r.readers.empty()) out += "read by --generator " + reader_names(r) + " only";
    if (!r.needs.empty()) out += "only with --" + std::string(r.needs);
    if (!r.not_with.empty()) out += "not with " + flag_name(r.not_with);
    out += "\n";
  }
  if (out.empty()) return out;
  return "\nwhich options are read when (any other use is refused):\n" + out;
}

Status check_option_rules(std::string_view command, const po::variables_map& vm,
                          std::span<const GeneratorKind> generators) {
  for (const OptionRule& r : rules()) {
    if (!applies(r, command) || !given(vm, r.option)) continue;
    const std::string flag = "--" + std::string(r.option);
    if (!r.readers.empty()) {
      const bool read = std::any_of(generators.begin(), generators.end(), [&](GeneratorKind k) {
        return std::find(r.readers.begin(), r.readers.end(), k) != r.readers.end();
      });
      if (!read) {
        return Status::InvalidInput(flag + " applies to --generator " + reader_names(r) +
                                    " only, not " + generator_list(generators));
      }
    }
    if (!r.needs.empty() && !given(vm, r.needs)) {
      return Status::InvalidInput(flag + " only works with --" + std::string(r.needs) +
                                  ": without it nothing reads " + flag);
    }
    if (!r.not_with.empty() && given(vm, r.not_with)) {
      return Status::InvalidInput(flag + " does nothing with " + flag_name(r.not_with) +
                                  ": give one or the other");
    }
  }
  return Status::Ok();
}

}  // namespace tilesched::cli
