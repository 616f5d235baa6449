// TileASGenerateSchedule's cost-based path: II search (seed 004 linear, or
// seed 000's galloping driver), the constraint refinement loop (seed 003)
// around the strategy ladder (seed 001), and the published schedule.
#include <algorithm>
#include <bit>
#include <chrono>

#include "../storage.h"
#include "driver.h"
#include "tilesched/cost_based.h"
#include "../search.h"
#include "tilesched/serial.h"

namespace tilesched {

std::string_view arm_policy_name(ArmPolicy p) {
  return p == ArmPolicy::kFirstSuccess ? "first-success" : "best-cost";
}
std::optional<ArmPolicy> parse_arm_policy(std::string_view name) {
  if (name == "first-success") return ArmPolicy::kFirstSuccess;
  if (name == "best-cost") return ArmPolicy::kBestCost;
  return std::nullopt;
}
std::string_view ii_search_name(IiSearch s) {
  return s == IiSearch::kLinear ? "linear" : "galloping";
}
std::optional<IiSearch> parse_ii_search(std::string_view name) {
  if (name == "linear") return IiSearch::kLinear;
  if (name == "galloping") return IiSearch::kGalloping;
  return std::nullopt;
}
std::string_view arm_name(Arm a) {
  static constexpr std::string_view kNames[] = {"permute", "fuse", "retry", "cost_based"};
  return kNames[static_cast<int>(a)];
}
std::string_view gate_name(Gate g) {
  static constexpr std::string_view kNames[] = {"g1_pending", "g2_max_depth", "g3_rrt",
                                                "g4_group"};
  return kNames[static_cast<int>(g)];
}
std::string_view rung_name(Rung r) {
  static constexpr std::string_view kNames[] = {
      "rau_refinement", "deepest_retry", "initial_placement", "cost_based_placement",
      "initial_after_clear", "cost_based_after_clear", "serial_fallback"};
  return kNames[static_cast<int>(r)];
}
std::string_view constraint_family_name(ConstraintFamily f) {
  static constexpr std::string_view kNames[] = {"register_pressure", "density", "depth",
                                                "grouping"};
  return kNames[static_cast<int>(f)];
}
std::string_view give_up_name(GiveUp g) {
  static constexpr std::string_view kNames[] = {"positive_cycle", "no_seat", "storage"};
  return kNames[static_cast<int>(g)];
}

std::vector<std::pair<std::string, int64_t>> stats_fields(const CostBasedStats& s) {
  std::vector<std::pair<std::string, int64_t>> out;
  auto add = [&](std::string key, int64_t value) { out.emplace_back(std::move(key), value); };
  add("ii_tried", s.ii_tried);
  for (int a = 0; a < kArmCount; ++a) {
    add("arm_proposals." + std::string(arm_name(static_cast<Arm>(a))), s.arm_proposals[a]);
  }
  for (int a = 0; a < kArmCount; ++a) {
    add("arm_wins." + std::string(arm_name(static_cast<Arm>(a))), s.arm_wins[a]);
  }
  for (int g = 0; g < kGateCount; ++g) {
    add("gate_rejects." + std::string(gate_name(static_cast<Gate>(g))), s.gate_rejects[g]);
  }
  for (int r = 0; r < kRungCount; ++r) {
    add("rung_attempts." + std::string(rung_name(static_cast<Rung>(r))), s.rung_attempts[r]);
  }
  for (int r = 0; r < kRungCount; ++r) {
    add("rung_successes." + std::string(rung_name(static_cast<Rung>(r))), s.rung_successes[r]);
  }
  for (int g = 0; g < kGiveUpCount; ++g) {
    add("give_ups." + std::string(give_up_name(static_cast<GiveUp>(g))), s.give_ups[g]);
  }
  add("evictions", s.evictions);
  add("group_reorders", s.group_reorders);
  add("refinement_iterations", s.refinement_iterations);
  add("constraints_added", s.constraints_added);
  add("constraints_lifted", s.constraints_lifted);
  for (int f = 0; f < kConstraintFamilyCount; ++f) {
    const std::string name(constraint_family_name(static_cast<ConstraintFamily>(f)));
    add("constraints_added." + name, s.family_added[f]);
    add("constraints_lifted." + name, s.family_lifted[f]);
  }
  add("spill_surcharges", s.spill_surcharges);
  return out;
}

namespace cost_based {
namespace {

constexpr uint8_t kConverged = 1;       // seed 003: bit 0
constexpr uint8_t kBudgetExceeded = 2;  // seed 003: bit 1
constexpr size_t kMaxFailureNotes = 8;

class Generator {
 public:
  // The serial schedule gives the II cap, the last rung's seats and the MII
  // (generate_serial reports it), so the bounds are computed once.
  Generator(const Graph& g, const CostBasedOptions& opts)
      : serial_(generate_serial(g)),
        ctx_(g, opts, serial_.mii),
        placement_(ctx_),
        driver_(ctx_, placement_, stats_) {}

