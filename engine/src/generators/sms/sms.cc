// Swing modulo scheduling as a table of contents (Llosa et al., PACT 1996;
// docs/BASELINES.md): in the heuristics' frame (../frame.h: rule L7, the
// range, the search, the serial fallback), the node sets (once per
// graph), then the attempt at each II the shared II search asks for,
// from the lower bound up: the timing at that II (longest paths, no
// all-pairs closure), the swing order, one placement without
// backtracking, and L4 on the finished placement; after a squeeze (the
// same op without a seat at many IIs in a row) the search gallops.
#include "tilesched/sms.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "bounds/distance.h"
#include "bounds/rrt.h"
#include "generators/frame.h"
#include "llvm_bound.h"
#include "graph/graph_algo.h"
#include "graph/storage.h"
#include "order.h"
#include "paths.h"
#include "placer.h"

namespace tilesched {

namespace sms {
namespace {

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

class Generator : public GeneratorFrame {
 public:
  Generator(const Graph& g, const SmsOptions& opts, const IiSearchOptions& search)
      : GeneratorFrame(g, search, {.name = "sms"}), opts_(opts), adj_(Adjacency::build(g)),
        groups_(find_leader_groups(g)), paths_(g, adj_), screen_(g, adj_) {
    nodes_.reserve(static_cast<size_t>(g.op_count()));
    for (const Op& op : g.ops) nodes_.push_back(NodeRrt::lower(op, g.target));
  }

 private:
  int64_t group_span() override { return group_span_bound(g_, adj_, groups_.members); }
  IiScreen& screen() override { return screen_; }  // no closure of SMS's own to share
  // The node sets, the placer and the timing's range.
  void begin(const IiRange& range) override;
  // The attempt at one II (ii_driver.h): the timing, the swing order, one
  // placement and L4; kPlaced leaves placer_.starts(), kSqueezed has the
  // driver gallop over the rest of the range (search_ii).
  IiVerdict attempt(int64_t ii) override;
  const std::vector<int64_t>& starts() override { return placer_->starts(); }
  std::vector<std::pair<std::string, std::string>> options() const override {
    if (search_.ii_cap == 0) return {};
    return {{"ii_cap", std::to_string(search_.ii_cap)}};
  }
  // The order, the notes and the counters.
  void finish(Schedule& s, const IiRange& range, const IiSearchResult& r) override;
  // Counts a failed II and says whether the linear search should gallop
  // from the next II (SmsOptions::gallop_after), once: the run of IIs at
  // which the same op found no seat in as many cycles. Notes why.
  bool squeezed(int64_t ii, const AttemptFailure& why);
  // The timing at ii into timing_, and the swing order for it into order_
  // (kept while the timing is unchanged); false when a cycle is positive
  // at ii. The timing is kept as lines across IIs (its asap and height are
  // each a maximum of path weights λ − II·δ, convex in II; distance.h): it
  // is computed (paths.h) only at the IIs that make or check the lines.
  bool time_and_order(int64_t ii);
  // The timing at ii by longest paths into timing_values_; false when a
  // cycle is positive at ii.
  bool fresh_timing(int64_t ii);
  void fail(int64_t ii, Failure f, const std::string& why);

