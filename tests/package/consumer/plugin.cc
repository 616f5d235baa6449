// A C++ scheduler plug-in built against the installed package
// (docs/PLUGINS.md, "Writing a plug-in"): only tilesched/plugin.h, the five
// functions extern "C". It schedules the graphs it can do in one stage
// with every op alone in its row (II = the sum of the footprints, each op
// after the one before in program order, where that order meets the
// distance-0 edges and II meets the loop-carried ones, within ii_max) and
// declines the rest.
#include <tilesched/plugin.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <vector>

namespace {

struct Result {
  tilesched_plugin_result r{};
  std::vector<int64_t> start;
};

}  // namespace

extern "C" {

int32_t tilesched_plugin_abi(void) { return TILESCHED_PLUGIN_ABI; }
const char* tilesched_plugin_name(void) { return "one-at-a-time"; }
const char* tilesched_plugin_version(void) { return "0.1"; }

tilesched_plugin_result* tilesched_plugin_schedule(const tilesched_plugin_graph* g) {
  Result* out = new (std::nothrow) Result;
  if (out == nullptr) return nullptr;
  out->start.assign(static_cast<size_t>(g->op_count), 0);
  int64_t t = 0;
  for (int32_t v = 0; v < g->op_count; ++v) {
    out->start[v] = t;
    t += std::max<int64_t>(g->footprint[v], 1);
  }
  int64_t ii = std::max(t, g->ii_min);
  bool ok = true;
  for (int32_t i = 0; i < g->edge_count; ++i) {
    const tilesched_plugin_edge& e = g->edges[i];
    const int64_t need = out->start[e.from] + e.latency - out->start[e.to];
    if (e.distance == 0) ok = ok && need <= 0;
    else ii = std::max(ii, (need + e.distance - 1) / e.distance);
  }
  out->r.status = ok && ii <= g->ii_max ? TILESCHED_PLUGIN_OK : TILESCHED_PLUGIN_NO_SCHEDULE;
  out->r.ii = ii;
  out->r.start = out->start.data();
  out->r.message = ok ? "one-at-a-time: above ii_max" : "one-at-a-time: edges against program order";
  return &out->r;
}

void tilesched_plugin_free(tilesched_plugin_result* r) {
  delete reinterpret_cast<Result*>(r);  // r is the first member of its Result
}

}  // extern "C"
