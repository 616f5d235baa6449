// The loop-graph model: op lookup, footprints, adjacency and the kinds'
// default encodings (docs/CONTRACT.md, "Loop graphs"; docs/FORMATS.md).
// Validation (validate.cc) and the builder (graph_builder.cc) sit above it.
#include "tilesched/graph.h"

#include <algorithm>
#include <cassert>

namespace tilesched {

std::optional<OpId> Graph::find_op(std::string_view op_name) const {
  for (OpId v = 0; v < op_count(); ++v) {
    if (ops[v].name == op_name) return v;
  }
  return std::nullopt;
}

int64_t footprint_duration(const Op& op) {
  int64_t d = 1;
  for (const Triple& t : op.resources) d = std::max(d, t.duration);
  return d;
}

Adjacency Adjacency::build(const Graph& g) {
  Adjacency a;
  const int n = g.op_count();
  a.out_begin.assign(n + 1, 0);
  a.in_begin.assign(n + 1, 0);
  for (const Edge& e : g.edges) {
    ++a.out_begin[e.from + 1];
    ++a.in_begin[e.to + 1];
  }
  for (int v = 0; v < n; ++v) {
    a.out_begin[v + 1] += a.out_begin[v];
    a.in_begin[v + 1] += a.in_begin[v];
  }
  a.out_edges.resize(g.edges.size());
  a.in_edges.resize(g.edges.size());
  std::vector<int> out_fill(a.out_begin.begin(), a.out_begin.end() - 1);
  std::vector<int> in_fill(a.in_begin.begin(), a.in_begin.end() - 1);
  for (int e = 0; e < g.edge_count(); ++e) {  // ascending ids per list
    a.out_edges[out_fill[g.edges[e].from]++] = e;
    a.in_edges[in_fill[g.edges[e].to]++] = e;
  }
  return a;
}

void apply_kind_defaults(const Target& target, Op& op) {
  const OpKind* kind = target.find_kind(op.kind);
  assert(kind != nullptr);
  op.latency = kind->latency;
  op.resources = kind->resources;
  op.pools = kind->pools;
  op.registers = kind->registers;
}

}  // namespace tilesched
