// Predicting the time of a loop pipelined by Triton at num_stages S
// (tilesched/hopper_predict.h, "Predicting a Triton pipeline's time"): the loop as
// Triton lowers it, Triton's stage assignment, the time of one CTA's
// iteration when waits sit at stage boundaries, and CTAs sharing an SM.
// docs/TARGETS.md ("Predicting num_stages") explains the model and its fit.
#include <algorithm>
#include <cstdint>

#include "tilesched/hopper_predict.h"

#include <cmath>

#include "model/arith.h"
#include "tilesched/hopper_class.h"

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

// The ops whose distance-0 data consumers are all buffer writes, every
// reader of those buffers in a later stage than the load (distance
// included): the loads Triton turns into one asynchronous copy into the
// buffer. A buffer read in the load's own stage keeps the load synchronous.
std::vector<bool> copies_into_buffer(const Graph& g, const std::vector<int64_t>& stage) {
  std::vector<int> consumers(g.ops.size(), 0), writes(g.ops.size(), 0);
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kData || e.distance != 0) continue;
    ++consumers[e.from];
    if (is_smem_write(g.ops[e.to])) ++writes[e.from];
  }
  // The earliest stage (distance included) a buffer write's readers read it.
  std::vector<int64_t> first_read(g.ops.size(), INT64_MAX);
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData) {
      first_read[e.from] = std::min(first_read[e.from], stage[e.to] + e.distance);
    }
  }
  std::vector<bool> copy(g.ops.size(), false);
  for (int v = 0; v < g.op_count(); ++v) {
    copy[v] = is_pipelined_load(g.ops[v]) && consumers[v] > 0 && writes[v] == consumers[v];
  }
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData && e.distance == 0 && copy[e.from] &&
        first_read[e.to] <= stage[e.from]) {
      copy[e.from] = false;
    }
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

// L2 cycles at the fitted bandwidth per L2 cycle of the target's encoding.
double l2_scale(const FittedConstants& fit) {
  return static_cast<double>(kL2BytesPerCycle) /
         static_cast<double>(std::max<int64_t>(fit.l2_bytes_per_cycle, 1));
}

// Elementwise work on a register tile: each thread runs the op over its
// elements one after another.
bool is_elementwise(const Op& op) {
  return op.kind == "alu" || op.kind == "exp" || op.kind == "sfu" || op.kind == "convert";
}

// Cycles of the op's busiest unit: the part of its latency that is the
// tile streaming through, not the fixed latency of one element.
double streaming_cycles(const Op& op) {
  int64_t most = 0;
  for (const Triple& t : op.resources) most = std::max(most, t.duration * t.occupancy);
  return static_cast<double>(most);
}

// Cycles from the start of an edge's producer until the consumer may start.
// A load waits the memory latency and its transfer. An elementwise op
// feeding an elementwise op or a reduction on the same tile streams into
// it: the consumer starts once the first elements are through (the
// producer's fixed latency) and keeps behind it (it does not finish before
// the producer's last element, so it starts no earlier than the producer's
// streaming time less its own).
double edge_cycles(const Graph& g, const Edge& e, double memory_latency, double l2) {
  const Op& from = g.ops[e.from];
  if (is_pipelined_load(from)) {
    const double transfer = std::max(static_cast<double>(slot_cycles(from, kL2)) * l2,
                                     static_cast<double>(slot_cycles(from, kDram)));
    return memory_latency + transfer;
  }
  const double latency = static_cast<double>(e.latency * kCyclesPerUnit);
  const Op& to = g.ops[e.to];
  if (e.kind == EdgeKind::kData && is_elementwise(from) &&
      (is_elementwise(to) || to.kind == "reduce")) {
    const double stream = streaming_cycles(from);
    const double fixed = std::max(0.0, latency - stream);
    return std::min(latency, fixed + std::max(0.0, stream - streaming_cycles(to)));
  }
  return latency;
}

// The busy cycles of each unit with L2's at the fitted bandwidth.
std::vector<double> scaled_units(const Graph& g, const FittedConstants& fit) {
  const std::vector<int64_t> units = unit_cycles(g);
  std::vector<double> out(units.begin(), units.end());
  if (static_cast<size_t>(kL2) < out.size()) out[kL2] *= l2_scale(fit);
  return out;
}

