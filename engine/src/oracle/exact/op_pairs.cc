// The op pairs the exact oracle's models tie (op_pairs.h).
#include "op_pairs.h"

#include <algorithm>
#include <tuple>

namespace tilesched::exact_internal {

bool has_groups(const Graph& g) {
  return std::any_of(g.ops.begin(), g.ops.end(),
                     [](const Op& op) { return op.leader_gid.has_value(); });
}

namespace {

// (other end, or -1 for a self-loop; latency; distance; kind)
using EdgeKey = std::tuple<OpId, int64_t, int64_t, int>;
struct Signature {
  std::vector<EdgeKey> out, in;
};

std::vector<Signature> signatures(const Graph& g, std::vector<std::vector<OpId>>& neighbours) {
  std::vector<Signature> sig(g.op_count());
  neighbours.assign(g.op_count(), {});
  for (const Edge& e : g.edges) {
    const bool self = e.from == e.to;
    sig[e.from].out.emplace_back(self ? -1 : e.to, e.latency, e.distance, static_cast<int>(e.kind));
    if (!self) {
      sig[e.to].in.emplace_back(e.from, e.latency, e.distance, static_cast<int>(e.kind));
      neighbours[e.from].push_back(e.to);
      neighbours[e.to].push_back(e.from);
    }
  }
  for (Signature& x : sig) {
    std::sort(x.out.begin(), x.out.end());
    std::sort(x.in.begin(), x.in.end());
  }
  return sig;
}

}  // namespace

// Ops that differ in nothing but their names (gid aside, which no rule
// reads) and meet the same edges, none between them, can swap starts in any
// legal schedule: keeping them in id order loses nothing (docs/EXACT.md).
std::vector<std::pair<OpId, OpId>> interchangeable_pairs(const Graph& g) {
  std::vector<std::vector<OpId>> neighbours;
  const std::vector<Signature> sig = signatures(g, neighbours);
  auto same_op = [&](OpId u, OpId v) {
    Op a = g.ops[u], b = g.ops[v];
    a.name = b.name;
    a.gid = b.gid;
    return a == b;
  };
  std::vector<std::pair<OpId, OpId>> pairs;
  // Chain each op to the latest earlier op it can swap with.
  for (OpId v = 0; v < g.op_count(); ++v) {
    for (OpId u = v - 1; u >= 0; --u) {
      if (!same_op(u, v) || sig[u].out != sig[v].out || sig[u].in != sig[v].in) continue;
      if (std::find(neighbours[v].begin(), neighbours[v].end(), u) != neighbours[v].end()) continue;
      pairs.emplace_back(u, v);
      break;
    }
  }
  return pairs;
}

std::vector<std::pair<OpId, OpId>> leader_group_pairs(const Graph& g) {
  std::vector<std::pair<int64_t, OpId>> members;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (g.ops[v].leader_gid) members.push_back({*g.ops[v].leader_gid, v});
  }
  std::sort(members.begin(), members.end());
  std::vector<std::pair<OpId, OpId>> pairs;
  for (size_t i = 1; i < members.size(); ++i) {
    if (members[i].first == members[i - 1].first) {
      pairs.push_back({members[i - 1].second, members[i].second});
    }
  }
  return pairs;
}

}  // namespace tilesched::exact_internal
