// Tests for the candidate stage assignments of a TTGIR loop
// (tilesched/triton_candidates.h) on the committed pointer matmul
// at num_stages 3: one candidate per distinct stage vector, every finder
// accounted for, Triton's own among them and priced as `tilesched stages`
// prices it, every price the model's, the list ranked by predicted time,
// and the manifests.
#include "tilesched/triton_candidates.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tilesched/graphgen/ttgir_import.h"
#include "tilesched/hopper_registers.h"

namespace tilesched {
namespace {

const std::string kMatmul = std::string(TILESCHED_GEN_TESTDATA) +
                            "/ttgir/matmul_STAGES3_BM128_BN128_BK64_W8.triton-scheduled.ttgir";

Graph imported() {
  StatusOr<graphgen::TtgirImport> r = graphgen::import_ttgir(kMatmul, {});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->graph : Graph{};
}

CandidateOptions heuristics(const Graph& g, int64_t caps) {
  CandidateOptions o;
  o.max_cap = caps;
  o.generators = {GeneratorKind::kSerial, GeneratorKind::kCostBased, GeneratorKind::kIms,
                  GeneratorKind::kSms};
  o.cta = {0, hopper::estimated_registers(g), 8 * 32};
  return o;
}

TEST(TritonCandidates, OnePerStageVectorEveryFinderCountedRankedByPredictedTime) {
  const Graph g = imported();
  const CandidateOptions o = heuristics(g, 4);
  StatusOr<std::vector<Candidate>> list = triton_candidates(g, o);
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_GE(list->size(), 3u);
  std::set<std::vector<int64_t>> vectors;
  size_t finders = 0;
  for (const Candidate& c : *list) {
    EXPECT_TRUE(vectors.insert(c.stage).second) << c.schedule.source << " repeats a stage vector";
    finders += c.found_by.size();
    EXPECT_EQ(c.schedule.source, c.found_by.front());
    EXPECT_EQ(c.schedule.max_stage, *std::max_element(c.stage.begin(), c.stage.end()));
    for (const TritonPlacement& p : c.schedule.ops) EXPECT_EQ(p.stage, c.stage[*g.find_op(p.id)]);
    // The price is `tilesched predict`'s model of this assignment.
    const hopper::StagePrediction p = hopper::predict_schedule(g, c.stage, o.cta, o.fit);
    EXPECT_EQ(c.price.sm_cycles, p.sm_cycles);
    EXPECT_EQ(c.price.smem_bytes, p.smem_bytes);
    EXPECT_EQ(c.price.bound, hopper::bound_name(p.bound));
  }
  EXPECT_EQ(finders, 1u + 4u * 4u);  // Triton's own, 4 generators x caps 1..4 (all feasible)
  for (size_t i = 1; i < list->size(); ++i) {
    const CandidatePrice &a = (*list)[i - 1].price, &b = (*list)[i].price;
    EXPECT_TRUE(a.sm_cycles < b.sm_cycles ||
                (a.sm_cycles == b.sm_cycles && a.smem_bytes <= b.smem_bytes))
        << "rank " << i << " before rank " << i + 1;
  }
  // Cap 1: every op in stage 0, whoever schedules it; one candidate.
  const auto one = std::find_if(list->begin(), list->end(), [](const Candidate& c) {
    return c.schedule.max_stage == 0;
  });
  ASSERT_NE(one, list->end());
  for (const char* f : {"serial/cap1", "cost-based/cap1", "ims/cap1", "sms/cap1"}) {
    EXPECT_NE(std::find(one->found_by.begin(), one->found_by.end(), f), one->found_by.end()) << f;
  }
}

TEST(TritonCandidates, TritonsOwnIsPricedAsStagesPricesIt) {
  const Graph g = imported();
  const CandidateOptions o = heuristics(g, 3);
  StatusOr<std::vector<Candidate>> list = triton_candidates(g, o);
  ASSERT_TRUE(list.ok()) << list.status().message();
  const auto own = std::find_if(list->begin(), list->end(),
                                [](const Candidate& c) { return c.found_by.front() == "triton"; });
  ASSERT_NE(own, list->end());
  EXPECT_EQ(own->schedule.max_stage, 2);
  const hopper::StagePrediction p = hopper::predict_stages(g, 3, o.cta, o.fit);
  EXPECT_EQ(own->price.smem_bytes, p.smem_bytes);
  EXPECT_EQ(own->price.ctas_per_sm, p.ctas_per_sm);
  EXPECT_NEAR(own->price.sm_cycles, p.sm_cycles, 1e-6 * p.sm_cycles);
  EXPECT_FALSE(own->refused.has_value());
}

TEST(TritonCandidates, ManifestsNameEveryCandidateInRankOrder) {
  const Graph g = imported();
  StatusOr<std::vector<Candidate>> list = triton_candidates(g, heuristics(g, 2));
  ASSERT_TRUE(list.ok()) << list.status().message();
  std::vector<std::string> files;
  for (size_t i = 0; i < list->size(); ++i) files.push_back("f" + std::to_string(i));
  const nlohmann::json doc = nlohmann::json::parse(candidates_json(g, *list, files));
  EXPECT_EQ(doc["format"], "tilesched.candidates/1");
  ASSERT_EQ(doc["candidates"].size(), list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    EXPECT_EQ(doc["candidates"][i]["rank"], i + 1);
    EXPECT_EQ(doc["candidates"][i]["file"], files[i]);
    EXPECT_EQ(doc["candidates"][i]["found_by"].size(), (*list)[i].found_by.size());
  }
  const std::string tsv = candidates_tsv(*list, files);
  EXPECT_EQ(std::count(tsv.begin(), tsv.end(), '\n'), static_cast<long>(list->size()) + 1);
}

TEST(TritonCandidates, TheStageBoundIsTheDeepestMaxDepth) {
  Graph g = imported();
  EXPECT_EQ(stage_bound_of(g), 7);  // the importer's bound for the pointer matmul
  for (Op& op : g.ops) op.max_depth.reset();
  EXPECT_EQ(stage_bound_of(g), kDefaultMaxCap);
}

}  // namespace
}  // namespace tilesched
