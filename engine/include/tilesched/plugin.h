/* The C ABI of an in-process scheduler plug-in (docs/PLUGINS.md; the
 * process protocol's twin, docs/FORMATS.md "Foreign schedulers").
 *
 * A plug-in is a shared library that exports the five functions below with
 * C linkage. tilesched loads it with dlopen (`--generator plugin:PATH`, or
 * `plugin:NAME` declared in a schedulers file), checks
 * tilesched_plugin_abi() == TILESCHED_PLUGIN_ABI, and calls
 * tilesched_plugin_schedule once per graph (and per stage cap). Every
 * result goes through the same checks as a foreign process's reply and then
 * through the verifier: a plug-in cannot make the harness accept an illegal
 * schedule, but it runs inside the harness's process, so a crash or a hang
 * of a plug-in is the harness's (use the process protocol for code you do
 * not trust).
 *
 * The graph is given as flat arrays with every kind default already applied
 * (all a modulo scheduler needs for rules L1-L3, with max_depth, groups and
 * stores for L4-L7), and on demand as the tilesched.request/1 JSON text the
 * process protocol sends (request_json). The call may come from several
 * threads at once (`tilesched sweep --jobs N`): keep no mutable global
 * state, or guard it.
 *
 * This header is C89-compatible and includes only <stdint.h> and <stddef.h>.
 */
#ifndef TILESCHED_PLUGIN_H_
#define TILESCHED_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TILESCHED_PLUGIN_ABI 1

/* One dependence: to may start no earlier than
 * start(from) + latency - II * distance. kind: 0 data, 1 order. */
typedef struct tilesched_plugin_edge {
  int32_t from, to;
  int64_t latency, distance;
  int32_t kind;
} tilesched_plugin_edge;

/* One resource triple: op holds `occupancy` units of slot `slot` (0-based
 * index into slot_capacity) during [start, start + duration), modulo II. */
typedef struct tilesched_plugin_use {
  int32_t op, slot;
  int64_t duration, occupancy;
} tilesched_plugin_use;

/* One rate-pool count: op holds `count` units of rate pool `pool` (0-based
 * index into pool_capacity) during [start, start + duration), modulo II,
 * where duration is the op's footprint (its longest triple, at least 1). */
typedef struct tilesched_plugin_pool_use {
  int32_t op, pool;
  int64_t count, duration;
} tilesched_plugin_pool_use;

struct tilesched_plugin_graph;
typedef struct tilesched_plugin_graph {
  int32_t abi;                 /* TILESCHED_PLUGIN_ABI */
  const char* name;            /* the graph's name, NUL-terminated */
  int32_t op_count;            /* ops are 0..op_count-1, in program order */
  const char* const* op_ids;   /* op_count NUL-terminated ids */
  const int64_t* latency;      /* op_count latencies */
  const int64_t* footprint;    /* op_count: the longest triple, at least 1 */
  const int64_t* max_depth;    /* op_count: the op's stage is at most this; -1: none */
  const int64_t* leader_gid;   /* op_count: ops with the same one share a stage; -1: none */
  const int64_t* store_bytes;  /* op_count: bytes charged to the storage pool (rule L4) */
  int32_t force_serial;        /* 1: every op in stage 0, start + footprint <= II */
  int32_t edge_count;
  const tilesched_plugin_edge* edges;
  int32_t slot_count;
  const int64_t* slot_capacity;    /* 1: one op per modulo row; more: a counter */
  int32_t use_count;
  const tilesched_plugin_use* uses;  /* grouped by op, ascending */
  int32_t pool_count;                /* rate pools only */
  const int64_t* pool_capacity;
  int32_t pool_use_count;
  const tilesched_plugin_pool_use* pool_uses;
  int64_t ii_min;       /* the harness's lower bound (MII) */
  int64_t ii_max;       /* the largest II the reply may have */
  int64_t max_stages;   /* 0: no cap; else every start < max_stages * II */
  int64_t time_limit_ms;  /* the plug-in's budget; not enforced in-process */
  /* The tilesched.request/1 text of this call (every field of the graph),
   * NUL-terminated, built on the first call of request_json(graph) and
   * valid until tilesched_plugin_schedule returns. Call it only when the
   * arrays above are not enough: building it costs more than most
   * schedulers' whole run on a small graph. */
  const char* (*request_json)(const struct tilesched_plugin_graph* self);
  void* harness;  /* the harness's; do not touch */
} tilesched_plugin_graph;

enum {
  TILESCHED_PLUGIN_OK = 0,           /* ii and start hold a schedule */
  TILESCHED_PLUGIN_NO_SCHEDULE = 1,  /* no schedule within ii_max; message says why */
  TILESCHED_PLUGIN_ERROR = 2         /* the plug-in failed; message says why */
};

typedef struct tilesched_plugin_result {
  int32_t status;       /* one of the values above */
  int64_t ii;           /* TILESCHED_PLUGIN_OK: the initiation interval */
  int64_t* start;       /* TILESCHED_PLUGIN_OK: op_count start cycles */
  const char* message;  /* NULL or a NUL-terminated line */
} tilesched_plugin_result;

/* The five exports. The strings of name and version live as long as the
 * library; a result lives until tilesched_plugin_free(result). NULL from
 * tilesched_plugin_schedule is recorded as a failure (kind
 * "foreign-null"), never dereferenced. */
int32_t tilesched_plugin_abi(void);
const char* tilesched_plugin_name(void);
const char* tilesched_plugin_version(void);
tilesched_plugin_result* tilesched_plugin_schedule(const tilesched_plugin_graph* graph);
void tilesched_plugin_free(tilesched_plugin_result* result);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILESCHED_PLUGIN_H_ */
