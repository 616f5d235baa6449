// The request a foreign scheduler is given (request.h).
#include "external/request.h"

#include <algorithm>

#include "io/json_reader.h"
#include "search/ii_range.h"
#include "tilesched/json_io.h"
#include "tilesched/mii.h"
#include "tilesched/serial.h"

namespace tilesched::external {
namespace {

using jsonio::Json;

// Index of each rate pool among the rate pools (-1: not a rate pool).
std::vector<int> rate_pool_index(const Target& t) {
  std::vector<int> index(t.pools.size(), -1);
  int next = 0;
  for (size_t p = 0; p < t.pools.size(); ++p) {
    if (t.pools[p].kind == PoolKind::kRate) index[p] = next++;
  }
  return index;
}

Json target_json(const Target& t) {
  Json slots = Json::array();
  for (int s = 1; s <= t.slot_count(); ++s) {
    slots.push_back({{"slot", s}, {"name", t.slot(s).name}, {"capacity", t.slot(s).capacity}});
  }
  Json pools = Json::array();
  for (const Pool& p : t.pools) {
    pools.push_back({{"name", p.name}, {"kind", std::string(pool_kind_name(p.kind))},
                     {"capacity", p.capacity}});
  }
  return {{"name", t.name}, {"slots", slots}, {"pools", pools}};
}

Json op_json(const Graph& g, const Op& op) {
  Json resources = Json::array();
  for (const Triple& t : op.resources) {
    resources.push_back({{"slot", t.slot}, {"duration", t.duration}, {"occupancy", t.occupancy}});
  }
  Json pools = Json::object();
  for (const PoolUse& p : op.pools) pools[g.target.pools[p.pool].name] = p.count;
  Json j = {{"id", op.name},          {"kind", op.kind},
            {"latency", op.latency},  {"resources", resources},
            {"pools", pools},         {"footprint", footprint_duration(op)},
            {"store_bytes", op.store_bytes}};
  if (op.leader_gid) j["leader_gid"] = *op.leader_gid;
  if (op.max_depth) j["max_depth"] = *op.max_depth;
  return j;
}

}  // namespace

Bounds request_bounds(const Graph& g, const ForeignRequest& req) {
  Bounds b;
  b.ii_min = ii_lower_bound(g, compute_mii(g).max());
  b.ii_max = heuristic_ii_cap(g, b.ii_min, req.ii_max, generate_serial(g));
  b.ii_max = std::max(b.ii_max, b.ii_min);
  b.max_stages = req.max_stages;
  return b;
}

std::string request_json(const Graph& g, const Bounds& b, int64_t time_limit_ms) {
  Json ops = Json::array();
  for (const Op& op : g.ops) ops.push_back(op_json(g, op));
  Json edges = Json::array();
  for (const Edge& e : g.edges) {
    edges.push_back({{"src", e.from}, {"dst", e.to}, {"latency", e.latency},
                     {"distance", e.distance},
                     {"kind", e.kind == EdgeKind::kOrder ? "order" : "data"}});
  }
  const Json doc = {
      {"format", std::string(kRequestFormat)},
      {"graph_name", g.name},
      {"ii_min", b.ii_min},
      {"ii_max", b.ii_max},
      {"max_stages", b.max_stages},
      {"time_limit_ms", time_limit_ms},
      {"force_serial_execution", g.attrs.force_serial_execution},
      {"target", target_json(g.target)},
      {"ops", ops},
      {"edges", edges},
  };
  // The loop graph spliced in as written (valid JSON: it is what the graph
  // reader reads back), not parsed and dumped again.
  std::string text = doc.dump(-1, ' ', false, Json::error_handler_t::replace);
  text.pop_back();  // the closing brace
  std::string graph = write_graph_json(g);
  while (!graph.empty() && graph.back() == '\n') graph.pop_back();
  return text + ",\"graph\":" + graph + "}\n";
}

const char* PluginGraph::request_text(const tilesched_plugin_graph* self) {
  PluginGraph* p = static_cast<PluginGraph*>(self->harness);
  if (p->request_.empty()) p->request_ = request_json(p->graph_, p->bounds_, self->time_limit_ms);
  return p->request_.c_str();
}

PluginGraph::PluginGraph(const Graph& g, const Bounds& b, int64_t time_limit_ms)
    : graph_(g), bounds_(b) {
  const std::vector<int> rate = rate_pool_index(g.target);
  for (const Op& op : g.ops) {
    ids_.push_back(op.name.c_str());
    latency_.push_back(op.latency);
    footprint_.push_back(footprint_duration(op));
    max_depth_.push_back(op.max_depth.value_or(-1));
    leader_gid_.push_back(op.leader_gid.value_or(-1));
    store_bytes_.push_back(op.store_bytes);
  }
  for (const Edge& e : g.edges) {
    edges_.push_back({e.from, e.to, e.latency, e.distance, e.kind == EdgeKind::kOrder ? 1 : 0});
  }
  for (const Slot& s : g.target.slots) slot_capacity_.push_back(s.capacity);
  for (size_t p = 0; p < g.target.pools.size(); ++p) {
    if (rate[p] >= 0) pool_capacity_.push_back(g.target.pools[p].capacity);
  }
  for (OpId v = 0; v < g.op_count(); ++v) {
    const Op& op = g.ops[v];
    for (const Triple& t : op.resources) uses_.push_back({v, t.slot - 1, t.duration, t.occupancy});
    for (const PoolUse& p : op.pools) {
      if (rate[p.pool] >= 0) pool_uses_.push_back({v, rate[p.pool], p.count, footprint_duration(op)});
    }
  }
  view_.abi = TILESCHED_PLUGIN_ABI;
  view_.name = g.name.c_str();
  view_.op_count = g.op_count();
  view_.op_ids = ids_.data();
  view_.latency = latency_.data();
  view_.footprint = footprint_.data();
  view_.max_depth = max_depth_.data();
  view_.leader_gid = leader_gid_.data();
  view_.store_bytes = store_bytes_.data();
  view_.force_serial = g.attrs.force_serial_execution ? 1 : 0;
  view_.edge_count = g.edge_count();
  view_.edges = edges_.data();
  view_.slot_count = g.target.slot_count();
  view_.slot_capacity = slot_capacity_.data();
  view_.use_count = static_cast<int32_t>(uses_.size());
  view_.uses = uses_.data();
  view_.pool_count = static_cast<int32_t>(pool_capacity_.size());
  view_.pool_capacity = pool_capacity_.data();
  view_.pool_use_count = static_cast<int32_t>(pool_uses_.size());
  view_.pool_uses = pool_uses_.data();
  view_.ii_min = b.ii_min;
  view_.ii_max = b.ii_max;
  view_.max_stages = b.max_stages;
  view_.time_limit_ms = time_limit_ms;
  view_.request_json = &PluginGraph::request_text;
  view_.harness = this;
}

}  // namespace tilesched::external
