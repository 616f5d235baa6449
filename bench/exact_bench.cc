// How fast the exact oracle proves optima (docs/EXACT.md): runs
// generate_exact with a time limit (10 s by default) on five groups of
// graphs, prints one row per graph and, per group and overall, the share of
// graphs proven optimal with the proof within 1 s and within 10 s, the
// share whose whole call took at most 1 s / 10 s, how often the proven
// optimum is above the MII and how often the exact II is below the
// cost-based generator's; and the share of II-proven graphs whose stage
// count was proven minimal, and the calls that overran the limit by > 5 %.
//
// Groups:
//   examples    the bundled engine/examples/*.loop.json
//   layered     random layered graphs of 8 to 48 ops, SEEDS_PER_SIZE seeds each
//   mixed       graphs of 6 to 28 ops that carry every rule (below)
//   structured  every structured family of the registry (graphgen/families.h)
//               at its min_ops, about 2x and 3x min_ops (capped at 48
//               ops and at its max_ops), seed 1, no parameter given
//   structured64  every structured family at each of 8, 16, 32 and 64 ops
//               it builds, seeds 1 to 5, no parameter given (the sweep's
//               default preset's structured graphs)
//   hls         every HatScheT instance (graphgen/hatschet.h) under HLS_DIR,
//               found by walking the directory, in sorted path order;
//               skipped with a message when the directory is absent
//
// usage: exact_bench [TIME_LIMIT_SECONDS] [SEEDS_PER_SIZE] [GROUPS] [HLS_DIR]
//   environment: TILESCHED_EXACT_BENCH_DUMP=DIR also writes every graph to
//   DIR/NAME.loop.json; TILESCHED_EXACT_BACKEND=sat|smt picks the oracle's
//   backend (default: the oracle's default, sat); TILESCHED_SAT_ENCODING=
//   time|rowstage picks the SAT backend's encoding (default: rowstage);
//   TILESCHED_DESCENT_CONFLICTS=N its stage descent's budget
//   GROUPS: comma-separated group names, or "all" (the default)
//   HLS_DIR: defaults to the CMake cache variable TILESCHED_HLS_DIR
// e.g. exact_bench 10 6 structured,hls
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tilesched/cost_based.h"
#include "tilesched/exact.h"
#include "tilesched/graph_builder.h"
#include "tilesched/graphgen/families.h"
#include "tilesched/graphgen/hatschet.h"
#include "tilesched/graphgen/random_layered.h"
#include "tilesched/json_io.h"
#include "tilesched/rng.h"
#include "tilesched/verify.h"

