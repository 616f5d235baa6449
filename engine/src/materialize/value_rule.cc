// Which edges need a value, what it carries and how deep it is
// (docs/MATERIALIZE.md, "Which edges need values" and "Origins").
#include <algorithm>
#include <cassert>

#include "stage_order.h"
#include "tilesched/materialize.h"
#include "value_rule.h"

namespace tilesched {

using materialize_internal::before;

bool is_async(const Graph& g, OpId v) {
  const OpKind* kind = g.target.find_kind(g.ops[v].kind);
  return kind != nullptr && (kind->async || kind->tma || kind->wgmma);
}

bool needs_pipe(const Graph& g, const Schedule& s, const AgentAssignment& a, int edge) {
  const Edge& e = g.edges[edge];
  if (e.kind != EdgeKind::kData) return false;
  return is_async(g, e.from) || s.stage[e.from] != s.stage[e.to] || e.distance > 0 ||
         !live_at_consumer(s, e) || a.of_op[e.from] != a.of_op[e.to];
}

int64_t edge_depth(const Schedule& s, const Edge& e) {
  return s.stage[e.to] - s.stage[e.from] + e.distance + 1;
}

std::string_view raw_value_kind_name(RawValue::Kind k) {
  switch (k) {
    case RawValue::Kind::kArrival: return "arrival";
    case RawValue::Kind::kValue: return "value";
    case RawValue::Kind::kUnproduced: return "unproduced";
  }
  return "value";
}

RawValue raw_value(const Graph& g, const Schedule& s, const AgentAssignment& a, int edge) {
  const Edge& e = g.edges[edge];
  assert(e.kind == EdgeKind::kData);
  if (!live_at_consumer(s, e)) return {RawValue::Kind::kUnproduced, e.from};
  if (e.distance == 0 && is_async(g, e.from)) {
    return {RawValue::Kind::kArrival, e.to, a.of_op[e.from]};
  }
  return {RawValue::Kind::kValue, e.from};
}

}  // namespace tilesched