  CostBasedResult run(std::chrono::steady_clock::time_point t0);

 private:
  bool attempt(int64_t ii);
  bool ladder();
  // A soft goal's retry: only the rung that found the legal placement.
  bool rerun_winning_rung();
  bool won(Rung r) {
    winning_rung_ = r;
    return true;
  }
  bool seat(const std::vector<int64_t>& starts);
  bool storage_fallback(int64_t ii);
  std::vector<int64_t> placed_starts() const;
  void add_batch(std::vector<BuilderConstraint> batch);
  void lift_batch(const char* why);
  // The builder (seed 003). Up front, from the graph at this II:
  void add_density_constraints();
  void add_grouping_constraints();
  // After a placement, from what it got wrong:
  std::optional<BuilderConstraint> tighten_for_storage(const std::vector<int64_t>& start);
  struct Pressure {
    int64_t peak = 0;  // live registers in the fullest modulo row
    int64_t row = 0;
  };
  Pressure register_peak(const std::vector<int64_t>& start) const;
  std::optional<BuilderConstraint> tighten_for_registers(const std::vector<int64_t>& start,
                                                         const Pressure& pressure);
  bool already_lifted(OpId producer, int64_t max_span) const;
  void note(std::string line) {
    if (notes_.size() < kMaxFailureNotes) notes_.push_back(std::move(line));
  }

