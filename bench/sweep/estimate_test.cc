// The shard-time estimate (estimate.h): measured means where the timings
// have the op count, the log-log line elsewhere, every family pooled, the
// exact oracle's limit, the longest graph, and a configuration without
// timings refused.
#include "sweep/estimate.h"

#include <gtest/gtest.h>

#include "sweep/csv.h"

namespace tilesched::sweep {
namespace {

SweepRow timed_row(const std::string& family, int ops, const std::string& generator,
                   int64_t cpu_ns) {
  SweepRow r;
  r.family = family;
  r.ops = r.graph_ops = ops;
  r.seed = 1;
  r.generator = generator;
  r.engine_version = "0.1.0";
  r.stats.assign(stat_keys().size(), std::nullopt);
  r.cpu_ns = cpu_ns;
  r.time_ns = 1;  // not what is read: cpu_ns is
  return r;
}

ReadResult timings(const std::vector<SweepRow>& rows) {
  std::string text = header_text();
  for (const SweepRow& r : rows) text += format_row(r);
  StatusOr<ReadResult> read = parse_sweep_csv(text, "t.csv");
  EXPECT_TRUE(read.ok()) << read.status().message();
  return read.ok() ? *read : ReadResult{};
}

SweepSpec spec_of(std::vector<std::string> families, std::vector<int> ops,
                  const std::string& generators, const std::string& shard = "1/1") {
  SweepSpec spec;
  spec.families = std::move(families);
  spec.ops = std::move(ops);
  spec.seeds = {1, 2};
  spec.generators = *parse_generators(generators, "first-success");
  spec.shard = *parse_shard(shard);
  return spec;
}

TEST(Estimate, MeansWhereMeasuredAndTheLogLogLineBeyond) {
  // serial on chains: 1 ms at 8 ops, 4 ms at 16 (two rows, mean 4 ms), 16 ms
  // at 32: time ~ ops^2, so 64 ops take 64 ms.
  const ReadResult t = timings({timed_row("chains", 8, "serial", 1'000'000),
                                timed_row("chains", 16, "serial", 3'000'000),
                                timed_row("chains", 16, "serial", 5'000'000),
                                timed_row("chains", 32, "serial", 16'000'000)});
  StatusOr<ShardEstimate> e = estimate_shard(spec_of({"chains"}, {16, 64}, "serial"), t, "t.csv");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->graphs, 4u);
  EXPECT_EQ(e->rows, 4u);
  EXPECT_NEAR(e->cpu_seconds, 2 * 0.004 + 2 * 0.064, 1e-9);
  EXPECT_NEAR(e->largest_graph_seconds, 0.064, 1e-9);
  ASSERT_EQ(e->configs.size(), 1u);
  EXPECT_EQ(e->configs[0].extrapolated, 2u);  // the two 64-op rows
  EXPECT_NEAR(e->wall_seconds(1), e->cpu_seconds, 1e-9);
  EXPECT_NEAR(e->wall_seconds(4), 0.064, 1e-9);  // one 64-op graph, not CPU / 4
}

TEST(Estimate, EveryFamilyIsPooledAndShardsSplitTheWork) {
  const ReadResult t = timings({timed_row("chains", 16, "serial", 2'000'000),
                                timed_row("random_layered", 16, "serial", 6'000'000)});
  StatusOr<ShardEstimate> all = estimate_shard(spec_of({"chains"}, {16}, "serial"), t, "t.csv");
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_NEAR(all->cpu_seconds, 2 * 0.004, 1e-9);  // the mean of both families, 4 ms
  StatusOr<ShardEstimate> half =
      estimate_shard(spec_of({"sparse_recurrent"}, {16}, "serial", "2/2"), t, "t.csv");
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->graphs, 1u);
  EXPECT_NEAR(half->cpu_seconds, 0.004, 1e-9);
}

TEST(Estimate, AnExactRowTakesAtMostTheOraclesLimit) {
  // 1 s at 8 ops and 4 s at 16: 1024 ops would be 16384 s on the line.
  const ReadResult t = timings({timed_row("chains", 8, "exact", 1'000'000'000),
                                timed_row("chains", 16, "exact", 4'000'000'000)});
  StatusOr<ShardEstimate> e = estimate_shard(spec_of({"chains"}, {1024}, "exact"), t, "t.csv");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_NEAR(e->cpu_seconds, 2 * 10.0, 1e-6);  // ExactOptions' 10 s limit per row
}

TEST(Estimate, AConfigurationWithoutTimingsIsRefusedByName) {
  const ReadResult t = timings({timed_row("chains", 16, "serial", 1'000'000)});
  StatusOr<ShardEstimate> e =
      estimate_shard(spec_of({"chains"}, {16}, "serial,ims"), t, "t.csv");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("t.csv: no timed row of ims"), std::string::npos)
      << e.status().message();
}

}  // namespace
}  // namespace tilesched::sweep
