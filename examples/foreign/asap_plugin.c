/* The ASAP modulo list scheduler of asap_modulo.py as a C plug-in
 * (tilesched/plugin.h; docs/PLUGINS.md). For II = ii_min .. ii_max: the
 * ops in a topological order of the distance-0 edges (program order among
 * the ready ones), each at the earliest cycle its placed neighbours allow
 * where its slot triples and rate-pool counts fit the modulo reservation
 * table, within II cycles of that. No backtracking. It declines graphs with
 * stage groups or stores (TILESCHED_PLUGIN_NO_SCHEDULE), which it does not
 * model. Keeps no global state, so concurrent calls are safe. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tilesched/plugin.h"

int32_t tilesched_plugin_abi(void) { return TILESCHED_PLUGIN_ABI; }
const char* tilesched_plugin_name(void) { return "asap-c"; }
const char* tilesched_plugin_version(void) { return "1.0"; }

typedef struct {
  const tilesched_plugin_graph* g;
  int64_t ii;
  int64_t* slot_rows; /* slot_count x ii */
  int64_t* pool_rows; /* pool_count x ii */
} table;

/* Adds sign * op v's holds at start t to the table, one per held cycle (an
 * op holding a slot longer than II lands on a row more than once, as the
 * verifier counts it); returns whether every row it touched is within
 * capacity afterwards. */
static int apply(table* tb, int32_t v, int64_t t, int64_t sign) {
  const tilesched_plugin_graph* g = tb->g;
  int32_t i;
  int64_t c;
  int fits = 1;
  for (i = 0; i < g->use_count; ++i) {
    const tilesched_plugin_use* u = &g->uses[i];
    if (u->op != v) continue;
    for (c = 0; c < u->duration; ++c) {
      int64_t* row = &tb->slot_rows[(int64_t)u->slot * tb->ii + (t + c) % tb->ii];
      *row += sign * u->occupancy;
      if (*row > g->slot_capacity[u->slot]) fits = 0;
    }
  }
  for (i = 0; i < g->pool_use_count; ++i) {
    const tilesched_plugin_pool_use* p = &g->pool_uses[i];
    if (p->op != v) continue;
    for (c = 0; c < p->duration; ++c) {
      int64_t* row = &tb->pool_rows[(int64_t)p->pool * tb->ii + (t + c) % tb->ii];
      *row += sign * p->count;
      if (*row > g->pool_capacity[p->pool]) fits = 0;
    }
  }
  return fits;
}

/* Reserves op v's holds at t when they fit; else leaves the table as it was. */
static int reserve(table* tb, int32_t v, int64_t t) {
  if (apply(tb, v, t, 1)) return 1;
  apply(tb, v, t, -1);
  return 0;
}

/* Ops in a topological order of the distance-0 edges, or 0 with none. */
static int topological(const tilesched_plugin_graph* g, int32_t* order) {
  int32_t* preds = calloc((size_t)g->op_count, sizeof *preds);
  char* done = calloc((size_t)g->op_count, 1);
  int32_t n = 0, v, i;
  int ok = preds != NULL && done != NULL;
  for (i = 0; ok && i < g->edge_count; ++i) {
    if (g->edges[i].distance == 0 && g->edges[i].from != g->edges[i].to) ++preds[g->edges[i].to];
  }
  while (ok && n < g->op_count) {
    for (v = 0; v < g->op_count && (done[v] || preds[v] > 0); ++v) {
    }
    if (v == g->op_count) break; /* a zero-distance cycle */
    done[v] = 1;
    order[n++] = v;
    for (i = 0; i < g->edge_count; ++i) {
      const tilesched_plugin_edge* e = &g->edges[i];
      if (e->from == v && e->distance == 0 && e->to != v) --preds[e->to];
    }
  }
  free(preds);
  free(done);
  return ok && n == g->op_count;
}

