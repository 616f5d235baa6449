// The postconditions of MaterializeSchedule (docs/MATERIALIZE.md), checked
// after every materialization and by the verifier on a schedule that
// carries pipes or mutexes. Each property is checked from its definition
// in tilesched/materialize.h -- coverage, grouping, owners, depths, ids,
// region order -- not by re-running Schedule::solve and comparing, so a bug
// in the solve cannot hide itself. Every violation is one line.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "phases.h"
#include "stage_order.h"
#include "tilesched/materialize.h"
#include "value_rule.h"
#include "value_maps.h"

namespace tilesched {

namespace {

using materialize_internal::before;
using materialize_internal::ValueMaps;

std::string str(int64_t x) { return std::to_string(x); }

class Checker {
 public:
  Checker(const Graph& g, const Schedule& s, const Materialization& m) : g_(g), s_(s), m_(m) {}
  // Every check; with `maps`, the stage order is taken as checked and the
  // value maps as built.
  std::vector<std::string> run(const ValueMaps* maps = nullptr) &&;

 private:
  bool in_range(OpId v) const { return v >= 0 && v < g_.op_count(); }
  const std::string& name(OpId v) const { return g_.ops[v].name; }
  std::string edge_text(int i) const;
  std::string pipe_text(size_t p) const;
  std::string mutex_text(size_t x) const;
  std::string edge_list(const std::vector<int>& edges) const;

  template <class Values, class Which>
  std::string id_list(const Values& values, const Which& which) const;

  bool check_references();
  void check_pipe(size_t p);
  void check_pipe_order(size_t p, const std::string& who);
  void check_pipe_depth(size_t p, const std::string& who);
  void check_pipe_producers(size_t p, const std::string& who);
  void check_owner(const std::string& who, OpId owner, OpId earliest);
  void check_recorded_edges(const std::string& who, const std::vector<int>& recorded,
                            const std::vector<int>& carried);
  void check_coverage();
  void check_mutexes();
  void check_agents();
  void check_region();
  struct RegionTally;
  void region_op(const RegionStep& step, RegionTally& tally);
  void region_acquire(size_t i, RegionTally& tally);
  void region_produce_or_release(size_t i, RegionTally& tally);
  void check_region_counts(const RegionTally& tally);
  void check_flag();
  void add(std::string message) { out_.push_back(std::move(message)); }