  Schedule serial_;
  Context ctx_;
  Placement placement_;
  CostBasedStats stats_;
  Driver driver_;
  uint8_t status_ = 0;
  bool truncated_ = false;
  bool serial_fallback_ = false;
  int next_batch_ = 0;
  std::optional<Rung> winning_rung_;  // of the last ladder; none for the serial fallback
  std::vector<std::string> notes_;
  std::vector<BuilderConstraint> lifted_;  // stage spans lifted at this II
};

bool Generator::seat(const std::vector<int64_t>& starts) {
  placement_.clear_seats();
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) {
    if (!placement_.fits(v, starts[v])) return false;  // cannot happen for a placement found here
    placement_.place(v, starts[v]);
  }
  return true;
}

std::vector<int64_t> Generator::placed_starts() const {
  std::vector<int64_t> start(ctx_.g.op_count());
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) start[v] = placement_.start(v);
  return start;
}

bool Generator::ladder() {
  static constexpr Rung kFirst[] = {Rung::kRauRefinement, Rung::kDeepestRetry,
                                    Rung::kInitialPlacement, Rung::kCostBasedPlacement};
  static constexpr Rung kAfterClear[] = {Rung::kInitialAfterClear, Rung::kCostBasedAfterClear};
  for (Rung r : kFirst) {
    placement_.clear_seats();
    if (driver_.run(r)) return won(r);
  }
  placement_.clear_intermediate();  // dead marks and surcharges; builder constraints stay
  for (Rung r : kAfterClear) {
    placement_.clear_seats();
    if (driver_.run(r)) return won(r);
  }
  if (serial_.feasible && placement_.ii() >= serial_.ii) {
    ++stats_.rung_attempts[static_cast<int>(Rung::kSerialFallback)];
    if (seat(serial_.start)) {
      ++stats_.rung_successes[static_cast<int>(Rung::kSerialFallback)];
      serial_fallback_ = true;
      winning_rung_.reset();
      return true;
    }
  }
  for (const std::string& f : driver_.failure()) note(f);
  return false;
}

// The ladder's last rung, for L4: every op was placed but the SMEM budget
// fails and refinement has nothing left to try. At II >= the serial II the
// serial seats meet L4 (the serial schedule is legal, and its buffer counts
// do not grow with II), so the result stays no worse than serial. Without
// this, the serial rung was only reached when no rung could place at all,
// and cost-based came back infeasible on graphs whose serial schedule is
// legal (found by fuzz_differential;
// fuzz/regressions/fuzz_differential/l4-fails-serial-fallback-skipped).
bool Generator::storage_fallback(int64_t ii) {
  if (!serial_.feasible || ii < serial_.ii) return false;
  ++stats_.rung_attempts[static_cast<int>(Rung::kSerialFallback)];
  if (!seat(serial_.start)) return false;
  ++stats_.rung_successes[static_cast<int>(Rung::kSerialFallback)];
  serial_fallback_ = true;
  if (status_ == 0) status_ = kConverged;
  note("II " + std::to_string(ii) + ": the SMEM budget (L4) does not hold for the ladder's "
       "placement; the serial seats do");
  return true;
}

bool Generator::rerun_winning_rung() {
  if (!winning_rung_) return false;  // the serial seats do not move
  placement_.clear_seats();
  return driver_.run(*winning_rung_);
}

void Generator::add_batch(std::vector<BuilderConstraint> batch) {
  if (batch.empty()) return;
  const ConstraintFamily family = batch.front().family;
  std::string line = "II " + std::to_string(placement_.ii()) + ": builder constraint";
  line += batch.size() == 1 ? ": " : "s (" + std::to_string(batch.size()) + "), first: ";
  line += batch.front().rationale;
  note(std::move(line));
  stats_.constraints_added += static_cast<int64_t>(batch.size());
  stats_.family_added[static_cast<int>(family)] += static_cast<int64_t>(batch.size());
  for (BuilderConstraint& c : batch) {
    c.batch = next_batch_;
    placement_.add_constraint(std::move(c));
  }
  ++next_batch_;
}

void Generator::lift_batch(const char* why) {
  std::vector<BuilderConstraint> batch = placement_.lift_latest_batch();
  const ConstraintFamily family = batch.front().family;
  note("II " + std::to_string(placement_.ii()) + ": lifted " + std::to_string(batch.size()) +
       " " + std::string(constraint_family_name(family)) + " constraint(s) (" +
       batch.front().rationale + "): " + why);
  stats_.constraints_lifted += static_cast<int64_t>(batch.size());
  stats_.family_lifted[static_cast<int>(family)] += static_cast<int64_t>(batch.size());
  for (BuilderConstraint& c : batch) {
    if (c.shape == BuilderConstraint::Shape::kStageSpan) lifted_.push_back(std::move(c));
  }
}

// Density: a singleton slot whose footprint fills at least 3/4 of the II's
// rows leaves little room to spread its ops, and each stage an op drifts
// past its earliest adds a prologue iteration. The builder keeps every op on
// such a slot within one stage of its earliest (a MaxDepthConstraint).
void Generator::add_density_constraints() {
  const Graph& g = ctx_.g;
  const int64_t ii = placement_.ii();
  std::vector<int64_t> load(static_cast<size_t>(g.target.slot_count()) + 1, 0);
  for (const Op& op : g.ops) {
    for (const Triple& tr : op.resources) {
      if (g.target.slot(tr.slot).capacity == 1) load[tr.slot] += tr.duration;
    }
  }
  uint64_t dense = 0;
  for (int slot = 1; slot <= g.target.slot_count(); ++slot) {
    if (4 * load[slot] >= 3 * ii) dense |= slot_bit(slot);
  }
  if (dense == 0) return;
  std::vector<BuilderConstraint> batch;
  for (OpId v = 0; v < g.op_count(); ++v) {
    const uint64_t on = ctx_.singleton_mask[v] & dense;
    if (on == 0) continue;
    const int64_t limit = placement_.asap(v) / ii + 1;
    if (g.ops[v].max_depth && *g.ops[v].max_depth <= limit) continue;  // L6 is tighter
    const int slot = std::countr_zero(on) + 1;
    batch.push_back({ConstraintFamily::kDensity, BuilderConstraint::Shape::kMaxStage, v, v,
                     limit, 0,
                     "density: slot " + std::to_string(slot) + " is " +
                         std::to_string(100 * load[slot] / ii) + "% full at II " +
                         std::to_string(ii) + ", so '" + g.ops[v].name +
                         "' stays within one stage of its earliest (stage <= " +
                         std::to_string(limit) + ")"});
  }
  add_batch(std::move(batch));
}

// Grouping: a distance-0 order edge from a barrier wait (a kind with
// `waits`: mbarrier_wait, cp_async_wait, named_barrier) guards the op it
// precedes; the builder ties the pair into one stage (a SameDepthConstraint)
// where the closure allows it, so the wait and what it releases issue in
// the same iteration window. Ops in leader groups are left to L5.
void Generator::add_grouping_constraints() {
  const Graph& g = ctx_.g;
  const int64_t ii = placement_.ii();
  std::vector<BuilderConstraint> batch;
  for (const Edge& e : g.edges) {
    if (e.kind != EdgeKind::kOrder || e.distance != 0 || e.from == e.to) continue;
    const OpKind* kind = g.target.find_kind(g.ops[e.from].kind);
    if (kind == nullptr || !kind->waits) continue;
    if (ctx_.group_of[e.from] != kNoGroup || ctx_.group_of[e.to] != kNoGroup) continue;
    if (placement_.dist().at(e.from, e.to) > ii - 1) continue;  // cannot share a stage
    batch.push_back({ConstraintFamily::kGrouping, BuilderConstraint::Shape::kSameStage, e.from,
                     e.to, 0, 0,
                     "grouping: the wait '" + g.ops[e.from].name + "' and the op it guards, '" +
                         g.ops[e.to].name + "', share a stage"});
  }
  add_batch(std::move(batch));
}

bool Generator::already_lifted(OpId producer, int64_t max_span) const {
  return std::any_of(lifted_.begin(), lifted_.end(), [&](const BuilderConstraint& l) {
    return l.op == producer && l.limit >= max_span;
  });
}

// Depth, for L4: the producer whose buffer copies cost the most bytes gets
// its consumers pulled one stage closer.
std::optional<BuilderConstraint> Generator::tighten_for_storage(const std::vector<int64_t>& start) {
  const int64_t ii = placement_.ii();
  std::optional<BuilderConstraint> best;
  int64_t best_bytes = 0;
  for (OpId v = 0; v < ctx_.g.op_count(); ++v) {
    const int64_t bytes = ctx_.g.ops[v].store_bytes;
    if (bytes == 0) continue;
    int64_t span = 0;
    for (int p = ctx_.adj.out_begin[v]; p < ctx_.adj.out_begin[v + 1]; ++p) {
      const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
      if (e.kind == EdgeKind::kData) span = std::max(span, start[e.to] / ii - start[v] / ii);
    }
    const int64_t copies = buffer_copies(ctx_.g, ctx_.adj, start, ii, v);
    const int64_t extra = bytes * (copies - 1);
    if (span > 0 && extra > best_bytes && !already_lifted(v, span - 1)) {
      best_bytes = extra;
      best = BuilderConstraint{
          ConstraintFamily::kDepth, BuilderConstraint::Shape::kStageSpan, v, v, span - 1, 0,
          "depth: consumers of '" + ctx_.g.ops[v].name + "' at most " +
              std::to_string(span - 1) + " stage(s) behind it, for the SMEM budget (L4): " +
              std::to_string(copies) + " copies of " + std::to_string(bytes) + " bytes overlap"};
    }
  }
  return best;
}

// Register pressure (seed 002's model, docs/COST_BASED.md): when some
// modulo row holds more live registers than the budget, the value held
// across the most stages (weighted by its registers) gets its consumers
// pulled one stage closer. Soft: a placement that only misses this goal is
// kept when the tighter one fails.
Generator::Pressure Generator::register_peak(const std::vector<int64_t>& start) const {
  const int64_t ii = placement_.ii();
  std::vector<int64_t> diff(static_cast<size_t>(ii) + 1, 0);
  int64_t everywhere = 0;  // registers of live ranges that wrap whole IIs
  for (OpId u = 0; u < ctx_.g.op_count(); ++u) {
    if (ctx_.regs[u] == 0) continue;
    const int64_t len = placement_.live_end(u) - start[u];
    everywhere += ctx_.regs[u] * (len / ii);
    const int64_t from = start[u] % ii, to = from + len % ii;  // [from, to) modulo ii
    diff[from] += ctx_.regs[u];
    if (to <= ii) {
      diff[to] -= ctx_.regs[u];
    } else {
      diff[ii] -= ctx_.regs[u];
      diff[0] += ctx_.regs[u];
      diff[to - ii] -= ctx_.regs[u];
    }
  }
  Pressure p;
  int64_t running = 0;
  for (int64_t r = 0; r < ii; ++r) {
    running += diff[r];
    if (everywhere + running > p.peak) p = {everywhere + running, r};
  }
  return p;
}

// Register pressure (seed 002's model, docs/COST_BASED.md): when the
// fullest modulo row holds more live registers than the budget, the value
// live in that row that is held across the most stages (weighted by its
// registers) gets its consumers pulled one stage closer.
std::optional<BuilderConstraint> Generator::tighten_for_registers(
    const std::vector<int64_t>& start, const Pressure& pressure) {
  if (ctx_.reg_budget == 0 || pressure.peak <= ctx_.reg_budget) return std::nullopt;
  const int64_t ii = placement_.ii();
  std::optional<BuilderConstraint> best;
  int64_t best_weight = 0;
  for (OpId u = 0; u < ctx_.g.op_count(); ++u) {
    if (ctx_.regs[u] == 0) continue;
    const int64_t len = placement_.live_end(u) - start[u];
    const int64_t offset = ((pressure.row - start[u]) % ii + ii) % ii;
    if (len <= offset) continue;  // not live in the peak row
    int64_t span = 0;
    for (int p = ctx_.adj.out_begin[u]; p < ctx_.adj.out_begin[u + 1]; ++p) {
      const Edge& e = ctx_.g.edges[ctx_.adj.out_edges[p]];
      if (e.kind == EdgeKind::kData && e.to != u) {
        span = std::max(span, start[e.to] / ii - start[u] / ii);
      }
    }
    if (span > 0 && ctx_.regs[u] * span > best_weight && !already_lifted(u, span - 1)) {
      best_weight = ctx_.regs[u] * span;
      best = BuilderConstraint{
          ConstraintFamily::kRegisterPressure, BuilderConstraint::Shape::kStageSpan, u, u,
          span - 1, 0,
          "register pressure: " + std::to_string(pressure.peak) + " registers live in row " +
              std::to_string(pressure.row) + " (budget " + std::to_string(ctx_.reg_budget) +
              "), so consumers of '" + ctx_.g.ops[u].name + "' at most " +
              std::to_string(span - 1) + " stage(s) behind it"};
    }
  }
  return best;
}

bool Generator::attempt(int64_t ii) {
  ++stats_.ii_tried;
  if (!placement_.reset(ii)) {
    ++stats_.give_ups[static_cast<int>(GiveUp::kPositiveCycle)];
    note("II " + std::to_string(ii) + ": a dependence cycle needs a larger II");
    return false;
  }
  placement_.clear_intermediate();
  placement_.clear_constraints();
  driver_.reseed(ii);
  lifted_.clear();
  serial_fallback_ = false;
  status_ = 0;
  add_density_constraints();
  add_grouping_constraints();
  // A placement that meets every hard rule (L1-L7) but misses a soft goal
  // (register pressure) is kept while the builder tries a tighter one.
  std::optional<std::vector<int64_t>> legal;
  bool legal_by_fallback = false;
  int64_t legal_peak = 0;
  bool seated_is_legal = false;  // the table holds `legal` (no reseat needed)
  GiveUp last = GiveUp::kNoSeat;
  auto keep_legal = [&] {
    const bool ok = seated_is_legal || seat(*legal);
    serial_fallback_ = legal_by_fallback;
    if (status_ == 0) status_ = kConverged;
    return ok;
  };
  bool soft = false;  // the latest constraint is a soft goal's (register pressure)
  for (int iter = 0; iter < ctx_.opts.max_constraint_iterations; ++iter) {
    ++stats_.refinement_iterations;
    seated_is_legal = false;
    if (soft ? rerun_winning_rung() : ladder()) {
      const std::vector<int64_t> start = placed_starts();
      if (ctx_.max_storage > 0 &&
          storage_bytes_needed(ctx_.g, ctx_.adj, start, ii, ctx_.max_storage) >
              ctx_.max_storage) {
        std::optional<BuilderConstraint> limit = tighten_for_storage(start);
        if (!limit) {
          if (legal) return keep_legal();
          if (storage_fallback(ii)) return true;
          ++stats_.give_ups[static_cast<int>(GiveUp::kStorage)];
          note("II " + std::to_string(ii) + ": the SMEM budget (L4) does not hold and no "
               "consumer can move closer to its buffer");
          return false;
        }
        add_batch({std::move(*limit)});
        last = GiveUp::kStorage;
        soft = false;
        continue;
      }
      // Keep the legal placement with the fewest live registers at peak;
      // a tighter span that did not lower the peak ends the soft search.
      const Pressure pressure = register_peak(start);
      if (soft && legal && pressure.peak >= legal_peak) return keep_legal();
      if (!legal || pressure.peak < legal_peak) {
        legal = start;
        legal_peak = pressure.peak;
        legal_by_fallback = serial_fallback_;
        seated_is_legal = true;
      }
      std::optional<BuilderConstraint> regs = tighten_for_registers(start, pressure);
      if (!regs) return keep_legal();
      add_batch({std::move(*regs)});
      soft = true;
      continue;
    }
    if (legal) {  // the last soft constraint cost the placement: keep the one before
      lift_batch("no placement with it; the previous placement stands");
      return keep_legal();
    }
    if (placement_.constraints().empty()) {
      ++stats_.give_ups[static_cast<int>(driver_.give_up())];
      return false;
    }
    last = driver_.give_up();
    lift_batch("no placement with it");
  }
  status_ = kBudgetExceeded;
  truncated_ = true;
  note("II " + std::to_string(ii) + ": constraint refinement stopped after " +
       std::to_string(ctx_.opts.max_constraint_iterations) + " iterations");
  if (legal) return keep_legal();
  if (storage_fallback(ii)) return true;
  ++stats_.give_ups[static_cast<int>(last)];
  return false;
}

CostBasedResult Generator::run(std::chrono::steady_clock::time_point t0) {

  const Graph& g = ctx_.g;
  if (g.attrs.force_serial_execution) {  // L7 is hard: the region runs serially
    CostBasedResult forced;
    forced.schedule = serial_;
    forced.schedule.generator = "cost-based";
    forced.schedule.flags.push_back("force_serial");
    forced.schedule.diagnostics.push_back(
        "force_serial_execution is set: the cost-based generator keeps the serial schedule");
    forced.schedule.time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now() - t0).count();
    forced.refinement_status = kConverged;
    return forced;
  }
  Schedule s;
  s.graph = g.name;
  s.generator = "cost-based";
  s.options = {{"arm_policy", std::string(arm_policy_name(ctx_.opts.arm_policy))},
               {"ii_search", std::string(ii_search_name(ctx_.opts.ii_search))}};
  s.mii = ctx_.mii;

