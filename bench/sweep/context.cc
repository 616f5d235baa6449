// The sweep's context file and resume signature (context.h).
#include "sweep/context.h"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

#include "sweep/csv.h"
#include "tilesched/version.h"

#ifndef TILESCHED_BUILD_TYPE
#define TILESCHED_BUILD_TYPE "unknown"
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
    gens.push_back({{"generator", g.name()}, {"arm_policy", g.arm_policy_text()}});
  }
  return {
      {"csv_format", std::string(kCsvFormat)},
      {"columns", sweep_columns()},
      {"families", spec.families},
      {"ops", spec.ops},
      {"seeds", spec.seeds},
      {"generators", gens},
      {"shard", spec.shard.text()},
      {"engine_version", std::string(engine_version())},
      {"engine_git_sha", std::string(engine_git_sha())},
  };
}

nlohmann::json machine_context() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return {
      {"engine_version", std::string(engine_version())},
      {"engine_git_sha", std::string(engine_git_sha())},
      {"compiler", compiler()},
      {"build_type", TILESCHED_BUILD_TYPE},
      {"host", host},
      {"cpus", std::thread::hardware_concurrency()},
      {"cpu_model", cpu_model()},
      {"date", utc_now()},
  };
}

}  // namespace tilesched::sweep
