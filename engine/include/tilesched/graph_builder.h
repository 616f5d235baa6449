// Graphs built in code (tests, generators), validated on build().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched {

// Builds graphs in code (tests, generators): ops take their kind's default
// encoding unless a field overrides it. build() validates.
class GraphBuilder {
 public:
  explicit GraphBuilder(Target target, std::string name = "graph");
  OpId op(std::string name, std::string kind);
  // A `generic` op with explicit latency and resources.
  OpId generic(std::string name, int64_t latency, std::vector<Triple> resources = {});
  Op& at(OpId id) { return graph_.ops[id]; }
  // Latency defaults to the source op's latency.
  int edge(OpId from, OpId to, std::optional<int64_t> latency = std::nullopt,
           int64_t distance = 0, EdgeKind kind = EdgeKind::kData);
  GraphBuilder& force_serial(bool on = true);
  StatusOr<Graph> build() const&;
  // The same, moving the graph out instead of copying it (the builder is
  // left empty).
  StatusOr<Graph> build() &&;

 private:
  Graph graph_;
  std::vector<std::optional<int64_t>> pending_latency_;  // per edge, resolved in build()
};

}  // namespace tilesched
