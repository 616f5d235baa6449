// Swing modulo scheduling as a table of contents (Llosa et al., PACT 1996;
// docs/BASELINES.md): the serial schedule (L7 and the II cap), the node
// sets (once per graph), then per II from the lower bound to the cap: the
// distance closure at that II, the timing, the swing order, one placement
// without backtracking, and L4 on the finished placement.
#include "tilesched/sms.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <string>

#include "../distance.h"
#include "../elapsed.h"
#include "../graph_algo.h"
#include "../rrt.h"
#include "../ii_driver.h"
#include "../ii_screen.h"
#include "../storage.h"
#include "order.h"
#include "placer.h"
#include "tilesched/serial.h"

namespace tilesched {

namespace sms {
namespace {

using Clock = std::chrono::steady_clock;

// Diagnostics name at most this many ops of the order, and this many
// failed IIs one by one.
constexpr size_t kOrderShown = 32;
constexpr int64_t kFailuresShown = 16;

std::string describe_order(const Graph& g, const std::vector<OpId>& order, int64_t ii) {
  std::string out = "swing order at II " + std::to_string(ii) + ":";
  for (size_t i = 0; i < order.size() && i < kOrderShown; ++i) {
    out += (i == 0 ? " " : ", ") + g.ops[order[i]].name;
  }
  if (order.size() > kOrderShown) {
    out += ", ... (" + std::to_string(order.size() - kOrderShown) + " more)";
  }
  return out;
}

class Generator {
 public:
  Generator(const Graph& g, const SmsOptions& opts)
      : g_(g), opts_(opts), adj_(Adjacency::build(g)), serial_(generate_serial(g)),
        groups_(find_leader_groups(g)) {
    nodes_.reserve(static_cast<size_t>(g.op_count()));
    for (const Op& op : g.ops) nodes_.push_back(NodeRrt::lower(op, g.target));
  }

  Schedule run(Clock::time_point t0);

 private:
  // The attempt at one II (ii_driver.h): the closure, the timing, the
  // swing order, one placement and L4; kPlaced leaves placer_.starts().
  IiVerdict attempt(int64_t ii);
  // The closure at ii in dist_; false below RecMII.
  bool close(int64_t ii) { return (dist_.valid() && dist_.ii() == ii) || dist_.build(g_, adj_, ii); }
  // The timing at ii into timing_, and the swing order for it into order_
  // (kept while the timing is unchanged). Like the closure, the timing is
  // kept as lines across IIs (its asap and height are each a maximum of
  // closure cells, convex in II): it is computed from the closure only at
  // the IIs that make or check the lines. Leaves dist_ at ii.
  // REQUIRES: close(ii) succeeded.
  void time_and_order(int64_t ii);
  void fail(int64_t ii, Failure f, const std::string& why);