namespace {

using tilesched::Graph;

struct Row {
  std::string family;
  std::string name;
  int ops = 0;
  double seconds = 0;        // the whole call, stage/start descent included
  double cpu_seconds = 0;    // the process's CPU time during the call (the oracle is one thread)
  double proof_seconds = 0;  // until the lower bound met the II
  bool proven = false;
  bool below_heuristic = false;  // exact II < cost-based II
  bool above_mii = false;        // proven optimum > MII
  bool stages_proven = false;
  bool overran = false;          // the call took more than the limit + 5 %
};

struct Tally {
  int graphs = 0, proof_1s = 0, proof_10s = 0, call_1s = 0, call_10s = 0, below = 0, above_mii = 0;
  int proven = 0, stages_proven = 0, overran = 0;
};

const std::vector<std::string> kGroups = {"examples", "layered",      "mixed",
                                          "structured", "structured64", "hls"};

// The resource model beside a GraphML file: graphN_RM.xml, or (origami)
// NAMERM.xml.
std::string rm_for(const std::filesystem::path& graphml) {
  const std::filesystem::path dir = graphml.parent_path();
  const std::string stem = graphml.stem().string();
  const std::filesystem::path suffixed = dir / (stem + "_RM.xml");
  if (std::filesystem::exists(suffixed)) return suffixed.string();
  return (dir / (stem + "RM.xml")).string();
}

// A generic target (two singleton slots, a pooled slot of capacity 2, a
// rate pool, an SMEM pool) and ops that use them with leader groups, max
// depths, buffers and recurrences: the layered graphs' optimum is nearly
// always their MII, these make the solver prove things.
Graph mixed_graph(int n, uint64_t seed) {
  tilesched::SplitMix64 rng(seed);
  tilesched::GraphBuilder b(
      tilesched::make_generic_target(
          "mixed", {{"x", 1, false}, {"y", 1, false}, {"p", 2, false}},
          {{"rate", tilesched::PoolKind::kRate, 3, 0, false},
           {"smem", tilesched::PoolKind::kStorage, 1 << 20, 0, false}}),
      "mixed-" + std::to_string(n) + "-s" + std::to_string(seed));
  for (int v = 0; v < n; ++v) {
    const int slot = static_cast<int>(rng.uniform(1, 3));
    const int64_t occupancy = slot == 3 ? rng.uniform(1, 2) : 1;
    b.generic("v" + std::to_string(v), rng.uniform(0, 6),
              {{slot, rng.uniform(1, 3), occupancy}});
    if (rng.uniform(0, 3) == 0) b.at(v).pools = {{0, rng.uniform(1, 2)}};
    if (rng.uniform(0, 4) == 0) b.at(v).store_bytes = 100;
    if (rng.uniform(0, 5) == 0) b.at(v).max_depth = rng.uniform(0, 2);
    if (rng.uniform(0, 5) == 0) b.at(v).leader_gid = rng.uniform(1, 2);
  }
  for (int v = 1; v < n; ++v) {
    for (int e = 0; e < 2; ++e) {
      if (rng.uniform(0, 2) == 0) continue;
      const int u = static_cast<int>(rng.uniform(0, v - 1));
      b.edge(u, v, rng.uniform(0, 6));
    }
  }
  for (int r = 0; r < n / 4; ++r) {  // recurrences
    const int u = static_cast<int>(rng.uniform(0, n - 1));
    b.edge(u, static_cast<int>(rng.uniform(0, u)), rng.uniform(0, 8), rng.uniform(1, 2));
  }
  Graph g = std::move(b.build()).value();
  // SMEM: each buffer once per iteration it can stay live across (1 + the
  // longest distance it is read at), as random_layered does, so the serial
  // schedule fits and some legal schedule exists.
  int64_t smem = 0;
  for (tilesched::OpId v = 0; v < g.op_count(); ++v) {
    int64_t distance = 0;
    for (const tilesched::Edge& e : g.edges) {
      if (e.from == v && e.kind == tilesched::EdgeKind::kData) {
        distance = std::max(distance, e.distance);
      }
    }
    smem += g.ops[v].store_bytes * (1 + distance);
  }
  g.target.pools[1].capacity = std::max<int64_t>(smem, 100);
  return g;
}

Row run_one(const std::string& family, const Graph& g, int64_t limit_ms) {
  // TILESCHED_EXACT_BENCH_DUMP=DIR: each graph is also written to
  // DIR/NAME.loop.json, to study it with the command line.
  if (const char* dir = std::getenv("TILESCHED_EXACT_BENCH_DUMP")) {
    const tilesched::Status s = tilesched::write_file_atomic(
        std::string(dir) + "/" + g.name + ".loop.json", tilesched::write_graph_json(g));
    if (!s.ok()) std::fprintf(stderr, "%s\n", s.message().c_str());
  }
  tilesched::ExactOptions opts;
  opts.time_limit_ms = limit_ms;
  if (const char* b = std::getenv("TILESCHED_EXACT_BACKEND")) {
    if (const auto backend = tilesched::parse_exact_backend(b)) opts.backend = *backend;
  }
  if (const char* e = std::getenv("TILESCHED_SAT_ENCODING")) {  // --sat-encoding's names
    if (const auto enc = tilesched::parse_sat_encoding(e)) opts.sat_encoding = *enc;
  }
  if (const char* c = std::getenv("TILESCHED_DESCENT_CONFLICTS")) opts.descent_conflicts = std::atoll(c);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  tilesched::StatusOr<tilesched::ExactResult> r = tilesched::generate_exact(g, opts);
  const double cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Row row{family, g.name, g.op_count(), seconds, cpu_seconds, 0, false};
  if (!r.ok()) {
    std::printf("%-10s %-40s error: %s\n", family.c_str(), g.name.c_str(),
                r.status().message().c_str());
    return row;
  }
  const tilesched::Schedule& s = r->schedule;
  const int64_t heuristic = tilesched::generate_cost_based(g, {}).schedule.ii;
  const bool legal = s.feasible && tilesched::verify_schedule(g, s).legal();
  row.proven = s.proven_optimal && legal;
  row.below_heuristic = s.feasible && s.ii < heuristic;
  row.above_mii = row.proven && s.ii > s.mii.max();
  row.stages_proven = legal && s.stages_proven;
  row.overran = seconds * 1000.0 > static_cast<double>(limit_ms) * 1.05;
  double heuristic_seconds = 0;
  int64_t descent_checks = 0;
  for (const auto& [key, value] : s.stats) {
    if (key == "exact.proof_us") row.proof_seconds = static_cast<double>(value) / 1e6;
    if (key == "exact.heuristic_us") heuristic_seconds = static_cast<double>(value) / 1e6;
    if (key == "exact.descent_checks") descent_checks = value;
  }
  std::printf("%-10s %-40s %4d ops  MII %5lld  cost-based %5lld  exact %5lld  lower %5lld  %-8s "
              "stages %3lld %-6s %s proof %7.3f s, call %7.3f s (CPU %.3f s; heuristics %.3f s, %lld "
              "descent checks)\n",
              family.c_str(), g.name.c_str(), g.op_count(),
              static_cast<long long>(s.mii.max()), static_cast<long long>(heuristic),
              static_cast<long long>(s.ii), static_cast<long long>(s.lower_bound.value_or(0)),
              s.proven_optimal ? "proven" : "open", static_cast<long long>(s.stage_count),
              s.stages_proven ? "(min)" : "(open)",
              !s.feasible ? "none" : legal ? "verified" : "ILLEGAL", row.proof_seconds, seconds,
              cpu_seconds, heuristic_seconds, static_cast<long long>(descent_checks));
  std::fflush(stdout);
  return row;
}

// The groups named in GROUPS ("a,b" or "all"); nullopt after printing a
// message for an unknown one.
std::optional<std::set<std::string>> parse_groups(const std::string& group_arg) {
  std::set<std::string> selected;
  std::stringstream in(group_arg);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == "all") {
      selected.insert(kGroups.begin(), kGroups.end());
    } else if (std::find(kGroups.begin(), kGroups.end(), item) != kGroups.end()) {
      selected.insert(item);
    } else {
      std::fprintf(stderr, "unknown group '%s' (groups: examples, layered, mixed, "
                           "structured, structured64, hls, all)\n", item.c_str());
      return std::nullopt;
    }
  }
  return selected;
}