static int try_ii(const tilesched_plugin_graph* g, int64_t ii, const int32_t* order,
                  int64_t* start, char* placed) {
  table tb;
  int32_t k, i;
  int ok = 1;
  tb.g = g;
  tb.ii = ii;
  tb.slot_rows = calloc((size_t)(g->slot_count * ii + 1), sizeof(int64_t));
  tb.pool_rows = calloc((size_t)(g->pool_count * ii + 1), sizeof(int64_t));
  memset(placed, 0, (size_t)g->op_count);
  if (tb.slot_rows == NULL || tb.pool_rows == NULL) ok = 0;
  for (k = 0; ok && k < g->op_count; ++k) {
    const int32_t v = order[k];
    int64_t earliest = 0, latest = INT64_MAX, t;
    for (i = 0; i < g->edge_count; ++i) {
      const tilesched_plugin_edge* e = &g->edges[i];
      if (e->from == v && e->to == v && e->latency > ii * e->distance) ok = 0;
      if (e->to == v && e->from != v && placed[e->from] &&
          start[e->from] + e->latency - ii * e->distance > earliest) {
        earliest = start[e->from] + e->latency - ii * e->distance;
      }
      if (e->from == v && e->to != v && placed[e->to]) {
        const int64_t bound = start[e->to] - e->latency + ii * e->distance;
        if (bound < latest) latest = bound;
      }
    }
    if (g->max_stages > 0 && g->max_stages * ii - 1 < latest) latest = g->max_stages * ii - 1;
    if (g->max_depth[v] >= 0 && (g->max_depth[v] + 1) * ii - 1 < latest) {
      latest = (g->max_depth[v] + 1) * ii - 1;
    }
    if (g->force_serial && ii - g->footprint[v] < latest) latest = ii - g->footprint[v];
    for (t = earliest; ok && t < earliest + ii && t <= latest; ++t) {
      if (reserve(&tb, v, t)) break;
    }
    if (!ok || t >= earliest + ii || t > latest) ok = 0;
    if (ok) {
      start[v] = t;
      placed[v] = 1;
    }
  }
  free(tb.slot_rows);
  free(tb.pool_rows);
  return ok;
}

/* Whether the graph is within this scheduler's reach: no op in a stage
 * group (rule L5) and no stores (rule L4), which it does not model. */
static int simple(const tilesched_plugin_graph* g) {
  int32_t v;
  for (v = 0; v < g->op_count; ++v) {
    if (g->leader_gid[v] >= 0 || g->store_bytes[v] > 0) return 0;
  }
  return 1;
}

tilesched_plugin_result* tilesched_plugin_schedule(const tilesched_plugin_graph* g) {
  tilesched_plugin_result* r = calloc(1, sizeof *r);
  int32_t* order = calloc((size_t)g->op_count, sizeof *order);
  char* placed = calloc((size_t)g->op_count, 1);
  int64_t ii;
  if (r == NULL || order == NULL || placed == NULL) {
    free(r);
    free(order);
    free(placed);
    return NULL; /* out of memory: recorded as foreign-null */
  }
  r->start = calloc((size_t)g->op_count, sizeof(int64_t));
  r->status = TILESCHED_PLUGIN_NO_SCHEDULE;
  r->message = "asap-c: no II up to ii_max";
  if (r->start == NULL) {
    r->status = TILESCHED_PLUGIN_ERROR;
    r->message = "asap-c: out of memory";
  } else if (!simple(g)) {
    r->message = "asap-c: stage groups (leader_gid) and stores (store_bytes) are beyond it";
  } else if (!topological(g, order)) {
    r->message = "asap-c: a zero-distance cycle";
  } else {
    for (ii = g->ii_min; ii <= g->ii_max; ++ii) {
      if (try_ii(g, ii, order, r->start, placed)) {
        r->status = TILESCHED_PLUGIN_OK;
        r->ii = ii;
        r->message = NULL;
        break;
      }
    }
  }
  free(order);
  free(placed);
  return r;
}

void tilesched_plugin_free(tilesched_plugin_result* r) {
  if (r == NULL) return;
  free(r->start);
  free(r);
}
