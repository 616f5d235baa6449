#include "tilesched/generate.h"

#include <gtest/gtest.h>

namespace tilesched {
namespace {

Graph Loads(int n, bool force_serial = false) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < n; ++i) b.op("l" + std::to_string(i), "tiled_tma_load");
  b.force_serial(force_serial);
  return std::move(b.build()).value();
}

Graph Alus(int n) {
  GraphBuilder b(blackwell_target());
  for (int i = 0; i < n; ++i) b.op("a" + std::to_string(i), "alu");
  return std::move(b.build()).value();
}

TEST(Generate, SelectorFollowsTheSeedsOrderOfRules) {
  const GenerateOptions opts;
  EXPECT_EQ(select_generator(Loads(12, true), opts).chosen, GeneratorKind::kSerial);
  EXPECT_NE(select_generator(Loads(12, true), opts).reason.find("force_serial"),
            std::string::npos);
  EXPECT_EQ(select_generator(Loads(7), opts).chosen, GeneratorKind::kSerial);
  EXPECT_NE(select_generator(Loads(7), opts).reason.find("below serial_threshold 8"),
            std::string::npos);
  EXPECT_EQ(select_generator(Loads(8), opts).chosen, GeneratorKind::kCostBased);
  EXPECT_EQ(select_generator(Alus(20), opts).chosen, GeneratorKind::kSerial);
  GenerateOptions low;
  low.serial_threshold = 2;
  EXPECT_EQ(select_generator(Loads(2), low).chosen, GeneratorKind::kCostBased);
}

TEST(Generate, AutoRunsTheSelectedGeneratorAndSaysWhy) {
  StatusOr<Schedule> s = generate_schedule(Loads(8), GenerateOptions{});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->generator, "cost-based");
  EXPECT_EQ(s->selection.rfind("auto: async/TMA/WGMMA op 'l0' present", 0), 0u) << s->selection;
  StatusOr<Schedule> small = generate_schedule(Loads(3), GenerateOptions{});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->generator, "serial");
  EXPECT_EQ(small->selection, "auto: op count 3 is below serial_threshold 8");
}

TEST(Generate, ExactGeneratorRuns) {
  GenerateOptions opts;
  opts.generator = GeneratorKind::kExact;
  StatusOr<Schedule> s = generate_schedule(Loads(8), opts);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->generator, "exact");
  EXPECT_EQ(s->selection, "requested");
  EXPECT_TRUE(s->proven_optimal);
}

TEST(Generate, GeneratorNamesRoundTrip) {
  for (GeneratorKind k : {GeneratorKind::kAuto, GeneratorKind::kSerial,
                          GeneratorKind::kCostBased, GeneratorKind::kExact}) {
    EXPECT_EQ(parse_generator(generator_name(k)), k);
  }
  EXPECT_EQ(parse_generator("greedy"), std::nullopt);
}

}  // namespace
}  // namespace tilesched
