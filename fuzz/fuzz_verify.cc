// fuzz_verify: a loop graph plus arbitrary schedule JSON -> the schedule
// reader and the verifier. Input: graph JSON, a NUL byte, schedule JSON
// (JSON text cannot hold a raw NUL, so the split is unambiguous; seeds are
// readable). Checks: neither reader crashes; the verifier answers
// legal/illegal on every schedule the reader accepts; writing the schedule
// and reading it back gives the same verdict; a legal feasible schedule
// materializes and meets the postconditions.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "tilesched/json_io.h"
#include "tilesched/materialize.h"

using namespace tilesched;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const size_t split = all.find('\0');
  if (split == std::string_view::npos) return 0;
  StatusOr<Graph> g = parse_graph_json(all.substr(0, split), "graph");
  if (!g.ok()) return 0;
  StatusOr<Schedule> s = parse_schedule_json(all.substr(split + 1), "schedule", *g);
  if (!s.ok()) {
    FUZZ_CHECK(s.status().code() == StatusCode::kInvalidInput, "refusal is not InvalidInput",
               s.status().message());
    FUZZ_CHECK(s.status().message().rfind("schedule: $", 0) == 0,
               "refusal does not start with 'SOURCE: $'", s.status().message());
    return 0;
  }
  const VerifyReport report = verify_schedule(*g, *s);
  for (const Violation& v : report.violations) {
    FUZZ_CHECK(!v.message.empty(), "a violation without a message", fuzz::describe(*g, *s));
  }
  const std::string written = write_schedule_json(*g, *s);
  StatusOr<Schedule> back = parse_schedule_json(written, "written", *g);
  FUZZ_CHECK(back.ok(), "a schedule the reader accepted is refused once written",
             back.status().message() + "\n" + written);
  const VerifyReport report_back = verify_schedule(*g, *back);
  FUZZ_CHECK(report_back.legal() == report.legal() &&
                 report_back.violations.size() == report.violations.size(),
             "the verdict changed across write -> read",
             fuzz::describe(report) + "after:\n" + fuzz::describe(report_back) + written);
  if (report.legal() && s->feasible) {
    StatusOr<Materialization> m = materialize(*g, *s);
    FUZZ_CHECK(m.ok(), "a legal schedule does not materialize",
               m.status().message() + "\n" + fuzz::describe(*g, *s));
    FUZZ_CHECK(check_materialization(*g, *s, *m).empty(),
               "materialization of a legal schedule breaks its postconditions",
               fuzz::describe(*g, *s));
  }
  return 0;
}
