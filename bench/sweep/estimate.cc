// A shard's time from an earlier sweep's timings (estimate.h).
#include "sweep/estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "tilesched/exact.h"

namespace tilesched::sweep {
namespace {

constexpr double kNsPerSecond = 1e9;

// Timed rows at each op count: the sum of their nanoseconds and their count.
using Levels = std::map<int, std::pair<double, size_t>>;

// generator|arm policy|stage cap: what a row's configuration is matched by.
std::string config_key(const std::string& generator, const std::string& arm, int64_t cap) {
  return generator + "|" + arm + "|" + std::to_string(cap);
}

std::string hms(double seconds);

std::string config_label(const GeneratorConfig& c) {
  std::string label = c.name();
  if (!c.arm_policy_text().empty()) label += " " + c.arm_policy_text();
  if (c.max_stages > 0) label += " max_stages=" + std::to_string(c.max_stages);
  return label;
}

struct Timings {
  std::map<std::string, Levels> levels;         // config -> its rows, every family pooled
  std::map<std::string, double> slowest_ns;     // config -> its slowest row
  size_t rows = 0;
  int largest_ops = 0;
};

Timings collect(const ReadResult& timings) {
  const Col time_col = timings.version >= 5 ? Col::kCpuNs : Col::kTimeNs;
  Timings t;
  for (const ReadRow& r : timings.rows) {
    const std::optional<int64_t> ns = field_int(r[time_col]);
    const std::optional<int64_t> ops = field_int(r[Col::kOps]);
    if (!ns || !ops || *ops < 1) continue;
    const std::string key = config_key(r[Col::kGenerator], r[Col::kArmPolicy],
                                       field_int(r[Col::kMaxStages]).value_or(0));
    auto& [sum, count] = t.levels[key][static_cast<int>(*ops)];
    sum += static_cast<double>(*ns);
    ++count;
    t.slowest_ns[key] = std::max(t.slowest_ns[key], static_cast<double>(*ns));
    t.largest_ops = std::max(t.largest_ops, static_cast<int>(*ops));
    ++t.rows;
  }
  return t;
}

// The mean nanoseconds of a row at `ops`: the measured mean at that op
// count, else the least-squares line of log(mean) on log(ops) (slope 1
// through a single op count).
double predict_ns(const Levels& levels, int ops) {
  const auto mean = [](const std::pair<double, size_t>& sc) {
    return sc.first / static_cast<double>(sc.second);
  };
  if (const auto at = levels.find(ops); at != levels.end()) return mean(at->second);
  if (levels.size() == 1) {
    return mean(levels.begin()->second) * ops / levels.begin()->first;
  }
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [o, sc] : levels) {
    const double x = std::log(o), y = std::log(std::max(mean(sc), 1.0));
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double intercept = (sy - slope * sx) / n;
  return std::exp(intercept + slope * std::log(ops));
}

// CPU time as it reads best: seconds with two decimals below a minute
// ("3.42 s"), else h:mm:ss; a small sweep is not "0.00" hours.
std::string cpu_text(double seconds) {
  if (seconds < 60) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", seconds);
    return buf;
  }
  return hms(seconds);
}

std::string hms(double seconds) {
  const long s = std::lround(seconds);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return buf;
}

}  // namespace

double ShardEstimate::wall_seconds(int jobs) const {
  return std::max(cpu_seconds / std::max(jobs, 1), largest_graph_seconds);
}

StatusOr<ShardEstimate> estimate_shard(const SweepSpec& spec, const ReadResult& timings,
                                       const std::string& source) {
  const Timings t = collect(timings);
  const double exact_limit_ns = static_cast<double>(ExactOptions{}.time_limit_ms) * 1e6;
  const std::vector<GraphKey> graphs = shard_graphs(expand_graphs(spec), spec.shard);
  ShardEstimate e;
  e.graphs = graphs.size();
  e.timing_rows = t.rows;
  e.largest_timed_ops = t.largest_ops;
  std::vector<double> graph_seconds(graphs.size(), 0.0);
  for (const GeneratorConfig& c : spec.generators) {
    std::string key = config_key(c.name(), c.arm_policy_text(), c.max_stages);
    ConfigEstimate ce{config_label(c)};
    double scale = 1.0;
    if (!t.levels.contains(key) && c.max_stages > 0) {
      // Uncapped rows stand in: the capped run is the uncapped one and, when
      // it has more stages, one run per cap up to S (an upper estimate).
      key = config_key(c.name(), c.arm_policy_text(), 0);
      ce.from_uncapped_cap = c.max_stages;
      scale = static_cast<double>(1 + c.max_stages);
    }
    const auto found = t.levels.find(key);
    if (found == t.levels.end()) {
      return Status::InvalidInput(source + ": no timed row of " + config_label(c) +
                                  (c.max_stages > 0 ? " nor of it uncapped" : "") +
                                  " (the timings must cover every configuration of the sweep)");
    }
    const Levels& levels = found->second;
    for (size_t g = 0; g < graphs.size(); ++g) {
      double ns = scale * predict_ns(levels, graphs[g].ops);
      if (c.kind == GeneratorKind::kExact) {
        ns = std::min(ns, std::max(exact_limit_ns, t.slowest_ns.at(key)));
      }
      ce.cpu_seconds += ns / kNsPerSecond;
      graph_seconds[g] += ns / kNsPerSecond;
      ++ce.rows;
      if (graphs[g].ops > levels.rbegin()->first) ++ce.extrapolated;
    }
    e.rows += ce.rows;
    e.cpu_seconds += ce.cpu_seconds;
    e.configs.push_back(std::move(ce));
  }
  for (double s : graph_seconds) e.largest_graph_seconds = std::max(e.largest_graph_seconds, s);
  return e;
}

std::string estimate_text(const ShardEstimate& e, const SweepSpec& spec, int jobs,
                          const std::string& source) {
  char line[256];
  std::string out = "shard " + spec.shard.text() + ": " + std::to_string(e.graphs) + " graphs, " +
                    std::to_string(e.rows) + " rows; timings from " + source + " (" +
                    std::to_string(e.timing_rows) + " rows, op counts up to " +
                    std::to_string(e.largest_timed_ops) + ")\n";
  std::snprintf(line, sizeof line, "  %-36s %8s %12s %12s\n", "configuration", "rows", "CPU time",
                "extrapolated");
  out += line;
  size_t extrapolated = 0;
  std::string notes;
  for (const ConfigEstimate& c : e.configs) {
    const std::string label = c.config + (c.from_uncapped_cap > 0 ? " *" : "");
    std::snprintf(line, sizeof line, "  %-36s %8zu %12s %12zu\n", label.c_str(), c.rows,
                  cpu_text(c.cpu_seconds).c_str(), c.extrapolated);
    out += line;
    extrapolated += c.extrapolated;
    if (c.from_uncapped_cap > 0 && notes.empty()) {
      notes = "  * no timed row at its cap: its uncapped rows' times x (1 + cap), the uncapped "
              "run and at most one run per cap (an upper estimate)\n";
    }
  }
  std::snprintf(line, sizeof line, "  %-36s %8zu %12s %12zu\n", "all", e.rows,
                cpu_text(e.cpu_seconds).c_str(), extrapolated);
  out += line + notes;
  out += "wall time at --jobs " + std::to_string(jobs) + ": " + hms(e.wall_seconds(jobs)) +
         " (CPU time / jobs, or one graph of the largest op count, " +
         hms(e.largest_graph_seconds) + ", when longer)\n";
  return out;
}

}  // namespace tilesched::sweep
