// The Hopper prediction (tilesched/hopper_predict.h) and the register
// estimate (tilesched/hopper_registers.h) on real Triton loops: the four
// committed loops (generators/testdata/ttgir) pinned, and, when the shared
// kernels are at hand (TILESCHED_KERNELS_DIR), the measured configurations
// (docs/TARGETS.md, "hopper: predicting num_stages"). A change of the model,
// its constants or the importer's costs shows here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tilesched/json_io.h"
#include "tilesched/graphgen/ttgir_import.h"
#include "tilesched/hopper_class.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/hopper_registers.h"

namespace tilesched::graphgen {
namespace {

namespace fs = std::filesystem;

const std::string kTestdata = std::string(TILESCHED_GEN_TESTDATA) + "/ttgir";
const std::string kKernelsDir = TILESCHED_KERNELS_DIR;

Graph committed(const std::string& name) {
  StatusOr<TtgirImport> g = import_ttgir(kTestdata + "/" + name + ".input.ttgir", {});
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? g->graph : Graph{};
}

// Time relative to the best S = 1..max; 0 where one CTA does not fit.
std::vector<double> relative_times(const Graph& g, int64_t registers, int64_t max) {
  std::vector<double> cycles;
  double best = 0.0;
  for (int64_t s = 1; s <= max; ++s) {
    cycles.push_back(hopper::predict_stages(g, s, {0, registers, 256}).sm_cycles);
    if (cycles.back() > 0.0 && (best == 0.0 || cycles.back() < best)) best = cycles.back();
  }
  for (double& c : cycles) c = c > 0.0 ? c / best : 0.0;
  return cycles;
}

int64_t least_within_two_percent(const std::vector<double>& relative) {
  for (size_t i = 0; i < relative.size(); ++i) {
    if (relative[i] > 0.0 && relative[i] <= 1.02) return static_cast<int64_t>(i) + 1;
  }
  return 0;
}

struct Loop {
  std::string name;
  int64_t compiled_registers;   // measured.json's n_regs at num_stages 3
  std::vector<double> relative; // S = 1..5, with the compiled registers
};

const Loop kLoops[] = {
    {"matmul_STAGES3_BM128_BN128_BK64_W8", 122, {1.5317, 1.1995, 1.0, 1.0, 1.0}},
    {"matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0", 90, {1.5229, 1.1707, 1.0, 1.0, 1.0}},
    {"attention_STAGES3_BM128_BN64_HEAD128_W8", 148, {1.4653, 1.3101, 1.0, 1.0, 1.0}},
    {"attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0", 187, {1.3543, 1.1271, 1.0, 0.0, 0.0}}};

TEST(HopperLoops, PredictedTimesOfTheCommittedLoops) {
  for (const Loop& l : kLoops) {
    const std::vector<double> got = relative_times(committed(l.name), l.compiled_registers, 5);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], l.relative[i], 0.0005) << l.name << " S=" << i + 1;
    }
  }
}

TEST(HopperLoops, WarpsComeFromTheModule) {
  for (const Loop& l : kLoops) EXPECT_EQ(committed(l.name).attrs.num_warps, 8) << l.name;
}

// The estimate is within 16 % of the compiled count on each committed loop,
// and the recommendation made with it is the one made with the compiled count.
TEST(HopperLoops, EstimatedRegistersGiveTheCompiledKernelsRecommendation) {
  const std::map<std::string, int64_t> estimate = {
      {"matmul_STAGES3_BM128_BN128_BK64_W8", 114},
      {"matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0", 90},
      {"attention_STAGES3_BM128_BN64_HEAD128_W8", 150},
      {"attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0", 158}};
  for (const Loop& l : kLoops) {
    const Graph g = committed(l.name);
    const int64_t est = hopper::estimated_registers(g);
    EXPECT_EQ(est, estimate.at(l.name)) << l.name;
    EXPECT_NEAR(static_cast<double>(est) / static_cast<double>(l.compiled_registers), 1.0, 0.16)
        << l.name;
    EXPECT_EQ(least_within_two_percent(relative_times(g, est, 6)),
              least_within_two_percent(relative_times(g, l.compiled_registers, 6)))
        << l.name;
  }
}

// The schedulers see the loaded SM's memory latency: the pointer matmul's
// loads stream at the L2 bandwidth's pace, so they wait the capped latency.
TEST(HopperLoops, ImportedLoadsCarryTheLoadedLatency) {
  const Graph g = committed("matmul_STAGES3_BM128_BN128_BK64_W8");
  int loads = 0;
  for (const Op& op : g.ops) {
    if (!hopper::is_pipelined_load(op)) continue;
    ++loads;
    EXPECT_EQ(op.latency, (hopper::kMaxLoadedMemoryLatency + 416 + 15) / 16) << op.name;
  }
  EXPECT_EQ(loads, 2);
  EXPECT_EQ(hopper::with_loaded_memory_latency(g), g);
}

