// What a foreign scheduler is given: the request document
// (tilesched.request/1, docs/FORMATS.md "Foreign schedulers") for the
// process protocol, and the flat C view of tilesched/plugin.h for a
// plug-in. Both carry the graph with every kind default applied.
#pragma once

#include <string>
#include <vector>

#include "external/reply.h"
#include "tilesched/graph.h"
#include "tilesched/plugin.h"

namespace tilesched::external {

// The request's bounds for `g`: ii_min the search's lower bound (MII and
// the group and hold bounds), ii_max the request's or the serial
// schedule's II, the stage cap as asked.
Bounds request_bounds(const Graph& g, const ForeignRequest& req);

std::string request_json(const Graph& g, const Bounds& b, int64_t time_limit_ms);

// The arrays a tilesched_plugin_graph points into; `view` is valid while
// this object lives and is not moved.
class PluginGraph {
 public:
  PluginGraph(const Graph& g, const Bounds& b, int64_t time_limit_ms);
  PluginGraph(const PluginGraph&) = delete;
  PluginGraph& operator=(const PluginGraph&) = delete;
  const tilesched_plugin_graph& view() const { return view_; }

 private:
  static const char* request_text(const tilesched_plugin_graph* self);
  const Graph& graph_;
  Bounds bounds_;
  std::string request_;  // built on the first request_text call
  std::vector<const char*> ids_;
  std::vector<int64_t> latency_, footprint_, max_depth_, leader_gid_, store_bytes_;
  std::vector<int64_t> slot_capacity_, pool_capacity_;
  std::vector<tilesched_plugin_edge> edges_;
  std::vector<tilesched_plugin_use> uses_;
  std::vector<tilesched_plugin_pool_use> pool_uses_;
  tilesched_plugin_graph view_{};
};

}  // namespace tilesched::external
