// Round trips of the two file formats (docs/FORMATS.md): a graph written
// as tilesched.loop/1 and read back is the same graph; a schedule written
// as tilesched.schedule/1 and read back is the same schedule, both for what
// the generators emit (with Pipe_/Mutex_ values) and for arbitrary starts.
#include "prop_util.h"

#include "tilesched/json_io.h"

namespace tilesched::props {

RC_GTEST_PROP(RoundTrip, GraphJsonWriteReadIsIdentity, (const LoopGraph& lg)) {
  const std::string text = write_graph_json(lg.graph);
  StatusOr<Graph> back = parse_graph_json(text, "roundtrip.loop.json");
  if (!back.ok()) RC_FAIL("written graph does not read back: " + back.status().message());
  RC_ASSERT(*back == lg.graph);
  RC_ASSERT(write_graph_json(*back) == text);
  const int n = lg.graph.op_count();
  RC_CLASSIFY(n < 16, "< 16 ops");
  RC_CLASSIFY(n >= 16 && n < 100, "16-99 ops");
  RC_CLASSIFY(n >= 100, ">= 100 ops");
  RC_CLASSIFY(n >= 200, ">= 200 ops");
}

RC_GTEST_PROP(RoundTrip, ScheduleJsonWriteReadIsIdentity, (const CostSizedGraph& lg, Scheduler which)) {
  const Graph& g = lg.graph;
  const Schedule emitted = run_scheduler(g, which);
  const Schedule arbitrary = *arbitrary_schedule(g);
  for (const Schedule* s : {&emitted, &arbitrary}) {
    const std::string text = write_schedule_json(g, *s);
    StatusOr<Schedule> back = parse_schedule_json(text, "roundtrip.schedule.json", g);
    if (!back.ok()) RC_FAIL("written schedule does not read back: " + back.status().message());
    if (!(*back == *s)) RC_FAIL("schedule read back differs from the one written:\n" + text);
    RC_ASSERT(write_schedule_json(g, *back) == text);
  }
}

}  // namespace tilesched::props
