// MaterializeSchedule (seeds 000 and 003): build the two maps, seed the Mutex_ placeholders (exclusion
// first: a missing mutex is a correctness bug, a missing pipe a missed
// optimization), then the Pipe_ placeholders, run Schedule::solve per
// candidate pair, collapse duplicate pipes, rebuild the region in
// (stage, order) with the values spliced in, and verify the postconditions.
// Input is the plain Schedule only: which generator made it is irrelevant.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "phases.h"
#include "stage_order.h"

namespace tilesched {

namespace materialize_internal {

std::vector<Mutex> seed_mutex_placeholders(const Graph& g, const Schedule& s,
                                           const ValueMaps& maps) {
  std::vector<int> order_edges;
  for (int i = 0; i < g.edge_count(); ++i) {
    if (g.edges[i].kind == EdgeKind::kOrder) order_edges.push_back(i);
  }
  // A strict total order (the edge id breaks ties): std::sort gives the
  // stable order without a temporary buffer.
  std::sort(order_edges.begin(), order_edges.end(), [&](int a, int b) {
    const Edge& ea = g.edges[a];
    const Edge& eb = g.edges[b];
    if (ea.to != eb.to) return before(s, ea.to, eb.to);
    if (ea.from != eb.from) return before(s, ea.from, eb.from);
    return a < b;
  });
  std::vector<Mutex> mutexes;
  for (int i : order_edges) {
    const Edge& e = g.edges[i];
    if (mutexes.empty() || mutexes.back().releaser != e.from || mutexes.back().acquirer != e.to) {
      Mutex m;
      m.id = "Mutex_" + std::to_string(mutexes.size());
      m.releaser = e.from;
      m.acquirer = e.to;
      m.owner = before(s, e.to, e.from) ? e.to : e.from;
      m.depth = maps.depth[i];
      mutexes.push_back(std::move(m));
    }
    Mutex& m = mutexes.back();
    m.depth = std::max(m.depth, maps.depth[i]);
    m.edges.push_back(i);
  }
  for (Mutex& m : mutexes) std::sort(m.edges.begin(), m.edges.end());
  return mutexes;
}

std::vector<PipePlaceholder> seed_pipe_placeholders(const Graph& g, const Schedule& s,
                                                    const ValueMaps& maps) {
  std::vector<PipePlaceholder> out;
  for (OpId c : ops_in_stage_order(s)) {
    for (int e : maps.needed_in[c]) out.push_back({e, maps.raw[e], g.edges[e].to});
  }
  return out;
}

std::vector<CandidatePair> candidate_pairs(const std::vector<PipePlaceholder>& placeholders) {
  std::vector<CandidatePair> pairs;
  // A consumer's placeholders are contiguous: only its own pairs can
  // repeat. Per consumer, its placeholders' (kind, op, agent, position)
  // sorted: the first position of each distinct raw value is a pair.
  std::vector<std::tuple<int, OpId, int, size_t>> seen;
  std::vector<char> first(placeholders.size(), 0);
  for (size_t i = 0; i < placeholders.size();) {
    size_t j = i;
    seen.clear();
    for (; j < placeholders.size() && placeholders[j].consumer == placeholders[i].consumer; ++j) {
      const RawValue& r = placeholders[j].raw;
      seen.emplace_back(static_cast<int>(r.kind), r.op, r.agent, j);
    }
    std::sort(seen.begin(), seen.end());
    for (size_t k = 0; k < seen.size(); ++k) {
      const bool repeat = k > 0 && std::get<0>(seen[k]) == std::get<0>(seen[k - 1]) &&
                          std::get<1>(seen[k]) == std::get<1>(seen[k - 1]) &&
                          std::get<2>(seen[k]) == std::get<2>(seen[k - 1]);
      if (!repeat) first[std::get<3>(seen[k])] = 1;
    }
    i = j;
  }
  for (size_t i = 0; i < placeholders.size(); ++i) {
    if (first[i]) pairs.push_back({placeholders[i].raw, placeholders[i].consumer});
  }
  return pairs;
}

namespace {

// The pipes so far by (consumer, producers), looked up with a draft's
// (consumer, producers) without copying them into a key.
struct ByEnds {
  using is_transparent = void;
  using Key = std::pair<OpId, const std::vector<OpId>&>;
  const std::vector<Pipe>* pipes;
  Key key(int p) const { return {(*pipes)[p].consumer, (*pipes)[p].producers}; }
  static bool less(const Key& a, const Key& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  }
  bool operator()(int a, int b) const { return less(key(a), key(b)); }
  bool operator()(int a, const Key& b) const { return less(key(a), b); }
  bool operator()(const Key& a, int b) const { return less(a, key(b)); }
};

}  // namespace

std::vector<Pipe> collapse_duplicate_pipes(std::vector<std::vector<PipeDraft>> drafts,
                                           std::vector<PairSolve>& solves) {
  std::vector<Pipe> pipes;
  std::set<int, ByEnds> index(ByEnds{&pipes});  // pipes by (consumer, producers)
  // (consumer, owner, is the fallback) -> pipe, for the owner map's answers
  std::map<std::tuple<OpId, OpId, bool>, int> by_owner;
  for (size_t pair = 0; pair < drafts.size(); ++pair) {
    if (solves[pair].repeat_of >= 0) {
      const auto it =
          by_owner.find({solves[pair].consumer, solves[pair].repeat_of, solves[pair].fallback});
      if (it != by_owner.end()) {
        solves[pair].pipes.push_back(it->second);
        ++solves[pair].collapsed;
      }
      continue;
    }
    for (PipeDraft& d : drafts[pair]) {
      const auto it = index.find(ByEnds::Key{d.consumer, d.producers});
      const int at = it == index.end() ? static_cast<int>(pipes.size()) : *it;
      by_owner.try_emplace({d.consumer, d.owner, d.producers.empty()}, at);
      if (it == index.end()) {
        Pipe p;
        p.id = "Pipe_" + std::to_string(pipes.size());
        p.producers = std::move(d.producers);
        p.consumer = d.consumer;
        p.owner = d.owner;
        p.depth = d.depth;
        p.edges = std::move(d.edges);
        pipes.push_back(std::move(p));
        index.insert(at);
      } else {
        Pipe& p = pipes[at];
        p.depth = std::max(p.depth, d.depth);
        std::vector<int> merged;
        std::set_union(p.edges.begin(), p.edges.end(), d.edges.begin(), d.edges.end(),
                       std::back_inserter(merged));
        p.edges = std::move(merged);
        ++solves[pair].collapsed;
      }
      solves[pair].pipes.push_back(at);
    }
  }
  return pipes;
}

std::vector<RegionStep> rebuild_region(const Graph& g, const Schedule& s,
                                       const std::vector<Pipe>& pipes,
                                       const std::vector<Mutex>& mutexes) {
  const int n = g.op_count();
  auto in_range = [n](OpId v) { return v >= 0 && v < n; };
  std::vector<std::vector<int>> acquires(n), produces(n), releases(n);
  for (int m = 0; m < static_cast<int>(mutexes.size()); ++m) {
    if (in_range(mutexes[m].acquirer)) acquires[mutexes[m].acquirer].push_back(m);
    if (in_range(mutexes[m].releaser)) releases[mutexes[m].releaser].push_back(m);
  }
  for (int p = 0; p < static_cast<int>(pipes.size()); ++p) {
    std::vector<OpId> producers = pipes[p].producers;
    std::sort(producers.begin(), producers.end());
    producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
    for (OpId u : producers) {
      if (in_range(u)) produces[u].push_back(p);
    }
  }
  std::vector<RegionStep> region;
  for (OpId v : ops_in_stage_order(s)) {
    for (int m : acquires[v]) region.push_back({RegionStep::Kind::kAcquire, v, m});
    region.push_back({RegionStep::Kind::kOp, v, -1});
    for (int p : produces[v]) region.push_back({RegionStep::Kind::kProduce, v, p});
    for (int m : releases[v]) region.push_back({RegionStep::Kind::kRelease, v, m});
  }
  return region;
}

}  // namespace materialize_internal

using namespace materialize_internal;

StatusOr<Materialization> materialize(const Graph& g, const Schedule& s) {
  return materialize(g, s, MaterializeOptions{});
}

StatusOr<Materialization> materialize(const Graph& g, const Schedule& s,
                                      const MaterializeOptions& opts) {
  std::vector<PairSolve> solves;
  return materialize_internal::materialize_traced(g, s, solves, opts);
}

StatusOr<Materialization> materialize_internal::materialize_traced(
    const Graph& g, const Schedule& s, std::vector<PairSolve>& solves,
    const MaterializeOptions& opts) {
  if (!s.feasible) return Status::InvalidInput("materialize: the schedule is not feasible");
  if (s.ii < 1) {
    return Status::InvalidInput("materialize: II " + std::to_string(s.ii) + " is below 1");
  }
  if (std::optional<std::string> problem = stage_order_problem(g, s)) {
    return Status::InvalidInput("materialize: " + *problem);
  }

  const ValueMaps maps = build_value_maps(g, s);  // the two maps
  Materialization m;
  m.mutexes = seed_mutex_placeholders(g, s, maps);
  const std::vector<PipePlaceholder> placeholders = seed_pipe_placeholders(g, s, maps);

  std::vector<std::vector<PipeDraft>> drafts;
  ConsumerWork work;  // phases 1-3a and the owner map of the current consumer
  OwnerMap owners(0);
  const std::vector<CandidatePair> pairs = candidate_pairs(placeholders);
  solves.reserve(solves.size() + pairs.size());
  drafts.reserve(pairs.size());
  for (const CandidatePair& pair : pairs) {
    if (solves.empty() || solves.back().consumer != pair.consumer) {
      work = prepare_consumer(g, s, maps, pair.consumer);
      owners = OwnerMap(work.work.size());
    }
    SolveOutcome out = solve_pair(g, s, maps, work, pair.raw, owners);
    m.trivial_fallback = m.trivial_fallback || out.record.fallback;
    solves.push_back(std::move(out.record));
    drafts.push_back(std::move(out.drafts));
  }
  m.pipes = collapse_duplicate_pipes(std::move(drafts), solves);
  m.agents.reserve(g.ops.size());
  for (OpId v = 0; v < g.op_count(); ++v) m.agents.push_back(maps.agents.name_of(v));
  for (Pipe& p : m.pipes) {
    p.consumer_agent = maps.agents.name_of(p.consumer);
    p.producer_agent =
        p.producers.empty() ? p.consumer_agent : maps.agents.name_of(p.producers.front());
  }
#ifdef NDEBUG
  const bool check = opts.postconditions;
#else
  const bool check = true;  // a build with assertions checks every materialization
#endif
  // The region checks need the region.
  if (opts.region || check) m.region = rebuild_region(g, s, m.pipes, m.mutexes);
  if (!check) return m;

  const std::vector<std::string> violations = check_materialization_with(g, s, m, maps);
  if (!violations.empty()) {
    std::string message = "materialize: postcondition violated: " + violations.front();
    if (violations.size() > 1) {
      message += " (and " + std::to_string(violations.size() - 1) + " more)";
    }
    return Status::InvalidInput(std::move(message));
  }
  if (!opts.region) m.region.clear();
  return m;
}

void attach_materialization(Schedule& s, Materialization m) {
  s.pipes = std::move(m.pipes);
  s.mutexes = std::move(m.mutexes);
  s.agents = std::move(m.agents);
  const bool flagged =
      std::find(s.flags.begin(), s.flags.end(), kTrivialFallbackFlag) != s.flags.end();
  if (m.trivial_fallback && !flagged) s.flags.emplace_back(kTrivialFallbackFlag);
}

Materialization carried_materialization(const Graph& g, const Schedule& s) {
  Materialization m;
  m.pipes = s.pipes;
  m.mutexes = s.mutexes;
  m.agents = s.agents;
  m.trivial_fallback =
      std::find(s.flags.begin(), s.flags.end(), kTrivialFallbackFlag) != s.flags.end();
  if (s.stage.size() == g.ops.size() && s.order.size() == g.ops.size()) {
    m.region = rebuild_region(g, s, m.pipes, m.mutexes);
  }
  return m;
}

}  // namespace tilesched
