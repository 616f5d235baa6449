// Triton's lowering rules as graph constraints
// (tilesched/graphgen/ttgir_rules.h; docs/TTGIR.md, "Triton's rules as
// constraints"): what `export --to triton` checks, made to hold for every
// legal schedule.
#include "tilesched/graphgen/ttgir_rules.h"

#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "tilesched/limits.h"

namespace tilesched::graphgen {

namespace {

// Disjoint sets over the ops, the root of a set its least op.
class Sets {
 public:
  explicit Sets(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int root(int v) {
    while (parent_[v] != v) v = parent_[v] = parent_[parent_[v]];
    return v;
  }
  void join(int a, int b) {
    a = root(a), b = root(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

std::string quoted(const Op& op) { return "'" + op.name + "'"; }

// The buffer rule (a ttg.local_alloc's readers in its stage) and the
// whole-op rule (the graph ops of one body position in one stage) as
// leader_gid groups, numbered from 1 in the order of their first op.
Status group_stages(Graph& g, std::string_view where) {
  Sets sets(g.op_count());
  std::map<int64_t, OpId> first_at;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (g.ops[v].leader_gid) {
      return Status::InvalidInput(std::string(where) + ": op " + quoted(g.ops[v]) +
                                  " already has a leader_gid");
    }
    if (!g.ops[v].source_position) continue;
    sets.join(v, first_at.emplace(*g.ops[v].source_position, v).first->second);
  }
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData || g.ops[e.from].source_op != "ttg.local_alloc") continue;
    if (e.distance > 0) {
      return Status::InvalidInput(
          std::string(where) + ": op " + quoted(g.ops[e.to]) + " reads the buffer op " +
          quoted(g.ops[e.from]) + " (ttg.local_alloc) writes " + std::to_string(e.distance) +
          " iteration(s) later, which no stage group can keep in the writer's stage "
          "(import with --no-triton-rules to study the loop unconstrained)");
    }
    sets.join(e.from, e.to);
  }
  std::vector<int> members(g.op_count(), 0);
  for (OpId v = 0; v < g.op_count(); ++v) ++members[sets.root(v)];
  std::map<int, int64_t> gid;
  for (OpId v = 0; v < g.op_count(); ++v) {
    const int r = sets.root(v);
    if (members[r] < 2) continue;
    const int64_t id = gid.emplace(r, static_cast<int64_t>(gid.size()) + 1).first->second;
    g.ops[v].leader_gid = id;
  }
  return Status::Ok();
}

// Triton places the graph ops of one body position (an scf.if's) at one
// cluster, after everything the op reads: every op of such a position
// starts no earlier than any op outside it that one of them reads in the
// same iteration (an order edge of latency 0).
Status order_whole_ops(Graph& g, std::string_view where) {
  std::map<int64_t, std::vector<OpId>> at;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (g.ops[v].source_position) at[*g.ops[v].source_position].push_back(v);
  }
  std::set<std::pair<OpId, OpId>> joined;
  for (const Edge& e : g.edges) {
    if (e.distance == 0) joined.emplace(e.from, e.to);
  }
  std::vector<Edge> added;
  for (const Edge& e : g.edges) {
    const std::optional<int64_t> p = g.ops[e.to].source_position;
    if (e.distance != 0 || !p || g.ops[e.from].source_position == p || at[*p].size() < 2) continue;
    for (const OpId w : at[*p]) {
      if (joined.emplace(e.from, w).second) added.push_back(Edge{e.from, w, 0, 0, EdgeKind::kOrder});
    }
  }
  if (g.edges.size() + added.size() > static_cast<size_t>(limits::kMaxEdges)) {
    return Status::InvalidInput(std::string(where) + ": Triton's rules need more than " +
                                std::to_string(limits::kMaxEdges) +
                                " edges (the format's limit; --no-triton-rules imports without them)");
  }
  g.edges.insert(g.edges.end(), added.begin(), added.end());
  return Status::Ok();
}

}  // namespace

Status add_triton_rules(Graph& g, std::string_view where) {
  if (Status s = group_stages(g, where); !s.ok()) return s;
  return order_whole_ops(g, where);
}

}  // namespace tilesched::graphgen