  const int64_t lower = std::max(ctx_.mii.max(), ctx_.group_span_bound);
  int64_t cap = ctx_.opts.ii_cap;
  if (cap == 0) {
    if (serial_.feasible) {
      cap = serial_.ii;
    } else {
      cap = sequential_ii_cap(g, lower);
    }
  }
  cap = std::min(cap, ModuloRrt::kMaxRrtII);

  // L4 charges every buffer at least once at every II (its lifetime is at
  // least 1, so ceil(lifetime / II) >= 1): when the stores alone add up to
  // more than the storage pool, no II can be legal. Without this check the
  // search tried every II up to the cap, each through the whole strategy
  // ladder, and then reported kIiCapReached (found by fuzz_materialize;
  // fuzz/regressions/fuzz_materialize/stores-exceed-smem-every-ii).
  std::optional<int64_t> stores_over;  // the total, when it exceeds the pool
  if (const std::optional<int> pool = g.target.storage_pool()) {
    int64_t total = 0;  // <= kMaxOps * kMaxPoolCapacity: no overflow
    for (const Op& op : g.ops) total += op.store_bytes;
    if (total > g.target.pools[*pool].capacity) stores_over = total;
  }

  std::optional<int64_t> found;
  if (lower <= cap && !stores_over) {
    if (ctx_.opts.ii_search == IiSearch::kLinear) {
      found = linear_search([&](int64_t ii) { return attempt(ii); }, lower, cap);
    } else {
      found = gallop_then_bisect([&](int64_t ii) { return attempt(ii); }, lower, cap);
      if (found && !attempt(*found)) found.reset();  // restore the winning placement
    }
  }