Graph shape(const std::string& file, int loop) {
  StatusOr<TtgirImport> g = import_ttgir(kTestdata + "/shapes/" + file, TtgirOptions{loop, true});
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? g->graph : Graph{};
}

// The class of each committed loop and hand-made shape, and what a
// prediction of it extrapolates (tilesched/hopper_class.h).
TEST(HopperLoops, KernelClassesAndWhatTheMeasurementsCover) {
  using hopper::KernelClass;
  EXPECT_EQ(hopper::classify_kernel(committed(kLoops[0].name)), KernelClass::kGemm);
  EXPECT_EQ(hopper::classify_kernel(committed(kLoops[1].name)), KernelClass::kGemm);
  EXPECT_EQ(hopper::classify_kernel(committed(kLoops[2].name)), KernelClass::kAttention);
  EXPECT_EQ(hopper::classify_kernel(committed(kLoops[3].name)), KernelClass::kAttention);
  EXPECT_EQ(hopper::classify_kernel(shape("rownorm_f16.ttgir", 0)), KernelClass::kReduction);
  EXPECT_EQ(hopper::classify_kernel(shape("rownorm_f16.ttgir", 1)), KernelClass::kStreaming);
  EXPECT_EQ(hopper::classify_kernel(shape("persistent_tma_matmul_f16.ttgir", 0)),
            KernelClass::kPersistentGemm);
  // The shared kernels at their compiled registers: nothing extrapolated.
  EXPECT_TRUE(hopper::unexercised_mechanisms(committed(kLoops[0].name), 8, false, 2, {}).empty());
  const std::vector<std::string> notes =
      hopper::unexercised_mechanisms(shape("rownorm_f16.ttgir", 0), 4, true, 8, {"dram"});
  EXPECT_EQ(notes.size(), 6u);  // class, DRAM, warps, CTAs, the dram bound, registers
  // The MMAs' operand width the import priced them at: fp16 as measured,
  // fp8 an extrapolation (twice the tensor-core rate), said as such.
  EXPECT_EQ(committed(kLoops[0].name).attrs.mma_element_bits, 16);
  EXPECT_EQ(shape("rownorm_f16.ttgir", 0).attrs.mma_element_bits, std::nullopt);
  const Graph fp8 = shape("fp8_tma_matmul_wgmma_wait.ttgir", 0);
  EXPECT_EQ(fp8.attrs.mma_element_bits, 8);
  const std::vector<std::string> fp8_notes = hopper::unexercised_mechanisms(fp8, 8, false, 2, {});
  ASSERT_EQ(fp8_notes.size(), 1u);
  EXPECT_EQ(fp8_notes[0], "8-bit MMA operands, another tensor-core rate: every measured "
                          "kernel's MMAs were fp16");
}

// Triton's own stage of every op of a committed loop (its scheduled dump).
std::vector<int64_t> tritons_own_stages(const std::string& name) {
  StatusOr<TtgirImport> t = import_ttgir(kTestdata + "/" + name + ".triton-scheduled.ttgir", {});
  EXPECT_TRUE(t.ok()) << t.status().message();
  std::vector<int64_t> stage;
  if (!t.ok()) return stage;
  for (const Op& op : t->graph.ops) stage.push_back(op.triton_stage.value_or(-1));
  return stage;
}

// The price of three stage assignments of the pointer matmul compiled at
// num_stages 3, timed by hand on an H200 (8192^3, relative to Triton's own
// three-stage schedule, 1.94 ms): Triton's own through the hook 1.005; the
// loads and their address math moved from stage 0 to stage 1 (two buffers,
// 64 KiB) 1.13-1.14; loads in stage 0 and everything else in stage 1 (the
// II-58 schedule of cost-based and the oracle) 1.18-1.20. Each predicted
// within 5 % and ranked in that order.
TEST(HopperLoops, ThePriceOfAStageAssignmentFollowsTheHandTimedMatmul) {
  const std::string name = "matmul_STAGES3_BM128_BN128_BK64_W8";
  const Graph g = committed(name);
  const std::vector<int64_t> own = tritons_own_stages(name);
  ASSERT_EQ(own.size(), g.ops.size());
  std::vector<int64_t> later = own, two = own;
  for (size_t v = 0; v < own.size(); ++v) {
    ASSERT_GE(own[v], 0) << g.ops[v].name;
    if (own[v] == 0) later[v] = 1;
    two[v] = own[v] == 0 ? 0 : 1;
  }
  const hopper::CtaFootprint cta{0, 122, 256};  // the compiled kernel at num_stages 3
  const double base = hopper::predict_stages(g, 3, cta).sm_cycles;
  const hopper::StagePrediction p_own = hopper::predict_schedule(g, own, cta);
  const hopper::StagePrediction p_later = hopper::predict_schedule(g, later, cta);
  const hopper::StagePrediction p_two = hopper::predict_schedule(g, two, cta);
  EXPECT_EQ(p_own.smem_bytes, 98304);
  EXPECT_EQ(p_later.smem_bytes, 65536);
  EXPECT_EQ(p_two.smem_bytes, 65536);
  const double r_own = p_own.sm_cycles / base, r_later = p_later.sm_cycles / base,
               r_two = p_two.sm_cycles / base;
  EXPECT_NEAR(r_own / 1.005, 1.0, 0.05) << r_own;
  EXPECT_NEAR(r_two / 1.19, 1.0, 0.05) << r_two;
  // The model's miss (docs/TARGETS.md, "tilesched predict"): lowered, the
  // second assignment runs the instruction stream of the third, and its
  // measured 5 % advantage has no mechanism here; predicted 5.6 % above
  // the middle of its measured range, just faster than the third.
  EXPECT_NEAR(r_later / 1.135, 1.0, 0.06) << r_later;
  EXPECT_LT(r_own, r_later);
  EXPECT_LT(r_later, r_two);
}

