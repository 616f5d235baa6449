// Documented input limits. Every reader refuses input beyond them with a
// clear error, so no file can make the engine allocate without bound,
// overflow a 64-bit cycle count or run for ever. docs/FORMATS.md lists them.
#pragma once

#include <cstdint>

namespace tilesched::limits {

inline constexpr int64_t kMaxFileBytes = 64ll << 20;  // 64 MiB per input file
inline constexpr int kMaxJsonDepth = 64;              // nesting of [ and {
inline constexpr int kMaxOps = 8192;
inline constexpr int kMaxEdges = 131072;
inline constexpr int kMaxTriplesPerOp = 64;           // one per slot at most
inline constexpr int64_t kMaxLatency = 65535;         // op and edge latency
inline constexpr int64_t kMaxDuration = 1024;         // cycles a triple holds its slot
inline constexpr int64_t kMaxDistance = 65535;        // iteration distance of an edge
inline constexpr int64_t kMaxSlotCapacity = 65535;
inline constexpr int64_t kMaxPoolCapacity = int64_t{1} << 40;  // storage pools count bytes
inline constexpr int64_t kMaxMaxDepth = 1024;
inline constexpr int64_t kMaxRegisters = 65535;       // an op's register footprint, a budget
inline constexpr int64_t kMaxGroupId = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxSourcePosition = (int64_t{1} << 31) - 1;  // an op's place in its IR
inline constexpr int64_t kMaxWarps = 1024;            // warps of one CTA (num_warps)
inline constexpr int64_t kMaxElementBits = 64;        // an MMA operand element (mma_element_bits)
inline constexpr int kMaxNameLength = 256;            // op ids, slot and pool names
inline constexpr int kMaxSlots = 64;                  // one 64-bit RRT row
inline constexpr int kMaxPools = 64;
// A schedule's II and start cycles (schedule files read by `verify`).
inline constexpr int64_t kMaxII = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxStart = int64_t{1} << 40;

}  // namespace tilesched::limits
