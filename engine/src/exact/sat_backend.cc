// The exact oracle's SAT backend (docs/EXACT.md, "The SAT backend"): one
// CNF per candidate II on CaDiCaL (sat_model.h), kept across the stage
// limits asked at that II. The encoding: time-indexed while its windows
// stay small, row/stage beyond (or as ExactOptions::sat_encoding says).
#include <memory>

#include "problem.h"
#include "sat_model.h"

namespace tilesched::exact_internal {

namespace {

// The time-indexed encoding's size, in order literals (the sum of the
// windows), up to which `auto` picks it. Measured on the HLS set
// (docs/EXACT.md): above it the row/stage encoding, whose size grows with
// II + K per op rather than II * K, answers faster.
constexpr int64_t kTimeIndexedMaxLiterals = 20'000;

class SatBackend : public Backend {
 public:
  explicit SatBackend(SatEncoding encoding) : encoding_(encoding) {}

  std::unique_ptr<IiProblem> build(const Graph& g, const ModelSpec& spec) override {
    switch (encoding_) {
      case SatEncoding::kTimeIndexed:
        return make_time_indexed(g, spec, kMaxTimeIndexedLiterals);
      case SatEncoding::kRowStage:
        return make_row_stage(g, spec);
      case SatEncoding::kAuto:
        break;
    }
    if (std::unique_ptr<IiProblem> p = make_time_indexed(g, spec, kTimeIndexedMaxLiterals)) {
      return p;
    }
    return make_row_stage(g, spec);
  }

 private:
  // Beyond this a time-indexed model is not built at all (memory).
  static constexpr int64_t kMaxTimeIndexedLiterals = 3'000'000;
  SatEncoding encoding_;
};

}  // namespace

std::unique_ptr<Backend> make_sat_backend(SatEncoding encoding) {
  return std::make_unique<SatBackend>(encoding);
}

}  // namespace tilesched::exact_internal
