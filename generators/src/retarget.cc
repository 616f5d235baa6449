// Retargeting a generated graph between built-in targets (retarget.h).
#include "tilesched/graphgen/retarget.h"

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
    out.ops.push_back(std::move(*moved));
  }
  out.edges = g.edges;
  for (Edge& e : out.edges) {
    if (e.latency == g.ops[e.from].latency) e.latency = out.ops[e.from].latency;
  }
  if (Status s = validate_graph(out); !s.ok()) return s;
  return out;
}

}  // namespace tilesched::graphgen
