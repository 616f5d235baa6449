// Predicting the time of a loop pipelined by Triton at num_stages S
// (tilesched/hopper.h, "Predicting a Triton pipeline's time"): the loop as
// Triton lowers it, Triton's stage assignment, the time of one CTA's
// iteration when waits sit at stage boundaries, and CTAs sharing an SM.
// docs/TARGETS.md ("Predicting num_stages") explains the model and its fit.
#include <algorithm>

#include "tilesched/hopper.h"

namespace tilesched::hopper {

namespace {

bool is_smem_write(const Op& op) { return op.kind == "smem_write"; }

int64_t slot_cycles(const Op& op, int slot) {
  int64_t cycles = 0;
  for (const Triple& t : op.resources) {
    if (t.slot == slot) cycles += t.duration * t.occupancy;
  }
  return cycles;
}

// The ops whose distance-0 data consumers are all buffer writes: the loads
// Triton turns into one asynchronous copy into the buffer.
std::vector<bool> copies_into_buffer(const Graph& g) {
  std::vector<int> consumers(g.ops.size(), 0), writes(g.ops.size(), 0);
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData || e.distance != 0) continue;
    ++consumers[e.from];
    if (is_smem_write(g.ops[e.to])) ++writes[e.from];
  }
  std::vector<bool> copy(g.ops.size(), false);
  for (int v = 0; v < g.op_count(); ++v) {
    copy[v] = is_pipelined_load(g.ops[v]) && consumers[v] > 0 && writes[v] == consumers[v];
  }
  return copy;
}

// Buffer writes fed (distance 0) by a pipelined load: they travel with it.
std::vector<bool> fed_by_load(const Graph& g) {
  std::vector<bool> fed(g.ops.size(), false);
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData && e.distance == 0 && is_pipelined_load(g.ops[e.from]) &&
        is_smem_write(g.ops[e.to])) {
      fed[e.to] = true;
    }
  }
  return fed;
}

// Cycles from the start of an edge's producer until the consumer may start.
double edge_cycles(const Graph& g, const Edge& e, double memory_latency) {
  const Op& from = g.ops[e.from];
  if (is_pipelined_load(from)) {
    return memory_latency + static_cast<double>(slot_cycles(from, kL2));
  }
  return static_cast<double>(e.latency * kCyclesPerUnit);
}

// The ops in issue order: older stages (higher stage numbers) first, then
// program order.
std::vector<int> issue_order(const std::vector<int64_t>& stage) {
  std::vector<int> order(stage.size());
  for (size_t v = 0; v < order.size(); ++v) order[v] = static_cast<int>(v);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return stage[a] > stage[b]; });
  return order;
}

}  // namespace

bool is_pipelined_load(const Op& op) {
  return op.kind == "global_load" || op.kind == "cp_async" || op.kind == "tiled_tma_load";
}

Graph as_pipelined(const Graph& g) {
  Graph out = g;
  const std::vector<bool> copy = copies_into_buffer(g);
  std::vector<bool> folded(g.ops.size(), false);
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData && e.distance == 0 && copy[e.from]) folded[e.to] = true;
  }
  for (int v = 0; v < g.op_count(); ++v) {
    Op& op = out.ops[v];
    if (folded[v]) {
      op.resources.clear();  // the copy writes the buffer
      op.latency = 1;
    } else if (copy[v] && op.kind == "tiled_tma_load") {
      for (Triple& t : op.resources) {
        if (t.slot == kSmem) t.duration = (t.duration + 1) / 2;  // no read-back pass
      }
    }
  }
  for (Edge& e : out.edges) {
    if (folded[e.from]) e.latency = 1;
  }
  return out;
}

std::vector<int64_t> triton_stages(const Graph& g, int64_t stages) {
  const int64_t last = std::max<int64_t>(stages, 1) - 1;
  const std::vector<bool> fed = fed_by_load(g);
  std::vector<int64_t> stage(g.ops.size(), last);
  for (int v = 0; v < g.op_count(); ++v) {
    if (is_pipelined_load(g.ops[v]) || fed[v]) stage[v] = 0;
  }
  // Lower producers until no edge runs backwards; stages only decrease and
  // stay >= 0, so this ends within ops x edges steps.
  for (bool changed = true; changed;) {
    changed = false;
    for (const Edge& e : g.edges) {
      const int64_t bound = stage[e.to] + e.distance;
      if (stage[e.from] > bound) {
        stage[e.from] = bound;
        changed = true;
      }
    }
  }
  return stage;
}

