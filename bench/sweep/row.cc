// Running one graph's generators for the sweep (row.h).
#include "sweep/row.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>
#include <ctime>

#include "tilesched/graphgen/families.h"
#include "tilesched/generate.h"
#include "tilesched/json_io.h"
#include "tilesched/materialize.h"
#include "tilesched/mii.h"
#include "tilesched/verify.h"
#include "tilesched/version.h"

namespace tilesched::sweep {
namespace {

constexpr size_t kMaxReason = 300;

// The calling thread's CPU time: what the sweep's cpu_ns column measures,
// so that timings hold on a loaded machine (the generators run on one
// thread each).
int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// What reading that clock twice adds to the interval between the reads:
// the thread's CPU clock is a system call (about 0.4 µs), and a serial
// row's call is 7 µs. The least of a few back-to-back pairs, once per
// thread.
int64_t clock_overhead_ns() {
  thread_local const int64_t overhead = [] {
    int64_t least = INT64_MAX;
    for (int i = 0; i < 16; ++i) {
      const int64_t a = thread_cpu_ns();
      least = std::min(least, thread_cpu_ns() - a);
    }
    return least;
  }();
  return overhead;
}

// The thread's CPU time since `cpu0` (a thread_cpu_ns()), less the cost of
// the two clock reads.
int64_t cpu_since(int64_t cpu0) {
  return std::max<int64_t>(0, thread_cpu_ns() - cpu0 - clock_overhead_ns());
}

std::string clip(std::string s) {
  if (s.size() > kMaxReason) s = s.substr(0, kMaxReason - 3) + "...";
  return s;
}

SweepRow base_row(const GraphKey& key, const GeneratorConfig& config) {
  SweepRow r;
  r.family = key.family;
  r.graph = key.graph;
  r.ops = key.ops;
  r.seed = key.seed;
  r.generator = config.name();
  r.arm_policy = config.arm_policy_text();
  r.max_stages = config.max_stages;
  if (config.foreign) r.generator_version = config.foreign->version;
  r.engine_version = std::string(engine_version());
  r.stats.assign(stat_keys().size(), std::nullopt);
  return r;
}

void set_mii(SweepRow& r, const MiiBounds& m) {
  r.mii = m.max();
  r.res_mii = m.resource;
  r.rec_mii = m.recurrence;
  r.fine_mii = m.fine_density;
  r.dep_mii = m.dependency;
}

// The row's figures from the schedule `s` and its verification: MII, time,
// II and stages, the cost-based counters, and feasible / verified / why not.
void fill_outcome(const Schedule& s, const VerifyReport& report, SweepRow& r) {
  set_mii(r, s.mii);
  r.time_ns = s.time_ns;
  r.feasible = s.feasible;
  if (s.feasible) {
    r.ii = s.ii;
    r.stage_count = s.stage_count;
  }
  // The cb_* columns are the cost-based generator's counters; other
  // generators' counters (some share a name) stay in their schedule JSON.
  const bool cost_based = s.generator == generator_name(GeneratorKind::kCostBased) ||
                          s.generator == generator_name(GeneratorKind::kCostBasedSeed);
  const std::vector<std::string>& keys = stat_keys();
  for (const auto& [key_name, value] : s.stats) {
    for (size_t i = 0; cost_based && i < keys.size(); ++i) {
      if (keys[i] == key_name) r.stats[i] = value;
    }
  }
  for (const auto& [name, value] : s.options) {
    if (name == "effort") r.effort = value;  // the cost-based generator's
  }
  if (!s.feasible) {
    r.failure = std::string(failure_reason_name(s.failure));
    r.reason = "no legal schedule";
    if (!s.diagnostics.empty()) r.reason += ": " + s.diagnostics.front();
    r.reason = clip(r.reason);
  } else if (!report.legal()) {
    r.failure = "illegal";
    const Violation& v = report.violations.front();
    r.reason = std::string(rule_name(v.rule)) + ": " + v.message;
    if (report.violations.size() > 1) {
      r.reason += " (+" + std::to_string(report.violations.size() - 1) + " more)";
    }
    r.reason = clip(r.reason);
  } else {
    r.verified = true;
  }
}

// A foreign scheduler's row (tilesched/foreign.h): its failure kind and
// message, or its schedule materialized and verified like any other.
// time_ns and wall_ns are the whole call's wall time (the process started,
// fed and read, or the plug-in called; the reply checked), cpu_ns the
// worker's CPU time plus the child's.
void run_foreign_config(const Graph& g, const GeneratorConfig& config, ConfigRun& run) {
  SweepRow& r = run.row;
  ForeignRequest req;
  req.max_stages = config.max_stages;
  clock_overhead_ns();  // calibrated before the clock starts
  const int64_t cpu0 = thread_cpu_ns();
  ForeignOutcome o = run_foreign(*config.foreign, g, req);
  r.cpu_ns = cpu_since(cpu0) + o.child_cpu_ns;
  r.wall_ns = o.wall_ns;
  if (!o.schedule) {
    set_mii(r, compute_mii(g));
    r.time_ns = o.wall_ns;
    r.failure = std::string(foreign_failure_name(o.failure));
    r.reason = clip(o.message);
    return;
  }
  Schedule& s = *o.schedule;
  const VerifyReport report = materialize_and_verify(g, s);
  fill_outcome(s, report, r);
  run.schedule = std::move(s);
}

}  // namespace

// (row.h) The row reads the verdict, never the region, so the first try
// leaves out the region and the materializer's own postcondition check:
// verify_schedule derives the values on its own and checks every one that
// is carried (coverage, grouping, owners, depths, recorded edges, ids,
// agents, the fallback flag). A schedule it accepts has the row it always
// had: had the postcondition check refused the values, with_materialization
// would have left them out, and the verifier, which asks about values only
// when some are carried, would have accepted the schedule all the same. A
// schedule it refuses is materialized again as with_materialization does
// and verified again, so its reason is what it always was. A build with
// assertions checks the postconditions every time.
VerifyReport materialize_and_verify(const Graph& g, Schedule& s) {
  if (!s.feasible) return verify_schedule(g, s);
  std::vector<Pipe> pipes = s.pipes;
  std::vector<Mutex> mutexes = s.mutexes;
  std::vector<std::string> agents = s.agents;
  std::vector<std::string> flags = s.flags;
  const size_t diagnostics = s.diagnostics.size();
  MaterializeOptions fast;
  fast.postconditions = false;
  fast.region = false;
  StatusOr<Materialization> m = materialize(g, s, fast);
  if (m.ok()) {
    attach_materialization(s, std::move(*m));
  } else {
    s.diagnostics.push_back(m.status().message());
  }
  VerifyReport report = verify_schedule(g, s);
  if (report.legal()) return report;
  s.pipes = std::move(pipes);
  s.mutexes = std::move(mutexes);
  s.agents = std::move(agents);
  s.flags = std::move(flags);
  s.diagnostics.resize(diagnostics);
  s = with_materialization(g, std::move(s));
  return verify_schedule(g, s);
}

uint64_t graph_hash(const Graph& g) {
  // The text of the graph with an empty name, written into a buffer the
  // thread keeps (a graph's text is a few kilobytes; the sweep hashes every
  // graph).
  thread_local std::string text;
  text.clear();
  append_graph_json(g, "", text);
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;  // FNV prime
  }
  return h;
}

