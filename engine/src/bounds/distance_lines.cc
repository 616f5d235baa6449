// The distance rows as lines in the II (distance.h, "Across IIs"): a
// closure offered at one II, the slopes its best paths give, and rows read
// off the lines at a later II instead of a new closure.
#include <algorithm>
#include <cassert>
#include <limits>

#include "distance.h"
#include "graph/graph_algo.h"
#include "tilesched/limits.h"

namespace tilesched {

int64_t IiLines::next_check(int64_t ii) const {
  assert(lines_);
  if (ii > hi_) {
    int64_t c = std::max(ii, hi_ + std::min(step_, limits::kMaxII - hi_));
    if (range_hi_ > 0 && c > range_hi_) c = std::max(ii, range_hi_);
    return c;
  }
  int64_t c = std::min(ii, lo_ - std::min(step_, lo_ - 1));
  if (range_hi_ > 0 && c < range_lo_) c = std::min(ii, range_lo_);
  return c;
}

bool IiLines::offer(int64_t ii, std::span<const int64_t> values) {
  if (lines_ && values.size() == base_.size() && on_lines(ii, values)) {
    lo_ = std::min(lo_, ii);
    hi_ = std::max(hi_, ii);
    step_ = std::min(2 * step_, limits::kMaxII);
    return true;
  }
  if (lines_) {
    ++broken_;
    lines_ = false;
  }
  if (kept_ && base_.size() == values.size() && (kept_ii_ == ii - 1 || kept_ii_ == ii + 1)) {
    make_lines(ii, values);
  } else {
    base_.assign(values.begin(), values.end());
    kept_ii_ = ii;
    kept_ = true;
  }
  return false;
}

// From the values kept at ii ± 1 (in base_) and those at ii: based at the
// lower II, the slope its value minus the next one's.
void IiLines::make_lines(int64_t ii, std::span<const int64_t> values) {
  const bool kept_lower = kept_ii_ < ii;
  const size_t count = values.size();
  slope_.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (values[i] == kNone) {
      slope_[i] = 0;
      continue;
    }
    const int64_t s = kept_lower ? base_[i] - values[i] : values[i] - base_[i];
    assert(s >= 0 && s < (int64_t{1} << 29));
    slope_[i] = static_cast<int32_t>(s);
  }
  if (!kept_lower) base_.assign(values.begin(), values.end());
  x_ = std::min(ii, kept_ii_);
  lo_ = x_;
  hi_ = x_ + 1;
  lines_ = true;
  kept_ = false;
  step_ = range_hi_ > 0 ? limits::kMaxII : 1;  // a known range: its far end first
}

void IiLines::set_lines(int64_t ii, std::span<const int64_t> values,
                        std::span<const int32_t> slopes) {
  base_.assign(values.begin(), values.end());
  slope_.assign(slopes.begin(), slopes.end());
  x_ = lo_ = hi_ = kept_ii_ = ii;
  lines_ = kept_ = true;
  step_ = range_hi_ > 0 ? limits::kMaxII : 1;
}

bool IiLines::on_lines(int64_t ii, std::span<const int64_t> values) const {
  const int64_t k = ii - x_;
  const size_t count = values.size();
  for (size_t i = 0; i < count; ++i) {
    const int64_t b = base_[i];
    if (b == kNone) continue;  // the same entries are kNone at every II
    if (values[i] != b - k * slope_[i]) return false;
  }
  return true;
}

void IiLines::read(int64_t ii, size_t first, std::span<int64_t> out) const {
  assert(lines_ && first + out.size() <= base_.size());
  const int64_t k = ii - x_;
  const int64_t* __restrict b = base_.data() + first;
  const int32_t* __restrict s = slope_.data() + first;
  int64_t* __restrict d = out.data();
  const size_t count = out.size();
  for (size_t i = 0; i < count; ++i) d[i] = b[i] == kNone ? kNone : b[i] - k * s[i];
}

// The closure of the last build (at ii_, still in dist_) offered to the
// lines, or lines through it from its best paths' δ (walk_slopes). Made
// when the next build comes, so a caller that builds at one II only (a
// search whose first II places) never pays for them.
void DistanceMatrix::make_pending_lines() {
  lines_pending_ = false;
  if (!lines_.offer(ii_, dist_) && !lines_.has_lines() && walk_slopes(ii_)) {
    lines_.set_lines(ii_, dist_, walk_slope_);
  }
}

bool DistanceMatrix::walk_slopes(int64_t ii) {
  const size_t n = static_cast<size_t>(n_);
  walk_slope_.resize(n * n);
  walk_queue_.resize(n);
  constexpr int32_t kUnseen = std::numeric_limits<int32_t>::max();
  for (size_t u = 0; u < n; ++u) {
    const int64_t* d = dist_.data() + u * n;
    int32_t* slope = walk_slope_.data() + u * n;
    std::fill(slope, slope + n, kUnseen);
    slope[u] = 0;
    // Breadth first over the tight edges: every op with a path is reached
    // (each edge of a best path is tight), each once.
    size_t head = 0, tail = 0;
    walk_queue_[tail++] = static_cast<int>(u);
    while (head < tail) {
      const int w = walk_queue_[head++];
      for (int i = out_begin_[w]; i < out_begin_[w + 1]; ++i) {
        const Arc& a = out_[i];
        if (slope[a.to] != kUnseen) continue;
        if (d[w] + (a.latency - ii * a.distance) != d[a.to]) continue;  // not tight
        const int64_t s = slope[w] + a.distance;
        if (s >= (int64_t{1} << 29)) return false;  // not a simple path's δ: no such lines
        slope[a.to] = static_cast<int32_t>(s);
        walk_queue_[tail++] = a.to;
      }
    }
    for (size_t v = 0; v < n; ++v) {
      if (slope[v] == kUnseen) slope[v] = 0;  // no path (kNoPath at every II)
    }
  }
  return true;
}

bool DistanceMatrix::lines_hold(int64_t c) {
  ++totals_.checks;
  const size_t n = static_cast<size_t>(n_);
  check_row_.resize(n);
  int64_t* row = check_row_.data();
  for (size_t u = 0; u < n; ++u) {
    lines_.read(c, u * n, check_row_);
    for (const Edge& e : edges_) {
      const int64_t from = row[e.from];
      if (from != kNoPath && from + (e.latency - c * e.distance) > row[e.to]) return false;
    }
  }
  ++totals_.checks_held;
  return true;
}

void DistanceMatrix::read_lines(int64_t ii) {
  dist_.resize(static_cast<size_t>(n_) * static_cast<size_t>(n_));
  row_stamp_.resize(static_cast<size_t>(n_), 0);
  if (++stamp_ == 0) {  // wrapped: no row may look written
    std::fill(row_stamp_.begin(), row_stamp_.end(), 0);
    stamp_ = 1;
  }
  from_lines_ = true;
  ii_ = ii;
  valid_ = true;
  stats_ = {};
  stats_.components = comp_count_;
  stats_.from_lines = true;
  ++totals_.from_lines;
}

void DistanceMatrix::write_row(OpId u) const {
  const size_t n = static_cast<size_t>(n_);
  lines_.read(ii_, static_cast<size_t>(u) * n, {dist_.data() + static_cast<size_t>(u) * n, n});
  row_stamp_[u] = stamp_;
  ++totals_.rows_read;
}

}  // namespace tilesched
