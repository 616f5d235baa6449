// Graphs built in code (tilesched/graph_builder.h).
#include "tilesched/graph_builder.h"

#include <utility>

#include "tilesched/validate.h"

namespace tilesched {

GraphBuilder::GraphBuilder(Target target, std::string name) {
  graph_.target = std::move(target);
  graph_.name = std::move(name);
}

OpId GraphBuilder::op(std::string name, std::string kind) {
  Op o;
  o.name = std::move(name);
  o.kind = std::move(kind);
  if (graph_.target.find_kind(o.kind) != nullptr) apply_kind_defaults(graph_.target, o);
  graph_.ops.push_back(std::move(o));
  return graph_.op_count() - 1;
}

OpId GraphBuilder::generic(std::string name, int64_t latency, std::vector<Triple> resources) {
  const OpId id = op(std::move(name), "generic");
  graph_.ops[id].latency = latency;
  graph_.ops[id].resources = std::move(resources);
  return id;
}

int GraphBuilder::edge(OpId from, OpId to, std::optional<int64_t> latency, int64_t distance,
                       EdgeKind kind) {
  graph_.edges.push_back({from, to, 0, distance, kind});
  pending_latency_.push_back(latency);
  return graph_.edge_count() - 1;
}

GraphBuilder& GraphBuilder::force_serial(bool on) {
  graph_.attrs.force_serial_execution = on;
  return *this;
}

namespace {

// Resolves the pending latencies into `g` and validates it.
StatusOr<Graph> finish(Graph g, const std::vector<std::optional<int64_t>>& pending_latency) {
  for (int e = 0; e < g.edge_count(); ++e) {
    Edge& edge = g.edges[e];
    if (pending_latency[e]) {
      edge.latency = *pending_latency[e];
    } else if (edge.from >= 0 && edge.from < g.op_count()) {
      edge.latency = g.ops[edge.from].latency;  // the source op's latency (docs/FORMATS.md)
    }
  }
  if (Status s = validate_graph(g); !s.ok()) return s;
  return g;
}

}  // namespace

StatusOr<Graph> GraphBuilder::build() const& { return finish(graph_, pending_latency_); }

StatusOr<Graph> GraphBuilder::build() && {
  StatusOr<Graph> g = finish(std::move(graph_), pending_latency_);
  graph_ = Graph{};
  pending_latency_.clear();
  return g;
}

}  // namespace tilesched