  CostBasedResult result;
  if (found) {
    s.feasible = true;
    s.ii = *found;
    s.start.resize(g.op_count());
    for (OpId v = 0; v < g.op_count(); ++v) s.start[v] = placement_.start(v);
    derive_stage_order(s);
    if (serial_fallback_) s.flags.push_back("serial_fallback");
  } else if (stores_over) {
    s.failure = FailureReason::kStorageBudget;
    s.diagnostics.push_back("store_bytes add up to " + std::to_string(*stores_over) +
                            ", more than the storage pool's " +
                            std::to_string(g.target.pools[*g.target.storage_pool()].capacity) +
                            " bytes: L4 fails at every II");
  } else {
    s.failure = FailureReason::kIiCapReached;
    s.diagnostics.push_back("no legal placement for II " + std::to_string(lower) + " to " +
                            std::to_string(cap) + " (the cap)");
  }
  if (truncated_) s.flags.push_back("budget_truncated");
  for (std::string& n : notes_) s.diagnostics.push_back(std::move(n));
  s.time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - t0).count();
  s.stats = stats_fields(stats_);
  s.stats.emplace_back("refinement_status", status_);
  result.schedule = std::move(s);
  result.stats = stats_;
  result.refinement_status = status_;
  return result;
}

}  // namespace
}  // namespace cost_based

CostBasedResult generate_cost_based(const Graph& g, const CostBasedOptions& opts) {
  const auto t0 = std::chrono::steady_clock::now();  // time_ns covers the serial pass too
  cost_based::Generator gen(g, opts);
  return gen.run(t0);
}

}  // namespace tilesched
