// A schedule of an imported TTGIR loop as Triton's pipeliner reads it
// (tilesched/triton_export.h; docs/TTGIR.md, "Export to
// Triton"): stages from start cycles, clusters in the order the pipelined
// kernel runs its ops (oldest stage first, then by start cycle), and the
// checks of what Triton 3.6 lowers correctly.
#include "tilesched/triton_export.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

namespace tilesched {

namespace {

constexpr std::string_view kRuleDoc = "(docs/TTGIR.md, \"What the export refuses\")";

std::string in_quotes(std::string_view s) { return "'" + std::string(s) + "'"; }

// N of a graph named ".../loopN", as the importer names them.
std::optional<int64_t> loop_of(std::string_view name) {
  const size_t at = name.rfind("/loop");
  if (at == std::string_view::npos || at + 5 == name.size()) return std::nullopt;
  int64_t n = 0;
  for (const char c : name.substr(at + 5)) {
    if (c < '0' || c > '9' || n > 1'000'000) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// The placements' skeleton: position, id and op name of every graph op,
// or a refusal naming the first op the TTGIR importer did not make.
StatusOr<std::vector<TritonPlacement>> skeleton(const Graph& g) {
  std::vector<TritonPlacement> out;
  for (const Op& op : g.ops) {
    if (!op.source_position || !op.source_op) {
      return Status::InvalidInput("graph " + in_quotes(g.name) +
                                  " was not imported from TTGIR (op " + in_quotes(op.name) +
                                  " has no source_position; export --to triton needs "
                                  "`tilesched import --from ttgir`)");
    }
    out.push_back(TritonPlacement{*op.source_position, op.name, *op.source_op, 0, 0});
  }
  return out;
}

// The placements by position (the order of the loop body), ops keeping
// their graph ids for the messages; ops of one position (the ops of one
// scf.if) in graph order.
void sort_by_position(std::vector<TritonPlacement>& ops) {
  std::stable_sort(ops.begin(), ops.end(), [](const TritonPlacement& a, const TritonPlacement& b) {
    return a.position < b.position;
  });
}

// Triton places a whole op of the body, so the graph ops made of one (the
// ops of one scf.if) must share its stage; they take the earliest cluster
// among them. `ops` is by position.
Status one_place_per_position(std::vector<TritonPlacement>& ops) {
  for (size_t b = 0, e = 0; b < ops.size(); b = e) {
    int64_t cluster = ops[b].cluster;
    for (e = b + 1; e < ops.size() && ops[e].position == ops[b].position; ++e) {
      if (ops[e].stage != ops[b].stage) {
        return Status::InvalidInput(
            "ops " + in_quotes(ops[b].id) + " and " + in_quotes(ops[e].id) +
            " come from one TTGIR op (body position " + std::to_string(ops[b].position) +
            ") but are in stages " + std::to_string(ops[b].stage) + " and " +
            std::to_string(ops[e].stage) + ": Triton's pipeliner places a whole op in one stage");
      }
      cluster = std::min(cluster, ops[e].cluster);
    }
    for (size_t i = b; i < e; ++i) ops[i].cluster = cluster;
  }
  return Status::Ok();
}

}  // namespace

StatusOr<TritonSchedule> triton_schedule_from(const Graph& g, const Schedule& s) {
  StatusOr<std::vector<TritonPlacement>> ops = skeleton(g);
  if (!ops.ok()) return ops.status();
  if (s.graph != g.name) {
    return Status::InvalidInput("the schedule is of graph " + in_quotes(s.graph) + ", not of " +
                                in_quotes(g.name));
  }
  if (!s.feasible || s.ii < 1 || s.start.size() != ops->size()) {
    return Status::InvalidInput("the schedule of " + in_quotes(g.name) +
                                " is infeasible: there is nothing to export");
  }
  // Stages from the first that holds an op (a schedule shifted by whole
  // IIs is the same schedule); the kernel runs the oldest stage first.
  const int64_t first = *std::min_element(s.start.begin(), s.start.end()) / s.ii;
  int64_t max_stage = 0;
  for (const int64_t t : s.start) max_stage = std::max(max_stage, t / s.ii - first);
  std::vector<std::pair<int64_t, int64_t>> keys;
  for (const int64_t t : s.start) keys.emplace_back(max_stage - (t / s.ii - first), t);
  std::vector<std::pair<int64_t, int64_t>> distinct = keys;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  for (size_t v = 0; v < ops->size(); ++v) {
    (*ops)[v].stage = s.start[v] / s.ii - first;
    (*ops)[v].cluster = std::lower_bound(distinct.begin(), distinct.end(), keys[v]) -
                        distinct.begin();
  }
  sort_by_position(*ops);
  if (Status st = one_place_per_position(*ops); !st.ok()) return st;
  return TritonSchedule{g.name, loop_of(g.name), s.generator, s.ii, max_stage, std::move(*ops)};
}

StatusOr<TritonSchedule> triton_schedule_own(const Graph& g) {
  StatusOr<std::vector<TritonPlacement>> ops = skeleton(g);
  if (!ops.ok()) return ops.status();
  int64_t max_stage = 0;
  for (size_t v = 0; v < ops->size(); ++v) {
    const Op& op = g.ops[v];
    if (!op.triton_stage || !op.triton_cluster) {
      return Status::InvalidInput("graph " + in_quotes(g.name) + " holds no Triton schedule (op " +
                                  in_quotes(op.name) + " carries no loop.stage or loop.cluster)");
    }
    (*ops)[v].stage = *op.triton_stage;
    (*ops)[v].cluster = *op.triton_cluster;
    max_stage = std::max(max_stage, *op.triton_stage);
  }
  sort_by_position(*ops);
  return TritonSchedule{g.name, loop_of(g.name), "triton", std::nullopt, max_stage,
                        std::move(*ops)};
}

Status check_triton_lowering(const Graph& g, const TritonSchedule& t, bool buffer_rule) {
  // Per graph op: its placement (the placements are by position).
  std::vector<const TritonPlacement*> at(g.ops.size(), nullptr);
  for (const TritonPlacement& p : t.ops) {
    if (std::optional<OpId> v = g.find_op(p.id)) at[*v] = &p;
  }
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (at[v] == nullptr) return Status::InvalidInput("op " + in_quotes(g.ops[v].name) + " has no placement");
  }
  for (const Edge& e : g.edges) {
    const TritonPlacement& u = *at[e.from];
    const TritonPlacement& v = *at[e.to];
    // A buffer ttg.local_alloc writes is read in the kernel iteration that
    // writes it: the pipeliner neither multi-buffers it nor keeps it alive.
    if (buffer_rule && e.kind == EdgeKind::kData && g.ops[e.from].source_op == "ttg.local_alloc" &&
        v.stage + e.distance != u.stage) {
      return Status::InvalidInput(
          "op " + in_quotes(u.id) + " (ttg.local_alloc, stage " + std::to_string(u.stage) +
          ") writes a shared-memory buffer that op " + in_quotes(v.id) + " reads in stage " +
          std::to_string(v.stage) +
          (e.distance > 0 ? " " + std::to_string(e.distance) + " iteration(s) later" : "") +
          ": a buffer must be read in the stage that writes it, or Triton's pipeliner "
          "computes wrong results " + std::string(kRuleDoc));
    }
    // No op runs before one whose value it reads (Triton: "operation
    // scheduled before its operands").
    if (e.from == e.to) continue;
    if (std::tuple(v.stage + e.distance, v.cluster, v.position) <
        std::tuple(u.stage, u.cluster, u.position)) {
      return Status::InvalidInput(
          "op " + in_quotes(v.id) + " (stage " + std::to_string(v.stage) + ", cluster " +
          std::to_string(v.cluster) + ") would run before op " + in_quotes(u.id) + " (stage " +
          std::to_string(u.stage) + ", cluster " + std::to_string(u.cluster) +
          ") that it depends on: Triton's pipeliner refuses an op scheduled before its "
          "operands " + std::string(kRuleDoc));
    }
  }
  return Status::Ok();
}

std::string triton_schedule_json(const TritonSchedule& t) {
  using Json = nlohmann::ordered_json;
  std::string out = "{\n \"format\": \"tilesched.triton/1\",\n";
  out += " \"graph\": " + Json(t.graph).dump() + ",\n";
  if (t.loop) out += " \"loop\": " + std::to_string(*t.loop) + ",\n";
  out += " \"source\": " + Json(t.source).dump() + ",\n";
  if (t.ii) out += " \"ii\": " + std::to_string(*t.ii) + ",\n";
  out += " \"max_stage\": " + std::to_string(t.max_stage) + ",\n \"ops\": [";
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const TritonPlacement& p = t.ops[i];
    const Json o = {{"position", p.position}, {"id", p.id},         {"op", p.source_op},
                    {"stage", p.stage},       {"cluster", p.cluster}};
    out += (i == 0 ? "\n  " : ",\n  ") + o.dump();
  }
  return out + "\n ]\n}\n";
}

}  // namespace tilesched
