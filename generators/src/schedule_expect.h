// Shared by the importers' tests (test-only): every heuristic generator
// schedules an imported graph, no worse than serial, and the verifier
// accepts each schedule.
#pragma once

#include <gtest/gtest.h>

#include "tilesched/generate.h"
#include "tilesched/graph.h"
#include "tilesched/serial.h"
#include "tilesched/verify.h"

namespace tilesched::graphgen {

inline void expect_every_generator_verifies(const Graph& g) {
  const Schedule serial = generate_serial(g);
  ASSERT_TRUE(serial.feasible) << g.name;
  EXPECT_TRUE(verify_schedule(g, serial).legal()) << g.name;
  for (GeneratorKind kind : {GeneratorKind::kCostBased, GeneratorKind::kIms, GeneratorKind::kSms}) {
    GenerateOptions opts;
    opts.generator = kind;
    StatusOr<Schedule> s = generate_schedule(g, opts);
    ASSERT_TRUE(s.ok()) << s.status().message();
    ASSERT_TRUE(s->feasible) << g.name << " " << generator_name(kind);
    EXPECT_LE(s->ii, serial.ii) << g.name << " " << generator_name(kind);
    const VerifyReport r = verify_schedule(g, *s);
    EXPECT_TRUE(r.legal()) << g.name << " " << generator_name(kind) << ": "
                           << (r.violations.empty() ? "" : r.violations.front().message);
  }
}

}  // namespace tilesched::graphgen