  const Graph& g_;
  const Schedule& s_;
  const Materialization& m_;
  ValueMaps own_maps_;
  const ValueMaps* maps_ = &own_maps_;
  std::vector<std::vector<int>> carried_;  // per pipe: pipe_edges
  std::vector<std::string> out_;
};

std::string Checker::edge_text(int i) const {
  const Edge& e = g_.edges[i];
  std::string t =
      (e.kind == EdgeKind::kOrder ? "order edge " : "edge ") + name(e.from) + " -> " + name(e.to);
  if (e.distance > 0) t += " (distance " + str(e.distance) + ")";
  return t;
}

std::string Checker::pipe_text(size_t p) const {
  const Pipe& pipe = m_.pipes[p];
  std::string t = pipe.id + " (";
  for (size_t i = 0; i < pipe.producers.size(); ++i) {
    t += (i ? ", " : "") + name(pipe.producers[i]);
  }
  return t + (pipe.producers.empty() ? "" : " ") + "-> " + name(pipe.consumer) + ")";
}

std::string Checker::mutex_text(size_t x) const {
  const Mutex& mx = m_.mutexes[x];
  return mx.id + " (" + name(mx.releaser) + " -> " + name(mx.acquirer) + ")";
}

std::string Checker::edge_list(const std::vector<int>& edges) const {
  std::string t = "[";
  for (size_t i = 0; i < edges.size(); ++i) t += (i ? ", " : "") + str(edges[i]);
  return t + "]";
}

// The ids of the pipes or mutexes `which`, comma-separated.
template <class Values, class Which>
std::string Checker::id_list(const Values& values, const Which& which) const {
  std::string list;
  for (size_t x : which) list += (list.empty() ? "" : ", ") + values[x].id;
  return list;
}

void Checker::check_owner(const std::string& who, OpId owner, OpId earliest) {
  if (owner != earliest) {
    add(who + ": owner " + name(owner) + " is not the earliest by (stage, order); expected " +
        name(earliest));
  }
}

void Checker::check_recorded_edges(const std::string& who, const std::vector<int>& recorded,
                                   const std::vector<int>& carried) {
  if (recorded != carried) {
    add(who + ": records edges " + edge_list(recorded) + " but carries " + edge_list(carried));
  }
}

// Ids in sequence and every op reference inside the graph; the later
// checks index with them, so they run only when this passes.
bool Checker::check_references() {
  bool ok = true;
  for (size_t p = 0; p < m_.pipes.size(); ++p) {
    const Pipe& pipe = m_.pipes[p];
    if (pipe.id != "Pipe_" + str(static_cast<int64_t>(p))) {
      add("pipe #" + str(static_cast<int64_t>(p)) + " is named " + pipe.id + ", expected Pipe_" +
          str(static_cast<int64_t>(p)));
    }
    bool refs = in_range(pipe.consumer) && in_range(pipe.owner);
    for (OpId u : pipe.producers) refs = refs && in_range(u);
    if (!refs) {
      add(pipe.id + " names an op outside the graph");
      ok = false;
    }
  }
  for (size_t x = 0; x < m_.mutexes.size(); ++x) {
    const Mutex& mx = m_.mutexes[x];
    if (mx.id != "Mutex_" + str(static_cast<int64_t>(x))) {
      add("mutex #" + str(static_cast<int64_t>(x)) + " is named " + mx.id + ", expected Mutex_" +
          str(static_cast<int64_t>(x)));
    }
    if (!in_range(mx.releaser) || !in_range(mx.acquirer) || !in_range(mx.owner)) {
      add(mx.id + " names an op outside the graph");
      ok = false;
    }
  }
  return ok;
}

void Checker::check_pipe(size_t p) {
  const std::string who = pipe_text(p);
  check_pipe_order(p, who);
  check_recorded_edges(who, m_.pipes[p].edges, carried_[p]);
  check_pipe_depth(p, who);
  check_pipe_producers(p, who);
}

// Producers once each in (stage, order); the owner the earliest of them.
void Checker::check_pipe_order(size_t p, const std::string& who) {
  const Pipe& pipe = m_.pipes[p];
  for (size_t i = 1; i < pipe.producers.size(); ++i) {
    if (!before(s_, pipe.producers[i - 1], pipe.producers[i])) {
      add(who + ": producers are not listed once each in (stage, order)");
      break;
    }
  }
  OpId earliest = pipe.consumer;
  if (!pipe.producers.empty()) {
    earliest = pipe.producers.front();
    for (OpId u : pipe.producers) {
      if (before(s_, u, earliest)) earliest = u;
    }
  }
  check_owner(who, pipe.owner, earliest);
}

// At least 1; the deepest carried edge's depth (1 for a consumer-only pipe).
void Checker::check_pipe_depth(size_t p, const std::string& who) {
  const Pipe& pipe = m_.pipes[p];
  const std::vector<int>& carried = carried_[p];
  if (pipe.depth < 1) add(who + ": depth " + str(pipe.depth) + " is below 1");
  int64_t expected = 1;
  if (!pipe.producers.empty()) {
    expected = 0;
    for (int e : carried) expected = std::max(expected, maps_->depth[e]);
  }
  const bool known = pipe.producers.empty() || !carried.empty();
  if (known && pipe.depth != expected) {
    add(who + ": depth " + str(pipe.depth) + ", expected " + str(expected) +
        (pipe.producers.empty() ? " (a consumer-only pipe)"
                                : " (max of stage(consumer) - stage(producer) + distance + 1)"));
  }
}

// Every producer feeds the consumer through a carried edge, some carried
// edge needs a pipe, and producers share a pipe only as asynchronous
// same-iteration arrivals at the consumer (any other group joins ops with
// nothing in common).
void Checker::check_pipe_producers(size_t p, const std::string& who) {
  const Pipe& pipe = m_.pipes[p];
  const std::vector<int>& carried = carried_[p];
  std::vector<OpId> feeding, arriving;  // sources of carried edges; of arrivals among them
  for (int e : carried) {
    feeding.push_back(g_.edges[e].from);
    if (maps_->needs[e] && maps_->raw[e].kind == RawValue::Kind::kArrival) {
      arriving.push_back(g_.edges[e].from);
    }
  }
  std::sort(feeding.begin(), feeding.end());
  std::sort(arriving.begin(), arriving.end());
  for (OpId u : pipe.producers) {
    if (!std::binary_search(feeding.begin(), feeding.end(), u)) {
      add(who + ": producer " + name(u) + " has no live data edge to " + name(pipe.consumer));
    }
  }
  if (std::none_of(carried.begin(), carried.end(), [&](int e) { return maps_->needs[e] != 0; })) {
    add(who + ": carries no edge that needs a pipe");
  }
  if (pipe.producers.size() < 2) return;
  for (OpId u : pipe.producers) {
    if (!std::binary_search(arriving.begin(), arriving.end(), u)) {
      add(who + ": groups " + name(u) +
          ", which shares no origin value with the other producers (not an asynchronous "
          "same-iteration arrival at " +
          name(pipe.consumer) + ")");
    }
  }
}

void Checker::check_coverage() {
  std::vector<std::vector<size_t>> by_edge(g_.edges.size());
  for (size_t p = 0; p < m_.pipes.size(); ++p) {
    for (int e : carried_[p]) by_edge[e].push_back(p);
  }
  for (int e = 0; e < g_.edge_count(); ++e) {
    const std::vector<size_t>& pipes = by_edge[e];
    if (maps_->needs[e] && pipes.empty()) {
      add(edge_text(e) + " needs a pipe and no pipe carries it");
    } else if (pipes.size() > 1) {
      add(edge_text(e) + " is carried by " + str(static_cast<int64_t>(pipes.size())) + " pipes (" +
          id_list(m_.pipes, pipes) + "), not one");
    }
  }
  // The async same-iteration producers of a consumer in one agent share
  // its barrier: one pipe for all of them.
  for (OpId c = 0; c < g_.op_count(); ++c) {
    std::map<int, std::set<size_t>> pipes;  // producer agent -> pipes
    for (int e : maps_->needed_in[c]) {
      if (maps_->raw[e].kind == RawValue::Kind::kArrival && by_edge[e].size() == 1) {
        pipes[maps_->agents.of_op[g_.edges[e].from]].insert(by_edge[e].front());
      }
    }
    for (const auto& [agent, split] : pipes) {
      if (split.size() > 1) {
        add("the asynchronous producers of agent " + maps_->agents.names[agent] +
            " arriving at " + name(c) + " are split across " + id_list(m_.pipes, split) +
            " (they share one origin value)");
      }
    }
  }
  // Nothing crosses agents but through a pipe.
  for (int e = 0; e < g_.edge_count(); ++e) {
    const Edge& edge = g_.edges[e];
    const int from = maps_->agents.of_op[edge.from];
    const int to = maps_->agents.of_op[edge.to];
    if (edge.kind == EdgeKind::kData && from != to && by_edge[e].empty()) {
      add(edge_text(e) + " crosses from agent " + maps_->agents.names[from] + " to " +
          maps_->agents.names[to] + " and no pipe carries it");
    }
  }
  std::map<std::pair<OpId, std::set<OpId>>, size_t> groups;
  for (size_t p = 0; p < m_.pipes.size(); ++p) {
    const Pipe& pipe = m_.pipes[p];
    std::set<OpId> producers(pipe.producers.begin(), pipe.producers.end());
    auto [it, fresh] = groups.try_emplace({pipe.consumer, std::move(producers)}, p);
    if (!fresh) {
      add(pipe_text(p) + " duplicates " + m_.pipes[it->second].id +
          " (same producers and consumer)");
    }
  }
}

void Checker::check_mutexes() {
  std::vector<std::vector<size_t>> by_edge(g_.edges.size());
  std::vector<std::vector<int>> order_out(g_.ops.size());  // order edges by source, ascending id
  for (int e = 0; e < g_.edge_count(); ++e) {
    if (g_.edges[e].kind == EdgeKind::kOrder) order_out[g_.edges[e].from].push_back(e);
  }
  for (size_t x = 0; x < m_.mutexes.size(); ++x) {
    const Mutex& mx = m_.mutexes[x];
    const std::string who = mutex_text(x);
    std::vector<int> carried;  // mutex_edges(), through the index
    for (int e : order_out[mx.releaser]) {
      if (g_.edges[e].to == mx.acquirer) carried.push_back(e);
    }
    for (int e : carried) by_edge[e].push_back(x);
    if (carried.empty()) {
      add(who + ": no order edge runs from " + name(mx.releaser) + " to " + name(mx.acquirer));
      continue;
    }
    check_recorded_edges(who, mx.edges, carried);
    check_owner(who, mx.owner, before(s_, mx.acquirer, mx.releaser) ? mx.acquirer : mx.releaser);
    int64_t expected = 0;
    for (int e : carried) expected = std::max(expected, maps_->depth[e]);
    if (mx.depth < 1) add(who + ": depth " + str(mx.depth) + " is below 1");
    if (mx.depth != expected) {
      add(who + ": depth " + str(mx.depth) + ", expected " + str(expected) +
          " (max of stage(acquirer) - stage(releaser) + distance + 1)");
    }
  }
  for (int e = 0; e < g_.edge_count(); ++e) {
    if (g_.edges[e].kind != EdgeKind::kOrder) continue;
    if (by_edge[e].empty()) add(edge_text(e) + " needs a mutex and no mutex carries it");
    if (by_edge[e].size() > 1) {
      add(edge_text(e) + " is carried by " + str(static_cast<int64_t>(by_edge[e].size())) +
          " mutexes (" + id_list(m_.mutexes, by_edge[e]) + "), not one");
    }
  }
}

// Every op runs in the agent assign_agents gives it; a pipe records its
// producers' one agent and its consumer's (the fallback: the consumer's on
// both sides).
void Checker::check_agents() {
  const AgentAssignment& a = maps_->agents;
  if (m_.agents.size() != g_.ops.size()) {
    add("the materialization names the agents of " + str(static_cast<int64_t>(m_.agents.size())) +
        " ops, not of all " + str(g_.op_count()));
  } else {
    for (OpId v = 0; v < g_.op_count(); ++v) {
      if (m_.agents[v] != a.name_of(v)) {
        add(name(v) + " runs in agent " + m_.agents[v] + ", expected " + a.name_of(v));
      }
    }
  }
  for (size_t p = 0; p < m_.pipes.size(); ++p) {
    const Pipe& pipe = m_.pipes[p];
    const std::string& consumer = a.name_of(pipe.consumer);
    if (pipe.consumer_agent != consumer) {
      add(pipe_text(p) + ": consumer agent " + pipe.consumer_agent + ", expected " + consumer);
    }
    std::set<int> producers;
    for (OpId u : pipe.producers) producers.insert(a.of_op[u]);
    if (producers.size() > 1) {
      add(pipe_text(p) + ": its producers run in " + str(static_cast<int64_t>(producers.size())) +
          " agents, not one");
      continue;
    }
    const std::string& expected = producers.empty() ? consumer : a.names[*producers.begin()];
    if (pipe.producer_agent != expected) {
      add(pipe_text(p) + ": producer agent " + pipe.producer_agent + ", expected " + expected);
    }
  }
}

// What one pass over the region found (check_region).
struct Checker::RegionTally {
  std::vector<int> seen;                            // by op
  std::vector<int> acquired, released;              // by mutex
  std::map<std::pair<size_t, OpId>, int> produced;  // by (pipe, producer)
  std::vector<std::vector<OpId>> producer_sets;     // by pipe: its producers, ascending id
  OpId previous = -1;                               // the last op step
  bool in_order = true;
};

// Every op once, in (stage, order); each mutex acquired right before its
// acquirer and released right after its releaser, once each; each pipe
// produced into right after each of its producers, once each.
void Checker::check_region() {
  RegionTally tally;
  tally.seen.assign(static_cast<size_t>(g_.op_count()), 0);
  tally.acquired.assign(m_.mutexes.size(), 0);
  tally.released.assign(m_.mutexes.size(), 0);
  for (const Pipe& p : m_.pipes) {
    tally.producer_sets.push_back(p.producers);
    std::sort(tally.producer_sets.back().begin(), tally.producer_sets.back().end());
  }
  for (size_t i = 0; i < m_.region.size(); ++i) {
    const RegionStep& step = m_.region[i];
    if (!in_range(step.op)) {
      add("region step " + str(static_cast<int64_t>(i)) + " names an op outside the graph");
      return;
    }
    switch (step.kind) {
      case RegionStep::Kind::kOp:
        region_op(step, tally);
        break;
      case RegionStep::Kind::kAcquire:
        region_acquire(i, tally);
        break;
      case RegionStep::Kind::kProduce:
      case RegionStep::Kind::kRelease:
        region_produce_or_release(i, tally);
        break;
    }
  }
  check_region_counts(tally);
}

void Checker::region_op(const RegionStep& step, RegionTally& tally) {
  ++tally.seen[step.op];
  if (tally.previous >= 0 && tally.in_order && !before(s_, tally.previous, step.op)) {
    add("region: " + name(step.op) + " follows " + name(tally.previous) +
        ", against (stage, order)");
    tally.in_order = false;
  }
  tally.previous = step.op;
}

// An acquire sits right before its mutex's acquirer, after at most other
// acquires.
void Checker::region_acquire(size_t i, RegionTally& tally) {
  const std::vector<RegionStep>& r = m_.region;
  const RegionStep& step = r[i];
  const bool ok_value = step.value >= 0 && step.value < static_cast<int>(m_.mutexes.size());
  size_t next = i + 1;
  while (next < r.size() && r[next].kind == RegionStep::Kind::kAcquire) ++next;
  if (!ok_value || m_.mutexes[step.value].acquirer != step.op || next == r.size() ||
      r[next].kind != RegionStep::Kind::kOp || r[next].op != step.op) {
    add("region step " + str(static_cast<int64_t>(i)) +
        ": an acquire that does not sit right before its mutex's acquirer");
  } else {
    ++tally.acquired[step.value];
  }
}

// A produce or a release follows its own op: a producer of the pipe, the
// releaser of the mutex.
void Checker::region_produce_or_release(size_t i, RegionTally& tally) {
  const RegionStep& step = m_.region[i];
  const bool produce = step.kind == RegionStep::Kind::kProduce;
  const size_t values = produce ? m_.pipes.size() : m_.mutexes.size();
  const bool ok_value = step.value >= 0 && static_cast<size_t>(step.value) < values;
  bool belongs = false;
  if (ok_value && produce) {
    const std::vector<OpId>& prods = tally.producer_sets[step.value];
    belongs = std::binary_search(prods.begin(), prods.end(), step.op);
  } else if (ok_value) {
    belongs = m_.mutexes[step.value].releaser == step.op;
  }
  if (!belongs || tally.previous != step.op) {
    add("region step " + str(static_cast<int64_t>(i)) + ": a " +
        (produce ? "produce" : "release") + " that does not follow its own op");
  } else if (produce) {
    ++tally.produced[{static_cast<size_t>(step.value), step.op}];
  } else {
    ++tally.released[step.value];
  }
}

void Checker::check_region_counts(const RegionTally& tally) {
  for (OpId v = 0; v < g_.op_count(); ++v) {
    if (tally.seen[v] != 1) {
      add("region lists " + name(v) + " " + str(tally.seen[v]) + " times, not once");
    }
  }
  for (size_t x = 0; x < m_.mutexes.size(); ++x) {
    if (tally.acquired[x] != 1 || tally.released[x] != 1) {
      add("region acquires " + m_.mutexes[x].id + " " + str(tally.acquired[x]) +
          " times and releases it " + str(tally.released[x]) + " times, not once each");
    }
  }
  for (size_t p = 0; p < m_.pipes.size(); ++p) {
    for (OpId u : m_.pipes[p].producers) {
      auto it = tally.produced.find({p, u});
      const int count = it == tally.produced.end() ? 0 : it->second;
      if (count != 1) {
        add("region: " + name(u) + " produces into " + m_.pipes[p].id + " " + str(count) +
            " times, not once");
      }
    }
  }
}

void Checker::check_flag() {
  const bool fallback = std::any_of(m_.pipes.begin(), m_.pipes.end(),
                                    [](const Pipe& p) { return p.producers.empty(); });
  if (fallback != m_.trivial_fallback) {
    add(std::string("the trivial-fallback flag is ") + (m_.trivial_fallback ? "set" : "not set") +
        " but " + (fallback ? "a" : "no") + " consumer-only pipe exists");
  }
}

std::vector<std::string> Checker::run(const ValueMaps* maps) && {
  if (maps == nullptr) {
    if (std::optional<std::string> problem = materialize_internal::stage_order_problem(g_, s_)) {
      add(*problem);
      return std::move(out_);
    }
  }
  if (!check_references()) return std::move(out_);
  if (maps != nullptr) {
    maps_ = maps;
  } else {
    own_maps_ = materialize_internal::build_value_maps(g_, s_);
  }
  for (const Pipe& p : m_.pipes)
    carried_.push_back(materialize_internal::pipe_edges_in(*maps_, g_, p));
  for (size_t p = 0; p < m_.pipes.size(); ++p) check_pipe(p);
  check_coverage();
  check_mutexes();
  check_agents();
  check_region();
  check_flag();
  return std::move(out_);
}

}  // namespace

std::vector<std::string> check_materialization(const Graph& g, const Schedule& s,
                                               const Materialization& m) {
  return Checker(g, s, m).run();
}

std::vector<std::string> materialize_internal::check_materialization_with(
    const Graph& g, const Schedule& s, const Materialization& m, const ValueMaps& maps) {
  return Checker(g, s, m).run(&maps);
}

}  // namespace tilesched
