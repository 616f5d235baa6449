// What kind of kernel a Hopper loop is, and which of the prediction's
// mechanisms the measured ground truth has not exercised (docs/TARGETS.md,
// "What the measurements cover"). The ground truth is the four shared
// Triton kernels (../shared/kernels/triton-h200): fp16 GEMMs and attention
// forward at head 128, pointer and TMA loads hitting in L2, 8 warps, one or
// two CTAs per SM, each S bound by the latency of its loads or by L2
// bandwidth. A prediction resting on anything else extrapolates the
// mechanisms, and `tilesched stages` and `tilesched predict` say so.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"

namespace tilesched::hopper {

enum class KernelClass {
  kGemm,            // one or more MMAs, no store in the loop
  kPersistentGemm,  // MMAs and the output tile's store inside the loop: several tiles per CTA
  kAttention,       // two or more MMAs with an exponential between them
  kReduction,       // no MMA; a value computed on the data carried to the next iteration
  kStreaming,       // no MMA, nothing carried but addresses: loads, elementwise work, stores
};
// "compute-bound GEMM", "persistent GEMM", "attention",
// "memory-bound reduction", "memory-bound streaming".
std::string_view kernel_class_name(KernelClass c);

// The class of the loop, read off its op kinds and loop-carried edges.
KernelClass classify_kernel(const Graph& g);

// True for the classes whose loads are taken to stream from DRAM (each byte
// loaded by one CTA only): the loops without an MMA. A GEMM's or an
// attention's tiles are re-read by other CTAs and hit in L2.
bool streams_from_dram(KernelClass c);

// What a prediction of `g` rests on that the measurements did not exercise,
// one phrase each ("4 warps: every measured kernel had 8", ...); empty when
// nothing. `most_ctas`: the most CTAs per SM of the predictions made;
// `unit_bound`: the units (slot names) that bound any of them, not L2.
std::vector<std::string> unexercised_mechanisms(const Graph& g, int64_t warps,
                                                bool registers_estimated, int64_t most_ctas,
                                                const std::vector<std::string>& unit_bound);

}  // namespace tilesched::hopper
