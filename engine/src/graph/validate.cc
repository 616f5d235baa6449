// Graph validation (tilesched/validate.h): the checks every reader and
// builder runs, above the model and the graph algorithms it uses.
#include "tilesched/validate.h"

#include <string>
#include <tuple>
#include <unordered_map>

#include "graph_algo.h"
#include "tilesched/agents.h"
#include "tilesched/limits.h"
#include "util/text.h"

namespace tilesched {

namespace {

// The paths in the messages are built only for a message: validation runs
// on every graph a builder or reader makes (the sweep makes thousands a
// second), and a valid graph needs none.
std::string path_of_op(int v) { return "$.ops[" + std::to_string(v) + "]"; }
std::string path_of_edge(int e) { return "$.edges[" + std::to_string(e) + "]"; }
std::string path_of_slot(int s) { return "$.target.slots[" + std::to_string(s) + "]"; }
std::string path_of_pool(size_t p) { return "$.target.pools[" + std::to_string(p) + "]"; }

Status range_error(const std::string& path, const char* what, int64_t value,
                   int64_t lo, int64_t hi) {
  return Status::InvalidInput(path + ": " + what + " " + std::to_string(value) +
                              " is out of range " + std::to_string(lo) + ".." +
                              std::to_string(hi));
}

// A slot's or pool's name (`what`): not empty, UTF-8.
template <class Path>
Status validate_name(const Path& path, const char* what, const std::string& name) {
  if (name.empty()) return Status::InvalidInput(path() + ".name: empty " + what + " name");
  if (!text::is_utf8(name)) {
    return Status::InvalidInput(path() + ".name: " + what + " name " + text::quote(name) +
                                " is not UTF-8 text");
  }
  return Status::Ok();
}

Status validate_target(const Target& t) {
  if (t.slots.empty() || t.slot_count() > limits::kMaxSlots) {
    return Status::InvalidInput("$.target.slots: a target needs 1.." +
                                std::to_string(limits::kMaxSlots) + " slots, got " +
                                std::to_string(t.slot_count()));
  }
  for (int s = 0; s < t.slot_count(); ++s) {
    const auto path = [s] { return path_of_slot(s); };
    if (Status st = validate_name(path, "slot", t.slots[s].name); !st.ok()) return st;
    if (t.slots[s].capacity < 1 || t.slots[s].capacity > limits::kMaxSlotCapacity) {
      return range_error(path() + ".capacity", "capacity", t.slots[s].capacity, 1,
                         limits::kMaxSlotCapacity);
    }
    if (t.find_slot(t.slots[s].name) != s + 1) {
      return Status::InvalidInput(path() + ".name: duplicate slot name '" + t.slots[s].name + "'");
    }
  }
  if (t.register_budget < 0 || t.register_budget > limits::kMaxRegisters) {
    return range_error("$.target.register_budget", "register_budget", t.register_budget, 0,
                       limits::kMaxRegisters);
  }
  if (t.pools.size() > static_cast<size_t>(limits::kMaxPools)) {
    return Status::InvalidInput("$.target.pools: more than " +
                                std::to_string(limits::kMaxPools) + " pools");
  }
  int storage = 0;
  for (size_t p = 0; p < t.pools.size(); ++p) {
    const auto path = [p] { return path_of_pool(p); };
    const Pool& pool = t.pools[p];
    if (Status s = validate_name(path, "pool", pool.name); !s.ok()) return s;
    if (pool.capacity < 1 || pool.capacity > limits::kMaxPoolCapacity) {
      return range_error(path() + ".capacity", "capacity", pool.capacity, 1,
                         limits::kMaxPoolCapacity);
    }
    if (t.find_pool(pool.name) != static_cast<int>(p)) {
      return Status::InvalidInput(path() + ".name: duplicate pool name '" + pool.name + "'");
    }
    if (pool.kind == PoolKind::kStorage && ++storage > 1) {
      return Status::InvalidInput(path() + ".kind: a target has at most one storage pool");
    }
  }
  return Status::Ok();
}

// An op's resource vector: slots in range and listed once, durations and
// occupancies in range.
Status validate_triples(const Target& t, const Op& op, int v) {
  if (op.resources.size() > static_cast<size_t>(limits::kMaxTriplesPerOp)) {
    return Status::InvalidInput(path_of_op(v) + ".resources: more than " +
                                std::to_string(limits::kMaxTriplesPerOp) + " triples");
  }
  uint64_t seen = 0;
  for (size_t k = 0; k < op.resources.size(); ++k) {
    const Triple& tr = op.resources[k];
    const auto rpath = [v, k] { return path_of_op(v) + ".resources[" + std::to_string(k) + "]"; };
    if (tr.slot < 1 || tr.slot > t.slot_count()) {
      return range_error(rpath() + ".slot", "slot", tr.slot, 1, t.slot_count());
    }
    if (seen & slot_bit(tr.slot)) {
      return Status::InvalidInput(rpath() + ".slot: slot " + std::to_string(tr.slot) +
                                  " is listed twice for one op");
    }
    seen |= slot_bit(tr.slot);
    if (tr.duration < 1 || tr.duration > limits::kMaxDuration) {
      return range_error(rpath() + ".duration", "duration", tr.duration, 1, limits::kMaxDuration);
    }
    const int64_t cap = t.slot(tr.slot).capacity;
    if (tr.occupancy < 1 || tr.occupancy > cap) {
      return range_error(rpath() + ".occupancy", "occupancy", tr.occupancy, 1, cap);
    }
  }
  return Status::Ok();
}

// An op's rate-pool counts: rate pools only, once each by pool index,
// within the pool's capacity.
Status validate_pool_uses(const Target& t, const Op& op, int v) {
  for (size_t k = 0; k < op.pools.size(); ++k) {
    const PoolUse& use = op.pools[k];
    if (use.pool < 0 || use.pool >= static_cast<int>(t.pools.size())) {
      return Status::InvalidInput(path_of_op(v) + ".pools: pool index " +
                                  std::to_string(use.pool) + " out of range");
    }
    const Pool& pool = t.pools[use.pool];
    const auto ppath = [&] { return path_of_op(v) + ".pools." + pool.name; };
    if (pool.kind != PoolKind::kRate) {
      return Status::InvalidInput(ppath() + ": only rate pools take counts here");
    }
    if (k > 0 && op.pools[k - 1].pool >= use.pool) {
      return Status::InvalidInput(ppath() + ": pools must be listed once, by pool index");
    }
    if (use.count < 1 || use.count > pool.capacity) {
      return range_error(ppath(), "count", use.count, 1, pool.capacity);
    }
  }
  return Status::Ok();
}

// An op's buffer: only on a target with a storage pool, and no larger than it.
Status validate_store_bytes(const Target& t, const Op& op, int v) {
  if (op.store_bytes == 0) return Status::Ok();
  const std::optional<int> sp = t.storage_pool();
  if (!sp) {
    return Status::InvalidInput(path_of_op(v) + ".store_bytes: target " + t.name +
                                " has no storage pool");
  }
  const Pool& pool = t.pools[*sp];
  if (op.store_bytes < 0) {
    return range_error(path_of_op(v) + ".store_bytes", "store_bytes", op.store_bytes, 0,
                       pool.capacity);
  }
  if (op.store_bytes > pool.capacity) {
    return Status::InvalidInput(path_of_op(v) + ".store_bytes: a buffer of " +
                                std::to_string(op.store_bytes) + " bytes is larger than the whole " +
                                pool.name + " budget of " + std::to_string(pool.capacity));
  }
  return Status::Ok();
}

// An optional field `field` of the element at `path()`: absent, or in [0, hi].
template <class Path>
Status validate_optional(const Path& path, const char* field, const std::optional<int64_t>& value,
                         int64_t hi) {
  if (value && (*value < 0 || *value > hi)) {
    return range_error(path() + "." + field, field, *value, 0, hi);
  }
  return Status::Ok();
}

// Where an imported op came from: a source op name of 1..256 UTF-8 bytes,
// its position in 0..kMaxSourcePosition, Triton's stage and cluster in
// 0..kMaxMaxDepth.
Status validate_source_fields(const Op& op, int v) {
  const auto path = [v] { return path_of_op(v); };
  if (op.source_op) {
    if (op.source_op->empty() ||
        op.source_op->size() > static_cast<size_t>(limits::kMaxNameLength)) {
      return Status::InvalidInput(path() + ".source_op: must have 1.." +
                                  std::to_string(limits::kMaxNameLength) + " characters");
    }
    if (!text::is_utf8(*op.source_op)) {
      return Status::InvalidInput(path() + ".source_op: " + text::quote(*op.source_op) +
                                  " is not UTF-8 text");
    }
  }
  if (Status s = validate_optional(path, "source_position", op.source_position,
                                  limits::kMaxSourcePosition);
      !s.ok()) {
    return s;
  }
  if (Status s = validate_optional(path, "triton_stage", op.triton_stage, limits::kMaxMaxDepth);
      !s.ok()) {
    return s;
  }
  return validate_optional(path, "triton_cluster", op.triton_cluster, limits::kMaxMaxDepth);
}

Status validate_op(const Target& t, const Op& op, int v) {
  const auto path = [v] { return path_of_op(v); };
  if (op.name.empty() || op.name.size() > static_cast<size_t>(limits::kMaxNameLength)) {
    return Status::InvalidInput(path() + ".id: op id must have 1.." +
                                std::to_string(limits::kMaxNameLength) + " characters");
  }
  if (!text::is_utf8(op.name)) {  // the JSON writer could not write it readably
    return Status::InvalidInput(path() + ".id: op id " + text::quote(op.name) +
                                " is not UTF-8 text");
  }
  if (t.find_kind(op.kind) == nullptr) {
    return Status::InvalidInput(path() + ".kind: unknown kind '" + op.kind + "' for target " +
                                t.name);
  }
  if (op.latency < 0 || op.latency > limits::kMaxLatency) {
    return range_error(path() + ".latency", "latency", op.latency, 0, limits::kMaxLatency);
  }
  if (Status s = validate_triples(t, op, v); !s.ok()) return s;
  if (Status s = validate_pool_uses(t, op, v); !s.ok()) return s;
  if (Status s = validate_store_bytes(t, op, v); !s.ok()) return s;
  for (const auto& [field, value, limit] :
       {std::tuple{"gid", op.gid, limits::kMaxGroupId},
        std::tuple{"leader_gid", op.leader_gid, limits::kMaxGroupId},
        std::tuple{"max_depth", op.max_depth, limits::kMaxMaxDepth}}) {
    if (Status s = validate_optional(path, field, value, limit); !s.ok()) return s;
  }
  if (op.registers < 0 || op.registers > limits::kMaxRegisters) {
    return range_error(path() + ".registers", "registers", op.registers, 0,
                       limits::kMaxRegisters);
  }
  if (op.agent && !valid_agent_name(*op.agent)) {
    return Status::InvalidInput(path() + ".agent: " + text::quote(*op.agent) +
                                " is not an agent name (1..64 characters from [A-Za-z0-9_], "
                                "no leading digit)");
  }
  return validate_source_fields(op, v);
}

// The graph's attrs, each within its range (docs/FORMATS.md).
Status validate_attrs(const GraphAttrs& a) {
  const auto attrs_path = [] { return std::string("$.attrs"); };
  if (Status s = validate_optional(attrs_path, "triton_num_stages", a.triton_num_stages,
                                   limits::kMaxMaxDepth);
      !s.ok()) {
    return s;
  }
  if (Status s = validate_optional(attrs_path, "resident_smem_bytes", a.resident_smem_bytes,
                                   limits::kMaxPoolCapacity);
      !s.ok()) {
    return s;
  }
  if (a.num_warps && (*a.num_warps < 1 || *a.num_warps > limits::kMaxWarps)) {
    return range_error("$.attrs.num_warps", "num_warps", *a.num_warps, 1, limits::kMaxWarps);
  }
  if (a.mma_element_bits &&
      (*a.mma_element_bits < 1 || *a.mma_element_bits > limits::kMaxElementBits)) {
    return range_error("$.attrs.mma_element_bits", "mma_element_bits", *a.mma_element_bits, 1,
                       limits::kMaxElementBits);
  }
  return Status::Ok();
}

}  // namespace

Status validate_graph(const Graph& g) {
  if (Status s = validate_target(g.target); !s.ok()) return s;
  if (Status s = validate_attrs(g.attrs); !s.ok()) return s;
  if (g.ops.empty() || g.op_count() > limits::kMaxOps) {
    return Status::InvalidInput("$.ops: a graph needs 1.." + std::to_string(limits::kMaxOps) +
                                " ops, got " + std::to_string(g.ops.size()));
  }
  if (g.edge_count() > limits::kMaxEdges) {
    return Status::InvalidInput("$.edges: more than " + std::to_string(limits::kMaxEdges) +
                                " edges");
  }
  std::unordered_map<std::string_view, int> ids;
  ids.reserve(g.ops.size());
  for (int v = 0; v < g.op_count(); ++v) {
    if (Status s = validate_op(g.target, g.ops[v], v); !s.ok()) return s;
    auto [it, fresh] = ids.emplace(g.ops[v].name, v);
    if (!fresh) {
      return Status::InvalidInput(path_of_op(v) + ".id: duplicate op id '" + g.ops[v].name +
                                  "' (first at $.ops[" + std::to_string(it->second) + "])");
    }
  }
  for (int e = 0; e < g.edge_count(); ++e) {
    const Edge& edge = g.edges[e];
    if (edge.from < 0 || edge.from >= g.op_count()) {
      return Status::InvalidInput(path_of_edge(e) + ".from: no such op");
    }
    if (edge.to < 0 || edge.to >= g.op_count()) {
      return Status::InvalidInput(path_of_edge(e) + ".to: no such op");
    }
    if (edge.latency < 0 || edge.latency > limits::kMaxLatency) {
      return range_error(path_of_edge(e) + ".latency", "latency", edge.latency, 0,
                         limits::kMaxLatency);
    }
    if (edge.distance < 0 || edge.distance > limits::kMaxDistance) {
      return range_error(path_of_edge(e) + ".distance", "distance", edge.distance, 0,
                         limits::kMaxDistance);
    }
  }
  const Adjacency adj = Adjacency::build(g);
  if (std::optional<int> e = find_zero_distance_positive_cycle(g, adj)) {
    const Edge& edge = g.edges[*e];
    return Status::InvalidInput(path_of_edge(*e) + ": zero-distance cycle with positive "
                                "latency through " + g.ops[edge.from].name + " -> " +
                                g.ops[edge.to].name + " (no II can satisfy it)");
  }
  return Status::Ok();
}

}  // namespace tilesched