ConfigRun run_config(const Graph& g, const GraphKey& key, const GeneratorConfig& config) {
  return run_config(g, graph_hash(g), key, config);
}

ConfigRun run_config(const Graph& g, uint64_t hash, const GraphKey& key,
                     const GeneratorConfig& config) {
  ConfigRun run;
  SweepRow& r = run.row;
  r = base_row(key, config);
  r.graph_ops = g.op_count();
  r.edges = g.edge_count();
  r.graph_hash = hash;
  if (config.foreign) {
    run_foreign_config(g, config, run);
    return run;
  }

  GenerateOptions opts;
  opts.generator = config.kind;
  if (config.arm_policy) opts.cost_based.arm_policy = *config.arm_policy;
  opts.cost_based.effort = config.effort;
  opts.max_stages = config.max_stages;
  opts.materialize = false;  // cpu_ns: the generator alone, what time_ns times
  clock_overhead_ns();  // calibrated before the clocks start
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t cpu0 = thread_cpu_ns();
  StatusOr<Schedule> s = generate_schedule(g, opts);
  r.cpu_ns = cpu_since(cpu0);
  if (!s.ok()) {
    r.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now() - t0).count();
    set_mii(r, compute_mii(g));
    const std::string& msg = s.status().message();
    r.failure = "error";
    r.reason = clip(msg);
    return run;
  }
  const VerifyReport report = materialize_and_verify(g, *s);
  r.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - t0).count();
  fill_outcome(*s, report, r);
  run.schedule = std::move(s).value();
  return run;
}

void fill_optimal(std::vector<ConfigRun>& runs) {
  // The oracle's row under the same stage cap as each row: a capped
  // oracle's II is not the uncapped optimum, nor the other way round.
  auto exact_under = [&runs](int64_t cap) -> const ConfigRun* {
    for (const ConfigRun& run : runs) {
      if (run.row.generator == generator_name(GeneratorKind::kExact) && run.row.verified &&
          run.schedule && run.row.max_stages == cap) {
        return &run;
      }
    }
    return nullptr;
  };
  for (ConfigRun& run : runs) {
    const ConfigRun* exact = exact_under(run.row.max_stages);
    if (!exact) continue;
    run.row.optimal_ii = exact->schedule->ii;
    run.row.proven = exact->schedule->proven_optimal;
    run.row.stages_proven = exact->schedule->stages_proven;
  }
}

std::vector<SweepRow> run_graph(const GraphKey& key, const std::vector<GeneratorConfig>& configs) {
  std::vector<SweepRow> rows;
  StatusOr<Graph> g = key.graph.empty() ? graphgen::generate(key.family, key.ops, key.seed, {})
                                         : read_graph_key(key);
  if (!g.ok()) {
    for (const GeneratorConfig& c : configs) {
      SweepRow r = base_row(key, c);
      r.failure = "graph-error";
      r.reason = clip(g.status().message());
      rows.push_back(std::move(r));
    }
    return rows;
  }
  std::vector<ConfigRun> runs;
  runs.reserve(configs.size());
  rows.reserve(configs.size());
  const uint64_t hash = graph_hash(*g);  // once per graph, not per row
  for (const GeneratorConfig& c : configs) runs.push_back(run_config(*g, hash, key, c));
  fill_optimal(runs);
  for (ConfigRun& run : runs) rows.push_back(std::move(run.row));
  return rows;
}

}  // namespace tilesched::sweep