int busiest_slot(const std::vector<double>& units) {
  return static_cast<int>(std::max_element(units.begin(), units.end()) - units.begin());
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

Graph as_pipelined(const Graph& g) { return as_pipelined(g, triton_stages(g, 2)); }

Graph as_pipelined(const Graph& g, const std::vector<int64_t>& stage) {
  Graph out = g;
  const std::vector<bool> copy = copies_into_buffer(g, stage);
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

namespace {

// Ops that read a buffer written in the same iteration: a barrier
// (bar.sync / fence) comes before them.
std::vector<bool> after_barrier(const Graph& g) {
  std::vector<bool> out(g.ops.size(), false);
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData && e.distance == 0 && is_smem_write(g.ops[e.from])) {
      out[e.to] = true;
    }
  }
  return out;
}

// The start of each op within its kernel iteration. Pipelined, every
// instruction issues in issue order; unpipelined, the compiler hoists an op
// above independent instructions but not above a barrier. Every
// same-iteration (k = 0) edge runs forward in issue order in a loop as
// Triton writes it, so the first pass settles; later passes only matter for
// a graph whose ids are not in program order, and are bounded.
std::vector<double> starts(const Graph& g, const std::vector<int64_t>& stage,
                           const std::vector<bool>& issues, double memory_latency, double l2) {
  const bool pipelined = std::any_of(stage.begin(), stage.end(), [](int64_t s) { return s > 0; });
  const std::vector<int> order = issue_order(stage);
  const std::vector<bool> barrier_before = after_barrier(g);
  std::vector<std::vector<int>> in(g.ops.size());
  for (int id = 0; id < g.edge_count(); ++id) in[g.edges[id].to].push_back(id);
  std::vector<double> start(g.ops.size(), 0.0);
  for (int pass = 0; pass <= g.op_count(); ++pass) {
    bool changed = false;
    double issued = 0.0, barrier = 0.0;  // the last instruction issued, the last barrier
    for (const int v : order) {
      double s = std::max(start[v], pipelined ? (issues[v] ? issued : 0.0) : barrier);
      for (int id : in[v]) {
        const Edge& e = g.edges[id];
        if (e.distance + stage[v] - stage[e.from] == 0) {
          s = std::max(s, start[e.from] + edge_cycles(g, e, memory_latency, l2));
        }
      }
      changed = changed || s != start[v];
      start[v] = s;
      if (issues[v]) issued = s;
      if (barrier_before[v]) barrier = s;
    }
    if (!changed) break;
  }
  return start;
}

}  // namespace

double cta_cycles_per_iteration(const Graph& g, const std::vector<int64_t>& stage,
                                double memory_latency, const FittedConstants& fit) {
  const double l2 = l2_scale(fit);
  // A buffer write folded into its load's copy (as_pipelined) issues no
  // instruction: it marks the copy's arrival and holds up no later op.
  const std::vector<bool> fed = fed_by_load(g);
  std::vector<bool> issues(g.ops.size(), true);
  for (int v = 0; v < g.op_count(); ++v) issues[v] = !(fed[v] && g.ops[v].resources.empty());
  const std::vector<double> start = starts(g, stage, issues, memory_latency, l2);
  const std::vector<double> units = scaled_units(g, fit);
  double cycles = units[busiest_slot(units)];
  for (int v = 0; v < g.op_count(); ++v) {
    if (issues[v]) cycles = std::max(cycles, start[v]);
  }
  // A value crossing k >= 1 stage boundaries arrives within k iterations.
  for (const Edge& e : g.edges) {
    const int64_t k = e.distance + stage[e.to] - stage[e.from];
    if (k >= 1) {
      cycles = std::max(cycles, (start[e.from] + edge_cycles(g, e, memory_latency, l2)) /
                                    static_cast<double>(k));
    }
  }
  return cycles;
}

std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::kLatency: return "latency";
    case Bound::kUnit: return "unit";
    case Bound::kL2Bandwidth: return "l2_bandwidth";
    case Bound::kSharedMemory: return "shared_memory";
  }
  return "latency";
}

Graph with_streamed_loads(const Graph& g, const Gpu& gpu) {
  Graph out = g;
  const double per_cycle = dram_bytes_per_cycle(gpu);
  for (Op& op : out.ops) {
    if (!is_pipelined_load(op) || slot_cycles(op, kDram) > 0) continue;
    const double bytes = static_cast<double>(slot_cycles(op, kL2) * kL2BytesPerCycle);
    const int64_t cycles = static_cast<int64_t>(std::ceil(bytes / per_cycle));
    if (cycles <= 0) continue;
    const int64_t rows = (cycles + kCyclesPerUnit - 1) / kCyclesPerUnit;
    op.resources.push_back({kDram, rows, (cycles + rows - 1) / rows});
  }
  return out;
}