// Runs one graph of `group`, or prints why it could not be built (false).
bool run_built(const char* group, const tilesched::StatusOr<Graph>& g, int64_t limit_ms,
               std::vector<Row>& rows) {
  if (!g.ok()) {
    std::fprintf(stderr, "%s\n", g.status().message().c_str());
    return false;
  }
  rows.push_back(run_one(group, *g, limit_ms));
  return true;
}

bool run_examples(int64_t limit_ms, std::vector<Row>& rows) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(TILESCHED_EXAMPLES_DIR)) {
    if (e.path().string().ends_with(".loop.json")) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    if (!run_built("examples", tilesched::read_graph_file(f), limit_ms, rows)) return false;
  }
  return true;
}

bool run_layered(int seeds, int64_t limit_ms, std::vector<Row>& rows) {
  for (int ops : {8, 16, 24, 32, 48}) {
    for (int seed = 1; seed <= seeds; ++seed) {
      tilesched::graphgen::LayeredParams p;
      p.ops = ops;
      p.seed = static_cast<uint64_t>(seed);
      p.back_edge_per_mille = 200;
      tilesched::StatusOr<Graph> g = tilesched::graphgen::random_layered(p);
      if (!g.ok()) return false;
      rows.push_back(run_one("layered", *g, limit_ms));
    }
  }
  return true;
}

void run_mixed(int seeds, int64_t limit_ms, std::vector<Row>& rows) {
  for (int ops : {6, 10, 14, 20, 28}) {
    for (int seed = 1; seed <= seeds; ++seed) {
      rows.push_back(run_one("mixed", mixed_graph(ops, static_cast<uint64_t>(seed)), limit_ms));
    }
  }
}

bool run_structured(int64_t limit_ms, std::vector<Row>& rows) {
  constexpr int kCap = 48;
  for (const tilesched::graphgen::Family& f : tilesched::graphgen::families()) {
    if (f.kind != tilesched::graphgen::FamilyKind::kStructured) continue;
    std::vector<int> sizes;
    for (int factor = 1; factor <= 3; ++factor) {
      const int ops = std::min({f.min_ops * factor, kCap, f.max_ops});
      if (ops >= f.min_ops && std::find(sizes.begin(), sizes.end(), ops) == sizes.end()) {
        sizes.push_back(ops);
      }
    }
    for (int ops : sizes) {
      if (!run_built("structured", tilesched::graphgen::generate(f.name, ops, 1, {}), limit_ms, rows)) {
        return false;
      }
    }
  }
  return true;
}

bool run_structured64(int64_t limit_ms, std::vector<Row>& rows) {
  for (const tilesched::graphgen::Family& f : tilesched::graphgen::families()) {
    if (f.kind != tilesched::graphgen::FamilyKind::kStructured) continue;
    for (int ops : {8, 16, 32, 64}) {
      if (!f.builds(ops)) continue;
      for (uint64_t seed = 1; seed <= 5; ++seed) {
        if (!run_built("structured64", tilesched::graphgen::generate(f.name, ops, seed, {}),
                       limit_ms, rows)) {
          return false;
        }
      }
    }
  }
  return true;
}

