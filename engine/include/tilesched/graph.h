// The loop graph: ops, dependence edges and region attributes
// (docs/CONTRACT.md, "Loop graphs"). Ops and edges are dense integer ids: an
// op's id is its program index, its position in `ops`. Every derived view
// iterates in id order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tilesched/status.h"
#include "tilesched/target.h"

namespace tilesched {

using OpId = int;

struct Op {
  std::string name;                   // the JSON "id": unique, user-facing
  std::string kind;                   // an OpKind of the target
  int64_t latency = 1;
  std::vector<Triple> resources;      // at most one triple per slot
  std::vector<PoolUse> pools;         // rate pools only, sorted by pool index
  int64_t store_bytes = 0;            // charged to the storage pool (L4)
  int64_t registers = 0;              // register footprint (spill model)
  std::optional<int64_t> gid;
  std::optional<int64_t> leader_gid;  // ops sharing it share a stage (L5)
  std::optional<int64_t> max_depth;   // stage bound (L6)
  std::optional<std::string> agent;   // warp role overriding the default (tilesched/agents.h)
  // Where the op came from, for imported graphs; no rule reads them
  // (docs/FORMATS.md): the source IR's op name ("ttng.warp_group_dot"), its
  // position among the operations of the loop body it was imported from
  // (folded ones counted), and the stage and cluster Triton's own pipeliner
  // gave it (docs/TTGIR.md).
  std::optional<std::string> source_op;
  std::optional<int64_t> source_position;
  std::optional<int64_t> triton_stage;
  std::optional<int64_t> triton_cluster;
  friend bool operator==(const Op&, const Op&) = default;
};

enum class EdgeKind { kData, kOrder };

struct Edge {
  OpId from = 0;
  OpId to = 0;
  int64_t latency = 0;   // lambda
  int64_t distance = 0;  // delta, in iterations
  EdgeKind kind = EdgeKind::kData;
  friend bool operator==(const Edge&, const Edge&) = default;
};

struct GraphAttrs {
  bool force_serial_execution = false;
  // The loop's `tt.num_stages` when imported from Triton; no rule reads it.
  std::optional<int64_t> triton_num_stages;
  // Bytes of the shared-memory buffers allocated outside the loop that it
  // uses (attention's Q tile; a lowered loop's multi-buffered tiles and
  // barriers), when imported; no rule reads it (docs/TTGIR.md).
  std::optional<int64_t> resident_smem_bytes;
  // Warps per CTA of the kernel (the module's `ttg.num-warps`) when
  // imported from Triton; `tilesched stages` reads it (docs/TARGETS.md).
  std::optional<int64_t> num_warps;
  // Bits of the loop's MMA operand elements (8: fp8 or int8, 16: fp16 or
  // bf16, 32: tf32), the tensor-core rate its MMAs were priced at, when
  // imported from Triton; `tilesched stages` reads it (docs/TARGETS.md).
  std::optional<int64_t> mma_element_bits;
  friend bool operator==(const GraphAttrs&, const GraphAttrs&) = default;
};

struct Graph {
  std::string name;
  Target target;
  GraphAttrs attrs;
  std::vector<Op> ops;
  std::vector<Edge> edges;

  int op_count() const { return static_cast<int>(ops.size()); }
  int edge_count() const { return static_cast<int>(edges.size()); }
  std::optional<OpId> find_op(std::string_view name) const;

  friend bool operator==(const Graph&, const Graph&) = default;
};

// Footprint duration D_v: the longest triple, and at least 1 (every op
// holds its pools for at least its issue cycle). Rules L3/L4 use it.
int64_t footprint_duration(const Op& op);

// Edges by endpoint in compressed form; edge ids ascend within each list.
struct Adjacency {
  std::vector<int> out_begin, out_edges;  // out_edges[out_begin[v] .. out_begin[v+1])
  std::vector<int> in_begin, in_edges;
  static Adjacency build(const Graph& g);
};

// Applies the kind's default latency, resources and pools to `op`.
// REQUIRES: op.kind names a kind of `target`.
void apply_kind_defaults(const Target& target, Op& op);

}  // namespace tilesched
