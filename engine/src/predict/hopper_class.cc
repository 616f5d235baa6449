// The class of a Hopper loop and what its prediction rests on that the
// measured kernels did not exercise (tilesched/hopper_class.h).
#include "tilesched/hopper_class.h"

namespace tilesched::hopper {

namespace {

// The ground truth's extent (../shared/kernels/triton-h200, measured.json).
constexpr int64_t kMeasuredWarps = 8;
constexpr int64_t kMeasuredMostCtas = 2;
constexpr int64_t kMeasuredMmaBits = 16;  // fp16 operands

struct Census {
  int mmas = 0, exps = 0, stores = 0, carried = 0;
};

bool computes_on_data(const std::string& kind) {
  return kind == "alu" || kind == "reduce" || kind == "convert" || kind == "exp" || kind == "sfu";
}

Census census(const Graph& g) {
  Census c;
  for (const Op& op : g.ops) {
    if (op.kind == "wgmma") ++c.mmas;
    if (op.kind == "exp" || op.kind == "sfu") ++c.exps;
    if (op.kind == "global_store" || op.kind == "tma_store") ++c.stores;
    if (op.kind == "reduce") ++c.carried;
  }
  // A value computed on the data and carried to the next iteration (a
  // running sum or maximum); pointer bumps and counters are not.
  for (const Edge& e : g.edges) {
    if (e.kind == EdgeKind::kData && e.distance >= 1 && computes_on_data(g.ops[e.from].kind)) {
      ++c.carried;
    }
  }
  return c;
}

}  // namespace

std::string_view kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::kGemm: return "compute-bound GEMM";
    case KernelClass::kPersistentGemm: return "persistent GEMM";
    case KernelClass::kAttention: return "attention";
    case KernelClass::kReduction: return "memory-bound reduction";
    case KernelClass::kStreaming: return "memory-bound streaming";
  }
  return "compute-bound GEMM";
}

KernelClass classify_kernel(const Graph& g) {
  const Census c = census(g);
  if (c.mmas >= 2 && c.exps >= 1) return KernelClass::kAttention;
  if (c.mmas >= 1) return c.stores >= 1 ? KernelClass::kPersistentGemm : KernelClass::kGemm;
  return c.carried >= 1 ? KernelClass::kReduction : KernelClass::kStreaming;
}

bool streams_from_dram(KernelClass c) {
  return c == KernelClass::kReduction || c == KernelClass::kStreaming;
}

std::vector<std::string> unexercised_mechanisms(const Graph& g, int64_t warps,
                                                bool registers_estimated, int64_t most_ctas,
                                                const std::vector<std::string>& unit_bound) {
  std::vector<std::string> out;
  const KernelClass c = classify_kernel(g);
  const bool measured_class = c == KernelClass::kGemm || c == KernelClass::kAttention;
  if (!measured_class) {
    out.push_back("a " + std::string(kernel_class_name(c)) +
                  ": the measured kernels are GEMMs and attention");
  }
  if (streams_from_dram(c)) out.push_back("loads from DRAM: every measured load hit in L2");
  if (c == KernelClass::kPersistentGemm) {
    out.push_back("several tiles per CTA: no measured kernel is persistent");
  }
  if (g.attrs.mma_element_bits && *g.attrs.mma_element_bits != kMeasuredMmaBits) {
    out.push_back(std::to_string(*g.attrs.mma_element_bits) +
                  "-bit MMA operands, another tensor-core rate: every measured kernel's MMAs were fp16");
  }
  if (warps != kMeasuredWarps) {
    out.push_back(std::to_string(warps) + " warps: every measured kernel had 8");
  }
  if (most_ctas > kMeasuredMostCtas) {
    out.push_back(std::to_string(most_ctas) + " CTAs per SM: the measured kernels ran 1 or 2");
  }
  for (const std::string& unit : unit_bound) {
    out.push_back("bound by the " + unit + " unit: the measured kernels were bound by latency or L2");
  }
  if (registers_estimated && !measured_class) {
    out.push_back("registers estimated with an overhead fitted on GEMMs and attention");
  }
  return out;
}

}  // namespace tilesched::hopper
