// Work-list expansion, list parsing and sharding (worklist.h).
#include "sweep/worklist.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>

#include "tilesched/graphgen/families.h"
#include "tilesched/graphgen/hatschet.h"
#include "tilesched/json_io.h"

namespace tilesched::sweep {
namespace {

constexpr size_t kMaxListValues = 100000;

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  for (;;) {
    const size_t end = text.find(sep, begin);
    parts.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  return parts;
}

std::optional<int64_t> to_int(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Status bad_item(std::string_view what, std::string_view item, std::string_view why) {
  return Status::InvalidInput(std::string(what) + ": '" + std::string(item) + "' " +
                              std::string(why));
}

}  // namespace

std::string GeneratorConfig::name() const {
  return foreign ? foreign->name : std::string(generator_name(kind));
}

std::string GeneratorConfig::arm_policy_text() const {
  return arm_policy ? std::string(arm_policy_name(*arm_policy)) : std::string();
}

std::string Shard::text() const { return std::to_string(index) + "/" + std::to_string(count); }

StatusOr<std::vector<int64_t>> parse_int_list(std::string_view text, std::string_view what,
                                              int64_t lo, int64_t hi) {
  std::vector<int64_t> values;
  auto add = [&](int64_t v, std::string_view item) -> Status {
    if (v < lo || v > hi) {
      return bad_item(what, item, "is out of range " + std::to_string(lo) + ".." +
                                      std::to_string(hi));
    }
    for (int64_t w : values) {
      if (w == v) return Status::Ok();
    }
    if (values.size() >= kMaxListValues) {
      return bad_item(what, item, "makes the list longer than 100000 values");
    }
    values.push_back(v);
    return Status::Ok();
  };
  if (text.empty()) return Status::InvalidInput(std::string(what) + ": empty list");
  for (std::string_view item : split(text, ',')) {
    const size_t dash = item.find('-', 1);  // a leading '-' is a sign
    if (dash == std::string_view::npos) {
      const std::optional<int64_t> v = to_int(item);
      if (!v) return bad_item(what, item, "is not an integer or a range A-B");
      if (Status s = add(*v, item); !s.ok()) return s;
      continue;
    }
    std::string_view last = item.substr(dash + 1);
    char step_kind = '+';
    int64_t step = 1;
    if (const size_t mark = last.find_first_of(":x"); mark != std::string_view::npos) {
      step_kind = last[mark] == 'x' ? '*' : '+';
      const std::optional<int64_t> st = to_int(last.substr(mark + 1));
      if (!st || *st < (step_kind == '*' ? 2 : 1)) {
        return bad_item(what, item, "has a bad step (A-B:STEP with STEP >= 1, A-BxFACTOR with "
                                    "FACTOR >= 2)");
      }
      step = *st;
      last = last.substr(0, mark);
    }
    const std::optional<int64_t> a = to_int(item.substr(0, dash));
    const std::optional<int64_t> b = to_int(last);
    if (!a || !b) return bad_item(what, item, "is not a range A-B");
    if (*a > *b) return bad_item(what, item, "is an empty range (A > B)");
    if (step_kind == '*' && *a < 1) return bad_item(what, item, "geometric range must start >= 1");
    for (int64_t v = *a; v <= *b;) {
      if (Status s = add(v, item); !s.ok()) return s;
      if (step_kind == '*') {
        if (v > *b / step) break;
        v *= step;
      } else {
        if (v > *b - step) break;
        v += step;
      }
    }
  }
  return values;
}

StatusOr<std::vector<std::string>> parse_families(std::string_view text) {
  std::vector<std::string> out;
  if (text == "all") {
    for (const graphgen::Family& f : graphgen::families()) out.emplace_back(f.name);
    return out;
  }
  for (std::string_view item : split(text, ',')) {
    if (!graphgen::find_family(item)) {
      return Status::InvalidInput("--families: unknown family '" + std::string(item) +
                                  "' (all, " + graphgen::family_names() + ")");
    }
    bool dup = false;
    for (const std::string& o : out) dup = dup || o == item;
    if (!dup) out.emplace_back(item);
  }
  return out;
}

StatusOr<std::vector<GeneratorConfig>> parse_generators(std::string_view generators,
                                                        std::string_view arm_policies) {
  std::vector<ArmPolicy> policies;
  for (std::string_view item : split(arm_policies, ',')) {
    std::optional<ArmPolicy> p = parse_arm_policy(item);
    if (!p) {
      return Status::InvalidInput("--arm-policy: unknown policy '" + std::string(item) +
                                  "' (first-success, best-cost)");
    }
    bool dup = false;
    for (ArmPolicy q : policies) dup = dup || q == *p;
    if (!dup) policies.push_back(*p);
  }
  std::vector<GeneratorConfig> out;
  for (std::string_view item : split(generators, ',')) {
    if (is_foreign_generator(item)) {
      StatusOr<ForeignScheduler> f = resolve_foreign(item);
      if (!f.ok()) return Status::InvalidInput("--generators: " + f.status().message());
      GeneratorConfig c;
      c.foreign = std::make_shared<const ForeignScheduler>(std::move(*f));
      bool dup = false;
      for (const GeneratorConfig& o : out) dup = dup || o.name() == c.name();
      if (!dup) out.push_back(std::move(c));
      continue;
    }
    std::optional<GeneratorKind> k = parse_generator(item);
    if (!k) {
      return Status::InvalidInput("--generators: unknown generator '" + std::string(item) +
                                  "' (" + generator_names() + ")");
    }
    const bool takes_policy = *k == GeneratorKind::kCostBased ||
                              *k == GeneratorKind::kCostBasedSeed || *k == GeneratorKind::kAuto;
    std::vector<GeneratorConfig> configs;
    if (takes_policy) {
      for (ArmPolicy p : policies) configs.push_back({*k, p});
    } else {
      configs.push_back({*k, std::nullopt});
    }
    for (const GeneratorConfig& c : configs) {
      bool dup = false;
      for (const GeneratorConfig& o : out) dup = dup || o == c;
      if (!dup) out.push_back(c);
    }
  }
  return out;
}

std::vector<GeneratorConfig> with_stage_caps(const std::vector<GeneratorConfig>& configs,
                                             const std::vector<int64_t>& caps) {
  std::vector<GeneratorConfig> out;
  for (const GeneratorConfig& c : configs) {
    for (int64_t cap : caps) {
      GeneratorConfig capped = c;
      capped.max_stages = cap;
      out.push_back(capped);
    }
  }
  return out;
}

StatusOr<Shard> parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  std::optional<int64_t> k, n;
  if (slash != std::string_view::npos) {
    k = to_int(text.substr(0, slash));
    n = to_int(text.substr(slash + 1));
  }
  if (!k || !n || *n < 1 || *n > 1000000 || *k < 1 || *k > *n) {
    return Status::InvalidInput("--shard: '" + std::string(text) +
                                "' is not k/N with 1 <= k <= N (e.g. 3/8)");
  }
  return Shard{static_cast<int>(*k), static_cast<int>(*n)};
}

namespace {

namespace fs = std::filesystem;

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The key of one graph file, its graph read once for the op count.
StatusOr<GraphKey> graph_file_key(const fs::path& file, std::string name) {
  GraphKey key;
  key.graph = std::move(name);
  key.path = file.string();
  if (ends_with(key.path, ".graphml")) {
    key.family = std::string(kHatschetFamily);
    const std::string stem = key.path.substr(0, key.path.size() - std::string_view(".graphml").size());
    for (const char* tail : {"_RM.xml", "RM.xml"}) {
      if (key.rm_path.empty() && fs::is_regular_file(stem + tail)) key.rm_path = stem + tail;
    }
    if (key.rm_path.empty()) {
      return Status::InvalidInput("--graphs: " + key.path + ": no resource model " + stem +
                                  "_RM.xml or " + stem + "RM.xml beside it");
    }
  } else {
    key.family = std::string(kFileFamily);
  }
  StatusOr<Graph> g = read_graph_key(key);
  if (!g.ok()) return g.status();
  key.ops = g->op_count();
  key.loaded = std::make_shared<const Graph>(*std::move(g));
  return key;
}

}  // namespace

RowKey row_key(const GraphKey& graph, const GeneratorConfig& config) {
  return {graph.family,  std::to_string(graph.ops),     std::to_string(graph.seed),
          config.name(), config.arm_policy_text(), graph.graph,
          std::to_string(config.max_stages)};
}

StatusOr<Graph> read_graph_key(const GraphKey& key) {
  if (key.loaded) return *key.loaded;
  if (key.family == kHatschetFamily) return graphgen::import_hatschet(key.path, key.rm_path);
  return read_graph_file(key.path);
}

StatusOr<std::vector<GraphKey>> find_graph_files(const std::vector<std::string>& paths) {
  std::vector<GraphKey> out;
  std::map<std::string, std::string> seen;  // graph name -> its file
  if (paths.empty()) return Status::InvalidInput("--graphs: no path given");
  for (const std::string& arg : paths) {
    std::error_code ec;
    std::vector<std::pair<std::string, fs::path>> found;  // (name, file)
    if (fs::is_directory(arg, ec)) {
      fs::recursive_directory_iterator it(arg, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        const std::string file = it->path().filename().string();
        if (!it->is_regular_file(ec) || !(ends_with(file, ".loop.json") || ends_with(file, ".graphml"))) {
          continue;
        }
        found.emplace_back(it->path().lexically_relative(arg).generic_string(), it->path());
      }
      if (ec) return Status::InvalidInput("--graphs: " + arg + ": " + ec.message());
      if (found.empty()) {
        return Status::InvalidInput("--graphs: " + arg + ": no *.loop.json or *.graphml file in it");
      }
      std::sort(found.begin(), found.end());
    } else if (fs::is_regular_file(arg, ec)) {
      found.emplace_back(fs::path(arg).filename().string(), fs::path(arg));
    } else {
      return Status::InvalidInput("--graphs: " + arg + ": no such file or directory");
    }
    for (auto& [name, file] : found) {
      if (auto [at, fresh] = seen.emplace(name, file.string()); !fresh) {
        return Status::InvalidInput("--graphs: " + at->second + " and " + file.string() +
                                    " have the same name " + name + " (the rows' key)");
      }
      StatusOr<GraphKey> key = graph_file_key(file, name);
      if (!key.ok()) return key.status();
      out.push_back(*std::move(key));
    }
  }
  return out;
}

std::vector<GraphKey> expand_graphs(const SweepSpec& spec) {
  if (!spec.files.empty()) return spec.files;
  std::vector<GraphKey> out;
  out.reserve(spec.families.size() * spec.ops.size() * spec.seeds.size());
  for (const std::string& f : spec.families) {
    for (int ops : spec.ops) {
      const graphgen::Family* family = graphgen::find_family(f);
      if (!family || !family->builds(ops)) continue;  // below a structured family's smallest size
      for (uint64_t seed : spec.seeds) out.push_back({f, ops, seed, {}, {}, {}});
    }
  }
  return out;
}

std::vector<GraphKey> shard_graphs(const std::vector<GraphKey>& all, const Shard& shard) {
  std::vector<GraphKey> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (static_cast<int64_t>(i % static_cast<size_t>(shard.count)) == shard.index - 1) {
      out.push_back(all[i]);
    }
  }
  return out;
}

namespace {

constexpr Preset kPresets[] = {
    {"quick", "all", "8,16,32", "1-3", "serial,cost-based,cost-based-seed,ims,sms",
     "first-success,best-cost",
     "the CI regression gate: every family at 8, 16 and 32 ops (the sizes it builds), 3 "
     "seeds; about a minute on 2 cores"},
    {"default", "all", "8-64x2", "1-5", "serial,cost-based,cost-based-seed,ims,sms",
     "first-success,best-cost",
     "what scripts/run sweeps into results/: every family at 8 to 64 ops, 5 seeds; a few "
     "minutes on 2 cores (best-cost at 256 ops takes up to minutes per graph)"},
    {"paper", "all", "16-1024x2", "1-100", "serial,cost-based,cost-based-seed,ims,sms,exact",
     "first-success,best-cost",
     "the full study: 700 graphs per family, hours; split it with --shard on a cluster"},
};

}  // namespace

const Preset* find_preset(std::string_view name) {
  for (const Preset& p : kPresets) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

std::string preset_names() {
  std::string out;
  for (const Preset& p : kPresets) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

}  // namespace tilesched::sweep
