// Retargeting a generated graph between built-in targets (retarget.h).
#include "tilesched/graphgen/retarget.h"

#include <algorithm>
#include <optional>

#include "tilesched/hopper.h"
#include "tilesched/validate.h"

namespace tilesched::graphgen {

namespace {

// `op` with the kind defaults of `to` wherever it had those of `from`.
StatusOr<Op> retarget_op(const Op& op, const OpKind& from, const OpKind& to) {
  if (op.resources != from.resources || op.pools != from.pools) {
    return Status::InvalidInput("op '" + op.name + "' overrides its kind's " +
                                (op.resources != from.resources ? "resources" : "pools") +
                                ": only kind defaults move to another target");
  }
  Op out = op;
  out.resources = to.resources;
  out.pools = to.pools;
  if (op.latency == from.latency) out.latency = to.latency;
  if (op.registers == from.registers) out.registers = to.registers;
  return out;
}

// The largest buffer (store_bytes) among the data producers of `id`.
int64_t operand_bytes(const Graph& g, OpId id) {
  int64_t bytes = 0;
  for (const Edge& e : g.edges) {
    if (e.to == id && e.kind == EdgeKind::kData) bytes = std::max(bytes, g.ops[e.from].store_bytes);
  }
  return bytes;
}

// What op `id` of a generated graph does on Hopper, from the bytes the
// graph states: a load or copy into shared memory moves the buffer it
// fills, a store the buffer it reads, and a wgmma's K is what its largest
// operand tile holds at the reference M = N = 128 in fp16. None for other
// kinds, or where the graph states no bytes: the reference tile stands.
std::optional<hopper::Work> hopper_work(const Graph& g, OpId id) {
  const Op& op = g.ops[id];
  hopper::Work w = hopper::reference_work(op.kind);
  if (op.kind == "tiled_tma_load" || op.kind == "cp_async" || op.kind == "global_load") {
    if (op.store_bytes <= 0) return std::nullopt;
    w.bytes = op.store_bytes;
  } else if (op.kind == "tma_store" || op.kind == "global_store") {
    w.bytes = operand_bytes(g, id);
    if (w.bytes <= 0) return std::nullopt;
  } else if (op.kind == "wgmma") {
    const int64_t operand = operand_bytes(g, id);
    if (operand <= 0) return std::nullopt;
    w.k = std::max<int64_t>(1, operand / (w.m * 2));
  } else {
    return std::nullopt;
  }
  return w;
}

// Hopper's kind defaults are the costs of a reference tile (16 KiB
// transfers, a 128x128x64 MMA); a generated graph states its tiles only
// as buffer bytes. Where op `id` kept its kind's defaults, its cost (and
// its latency and registers, where those were the kind's) follows the
// bytes it moves.
Status cost_by_bytes(const Graph& g, const OpKind& kind, OpId id, Op& out) {
  const std::optional<hopper::Work> w = hopper_work(g, id);
  if (!w) return Status::Ok();
  StatusOr<hopper::Encoding> e = hopper::encode(hopper::cycles_of(out.kind, *w));
  if (!e.ok()) {
    return Status::InvalidInput("op '" + out.name + "': " + e.status().message());
  }
  out.resources = e->resources;
  if (out.latency == kind.latency) out.latency = e->latency;
  if (out.kind == "global_load" && out.registers == kind.registers) {
    out.registers = hopper::registers_per_thread(w->bytes, hopper::kReferenceThreads);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Graph> retarget(const Graph& g, const Target& target) {
  if (!g.target.builtin) {
    return Status::InvalidInput("graph '" + g.name + "' has its own target '" + g.target.name +
                                "': only graphs on a built-in target move to another");
  }
  Graph out;
  out.name = g.name + "/target=" + target.name;
  out.target = target;
  out.attrs = g.attrs;
  for (const Op& op : g.ops) {
    const OpKind* from = g.target.find_kind(op.kind);
    const OpKind* to = target.find_kind(op.kind);
    if (from == nullptr || to == nullptr) {
      return Status::InvalidInput("op '" + op.name + "': kind '" + op.kind +
                                  "' has no counterpart on target " + target.name);
    }
    StatusOr<Op> moved = retarget_op(op, *from, *to);
    if (!moved.ok()) return moved.status();
    if (target.name == "hopper") {
      if (Status s = cost_by_bytes(g, *to, static_cast<OpId>(out.ops.size()), *moved); !s.ok()) {
        return s;
      }
    }
    out.ops.push_back(std::move(*moved));
  }
  // The reference tiles are costed for 8 warps (the MMA over two warp
  // groups, results over 256 threads): the graph says so unless it
  // states its own.
  if (target.name == "hopper" && !out.attrs.num_warps) {
    out.attrs.num_warps = hopper::kReferenceThreads / 32;
  }
  out.edges = g.edges;
  for (Edge& e : out.edges) {
    if (e.latency == g.ops[e.from].latency) e.latency = out.ops[e.from].latency;
  }
  if (Status s = validate_graph(out); !s.ok()) return s;
  return out;
}

}  // namespace tilesched::graphgen
