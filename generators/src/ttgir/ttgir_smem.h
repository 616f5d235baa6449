// The TTGIR reader's shared memory outside a loop (internal): which
// buffers of the enclosing function are alive while the loop runs
// (docs/TTGIR.md, "Shared memory outside the loop").
#pragma once

#include <cstdint>
#include <string_view>

#include "ttgir_loops.h"

namespace tilesched::graphgen::ttgir {

// Bytes of the `ttg.local_alloc` buffers of the loop's function that are
// allocated before the loop (outside it) and used, directly or through
// memdesc views, in it or after it: the buffers alive while it runs, each
// counted once, at most limits::kMaxPoolCapacity. Program order is the
// order operations are written in, nested ones included.
StatusOr<int64_t> live_outside_smem(const LoopRef& loop, std::string_view source);

}  // namespace tilesched::graphgen::ttgir
