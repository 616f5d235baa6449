// The exact oracle's SAT backend (docs/EXACT.md, "The SAT backend"): one
// CNF per candidate II on CaDiCaL (sat_model.h), kept across the stage
// limits asked at that II, in the encoding ExactOptions::sat_encoding names
// (row/stage unless asked otherwise: on the HLS set it proves 112 of 113
// loops within 20 s against the time-indexed encoding's 108; docs/EXACT.md).
#include <memory>

#include "query.h"
#include "sat_model.h"

namespace tilesched::exact_internal {

namespace {

class SatBackend : public Backend {
 public:
  explicit SatBackend(SatEncoding encoding) : encoding_(encoding) {}

  std::unique_ptr<IiProblem> build(const Graph& g, const ModelSpec& spec) override {
    if (encoding_ == SatEncoding::kTimeIndexed) {
      return make_time_indexed(g, spec, kMaxTimeIndexedLiterals);
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
