// The builder constraints in force during a placement attempt (seed 003):
// soft restrictions the constraint builder adds, each with the rationale
// the refinement loop reports when it adds or lifts it. Constraints added
// together (one family at one II) form a batch, which the loop lifts as
// one. The placement reads them into its windows and conflicts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "context.h"

namespace tilesched::cost_based {

struct BuilderConstraint {
  enum class Shape {
    kStageSpan,  // op's data consumers at most `limit` stages behind op
    kMaxStage,   // stage(op) <= limit (the seed's MaxDepthConstraint)
    kSameStage,  // stage(op) == stage(other) (the seed's SameDepthConstraint)
  };
  ConstraintFamily family = ConstraintFamily::kDepth;
  Shape shape = Shape::kStageSpan;
  OpId op = 0;
  OpId other = 0;
  int64_t limit = 0;
  int batch = 0;
  std::string rationale;
};

class BuilderConstraints {
 public:
  explicit BuilderConstraints(const Context& ctx);

  // In the order they were added.
  const std::vector<BuilderConstraint>& all() const { return list_; }
  bool empty() const { return list_.empty(); }
  auto begin() const { return list_.begin(); }
  auto end() const { return list_.end(); }
  const BuilderConstraint& operator[](int c) const { return list_[c]; }
  // The constraints (indices, ascending) that can bound v's window: its
  // own, and a stage span of a producer v consumes.
  const std::vector<int>& of(OpId v) const { return of_[v]; }

  void add(BuilderConstraint c);
  // Removes the latest batch and returns it. REQUIRES: !empty().
  std::vector<BuilderConstraint> lift_latest_batch();
  void clear();

  // True when seating v in `stage` breaks a constraint between v and the
  // op u placed in `u_stage`.
  bool breaks(OpId v, int64_t stage, OpId u, int64_t u_stage) const;
  // The tightest max-stage bound on v, if any.
  std::optional<int64_t> max_stage(OpId v) const;

 private:
  void index(int c);  // adds constraint c to the per-op index

  const Context& ctx_;
  std::vector<BuilderConstraint> list_;
  std::vector<std::vector<int>> of_;
};

}  // namespace tilesched::cost_based
