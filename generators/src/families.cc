// The family registry (families.h): the table of families with their
// documented parameters, parameter parsing and range checks, the graph's
// recorded name, and the SMEM fit that keeps every serial schedule legal.
#include "tilesched/graphgen/families.h"

#include <algorithm>
#include <cassert>
#include <charconv>

#include "family_util.h"
#include "tilesched/limits.h"
#include "tilesched/validate.h"

namespace tilesched::graphgen {

namespace detail {

int64_t param(const ParamMap& params, std::string_view name) {
  const auto it = params.find(std::string(name));
  assert(it != params.end() && "parameter not resolved");
  return it->second;
}

}  // namespace detail

namespace {

using namespace detail;

constexpr int kMax = limits::kMaxOps;
// Salts the seed of the drawn parameters' stream, so that those draws are
// not the family's own first draws (which start from the seed itself).
constexpr uint64_t kDrawnParamStream = 0x7061'7261'6d73'0001ull;
__extension__ typedef __int128 Wide;

// A parameter the seed draws from `values` when it is not given
// (default_value goes unused: it is the first value, so it lies in range).
constexpr ParamSpec drawn_param(std::string_view name, std::span<const int64_t> values,
                                int64_t min, int64_t max, std::string_view doc) {
  return {name, values.front(), min, max, doc, values};
}

// Parameters the structured families share; what the seed draws and why is
// in generators/README.md ("What the seed draws").
constexpr int64_t kStageDraws[] = {2, 3, 4};
constexpr int64_t kTileKibDraws[] = {8, 16, 32};
constexpr ParamSpec kKindLatencies = {
    "kind_latencies", 0, 0, 1,
    "1: every op keeps its kind's default latency and holds; 0: the seed draws one latency "
    "per kind"};
constexpr ParamSpec kStages = drawn_param(
    "stages", kStageDraws, 1, 8,
    "iterations until a stage's SMEM buffers are reused (order-edge distance of the buffer "
    "release)");
constexpr ParamSpec kTileKib = drawn_param("tile_kib", kTileKibDraws, 0, 64,
                                           "KiB of SMEM one TMA tile occupies (store_bytes)");

// Family parameters the seed draws when not given.
constexpr int64_t kZeroOrOne[] = {0, 1};
constexpr int64_t kOneOrTwo[] = {1, 2};
constexpr int64_t kStoreBytesDraws[] = {8192, 16384, 32768};

// A chance in thousandths (0..1000).
constexpr ParamSpec per_mille(std::string_view name, int64_t default_value, std::string_view doc) {
  return {name, default_value, 0, 1000, doc};
}

// A random family: exactly `ops` ops, from 1 op up.
Family random_family(std::string_view name, std::string_view description,
                     std::vector<ParamSpec> params, FamilyFn build) {
  return {name, FamilyKind::kRandom, description, std::move(params), 1, kMax, 0, build};
}

// A structured family: whole units, at least `min_ops` ops at default
// parameters, the graph up to `op_tolerance` ops short of the size asked.
Family structured_family(std::string_view name, std::string_view description,
                         std::vector<ParamSpec> params, int min_ops, int op_tolerance,
                         FamilyFn build) {
  return {
      name, FamilyKind::kStructured, description, std::move(params), min_ops, kMax, op_tolerance,
      build};
}

// A structured family of units of at most `unit_ops` ops with only the
// shared parameters (kind_latencies, stages, tile_kib).
Family tiled_family(std::string_view name, std::string_view description, int unit_ops,
                    FamilyFn build) {
  return structured_family(name, description, {kKindLatencies, kStages, kTileKib}, unit_ops,
                           unit_ops - 1, build);
}

// Random families stressing latencies and recurrences.
std::vector<Family> latency_families() {
  return {
      random_family(
          "chains",
          "long critical paths: parallel chains of long-latency ops, cross links, "
          "each chain closed by a loop-carried edge",
          {{"chains", 2, 1, 64, "number of chains (at most ops)"},
           per_mille("close_per_mille", 1000, "chance a chain is closed into a recurrence"),
           per_mille("cross_per_mille", 100, "chance an op links to a later chain"),
           {"lat_max", 32, 0, 1024, "largest op latency"},
           {"lat_min", 4, 0, 1024, "smallest op latency"},
           {"max_distance", 2, 1, 16, "largest distance of a closing edge"}},
          build_chains),
      random_family(
          "series_parallel",
          "series-parallel DAG (fork/join nesting), exit feeding the next iteration's entry",
          {{"carried", 1, 0, 1, "1: a loop-carried edge from exit to entry"},
           per_mille("parallel_per_mille", 500, "chance a split is parallel (fork/join)")},
          build_series_parallel),
      random_family("sparse_recurrent",
                    "sparse random DAG plus loop-carried back edges closing recurrences of many "
                    "lengths and distances",
                    {per_mille("edge_per_mille", 60, "chance of each forward edge from the window"),
                     {"lat_max", 24, 0, 1024, "largest op latency"},
                     {"lat_min", 1, 0, 1024, "smallest op latency"},
                     {"max_distance", 3, 1, 64, "largest distance of a back edge"},
                     {"recurrence_per_mille", 125, 0, 4000, "back edges per 1000 ops"},
                     {"window", 16, 1, 256, "how far back forward edges reach"}},
                    build_sparse_recurrent),
  };
}

// Random families stressing resources, storage and the L4-L6 constraints.
std::vector<Family> resource_families() {
  return {
      random_family(
          "constraint_heavy",
          "sparse DAG with leader groups (L5), max depths (L6) and extra order edges",
          {{"depth_max", 2, 0, 8, "largest max_depth drawn"},
           per_mille("edge_per_mille", 250, "chance of each forward edge from the 8 ops before"),
           per_mille("group_per_mille", 300, "chance an op starts a leader group"),
           {"group_size_max", 3, 2, 8, "largest leader group"},
           per_mille("max_depth_per_mille", 200, "share of ops with a max_depth"),
           per_mille("order_per_mille", 200, "chance of an extra order edge per op")},
          build_constraint_heavy),
      random_family("memory_bound",
                    "SMEM-bound: buffers read up to max_distance iterations later, filling the "
                    "SMEM budget at one copy",
                    {{"fill_per_mille", 1000, 1, 1000, "share of the SMEM budget the buffers fill"},
                     {"max_distance", 3, 0, 8, "largest distance a buffer is read at"},
                     {"readers_max", 4, 1, 8, "most readers of one buffer"}},
                    build_memory_bound),
      random_family(
          "random_layered",
          "layered DAG with loop-carried back edges and a Blackwell kind mix (the benchmarks' "
          "family)",
          {per_mille("back_edge_per_mille", 100, "loop-carried edges per 1000 forward edges"),
           per_mille("edge_per_mille", 300, "chance of each candidate forward edge"),
           {"layers", 0, 0, kMax, "layer count; 0 = round(sqrt(ops))"},
           {"max_fan_in", 4, 1, 64, "forward in-edges per op, at most"}},
          build_layered),
      random_family(
          "resource_saturated",
          "many ops on few slots of a generic target, pooled slots and a rate pool",
          {per_mille("edge_per_mille", 300, "chance of each forward edge from the 8 ops before"),
           {"max_capacity", 4, 2, 16, "largest capacity of a pooled slot"},
           {"max_claims", 2, 1, 4, "most slots one op claims"},
           {"max_duration", 4, 1, 32, "longest slot hold"},
           per_mille("pool_per_mille", 250, "share of ops drawing on the rate pool"),
           per_mille("pooled_per_mille", 400, "chance a slot is pooled"),
           {"slots", 3, 1, 16, "slot count"}},
          build_resource_saturated),
  };
}

// Structured attention loops (FlashAttention shapes).
std::vector<Family> attention_families() {
  return {
      tiled_family("fa3_forward",
                   "FlashAttention forward, FA3 shape: TMA K/V, QK^T WGMMA, running max, SFU "
                   "exp, rescale, PV WGMMA; KV tiles unrolled",
                   11, build_fa3_forward),
      structured_family(
          "fa4_forward",
          "FlashAttention forward, FA4 shape: tcgen05 MMAs into TMEM, TMEM loads/stores, SFU "
          "exp (+ a polynomial), O correction; KV tiles unrolled",
          {drawn_param("exp_poly", kZeroOrOne, 0, 1,
                       "1: part of exp2 by a polynomial on the CUDA cores (FA4); 0: all on the "
                       "SFU (FA3)"),
           kKindLatencies,
           kStages,
           kTileKib},
          16, 15, build_fa4_forward),
      tiled_family("fa_backward",
                   "FlashAttention backward inner loop: S, dP, dV, dK, dQ WGMMAs, exp, dS, TMA "
                   "reduce of dQ; Q tiles unrolled",
                   13, build_fa_backward),
  };
}

// Structured GEMM-like loops: mainloops, epilogues, warp specialization and
// seed 000's worked example.
std::vector<Family> gemm_families() {
  return {
      tiled_family("gemm_mainloop",
                   "GEMM mainloop: TMA A/B -> mbarrier wait -> WGMMA accumulator recurrence -> "
                   "release; k-tiles unrolled",
                   5, build_gemm_mainloop),
      structured_family(
          "grouped_gemm",
          "grouped/MoE GEMM: per expert a tensormap update, a k-tile mainloop and "
          "a TMA store; k-tiles dealt unevenly by the seed",
          {{"groups", 4, 1, 64, "experts in the loop body"},
           kKindLatencies,
           {"skew_per_mille", 500, 0, 1000, "chance an extra k-tile goes to expert 0"},
           kStages,
           kTileKib},
          24, 3, build_grouped_gemm),
      tiled_family("implicit_conv",
                   "implicit-GEMM convolution: im2col, cp.async activations, TMA filter, WGMMA "
                   "accumulator; filter taps unrolled",
                   5, build_implicit_conv),
      structured_family(
          "persistent_gemm",
          "persistent GEMM with epilogue: tile scheduler, tcgen05 mainloop into "
          "TMEM, TMEM -> registers (-> convert) -> SMEM -> TMA store",
          {drawn_param("epi_convert", kZeroOrOne, 0, 1,
                       "1: the epilogue converts each sub-tile on the CUDA cores (a bf16 "
                       "output); 0: stores it as it leaves TMEM (fp32)"),
           drawn_param("epi_subtiles", kOneOrTwo, 1, 4, "epilogue sub-tiles"),
           kKindLatencies,
           kStages,
           kTileKib,
           drawn_param("tmem_buffers", kOneOrTwo, 1, 2, "TMEM accumulators in flight")},
          14, 4, build_persistent_gemm),
      structured_family(
          "seed_worked_example",
          "seed 000's worked example (TMA load, SMEM write, WGMMA, SMEM read), copies side by "
          "side; ops=4 with kind_latencies=1 store_bytes=16384 is the seed's graph",
          {kKindLatencies,
           drawn_param("store_bytes", kStoreBytesDraws, 0, 232448, "the SMEM write's buffer")},
          4, 3, build_seed_worked_example),
      structured_family(
          "warp_specialized",
          "warp-specialized producer/consumer loop: mbarriers, TMA producer, "
          "ping-pong WGMMA consumers through named barriers, groups and max depths",
          {drawn_param("consumers", kOneOrTwo, 1, 4, "consumer warpgroups"),
           kKindLatencies,
           kStages,
           kTileKib},
          9, 12, build_warp_specialized),
  };
}

// The families of `groups`, in name order.
std::vector<Family> in_name_order(std::vector<std::vector<Family>> groups) {
  std::vector<Family> out;
  for (std::vector<Family>& g : groups) {
    for (Family& f : g) out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(),
            [](const Family& a, const Family& b) { return a.name < b.name; });
  return out;
}

// Random families first, then structured ones, each in name order.
std::vector<Family> make_families() {
  std::vector<Family> all = in_name_order({latency_families(), resource_families()});
  for (Family& f : in_name_order({attention_families(), gemm_families()})) {
    all.push_back(std::move(f));
  }
  return all;
}

std::string param_names(const Family& f) {
  std::string s;
  for (const ParamSpec& p : f.params) {
    if (!s.empty()) s += ", ";
    s += std::string(p.name) + " (" + std::to_string(p.min) + ".." + std::to_string(p.max) + ")";
  }
  return s.empty() ? "none" : s;
}

// Scales every store down by the same factor when the serial schedule
// would hold more SMEM than the storage pool has. A valid graph stays
// valid: each store_bytes goes from b in 0..capacity to
// floor(b * budget / total) with budget < total, so into 0..b, and nothing
// else changes (validate_graph's only check of store_bytes is that range).
void fit_storage(Graph& g) {
  const std::optional<int> pool = g.target.storage_pool();
  if (!pool) return;
  const int64_t budget = g.target.pools[*pool].capacity;
  const int64_t total = serial_storage_bytes(g);
  if (total <= budget) return;
  for (Op& op : g.ops) {
    // bytes and budget are up to 2^40 each: multiply in 128 bits.
    op.store_bytes = static_cast<int64_t>(Wide{op.store_bytes} * budget / total);
  }
}

}  // namespace

std::string_view family_kind_name(FamilyKind k) {
  return k == FamilyKind::kRandom ? "random" : "structured";
}

const std::vector<Family>& families() {
  static const std::vector<Family> all = make_families();
  return all;
}

const Family* find_family(std::string_view name) {
  for (const Family& f : families()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string family_names() {
  std::string s;
  for (const Family& f : families()) {
    if (!s.empty()) s += ", ";
    s += f.name;
  }
  return s;
}

StatusOr<ParamMap> parse_params(const Family& family, const std::vector<std::string>& kv) {
  ParamMap out;
  for (const std::string& item : kv) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    auto bad = [&](const std::string& why) {
      return Status::InvalidInput(std::string(family.name) + ": parameter '" + item + "': " +
                                  why + " (parameters: " + param_names(family) + ")");
    };
    if (eq == std::string::npos) return bad("expected key=value");
    const std::string value = item.substr(eq + 1);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
      return bad("value is not a decimal integer");
    }
    if (out.count(key)) return bad("given twice");
    out[key] = v;
  }
  return out;
}

StatusOr<ParamMap> resolve_params(const Family& family, const ParamMap& given, uint64_t seed) {
  for (const auto& [key, value] : given) {
    const std::string& name = key;  // clang 14 cannot capture a structured binding
    const auto it = std::find_if(family.params.begin(), family.params.end(),
                                 [&](const ParamSpec& p) { return p.name == name; });
    if (it == family.params.end()) {
      return Status::InvalidInput(std::string(family.name) + ": unknown parameter '" + key +
                                  "' (parameters: " + param_names(family) + ")");
    }
    if (value < it->min || value > it->max) {
      return Status::InvalidInput(std::string(family.name) + ": parameter " + key + "=" +
                                  std::to_string(value) + " is out of range " +
                                  std::to_string(it->min) + ".." + std::to_string(it->max) +
                                  " (parameters: " + param_names(family) + ")");
    }
  }
  ParamMap out;
  SplitMix64 rng(seed ^ kDrawnParamStream);
  for (const ParamSpec& p : family.params) {
    int64_t value = p.default_value;
    if (!p.drawn.empty()) value = p.drawn[rng.below(p.drawn.size())];
    const auto it = given.find(std::string(p.name));
    out[std::string(p.name)] = it == given.end() ? value : it->second;
  }
  return out;
}

StatusOr<Graph> generate(std::string_view name, int ops, uint64_t seed, const ParamMap& params) {
  const Family* family = find_family(name);
  if (!family) {
    return Status::InvalidInput("unknown family '" + std::string(name) +
                                "' (families: " + family_names() + ")");
  }
  StatusOr<ParamMap> resolved = resolve_params(*family, params, seed);
  if (!resolved.ok()) return resolved.status();
  if (!family->builds(ops)) {
    return Status::InvalidInput(std::string(name) + ": ops " + std::to_string(ops) +
                                " is out of range " + std::to_string(family->min_ops) + ".." +
                                std::to_string(family->max_ops));
  }
  StatusOr<Graph> g = family->build(ops, seed, *resolved);
  if (!g.ok()) return g;
  std::string full = std::string(name) + "/ops=" + std::to_string(ops) +
                     "/seed=" + std::to_string(seed);
  for (const auto& [key, value] : *resolved) full += "/" + key + "=" + std::to_string(value);
  if (!g->name.empty()) full += "/" + g->name;
  g->name = std::move(full);
  // The family's build validated the graph (FamilyFn); neither the name
  // (which validate_graph does not read) nor fit_storage can make it
  // invalid, so it is not validated a second time. A build with assertions
  // checks that it holds.
  fit_storage(*g);
  assert(validate_graph(*g).ok() && "fit_storage keeps a valid graph valid");
  return g;
}

int64_t serial_storage_bytes(const Graph& g) {
  std::vector<int64_t> longest(static_cast<size_t>(g.op_count()), 0);
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData) longest[e.from] = std::max(longest[e.from], e.distance);
  }
  int64_t total = 0;
  for (OpId v = 0; v < g.op_count(); ++v) total += g.ops[v].store_bytes * (1 + longest[v]);
  return total;
}

}  // namespace tilesched::graphgen
