// Registers per thread a loop's compiled kernel holds, estimated from the
// graph when the compiled count is not known (`tilesched stages` without
// --registers; docs/TARGETS.md, "Registers estimated from the graph"): the
// most the loop's register tiles hold at once, plus a fitted overhead.
#pragma once

#include <cstdint>

#include "tilesched/graph.h"

namespace tilesched::hopper {

// What ptxas keeps in registers besides the loop's tiles and their
// addresses (indices, loop bounds, scalar pointers, predicates,
// descriptors): fitted, the least over the four shared Triton kernels of
// the compiled count less the liveness peak and the address registers
// below (26 for three of the four; docs/TARGETS.md gives the fit).
inline constexpr int64_t kRegisterOverhead = 26;

// Elements of a pointer tile one 64-bit address serves: a vectorized
// 16-byte access of 16-bit elements (ours: the shared kernels' fp16 loads).
inline constexpr int64_t kElementsPerAddress = 8;

// Registers per thread the loop's pointer tiles hold: each `address` op's
// pointer tile (op.registers, 64-bit per element) kept as one address per
// kElementsPerAddress elements.
int64_t address_registers(const Graph& g);

// The most registers per thread the loop's values hold at once: at the top
// of the body and after each op in program order, the sum of op.registers
// over the values alive there: a value from its op to its last
// same-iteration reader, a loop-carried value (a data edge of distance >= 1
// leaves it: accumulators, running statistics) from its op to the end of
// the body and from the top to its last reader in the next iteration.
// Pointer tiles (kind `address`) count nothing: the compiler keeps a base
// and offsets, which the overhead covers.
int64_t register_liveness_peak(const Graph& g);

// register_liveness_peak + address_registers + kRegisterOverhead, at most
// kMaxRegistersPerThread.
int64_t estimated_registers(const Graph& g);

}  // namespace tilesched::hopper