bool run_hls(const std::string& hls_dir, int64_t limit_ms, std::vector<Row>& rows) {
  std::error_code ec;
  if (!std::filesystem::is_directory(hls_dir, ec)) {
    std::printf("hls: skipped, no instance directory at %s (set TILESCHED_HLS_DIR or pass "
                "HLS_DIR)\n", hls_dir.c_str());
    return true;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(hls_dir)) {
    if (e.is_regular_file() && e.path().extension() == ".graphml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& f : files) {
    if (!run_built("hls", tilesched::graphgen::import_hatschet(f.string(), rm_for(f)), limit_ms, rows)) {
      return false;
    }
  }
  return true;
}

// The share proven optimal per group (`family`) and over all of them.
void print_tally(const std::string& family, const std::vector<Row>& rows) {
  Tally t;
  std::vector<double> calls;
  int cpu_1s = 0;
  for (const Row& r : rows) {
    if (family != "all" && r.family != family) continue;
    ++t.graphs;
    calls.push_back(r.seconds);
    cpu_1s += r.cpu_seconds <= 1.0;
    t.below += r.below_heuristic;
    t.overran += r.overran;
    if (!r.proven) continue;
    ++t.proven;
    t.stages_proven += r.stages_proven;
    t.above_mii += r.above_mii;
    t.proof_1s += r.proof_seconds <= 1.0;
    t.proof_10s += r.proof_seconds <= 10.0;
    t.call_1s += r.seconds <= 1.0;
    t.call_10s += r.seconds <= 10.0;
  }
  if (t.graphs == 0) return;
  auto pct = [&](int k) { return 100.0 * k / t.graphs; };
  std::printf("  %-10s %3d graphs: proof within 1 s %3d (%5.1f %%), 10 s %3d (%5.1f %%); "
              "whole call within 1 s %3d (%5.1f %%), 10 s %3d (%5.1f %%); "
              "optimum > MII %3d; exact < cost-based %3d; stages proven %d of %d II-proven; "
              "over limit + 5 %% %d\n",
              family.c_str(), t.graphs, t.proof_1s, pct(t.proof_1s), t.proof_10s,
              pct(t.proof_10s), t.call_1s, pct(t.call_1s), t.call_10s, pct(t.call_10s),
              t.above_mii, t.below, t.stages_proven, t.proven, t.overran);
  std::sort(calls.begin(), calls.end());
  const size_t n = calls.size();
  const double median = n % 2 == 1 ? calls[n / 2] : (calls[n / 2 - 1] + calls[n / 2]) / 2;
  const auto within_1s = std::count_if(calls.begin(), calls.end(), [](double x) { return x <= 1.0; });
  std::printf("  %-10s median whole call %.4f s; whole call within 1 s (any outcome) %ld of %zu; "
              "CPU time within 1 s (any outcome) %d\n",
              family.c_str(), median, static_cast<long>(within_1s), n, cpu_1s);
}

}  // namespace

int main(int argc, char** argv) {
  const double limit_s = argc > 1 ? std::atof(argv[1]) : 10.0;
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 6;
  const std::string group_arg = argc > 3 ? argv[3] : "all";
  const std::string hls_dir = argc > 4 ? argv[4] : TILESCHED_HLS_DIR;
  const int64_t limit_ms = static_cast<int64_t>(limit_s * 1000.0);
  if (limit_ms <= 0 || seeds < 0) {
    std::fprintf(stderr, "usage: exact_bench [TIME_LIMIT_SECONDS] [SEEDS_PER_SIZE] [GROUPS] "
                         "[HLS_DIR]\n");
    return 2;
  }
  const std::optional<std::set<std::string>> selected = parse_groups(group_arg);
  if (!selected) return 2;
  auto wanted = [&](const std::string& group) { return selected->count(group) > 0; };
  std::vector<Row> rows;
  if (wanted("examples") && !run_examples(limit_ms, rows)) return 2;
  if (wanted("layered") && !run_layered(seeds, limit_ms, rows)) return 2;
  if (wanted("mixed")) run_mixed(seeds, limit_ms, rows);
  if (wanted("structured") && !run_structured(limit_ms, rows)) return 2;
  if (wanted("structured64") && !run_structured64(limit_ms, rows)) return 2;
  if (wanted("hls") && !run_hls(hls_dir, limit_ms, rows)) return 2;

  std::printf("\nshare proven optimal (time limit %.1f s per graph):\n", limit_s);
  for (const std::string& group : kGroups) {
    if (wanted(group)) print_tally(group, rows);
  }
  print_tally("all", rows);
  return 0;
}
