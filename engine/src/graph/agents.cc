// The agent (warp-role) assignment of docs/MATERIALIZE.md, "Agents".
#include "tilesched/agents.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

namespace tilesched {

bool is_copy_kind(std::string_view kind) {
  return kind == "tiled_tma_load" || kind == "cp_async" || kind == "cp_async_wait";
}

bool valid_agent_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  if (name[0] >= '0' && name[0] <= '9') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
    if (!ok) return false;
  }
  return true;
}

// The names are views of the ops' own `agent` strings and of the two
// defaults until the end: the assignment runs several times per schedule
// (the materializer's maps, the verifier), so it allocates only its result.
AgentAssignment assign_agents(const Graph& g) {
  const int n = g.op_count();
  // Pass 1: explicit agents and copy ops.
  std::vector<std::string_view> agent(n);
  std::vector<char> copy(n, 0);
  for (OpId v = 0; v < n; ++v) {
    const Op& op = g.ops[v];
    copy[v] = is_copy_kind(op.kind) ? 1 : 0;
    if (op.agent) {
      agent[v] = *op.agent;
    } else if (copy[v]) {
      agent[v] = kProducerAgent;
    }
  }
  // Pass 2: a barrier op without its own agent follows its copies when they
  // agree on one; every other op is a consumer.
  std::vector<std::optional<std::string_view>> follow(n);
  std::vector<char> broken(n, 0);  // a neighbour that is not a copy, or two agents
  std::vector<char> seen(n, 0);
  auto visit = [&](OpId barrier, OpId copy_side) {
    if (barrier == copy_side) return;
    seen[barrier] = 1;
    if (!copy[copy_side]) {
      broken[barrier] = 1;
    } else if (!follow[barrier]) {
      follow[barrier] = agent[copy_side];
    } else if (*follow[barrier] != agent[copy_side]) {
      broken[barrier] = 1;
    }
  };
  for (const Edge& e : g.edges) {
    if (e.distance != 0) continue;
    if (g.ops[e.from].kind == "mbarrier_wait") visit(e.from, e.to);
    if (e.kind == EdgeKind::kData && g.ops[e.to].kind == "mbarrier_arrive") visit(e.to, e.from);
  }
  for (OpId v = 0; v < n; ++v) {
    if (!agent[v].empty()) continue;
    agent[v] = seen[v] && !broken[v] && follow[v] ? *follow[v] : kConsumerAgent;
  }
  // A loop has a handful of agents: a linear search of the first names,
  // an index once there are more.
  constexpr int kLinear = 8;
  AgentAssignment a;
  a.of_op.resize(n);
  std::map<std::string_view, int> index;  // name -> position in a.names, past kLinear names
  for (OpId v = 0; v < n; ++v) {
    int at = 0;
    while (at < std::min(a.count(), kLinear) && a.names[at] != agent[v]) ++at;
    if (at == kLinear) {
      const auto it = index.find(agent[v]);
      at = it == index.end() ? a.count() : it->second;
    }
    if (at == a.count()) {
      a.names.emplace_back(agent[v]);
      if (at >= kLinear) index.emplace(agent[v], at);
    }
    a.of_op[v] = at;
  }
  return a;
}

}  // namespace tilesched
