// What a sweep runs: the lists given on the command line (families, sizes,
// seeds, generators), their expansion into a deterministic work list of
// graphs, and the split of that list into shards. One work item is one
// graph; every generator configuration runs on it, so the rows of a graph
// (and the exact oracle's figure they share) always stay together.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/csv.h"
#include "tilesched/cost_based.h"
#include "tilesched/foreign.h"
#include "tilesched/generate.h"
#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

// One generator as the sweep runs it. The arm policy applies to the
// cost-based generator (and auto); the others carry none.
struct GeneratorConfig {
  GeneratorKind kind = GeneratorKind::kSerial;
  std::optional<ArmPolicy> arm_policy;
  int64_t max_stages = 0;           // the stage cap (--max-stages); 0: none
  // The cost-based generator's effort (--effort; not part of the row's
  // key, so that sweeps at two levels compare row by row).
  Effort effort = Effort::kDefault;
  // A foreign scheduler (ext:NAME, plugin:NAME; tilesched/foreign.h)
  // instead of `kind`, resolved once and shared by the workers.
  std::shared_ptr<const ForeignScheduler> foreign;
  std::string name() const;         // "serial", "cost-based", ..., "ext:NAME"
  std::string arm_policy_text() const;  // "" when none
  friend bool operator==(const GeneratorConfig&, const GeneratorConfig&) = default;
};

// One graph of the work list: a registry family's (family, ops, seed), or a
// file of --graphs (family "file" or "hatschet", ops its op count, seed 0,
// `graph` its path relative to the argument that found it).
// A --graphs file is read once, by find_graph_files: the graph travels
// with its key (`loaded`) to the signature (its hash) and to the row.
struct GraphKey {
  std::string family;
  int ops = 0;
  uint64_t seed = 0;
  std::string graph;    // --graphs: the name in the CSV's graph column; "" for families
  std::string path;     // --graphs: the file to read
  std::string rm_path;  // --graphs, hatschet: the resource model beside the GraphML
  std::shared_ptr<const Graph> loaded;  // --graphs: the graph read; never written to
  // The key's fields; `loaded` is what they name, not part of the key.
  friend bool operator==(const GraphKey& a, const GraphKey& b) {
    return a.family == b.family && a.ops == b.ops && a.seed == b.seed && a.graph == b.graph &&
           a.path == b.path && a.rm_path == b.rm_path;
  }
};

// The key of the row `config` gives on `graph`.
RowKey row_key(const GraphKey& graph, const GeneratorConfig& config);

// The families of --graphs rows.
inline constexpr std::string_view kFileFamily = "file";          // loop graph JSON
inline constexpr std::string_view kHatschetFamily = "hatschet";  // GraphML + resource model

struct Shard {
  int index = 1;  // 1..count
  int count = 1;
  std::string text() const;  // "k/N"
};

struct SweepSpec {
  std::vector<GraphKey> files;  // --graphs: when not empty, the work list instead of the families
  std::vector<std::string> families;
  std::vector<int> ops;
  std::vector<uint64_t> seeds;
  std::vector<GeneratorConfig> generators;  // arm policies already expanded
  Shard shard;
};

// "8,16,32", "1-100", "16-1024x2" (geometric: 16, 32, ..., 1024) and
// "0-100:10" (step), comma-separated and mixed; duplicates are dropped,
// first occurrence kept. Values outside [lo, hi] and malformed items are
// InvalidInput naming `what`. At most 100000 values.
StatusOr<std::vector<int64_t>> parse_int_list(std::string_view text, std::string_view what,
                                              int64_t lo, int64_t hi);

// "A,B" or "all" (every family of the registry, tilesched/graphgen/families.h,
// in its order).
StatusOr<std::vector<std::string>> parse_families(std::string_view text);

// `generators` x `arm_policies` (the policies only multiply the generators
// that take one). An ext:NAME or plugin:NAME item is resolved here
// (resolve_foreign: $TILESCHED_SCHEDULERS, or the library loaded).
StatusOr<std::vector<GeneratorConfig>> parse_generators(std::string_view generators,
                                                        std::string_view arm_policies);

// Every configuration once per stage cap (0: none), caps inner:
// [a, b] x [0, 3] = a, a cap 3, b, b cap 3.
std::vector<GeneratorConfig> with_stage_caps(const std::vector<GeneratorConfig>& configs,
                                             const std::vector<int64_t>& caps);

// "k/N" with 1 <= k <= N.
StatusOr<Shard> parse_shard(std::string_view text);

// The graphs of --graphs PATH...: each PATH is a loop graph JSON file, a
// HatScheT GraphML file (its resource model STEM_RM.xml or STEMRM.xml beside
// it, as `tilesched import --from hatschet` reads), or a directory searched
// recursively for *.loop.json and *.graphml files, taken in byte order of
// their path relative to it. Arguments are taken in the order given. Each
// graph is read once here (for its op count); an unreadable or malformed
// file, a missing resource model, an empty directory or two files with the
// same relative name are InvalidInput naming the file.
StatusOr<std::vector<GraphKey>> find_graph_files(const std::vector<std::string>& paths);

// The graph a --graphs key names: the one it carries, else read from its
// file(s).
StatusOr<Graph> read_graph_key(const GraphKey& key);

// Every graph of the sweep in its canonical order: the --graphs files in
// their order, else families in the order given, then sizes, then seeds.
std::vector<GraphKey> expand_graphs(const SweepSpec& spec);

// The graphs of `shard`: the items whose position i in the full list has
// i mod N == k - 1. Shards are disjoint, their union is the full list, and
// each keeps the canonical order.
std::vector<GraphKey> shard_graphs(const std::vector<GraphKey>& all, const Shard& shard);

// The documented standard sweeps (`--preset`; docs/SWEEP.md). Options given
// on the command line override a preset's values.
struct Preset {
  const char* name;
  const char* families;
  const char* ops;
  const char* seeds;
  const char* generators;
  const char* arm_policies;
  const char* purpose;
};
const Preset* find_preset(std::string_view name);
std::string preset_names();  // "quick, default, paper"

}  // namespace tilesched::sweep
