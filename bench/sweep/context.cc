// The sweep's context file and resume signature (context.h).
#include "sweep/context.h"

#include <array>
#include <sched.h>
#include <unistd.h>
#include <z3.h>

#include <cadical.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "sweep/csv.h"
#include "sweep/row.h"
#include "tilesched/version.h"

#ifndef TILESCHED_BUILD_TYPE
#define TILESCHED_BUILD_TYPE "unknown"
#endif
#ifndef TILESCHED_CXX_FLAGS
#define TILESCHED_CXX_FLAGS "unknown"
#endif
#ifndef TILESCHED_CXX_COMPILER_ID
#define TILESCHED_CXX_COMPILER_ID "unknown"
#endif
#ifndef TILESCHED_CXX_COMPILER_VERSION
#define TILESCHED_CXX_COMPILER_VERSION "unknown"
#endif

namespace tilesched::sweep {
namespace {

std::string compiler() {
#if defined(__clang__)
  std::string s = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  std::string s = std::string("gcc ") + __VERSION__;
#else
  std::string s = "unknown";
#endif
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

// The Z3 library the process runs with (the exact oracle's), not the one
// it was compiled against.
std::string z3_version() { return Z3_get_full_version(); }

// CaDiCaL's version (the oracle's default SAT backend), linked statically.
std::string cadical_version() { return CaDiCaL::Solver::version(); }

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

nlohmann::json sweep_signature(const SweepSpec& spec) {
  nlohmann::json gens = nlohmann::json::array();
  for (const GeneratorConfig& g : spec.generators) {
    nlohmann::json entry = {{"generator", g.name()}, {"arm_policy", g.arm_policy_text()}};
    if (g.max_stages > 0) entry["max_stages"] = g.max_stages;
    if (g.effort != Effort::kDefault) entry["effort"] = std::string(effort_name(g.effort));
    if (g.foreign) entry["version"] = g.foreign->version;  // a new version: a new sweep
    gens.push_back(entry);
  }
  nlohmann::json sig = {
      {"csv_format", std::string(kCsvFormat)},
      {"columns", sweep_columns()},
      {"generators", gens},
      {"shard", spec.shard.text()},
      {"engine_version", std::string(engine_version())},
      {"engine_git_sha", std::string(engine_git_sha())},
  };
  if (spec.files.empty()) {
    sig["families"] = spec.families;
    sig["ops"] = spec.ops;
    sig["seeds"] = spec.seeds;
  } else {
    // Each file's graph hash, so that an edited file is never resumed.
    nlohmann::json files = nlohmann::json::array();
    for (const GraphKey& f : spec.files) {
      StatusOr<Graph> g = read_graph_key(f);  // the graph the key carries
      files.push_back({{"graph", f.graph},
                       {"family", f.family},
                       {"ops", f.ops},
                       {"graph_hash", g.ok() ? hash_text(graph_hash(*g)) : std::string()}});
    }
    sig["graphs"] = files;
  }
  return sig;
}

StatusOr<std::vector<std::string>> signature_row_keys(const nlohmann::json& sig) {
  try {
    std::vector<GeneratorConfig> configs;
    std::string gen_list, policy_list;
    std::vector<std::array<std::string, 3>> pairs;  // generator, arm policy, cap
    for (const nlohmann::json& g : sig.at("generators")) {
      pairs.push_back({g.at("generator").get<std::string>(), g.at("arm_policy").get<std::string>(),
                       std::to_string(g.value("max_stages", int64_t{0}))});
    }
    std::vector<std::string> keys;
    auto add_graph = [&](const std::string& family, const std::string& ops, const std::string& seed,
                         const std::string& graph) {
      for (const auto& [gen, policy, cap] : pairs) {
        keys.push_back(RowKey{family, ops, seed, gen, policy, graph, cap}.text());
      }
    };
    if (sig.contains("graphs")) {
      for (const nlohmann::json& f : sig.at("graphs")) {
        add_graph(f.at("family").get<std::string>(), std::to_string(f.at("ops").get<int>()), "0",
                  f.at("graph").get<std::string>());
      }
      return keys;
    }
    SweepSpec spec;
    spec.families = sig.at("families").get<std::vector<std::string>>();
    spec.ops = sig.at("ops").get<std::vector<int>>();
    spec.seeds = sig.at("seeds").get<std::vector<uint64_t>>();
    for (const GraphKey& g : expand_graphs(spec)) {
      add_graph(g.family, std::to_string(g.ops), std::to_string(g.seed), "");
    }
    return keys;
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidInput(std::string("$.sweep: not a sweep signature: ") + e.what());
  }
}

int usable_cpus() {
  int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = std::max(1, CPU_COUNT(&set));
  // cgroup v2: "QUOTA PERIOD" or "max PERIOD" in cpu.max of the process's group.
  std::ifstream cgroup("/proc/self/cgroup");
  std::string line, group;
  while (std::getline(cgroup, line)) {
    if (line.rfind("0::", 0) == 0) group = line.substr(3);
  }
  if (!group.empty()) {
    std::ifstream max("/sys/fs/cgroup" + (group == "/" ? std::string() : group) + "/cpu.max");
    std::string quota;
    long long period = 0;
    if (max >> quota >> period && quota != "max" && period > 0) {
      const long long q = std::atoll(quota.c_str());
      if (q > 0) n = std::min(n, static_cast<int>(std::max(1LL, (q + period - 1) / period)));
    }
  }
  return n;
}

nlohmann::json machine_context() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  double load[3] = {-1, -1, -1};
  if (getloadavg(load, 3) != 3) load[0] = load[1] = load[2] = -1;
  for (double& l : load) l = std::round(l * 100) / 100;
  return {
      {"engine_version", std::string(engine_version())},
      {"engine_git_sha", std::string(engine_git_sha())},
      {"compiler", compiler()},
      {"compiler_id", TILESCHED_CXX_COMPILER_ID},
      {"compiler_version", TILESCHED_CXX_COMPILER_VERSION},
      {"build_type", TILESCHED_BUILD_TYPE},
      {"cxx_flags", TILESCHED_CXX_FLAGS},
      {"z3_version", z3_version()},
      {"cadical_version", cadical_version()},
      {"host", host},
      {"cpus", std::thread::hardware_concurrency()},
      {"cpus_usable", usable_cpus()},
      {"cpu_model", cpu_model()},
      {"load_average", {load[0], load[1], load[2]}},
      {"date", utc_now()},
  };
}

}  // namespace tilesched::sweep
