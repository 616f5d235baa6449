// The exact oracle's SMT backend (docs/EXACT.md, "The SMT backend"): one
// Z3 integer model per check (SmtModel, smt_model.h), interrupted at each
// check's time limit by a watchdog thread of our own. A stage limit below
// the model's K is not an assumption here: the oracle builds a fresh model
// per stage bound (a push on a large Z3 model internalises it outside any
// time limit).
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "query.h"
#include "smt_model.h"

namespace tilesched::exact_internal {

namespace {

// Interrupts the context when the armed time passes: the time limit of a
// check, armed only while the check runs. Work between checks (building a
// model, reading a model's values) is never interrupted, so only
// SmtModel::check can meet Z3's "canceled"; that work keeps to the oracle's
// deadline by itself (ModelDeadline). While the watchdog stayed armed
// between checks, an interrupt there threw out of the oracle as "Z3
// failed: canceled" (a fuzzing finding:
// fuzz/regressions/fuzz_differential/z3-canceled-outside-a-check). Z3's own
// "timeout" parameter is never set: Z3 4.8.10 to 4.8.12 (Debian 12 ships
// 4.8.12) run it on a pool of timer threads that can deadlock, and a
// fuzzing run hung there for good (results/records/2026-11-25-fuzz-campaigns.md).
// An interrupt leaves the context refusing all further work, so the
// backend makes a fresh one after it (SmtBackend::session).
class Watchdog {
 public:
  explicit Watchdog(z3::context& ctx) : thread_([this, &ctx] { watch(ctx); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // Interrupt at `until` unless disarmed before.
  void arm(Clock::time_point until) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      until_ = until;
      armed_ = true;
    }
    cv_.notify_all();
  }
  void disarm() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      armed_ = false;
    }
    cv_.notify_all();
  }
  // Whether the interrupt has been sent.
  bool fired() {
    std::lock_guard<std::mutex> lock(mu_);
    return fired_;
  }

 private:
  void watch(z3::context& ctx) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_ && !fired_) {
      if (!armed_) {
        cv_.wait(lock);
        continue;
      }
      cv_.wait_until(lock, until_);
      if (!stop_ && armed_ && Clock::now() >= until_) {
        ctx.interrupt();
        fired_ = true;
      }
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool armed_ = false;
  bool fired_ = false;
  Clock::time_point until_;
  std::thread thread_;  // last: starts once the members above exist
};

// A Z3 context and its watchdog; the models built in it share it.
struct Session {
  z3::context ctx;
  Watchdog watchdog{ctx};  // after ctx: stopped before the context goes
};

class SmtProblem : public IiProblem {
 public:
  SmtProblem(std::shared_ptr<Session> session, const Graph& g, const ModelSpec& spec,
             unsigned random_seed)
      : session_(std::move(session)),
        model_(session_->ctx, g, spec.ii, spec.stage_bound, spec.asap, spec.tail, random_seed,
               spec.deadline) {}

  bool limits_stages() const override { return false; }

  Answer check(int64_t stages, Clock::time_point until, int64_t units) override {
    (void)stages;  // REQUIRES: stages == the model's K
    if (session_->watchdog.fired()) return Answer::kUnknown;
    session_->watchdog.arm(until);
    z3::check_result r = z3::unknown;
    try {
      r = model_.check(until, units);
    } catch (const z3::exception& e) {
      session_->watchdog.disarm();
      throw BackendFailure{std::string("Z3 failed: ") + e.msg()};
    }
    session_->watchdog.disarm();
    // An answer that raced the interrupt is dropped: its context is dead.
    if (session_->watchdog.fired()) return Answer::kUnknown;
    units_ = model_.resources_used();
    return r == z3::sat ? Answer::kSat : r == z3::unsat ? Answer::kUnsat : Answer::kUnknown;
  }

  // (An interrupted context answers nothing more, its statistics included:
  // the count stays at the last one read.)
  int64_t units_used() const override { return units_; }
  std::vector<int64_t> starts() const override { return model_.starts(); }
  bool limit_start_sum(int64_t t) override {
    model_.limit_start_sum(t);
    return true;
  }

 private:
  std::shared_ptr<Session> session_;  // first: outlives the model
  SmtModel model_;
  int64_t units_ = 0;
};

class SmtBackend : public Backend {
 public:
  explicit SmtBackend(unsigned random_seed) : random_seed_(random_seed) {}

  std::unique_ptr<IiProblem> build(const Graph& g, const ModelSpec& spec) override {
    try {
      return std::make_unique<SmtProblem>(session(), g, spec, random_seed_);
    } catch (const z3::exception& e) {
      // After the watchdog's interrupt Z3 refuses new work ("canceled").
      if (Clock::now() >= spec.deadline) throw ModelDeadline{};
      throw BackendFailure{std::string("Z3 failed: ") + e.msg()};
    }
  }

 private:
  // The context, made at the first model (making one costs about 10 ms,
  // more than a small graph's whole search), and again after an interrupt.
  std::shared_ptr<Session> session() {
    if (!session_ || session_->watchdog.fired()) session_ = std::make_shared<Session>();
    return session_;
  }

  unsigned random_seed_;
  std::shared_ptr<Session> session_;
};

}  // namespace

std::unique_ptr<Backend> make_smt_backend(unsigned random_seed) {
  return std::make_unique<SmtBackend>(random_seed);
}

}  // namespace tilesched::exact_internal
