// The Pipe_/Mutex_ values a schedule must carry, derived by the verifier
// from the graph, II and the starts (docs/VERIFIER.md, "materialization").
//
// The place of an op in the rebuilt body is (stage, order) with
// stage = floor(start / II) and order its rank in the stage by (start, id);
// since the stage grows with the start, that is the order of (start, id),
// which is what runs_before compares. The values are checked against the
// recorded fields only through that derived order, never through the
// recorded stage and order (the stage-order rule checks those).
#include "verify_values.h"

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "tilesched/agents.h"
#include "tilesched/pipes.h"

namespace tilesched::verify_internal {

namespace {

std::string str(int64_t x) { return std::to_string(x); }

bool runs_before(const Schedule& s, OpId u, OpId v) {
  return s.start[u] != s.start[v] ? s.start[u] < s.start[v] : u < v;
}

// An op whose kind is asynchronous, TMA or WGMMA (target.h) completes
// later than it issues; a generic op or an unknown kind does not.
bool asynchronous(const Graph& g, OpId v) {
  const OpKind* kind = g.target.find_kind(g.ops[v].kind);
  return kind != nullptr && (kind->async || kind->tma || kind->wgmma);
}

std::vector<EdgeNeed> edge_needs_with(const Graph& g, const Schedule& s,
                                      const std::vector<int64_t>& stage,
                                      const AgentAssignment& agents);

class ValuesCheck {
 public:
  ValuesCheck(const Graph& g, const Schedule& s, const std::vector<int64_t>& stage)
      : g_(g), s_(s), agents_(assign_agents(g)), needs_(edge_needs_with(g, s, stage, agents_)) {}
  std::vector<std::string> run() &&;

 private:
  bool in_range(OpId v) const { return v >= 0 && v < g_.op_count(); }
  const std::string& name(OpId v) const { return g_.ops[v].name; }
  std::string edge_text(int e) const;
  std::string pipe_text(const Pipe& p) const;
  void add(std::string line) { out_.push_back(std::move(line)); }

  bool check_names_and_references();
  void index_edges();
  std::pair<std::vector<int>::const_iterator, std::vector<int>::const_iterator> edges_into(
      const std::vector<int>& index, OpId to, std::optional<OpId> from) const;
  std::vector<int> carried_by(const Pipe& p) const;
  void check_pipe(const Pipe& p, const std::vector<int>& carried);
  void check_pipe_grouping(const Pipe& p, const std::vector<int>& carried);
  void check_pipe_coverage(const std::vector<std::vector<int>>& carried);
  void check_arrivals_share_a_pipe(const std::vector<std::vector<int>>& carried);
  // What one (releaser, acquirer) pair of order edges needs of its mutex.
  struct NeededMutex {
    OpId releaser = 0, acquirer = 0;
    size_t begin = 0, end = 0;  // its edges: a run of needed_mutexes' `edges`
    OpId owner = 0;
    int64_t depth = 0;
    int carried = 0;  // mutexes naming this pair
  };
  std::vector<NeededMutex> needed_mutexes(std::vector<int>& edges) const;
  void check_mutexes();
  void check_agents();
  void check_flag();