  const Graph& g_;
  const SmsOptions& opts_;
  Adjacency adj_;
  Schedule serial_;
  Groups groups_;
  std::vector<NodeRrt> nodes_;
  NodeSets sets_;
  DistanceMatrix dist_;
  IiLines timing_lines_;           // asap then height, 2n values
  std::vector<int64_t> timing_values_, ordered_for_;  // scratch; the order's timing
  Timing timing_;
  std::optional<Placer> placer_;
  std::vector<OpId> order_;
  std::array<int64_t, kFailureCount> failures_{};
  std::vector<std::string> notes_;
  int64_t failed_ = 0;
};

void Generator::fail(int64_t ii, Failure f, const std::string& why) {
  ++failures_[static_cast<int>(f)];
  if (failed_++ < kFailuresShown) {
    notes_.push_back("II " + std::to_string(ii) + " failed (" + std::string(failure_name(f)) +
                     "): " + why);
  }
}

IiVerdict Generator::attempt(int64_t ii) {
  // The screen (ii_screen.h) built the closure at ii when it admitted it.
  if (!close(ii)) {  // II < RecMII: not reached from the MII up
    fail(ii, Failure::kEmptyWindow, "a dependence cycle is longer than " +
                                        std::to_string(ii) + " cycles per iteration");
    return IiVerdict::kNotPlaced;
  }
  time_and_order(ii);
  AttemptFailure why;
  if (!placer_->place_all(dist_, timing_, order_, &why)) {
    fail(ii, why.failure, why.why);
    return IiVerdict::kNotPlaced;
  }
  if (const std::optional<int> pool = g_.target.storage_pool()) {
    const int64_t cap = g_.target.pools[*pool].capacity;
    const int64_t need = storage_bytes_needed(g_, adj_, placer_->starts(), ii, cap);
    if (need > cap) {
      fail(ii, Failure::kStorage,
           "placement done, L4 needs more than " + std::to_string(cap) + " bytes of storage");
      return IiVerdict::kStorage;
    }
  }
  return IiVerdict::kPlaced;
}

void Generator::time_and_order(int64_t ii) {
  const size_t n = static_cast<size_t>(g_.op_count());
  timing_values_.resize(2 * n);
  auto fresh = [&] {
    const Timing t = compute_timing(dist_);
    std::copy(t.asap.begin(), t.asap.end(), timing_values_.begin());
    std::copy(t.height.begin(), t.height.end(), timing_values_.begin() + static_cast<ptrdiff_t>(n));
  };
  bool done = false;
  if (timing_lines_.covers(ii)) {
    timing_lines_.read(ii, 0, timing_values_);
    done = true;
  } else if (timing_lines_.has_lines()) {
    const int64_t c = timing_lines_.next_check(ii);
    if (c != ii && close(c)) {  // above ii's RecMII, so above c's when c > ii
      fresh();
      if (timing_lines_.offer(c, timing_values_)) {
        timing_lines_.read(ii, 0, timing_values_);
        done = true;
      }
      const bool at_ii = close(ii);
      assert(at_ii);
      (void)at_ii;
    } else if (c != ii) {
      timing_lines_.missed();
    }
  }
  if (!done) {
    fresh();
    timing_lines_.offer(ii, timing_values_);
  }
  const std::span<const int64_t> values = timing_values_;
  timing_ = timing_from(values.first(n), values.subspan(n));
  if (order_.empty() || ordered_for_ != timing_values_) {
    order_ = swing_order(g_, adj_, sets_, timing_);
    ordered_for_ = timing_values_;
  }
}

Schedule Generator::run(Clock::time_point t0) {
  if (g_.attrs.force_serial_execution) {
    Schedule s = forced_serial(serial_, "sms");
    s.time_ns = elapsed_ns(t0);
    return s;
  }
  Schedule s;
  s.graph = g_.name;
  s.generator = "sms";
  if (opts_.ii_cap != 0) s.options.emplace_back("ii_cap", std::to_string(opts_.ii_cap));
  s.mii = serial_.mii;
  sets_ = find_node_sets(g_, adj_);
  const IiRange range =
      heuristic_ii_range(g_, s.mii.max(), group_span_bound(g_, adj_, groups_.members),
                         opts_.ii_cap, serial_);
  placer_.emplace(g_, adj_, nodes_, groups_);
  dist_.set_ii_range(range.lower, range.cap);
  timing_lines_.set_range(range.lower, range.cap);
  IiScreen screen(g_, adj_, &dist_);
  const IiSearchResult r = search_ii(
      g_, range, IiSearch::kLinear, [&](int64_t ii) { return attempt(ii); }, &screen);
  // The serial schedule is legal at the cap (its own II): published rather
  // than nothing, flagged, so a caller can tell it apart.
  const bool fallback = opts_.ii_cap == 0 && r.end != IiSearchEnd::kFound;
  publish_search(g_, range, r, placer_->starts(), fallback ? &serial_ : nullptr, s);
  if (r.end == IiSearchEnd::kFound) s.diagnostics.push_back(describe_order(g_, order_, r.ii));
  for (std::string& n : notes_) s.diagnostics.push_back(std::move(n));
  for (std::string& n : screen.lines()) s.diagnostics.push_back(std::move(n));
  if (failed_ > kFailuresShown) {
    s.diagnostics.push_back("... and " + std::to_string(failed_ - kFailuresShown) +
                            " more failed IIs");
  }
  s.stats.emplace_back("node_sets", static_cast<int64_t>(sets_.sets.size()));
  s.stats.emplace_back("recurrence_sets", sets_.recurrences);
  s.stats.emplace_back("ii_tried", r.tried);
  s.stats.emplace_back("ii_screened", r.screened);
  for (int f = 0; f < kFailureCount; ++f) {
    s.stats.emplace_back("ii_failed." + std::string(failure_name(static_cast<Failure>(f))),
                         failures_[f]);
  }
  s.stats.emplace_back("serial_fallback", fallback && serial_.feasible && !r.stores_over ? 1 : 0);
  s.time_ns = elapsed_ns(t0);
  return s;
}

}  // namespace
}  // namespace sms

Schedule generate_sms(const Graph& g, const SmsOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();  // time_ns covers the serial pass too
  sms::Generator gen(g, opts);
  return gen.run(t0);
}

}  // namespace tilesched