// Shared memory of Triton's own assignment, by buffer_copies: the compiled
// kernels' shared_bytes (measured.json; the TMA kernels' 8-byte barriers
// left out).
TEST(HopperLoops, BuffersOfTritonsOwnAssignment) {
  const std::map<std::string, std::vector<int64_t>> compiled = {
      {"matmul_STAGES3_BM128_BN128_BK64_W8", {32768, 65536, 98304, 131072, 163840}},
      {"matmul_tma_STAGES3_BM128_BN128_BK64_W8_WS0", {0, 65536, 98304, 131072, 0}},
      {"attention_STAGES3_BM128_BN64_HEAD128_W8", {49152, 98304, 131072, 163840, 0}},
      {"attention_tma_STAGES3_BM128_BN128_HEAD128_W8_WS0", {0, 163840, 229376, 0, 0}}};
  for (const Loop& l : kLoops) {
    const Graph g = committed(l.name);
    for (int64_t s = 1; s <= 5; ++s) {
      const int64_t want = compiled.at(l.name)[s - 1];
      if (want == 0) continue;  // not compiled
      EXPECT_EQ(hopper::predicted_smem_bytes(g, hopper::triton_stages(g, s)), want)
          << l.name << " S=" << s;
    }
  }
}

// Against the measurements (retimed.json, else measured.json): per kernel
// and configuration group, the predicted time ratio of every configuration
// but the one that is best both ways within 12 % of the measured, the
// median within 5 % (the targets); shared memory within 5 %.
TEST(HopperLoops, PredictedTimesFollowTheMeasuredCurves) {
  if (!fs::is_directory(kKernelsDir)) {
    GTEST_SKIP() << "TILESCHED_KERNELS_DIR " << kKernelsDir << " is absent";
  }
  const std::string truth = fs::exists(kKernelsDir + "/retimed.json") ? "/retimed.json" : "/measured.json";
  StatusOr<std::string> text = read_file(kKernelsDir + truth);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const nlohmann::json measured = nlohmann::json::parse(*text);
  struct Config {
    std::string group;
    double ms, cycles;
  };
  std::vector<Config> configs;
  for (const nlohmann::json& r : measured.at("results")) {
    const std::string tag = r.at("tag");
    StatusOr<TtgirImport> g = import_ttgir(kKernelsDir + "/" + tag + ".input.ttgir", {});
    ASSERT_TRUE(g.ok()) << g.status().message();
    nlohmann::json key = r.at("config");
    const int64_t stages = key.at("STAGES");
    key.erase("STAGES");
    const hopper::StagePrediction p = hopper::predict_stages(
        g->graph, stages, {0, r.at("n_regs").get<int64_t>(), 32 * r.at("num_warps").get<int64_t>()});
    EXPECT_NEAR(static_cast<double>(p.smem_bytes) / r.at("shared_bytes").get<double>(), 1.0, 0.05);
    configs.push_back({r.at("kernel").get<std::string>() + key.dump(), r.at("ms").get<double>(),
                       p.sm_cycles});
  }
  ASSERT_EQ(configs.size(), 19u);
  std::map<std::string, std::pair<double, double>> best;  // group: ms, cycles
  for (const Config& c : configs) {
    auto [it, fresh] = best.try_emplace(c.group, c.ms, c.cycles);
    it->second = {std::min(it->second.first, c.ms), std::min(it->second.second, c.cycles)};
  }
  std::vector<double> errors;
  for (const Config& c : configs) {
    const auto& [ms, cycles] = best[c.group];
    if (c.ms == ms && c.cycles == cycles) continue;  // best both ways: exact by definition
    const double error = (c.cycles / cycles) / (c.ms / ms) - 1;
    EXPECT_LE(std::abs(error), 0.12) << c.group << " " << c.ms;
    errors.push_back(std::abs(error));
  }
  std::sort(errors.begin(), errors.end());
  EXPECT_LE(errors[errors.size() / 2], 0.05);
}

}  // namespace
}  // namespace tilesched::graphgen