  const Graph& g_;
  const Schedule& s_;
  const AgentAssignment agents_;  // the graph's warp roles (tilesched/agents.h)
  const std::vector<EdgeNeed> needs_;
  std::vector<int> data_edges_;   // data edge ids by (to, from, id)
  std::vector<int> order_edges_;  // order edge ids by (to, from, id)
  std::vector<std::string> out_;
};

std::string ValuesCheck::edge_text(int e) const {
  const Edge& edge = g_.edges[e];
  std::string t = std::string(edge.kind == EdgeKind::kOrder ? "order edge " : "edge ") +
                  name(edge.from) + " -> " + name(edge.to);
  if (edge.distance > 0) t += " (distance " + str(edge.distance) + ")";
  return t;
}

std::string ValuesCheck::pipe_text(const Pipe& p) const {
  std::string t = p.id + " (";
  for (size_t i = 0; i < p.producers.size(); ++i) t += (i > 0 ? ", " : "") + name(p.producers[i]);
  return t + (p.producers.empty() ? "" : " ") + "-> " + name(p.consumer) + ")";
}

std::string list_text(const std::vector<int>& ids) {
  std::string t = "[";
  for (size_t i = 0; i < ids.size(); ++i) t += (i > 0 ? ", " : "") + str(ids[i]);
  return t + "]";
}

// Ids Pipe_0.. and Mutex_0.. in list order; every op named inside the
// graph. The other checks index with the ops, so they run only after this.
bool ValuesCheck::check_names_and_references() {
  bool inside = true;
  for (size_t i = 0; i < s_.pipes.size(); ++i) {
    const Pipe& p = s_.pipes[i];
    const std::string expected = "Pipe_" + std::to_string(i);
    if (p.id != expected) {
      add("pipe #" + std::to_string(i) + " is named " + p.id + ", expected " + expected);
    }
    bool ok = in_range(p.consumer) && in_range(p.owner);
    for (OpId u : p.producers) ok = ok && in_range(u);
    if (!ok) add(p.id + " names an op outside the graph");
    inside = inside && ok;
  }
  for (size_t i = 0; i < s_.mutexes.size(); ++i) {
    const Mutex& m = s_.mutexes[i];
    const std::string expected = "Mutex_" + std::to_string(i);
    if (m.id != expected) {
      add("mutex #" + std::to_string(i) + " is named " + m.id + ", expected " + expected);
    }
    const bool ok = in_range(m.releaser) && in_range(m.acquirer) && in_range(m.owner);
    if (!ok) add(m.id + " names an op outside the graph");
    inside = inside && ok;
  }
  return inside;
}

void ValuesCheck::index_edges() {
  for (int e = 0; e < g_.edge_count(); ++e) {
    (g_.edges[e].kind == EdgeKind::kData ? data_edges_ : order_edges_).push_back(e);
  }
  const auto by_ends = [&](int a, int b) {
    const Edge& x = g_.edges[a];
    const Edge& y = g_.edges[b];
    return std::tie(x.to, x.from, a) < std::tie(y.to, y.from, b);
  };
  std::sort(data_edges_.begin(), data_edges_.end(), by_ends);
  std::sort(order_edges_.begin(), order_edges_.end(), by_ends);
}

// The edges of one index into `to`, from `from` (any source when
// nullopt): a range of the index, which is sorted by (to, from, id).
std::pair<std::vector<int>::const_iterator, std::vector<int>::const_iterator>
ValuesCheck::edges_into(const std::vector<int>& index, OpId to, std::optional<OpId> from) const {
  const auto key = [&](int e) {
    const Edge& x = g_.edges[e];
    return std::pair(x.to, from ? x.from : 0);
  };
  const std::pair<OpId, OpId> wanted(to, from.value_or(0));
  const auto lo = std::lower_bound(index.begin(), index.end(), wanted,
                                   [&](int e, const std::pair<OpId, OpId>& w) { return key(e) < w; });
  const auto hi = std::upper_bound(lo, index.end(), wanted,
                                   [&](const std::pair<OpId, OpId>& w, int e) { return w < key(e); });
  return {lo, hi};
}

// What a pipe carries, from its fields: every live data edge from one of
// its producers to its consumer; a pipe without producers (the trivial
// fallback) every data edge into its consumer that is not live. Ascending
// id, each once.
std::vector<int> ValuesCheck::carried_by(const Pipe& p) const {
  std::vector<int> out;
  if (p.producers.empty()) {
    const auto [lo, hi] = edges_into(data_edges_, p.consumer, std::nullopt);
    for (auto it = lo; it != hi; ++it) {
      if (!needs_[*it].live) out.push_back(*it);
    }
  } else {
    for (OpId u : p.producers) {
      const auto [lo, hi] = edges_into(data_edges_, p.consumer, u);
      for (auto it = lo; it != hi; ++it) {
        if (needs_[*it].live) out.push_back(*it);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());  // a producer listed twice
  return out;
}

void ValuesCheck::check_pipe(const Pipe& p, const std::vector<int>& carried) {
  const auto who = [&] { return pipe_text(p); };  // only for a message
  for (size_t i = 1; i < p.producers.size(); ++i) {
    if (!runs_before(s_, p.producers[i - 1], p.producers[i])) {
      add(who() + ": producers are not listed once each in (stage, order)");
      break;
    }
  }
  OpId owner = p.producers.empty() ? p.consumer : p.producers.front();
  for (OpId u : p.producers) {
    if (runs_before(s_, u, owner)) owner = u;
  }
  if (p.owner != owner) {
    add(who() + ": owner " + name(p.owner) + " is not the earliest by (stage, order); expected " +
        name(owner));
  }
  if (p.edges != carried) {
    add(who() + ": records edges " + list_text(p.edges) + " but carries " + list_text(carried));
  }
  if (std::none_of(carried.begin(), carried.end(),
                   [&](int e) { return needs_[e].need == Need::kPipe; })) {
    add(who() + ": carries no edge that needs a pipe");
  }
  if (p.depth < 1) add(who() + ": depth " + str(p.depth) + " is below 1");
  // The fallback holds one value; any other pipe the deepest edge it carries.
  std::optional<int64_t> depth;
  if (p.producers.empty()) depth = 1;
  for (int e : carried) {
    if (!p.producers.empty()) depth = std::max(depth.value_or(needs_[e].depth), needs_[e].depth);
  }
  if (depth && p.depth != *depth) {
    add(who() + ": depth " + str(p.depth) + ", expected " + str(*depth) +
        (p.producers.empty() ? " (a consumer-only pipe)"
                             : " (max of stage(consumer) - stage(producer) + distance + 1)"));
  }
  check_pipe_grouping(p, carried);
}

// Each producer hands the consumer a live value; two or more producers
// share one pipe only as asynchronous same-iteration arrivals.
void ValuesCheck::check_pipe_grouping(const Pipe& p, const std::vector<int>& carried) {
  const auto who = [&] { return pipe_text(p); };  // only for a message
  for (OpId u : p.producers) {
    bool feeds = false;
    bool arrives = false;
    for (int e : carried) {
      if (g_.edges[e].from != u) continue;
      feeds = true;
      arrives = arrives || needs_[e].arrival;
    }
    if (!feeds) {
      add(who() + ": producer " + name(u) + " has no live data edge to " + name(p.consumer));
    } else if (p.producers.size() >= 2 && !arrives) {
      add(who() + ": groups " + name(u) +
          ", which shares no origin value with the other producers (not an asynchronous "
          "same-iteration arrival at " +
          name(p.consumer) + ")");
    }
  }
}

// Every edge that needs a pipe is carried by exactly one; none by two.
void ValuesCheck::check_pipe_coverage(const std::vector<std::vector<int>>& carried) {
  std::vector<int> count(g_.edges.size(), 0);  // pipes carrying each edge
  for (const std::vector<int>& edges : carried) {
    for (int e : edges) ++count[e];
  }
  for (int e : data_edges_) {
    if (count[e] == 0 && needs_[e].need == Need::kPipe) {
      add(edge_text(e) + " needs a pipe and no pipe carries it");
    } else if (count[e] > 1) {
      std::string ids;
      for (size_t p = 0; p < carried.size(); ++p) {
        if (std::binary_search(carried[p].begin(), carried[p].end(), e)) {
          ids += (ids.empty() ? "" : ", ") + s_.pipes[p].id;
        }
      }
      add(edge_text(e) + " is carried by " + std::to_string(count[e]) + " pipes (" + ids +
          "), not one");
    }
  }
}

// The asynchronous same-iteration producers of a consumer arrive on one
// barrier: all their edges in one pipe.
void ValuesCheck::check_arrivals_share_a_pipe(const std::vector<std::vector<int>>& carried) {
  // (consumer, producer agent, pipe) of every carried arrival, sorted: the
  // pipes of one (consumer, producer agent) are then a run, ascending
  std::vector<std::tuple<OpId, int, int>> arrivals;
  for (size_t p = 0; p < carried.size(); ++p) {
    for (int e : carried[p]) {
      if (needs_[e].arrival) {
        const Edge& edge = g_.edges[e];
        arrivals.emplace_back(edge.to, agents_.of_op[edge.from], static_cast<int>(p));
      }
    }
  }
  std::sort(arrivals.begin(), arrivals.end());
  arrivals.erase(std::unique(arrivals.begin(), arrivals.end()), arrivals.end());
  for (size_t i = 0; i < arrivals.size();) {
    const auto [consumer, agent, first] = arrivals[i];
    size_t j = i;
    std::string ids;
    for (; j < arrivals.size() && std::get<0>(arrivals[j]) == consumer &&
           std::get<1>(arrivals[j]) == agent;
         ++j) {
      ids += (ids.empty() ? "" : ", ") + s_.pipes[std::get<2>(arrivals[j])].id;
    }
    if (j - i >= 2) {
      add("the asynchronous producers of agent " + agents_.names[agent] + " arriving at " +
          name(consumer) + " are split across " + ids + " (they share one origin value)");
    }
    i = j;
  }
}

// The agents the schedule records, when it records them (a file from
// before agents records none): each op's is the graph's, each pipe's
// producers run in one agent, the one it names, and its consumer in the
// other it names (a consumer-only pipe names the consumer's twice).
void ValuesCheck::check_agents() {
  if (!s_.agents.empty()) {
    if (s_.agents.size() != g_.ops.size()) {
      add("the schedule names the agents of " + str(static_cast<int64_t>(s_.agents.size())) +
          " ops, not of all " + str(g_.op_count()));
    } else {
      for (OpId v = 0; v < g_.op_count(); ++v) {
        if (s_.agents[v] != agents_.name_of(v)) {
          add(name(v) + " runs in agent " + s_.agents[v] + ", expected " + agents_.name_of(v));
        }
      }
    }
  }
  std::vector<int> producers;  // the distinct agents of a pipe's producers, ascending
  for (const Pipe& p : s_.pipes) {
    producers.clear();
    for (OpId u : p.producers) producers.push_back(agents_.of_op[u]);
    std::sort(producers.begin(), producers.end());
    producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
    if (producers.size() > 1) {
      add(pipe_text(p) + ": its producers run in " + str(static_cast<int64_t>(producers.size())) +
          " agents; a pipe joins one producer agent to one consumer agent");
    }
    if (p.producer_agent.empty() && p.consumer_agent.empty()) continue;
    const std::string& consumer = agents_.name_of(p.consumer);
    const std::string& producer = producers.empty() ? consumer : agents_.names[producers.front()];
    if (p.consumer_agent != consumer) {
      add(pipe_text(p) + ": consumer agent " + p.consumer_agent + ", expected " + consumer);
    }
    if (producers.size() <= 1 && p.producer_agent != producer) {
      add(pipe_text(p) + ": producer agent " + p.producer_agent + ", expected " + producer);
    }
  }
}

// The mutexes a schedule needs follow from the order edges alone: one per
// (releaser, acquirer) pair, carrying all its edges, owned by the earlier
// of the two, as deep as its deepest edge. Each carried mutex is compared
// with the one its pair needs; each pair must be carried exactly once.
// The order edges by (releaser, acquirer, id) into `edges`, and one entry
// per (releaser, acquirer) pair, in that order: its edges are a run of
// `edges`, ascending id.
std::vector<ValuesCheck::NeededMutex> ValuesCheck::needed_mutexes(std::vector<int>& edges) const {
  edges = order_edges_;
  std::sort(edges.begin(), edges.end(), [&](int a, int b) {
    const Edge& x = g_.edges[a];
    const Edge& y = g_.edges[b];
    return std::tie(x.from, x.to, a) < std::tie(y.from, y.to, b);
  });
  std::vector<NeededMutex> needed;
  for (size_t i = 0; i < edges.size(); ++i) {
    const Edge& edge = g_.edges[edges[i]];
    if (needed.empty() || needed.back().releaser != edge.from ||
        needed.back().acquirer != edge.to) {
      NeededMutex n;
      n.releaser = edge.from;
      n.acquirer = edge.to;
      n.begin = i;
      n.depth = needs_[edges[i]].depth;
      n.owner = runs_before(s_, edge.to, edge.from) ? edge.to : edge.from;
      needed.push_back(n);
    }
    NeededMutex& n = needed.back();
    n.depth = std::max(n.depth, needs_[edges[i]].depth);
    n.end = i + 1;
  }
  return needed;
}

void ValuesCheck::check_mutexes() {
  std::vector<int> edges;
  std::vector<NeededMutex> needed = needed_mutexes(edges);
  const auto run = [&](const NeededMutex& n) {
    return std::pair(edges.begin() + static_cast<std::ptrdiff_t>(n.begin),
                     edges.begin() + static_cast<std::ptrdiff_t>(n.end));
  };
  for (const Mutex& m : s_.mutexes) {
    const auto who = [&] {
      return m.id + " (" + name(m.releaser) + " -> " + name(m.acquirer) + ")";
    };
    const auto it = std::lower_bound(
        needed.begin(), needed.end(), std::pair(m.releaser, m.acquirer),
        [](const NeededMutex& n, const std::pair<OpId, OpId>& k) {
          return std::pair(n.releaser, n.acquirer) < k;
        });
    if (it == needed.end() || it->releaser != m.releaser || it->acquirer != m.acquirer) {
      add(who() + ": no order edge runs from " + name(m.releaser) + " to " + name(m.acquirer));
      continue;
    }
    NeededMutex& n = *it;
    ++n.carried;
    const auto [lo, hi] = run(n);
    if (!std::equal(m.edges.begin(), m.edges.end(), lo, hi)) {
      add(who() + ": records edges " + list_text(m.edges) + " but carries " +
          list_text(std::vector<int>(lo, hi)));
    }
    if (m.owner != n.owner) {
      add(who() + ": owner " + name(m.owner) + " is not the earliest by (stage, order); expected " +
          name(n.owner));
    }
    if (m.depth < 1) add(who() + ": depth " + str(m.depth) + " is below 1");
    if (m.depth != n.depth) {
      add(who() + ": depth " + str(m.depth) + ", expected " + str(n.depth) +
          " (max of stage(acquirer) - stage(releaser) + distance + 1)");
    }
  }
  for (const NeededMutex& n : needed) {
    for (size_t i = n.begin; i < n.end; ++i) {
      if (n.carried == 0) add(edge_text(edges[i]) + " needs a mutex and no mutex carries it");
      if (n.carried > 1) {
        add(edge_text(edges[i]) + " is carried by " + std::to_string(n.carried) +
            " mutexes, not one");
      }
    }
  }
}

void ValuesCheck::check_flag() {
  const bool flagged =
      std::find(s_.flags.begin(), s_.flags.end(), kTrivialFallbackFlag) != s_.flags.end();
  const bool fallback = std::any_of(s_.pipes.begin(), s_.pipes.end(),
                                    [](const Pipe& p) { return p.producers.empty(); });
  if (flagged != fallback) {
    add(std::string("the trivial-fallback flag is ") + (flagged ? "set" : "not set") + " but " +
        (fallback ? "a" : "no") + " consumer-only pipe exists");
  }
}

std::vector<std::string> ValuesCheck::run() && {
  if (!check_names_and_references()) return std::move(out_);
  index_edges();
  std::vector<std::vector<int>> carried;
  for (const Pipe& p : s_.pipes) carried.push_back(carried_by(p));
  for (size_t p = 0; p < s_.pipes.size(); ++p) check_pipe(s_.pipes[p], carried[p]);
  check_pipe_coverage(carried);
  check_arrivals_share_a_pipe(carried);
  check_mutexes();
  check_agents();
  check_flag();
  return std::move(out_);
}

}  // namespace

std::vector<EdgeNeed> edge_needs(const Graph& g, const Schedule& s,
                                 const std::vector<int64_t>& stage) {
  return edge_needs_with(g, s, stage, assign_agents(g));
}

namespace {

std::vector<EdgeNeed> edge_needs_with(const Graph& g, const Schedule& s,
                                      const std::vector<int64_t>& stage,
                                      const AgentAssignment& agents) {
  std::vector<EdgeNeed> out(g.edges.size());
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const Edge& e = g.edges[i];
    EdgeNeed& need = out[i];
    need.depth = stage[e.to] - stage[e.from] + e.distance + 1;
    if (e.kind == EdgeKind::kOrder) {
      need.need = Need::kMutex;
      continue;
    }
    // A zero-distance value exists at the consumer only when its producer
    // runs strictly earlier; a zero-distance self edge never does.
    need.live = e.distance > 0 || runs_before(s, e.from, e.to);
    const bool async = asynchronous(g, e.from);
    // Across stages, iterations or agents (warp roles): nothing crosses an
    // agent boundary but through a pipe.
    const bool crosses = stage[e.from] != stage[e.to] || e.distance > 0 ||
                         agents.of_op[e.from] != agents.of_op[e.to];
    if (async || crosses || !need.live) need.need = Need::kPipe;
    need.arrival = async && e.distance == 0 && need.live;
  }
  return out;
}

}  // namespace

bool carries_values(const Schedule& s) {
  return !s.pipes.empty() || !s.mutexes.empty() ||
         std::find(s.flags.begin(), s.flags.end(), kTrivialFallbackFlag) != s.flags.end();
}

std::vector<std::string> check_values(const Graph& g, const Schedule& s,
                                      const std::vector<int64_t>& stage) {
  return ValuesCheck(g, s, stage).run();
}

}  // namespace tilesched::verify_internal
