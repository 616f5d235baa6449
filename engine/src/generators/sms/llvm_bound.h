// LLVM's MachinePipeliner, whose swing modulo scheduler ours follows,
// refuses a schedule of more stages than pipeliner-max-stages (3, counted
// from 0: four stages) and leaves the loop unpipelined. Ours keeps the
// schedule (the baseline's II under the same rules as the others) and
// flags one past that bound kOverLlvmStageBound, with a line saying so;
// scripts/plot.py draws such rows apart (docs/BASELINES.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace tilesched::sms {

inline constexpr int64_t kLlvmStageBound = 4;
inline constexpr std::string_view kOverLlvmStageBound = "over_llvm_stage_bound";

}  // namespace tilesched::sms