  const SmsOptions& opts_;
  Adjacency adj_;
  Groups groups_;
  std::vector<NodeRrt> nodes_;
  PathGraph paths_;
  IiScreen screen_;
  NodeSets sets_;
  IiLines timing_lines_;           // asap then height, 2n values
  std::vector<int64_t> timing_values_, ordered_for_;  // scratch; the order's timing
  std::vector<int64_t> asap_, height_;                // scratch
  int64_t least_timed_ = std::numeric_limits<int64_t>::max();  // least II timed afresh
  Timing timing_;
  std::optional<Placer> placer_;
  std::vector<OpId> order_;
  std::array<int64_t, kFailureCount> failures_{};
  std::vector<std::string> notes_;
  int64_t failed_ = 0;
  // The linear search's run of failures at one op with one window width
  // (SmsOptions::gallop_after).
  OpId squeezed_op_ = -1;
  int64_t squeezed_width_ = 0, squeezed_for_ = 0;
  int64_t cap_ = 0;         // the range's top
  bool galloping_ = false;  // once squeezed() said so
};

bool Generator::squeezed(int64_t ii, const AttemptFailure& why) {
  if (galloping_ || opts_.gallop_after <= 0) return false;  // galloping already, or never
  const bool same = why.failure == Failure::kNoSlot && why.op == squeezed_op_ &&
                    why.scanned == squeezed_width_;
  squeezed_for_ = same ? squeezed_for_ + 1 : why.failure == Failure::kNoSlot ? 1 : 0;
  squeezed_op_ = why.op;
  squeezed_width_ = why.scanned;
  if (squeezed_for_ < opts_.gallop_after || ii >= cap_) return false;
  galloping_ = true;
  notes_.push_back("II search: " + std::to_string(squeezed_for_) + " IIs in a row found no seat for op '" +
                   g_.ops[why.op].name + "' in the same " + std::to_string(why.scanned) +
                   " cycles (up to II " + std::to_string(ii) + "): galloping from II " +
                   std::to_string(ii + 1));
  return true;
}

void Generator::fail(int64_t ii, Failure f, const std::string& why) {
  ++failures_[static_cast<int>(f)];
  if (failed_++ < kFailuresShown) {
    notes_.push_back("II " + std::to_string(ii) + " failed (" + std::string(failure_name(f)) +
                     "): " + why);
  }
}

IiVerdict Generator::attempt(int64_t ii) {
  if (!time_and_order(ii)) {  // II < RecMII: not reached from the MII up
    fail(ii, Failure::kEmptyWindow, "a dependence cycle is longer than " +
                                        std::to_string(ii) + " cycles per iteration");
    return IiVerdict::kNotPlaced;
  }
  AttemptFailure why;
  if (!placer_->place_all(ii, timing_, order_, &why)) {
    fail(ii, why.failure, why.why);
    return squeezed(ii, why) ? IiVerdict::kSqueezed : IiVerdict::kNotPlaced;
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

bool Generator::fresh_timing(int64_t ii) {
  const size_t n = static_cast<size_t>(g_.op_count());
  if (!longest_path_timing(paths_, ii, asap_, height_)) return false;
  std::copy(asap_.begin(), asap_.end(), timing_values_.begin());
  std::copy(height_.begin(), height_.end(), timing_values_.begin() + static_cast<ptrdiff_t>(n));
  least_timed_ = std::min(least_timed_, ii);
  return true;
}

bool Generator::time_and_order(int64_t ii) {
  const size_t n = static_cast<size_t>(g_.op_count());
  timing_values_.resize(2 * n);
  // A cycle's weight Σλ − II·Σδ only falls as II grows: every II at or
  // above one timed without a positive cycle has none either.
  bool done = false;
  if (ii < least_timed_) {
    if (!fresh_timing(ii)) return false;
    timing_lines_.offer(ii, timing_values_);
    done = true;
  } else if (timing_lines_.covers(ii)) {
    timing_lines_.read(ii, 0, timing_values_);
    done = true;
  } else if (timing_lines_.has_lines()) {
    const int64_t c = timing_lines_.next_check(ii);
    if (c > ii && fresh_timing(c)) {
      if (timing_lines_.offer(c, timing_values_)) {
        timing_lines_.read(ii, 0, timing_values_);
        done = true;
      }
    } else if (c != ii) {
      timing_lines_.missed();
    }
  }
  if (!done) {
    const bool timed = fresh_timing(ii);
    assert(timed);  // ii >= least_timed_
    (void)timed;
    timing_lines_.offer(ii, timing_values_);
  }
  const std::span<const int64_t> values = timing_values_;
  timing_ = timing_from(values.first(n), values.subspan(n));
  if (order_.empty() || ordered_for_ != timing_values_) {
    order_ = swing_order(g_, adj_, sets_, timing_);
    ordered_for_ = timing_values_;
  }
  return true;
}

void Generator::begin(const IiRange& range) {
  sets_ = find_node_sets(g_, adj_);
  placer_.emplace(g_, adj_, paths_, nodes_, groups_);
  timing_lines_.set_range(range.lower, range.cap);
  cap_ = range.cap;
}

void Generator::finish(Schedule& s, const IiRange&, const IiSearchResult& r) {
  if (r.end == IiSearchEnd::kFound) s.diagnostics.push_back(describe_order(g_, order_, r.ii));
  if (r.end == IiSearchEnd::kFound && s.stage_count > kLlvmStageBound) {
    // Legal, but a pipeliner would not emit it: LLVM's leaves the loop
    // unpipelined past pipeliner-max-stages (docs/BASELINES.md).
    s.flags.push_back(std::string(kOverLlvmStageBound));
    s.diagnostics.push_back("the schedule has " + std::to_string(s.stage_count) +
                            " stages, more than the " + std::to_string(kLlvmStageBound) +
                            " LLVM's MachinePipeliner emits (pipeliner-max-stages 3: stages "
                            "0..3); LLVM would leave this loop unpipelined (flag " +
                            std::string(kOverLlvmStageBound) + ")");
  }
  for (std::string& n : notes_) s.diagnostics.push_back(std::move(n));
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
}

}  // namespace
}  // namespace sms

Schedule generate_sms(const Graph& g, const SmsOptions& opts, const IiSearchOptions& search) {
  return run_generator<sms::Generator>(g, opts, search);
}

}  // namespace tilesched