namespace {

// The loop's DRAM cycles at `gpu`'s bandwidth: the target's encodings
// charge stores at the H200's.
Graph at_gpu_dram(const Graph& g, const Gpu& gpu) {
  if (gpu.dram_gb_per_s == kH200.dram_gb_per_s) return g;
  Graph out = g;
  const double scale = static_cast<double>(kH200.dram_gb_per_s) / static_cast<double>(gpu.dram_gb_per_s);
  for (Op& op : out.ops) {
    for (Triple& t : op.resources) {
      if (t.slot == kDram) t.duration = static_cast<int64_t>(std::ceil(static_cast<double>(t.duration) * scale));
    }
  }
  return out;
}

// The loop as the prediction prices it: lowered as Triton lowers `stage`,
// its DRAM at the GPU's bandwidth, and a streaming loop's loads from DRAM.
Graph as_priced(const Graph& g, const std::vector<int64_t>& stage, int64_t stages, const Gpu& gpu) {
  Graph lowered = at_gpu_dram(stages >= 2 ? as_pipelined(g, stage) : g, gpu);
  return streams_from_dram(classify_kernel(g)) ? with_streamed_loads(lowered, gpu) : lowered;
}

// The prediction of `stage` with one CTA's shared memory `smem_bytes`.
StagePrediction price(const Graph& g, const std::vector<int64_t>& stage, int64_t smem_bytes,
                      const CtaFootprint& cta, const FittedConstants& fit, const Gpu& gpu) {
  constexpr int kSteps = 60;  // the fixed point settles well within
  StagePrediction p;
  p.stages = 1 + (stage.empty() ? 0 : *std::max_element(stage.begin(), stage.end()));
  p.smem_bytes = smem_bytes;
  CtaFootprint footprint = cta;
  footprint.smem_bytes = p.smem_bytes;
  p.ctas_per_sm = ctas_per_sm(footprint, &p.ctas_limit);
  const Graph lowered = as_priced(g, stage, p.stages, gpu);
  // A loop streaming from DRAM waits the idle latency: with enough bytes in
  // flight its CTAs reach the bandwidth (the busiest unit) before any
  // queue forms; the queueing cap was fitted on loads that hit in L2.
  const bool queues = !streams_from_dram(classify_kernel(g));
  const std::vector<double> units = scaled_units(lowered, fit);
  p.busiest_slot = busiest_slot(units);
  const double busiest = units[p.busiest_slot];
  const double l2 = static_cast<size_t>(kL2) < units.size() ? units[kL2] : 0.0;
  const double ctas = static_cast<double>(std::max<int64_t>(p.ctas_per_sm, 1));
  double latency = static_cast<double>(kIdleMemoryLatency);
  for (int step = 0; step < kSteps; ++step) {
    p.memory_latency = latency;
    p.cta_cycles = cta_cycles_per_iteration(lowered, stage, latency, fit);
    p.sm_cycles = std::max(p.cta_cycles / ctas, busiest);
    if (queues) latency = 0.5 * (latency + loaded_memory_latency(l2 / p.sm_cycles, fit));
  }
  if (p.ctas_per_sm == 0) {
    p.sm_cycles = 0.0;
    p.bound = Bound::kSharedMemory;
  } else if (p.cta_cycles / ctas > busiest) {
    p.bound = Bound::kLatency;
  } else {
    p.bound = p.busiest_slot == kL2 ? Bound::kL2Bandwidth : Bound::kUnit;
  }
  return p;
}

}  // namespace

StagePrediction predict_schedule(const Graph& g, const std::vector<int64_t>& stage,
                                 const CtaFootprint& cta, const FittedConstants& fit,
                                 const Gpu& gpu) {
  return price(g, stage, predicted_smem_bytes(g, stage), cta, fit, gpu);
}

StagePrediction predict_stages(const Graph& g, int64_t stages, const CtaFootprint& cta,
                               const FittedConstants& fit, const Gpu& gpu) {
  StagePrediction p =
      price(g, triton_stages(g, stages), predicted_smem_bytes(g, stages), cta, fit, gpu);
  p.stages = stages;
  return p;
}

double kernel_microseconds(const StagePrediction& p, int64_t grid, int64_t trip, const Gpu& gpu) {
  return kernel_microseconds(p, KernelShape{grid, trip, false}, gpu);
}

double kernel_microseconds(const StagePrediction& p, const KernelShape& k, const Gpu& gpu) {
  if (p.ctas_per_sm <= 0) return 0.0;
  const int64_t slots = gpu.sm_count * p.ctas_per_sm;
  // Rounds of tiles one CTA slot runs, and the pipeline fills it waits.
  const int64_t rounds = ceil_div(k.tiles, k.persistent ? std::min(k.tiles, slots) : slots);
  const int64_t fills = k.persistent ? 1 : rounds;
  const double cycles = static_cast<double>(rounds * k.trip * p.ctas_per_sm) * p.sm_cycles +
                        static_cast<double>(fills) * p.memory_latency;
  return cycles / static_cast<double>(gpu.clock_mhz);
}

}  // namespace tilesched::hopper