double cta_cycles_per_iteration(const Graph& g, const std::vector<int64_t>& stage,
                                double memory_latency) {
  const bool pipelined = std::any_of(stage.begin(), stage.end(), [](int64_t s) { return s > 0; });
  const std::vector<int> order = issue_order(stage);
  std::vector<std::vector<int>> in(g.ops.size());
  for (int id = 0; id < g.edge_count(); ++id) in[g.edges[id].to].push_back(id);
  // Start of each op within its kernel iteration: every same-iteration
  // (k = 0) edge runs forward in issue order, so one pass in that order.
  // A buffer write folded into its load's copy (as_pipelined) issues no
  // instruction: it marks the copy's arrival and holds up no later op.
  const std::vector<bool> fed = fed_by_load(g);
  std::vector<bool> issues(g.ops.size(), true);
  for (int v = 0; v < g.op_count(); ++v) issues[v] = !(fed[v] && g.ops[v].resources.empty());
  std::vector<double> start(g.ops.size(), 0.0);
  // Same-iteration (k = 0) edges run forward in issue order in a loop as
  // Triton writes it, so the first pass settles; later passes only matter
  // for a graph whose ids are not in program order, and are bounded.
  for (int pass = 0; pass <= g.op_count(); ++pass) {
    bool changed = false;
    double issued = 0.0;  // the start of the last instruction issued
    for (const int v : order) {
      double s = start[v];
      if (pipelined && issues[v]) s = std::max(s, issued);
      for (int id : in[v]) {
        const Edge& e = g.edges[id];
        if (e.distance + stage[v] - stage[e.from] == 0) {
          s = std::max(s, start[e.from] + edge_cycles(g, e, memory_latency));
        }
      }
      changed = changed || s != start[v];
      start[v] = s;
      if (issues[v]) issued = s;
    }
    if (!changed) break;
  }
  double cycles = static_cast<double>(busiest_unit_cycles(g));
  for (int v = 0; v < g.op_count(); ++v) {
    if (issues[v]) cycles = std::max(cycles, start[v]);
  }
  for (const Edge& e : g.edges) {
    const int64_t k = e.distance + stage[e.to] - stage[e.from];
    if (k >= 1) cycles = std::max(cycles, (start[e.from] + edge_cycles(g, e, memory_latency)) / static_cast<double>(k));
  }
  return cycles;
}

StagePrediction predict_stages(const Graph& g, int64_t stages, const CtaFootprint& cta) {
  constexpr int kSteps = 60;            // the fixed point settles well within
  constexpr double kMaxUtilization = 0.99;
  StagePrediction p;
  p.stages = stages;
  p.smem_bytes = predicted_smem_bytes(g, stages);
  CtaFootprint footprint = cta;
  footprint.smem_bytes = p.smem_bytes;
  p.ctas_per_sm = ctas_per_sm(footprint);
  const Graph lowered = stages >= 2 ? as_pipelined(g) : g;
  const std::vector<int64_t> stage = triton_stages(lowered, stages);
  const double busiest = static_cast<double>(busiest_unit_cycles(lowered));
  double l2 = 0.0;  // cycles of the SM's L2 bandwidth one iteration needs
  for (const Op& op : lowered.ops) l2 += static_cast<double>(slot_cycles(op, kL2));
  const double ctas = static_cast<double>(std::max<int64_t>(p.ctas_per_sm, 1));
  double latency = static_cast<double>(kIdleMemoryLatency);
  for (int step = 0; step < kSteps; ++step) {
    p.memory_latency = latency;
    p.cta_cycles = cta_cycles_per_iteration(lowered, stage, latency);
    p.sm_cycles = std::max(p.cta_cycles / ctas, busiest);
    const double utilization = std::min(kMaxUtilization, l2 / p.sm_cycles);
    const double queued = std::min(static_cast<double>(kMaxLoadedMemoryLatency),
                                   static_cast<double>(kIdleMemoryLatency) / (1.0 - utilization));
    latency = 0.5 * (latency + queued);
  }
  if (p.ctas_per_sm == 0) p.sm_cycles = 0.0;
  return p;
}

}  // namespace tilesched::hopper
