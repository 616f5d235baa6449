// A row of the distance closure relaxed through another (distance.cc and
// distance_closure.cc share it; the closure's inner loop). Internal.
#pragma once

#include <type_traits>

namespace tilesched::distance_internal {

// dst[j] = max(dst[j], a + src[j]) for j in [lo, hi] where src[j] is a
// path (not `none`). dst and src are different rows.
template <class T>
void relax_row(T* __restrict dst, const T* __restrict src, T a, int lo, int hi, T none) {
  if constexpr (sizeof(T) == 4) {
    // Branch-free, so the compiler vectorizes it (4 or 8 lanes): the sum is
    // formed in unsigned arithmetic, defined for the sentinel too, and
    // dropped by the select, so the sentinel never reaches a result.
    using U = std::make_unsigned_t<T>;
    for (int j = lo; j <= hi; ++j) {
      const T s = src[j];
      const T t = static_cast<T>(static_cast<U>(a) + static_cast<U>(s));
      const T cand = s == none ? none : t;
      dst[j] = cand > dst[j] ? cand : dst[j];
    }
  } else {
    for (int j = lo; j <= hi; ++j) {
      const T s = src[j];
      if (s == none) continue;
      const T t = a + s;
      if (t > dst[j]) dst[j] = t;
    }
  }
}

}  // namespace tilesched::distance_internal
