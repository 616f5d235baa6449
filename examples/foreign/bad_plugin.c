/* A deliberately broken plug-in for the loader's tests
 * (examples/foreign/foreign_test.sh): it returns NULL for every graph
 * whose name ends in neither "-error" nor "-json"; for "-error" it reports
 * an error, for "-json" an error saying whether request_json gave the
 * request document. */
#include <string.h>

#include "tilesched/plugin.h"

int32_t tilesched_plugin_abi(void) { return TILESCHED_PLUGIN_ABI; }
const char* tilesched_plugin_name(void) { return "bad-c"; }
const char* tilesched_plugin_version(void) { return "0.1"; }

static tilesched_plugin_result error_result = {TILESCHED_PLUGIN_ERROR, 0, NULL,
                                               "bad-c: failing on purpose"};
static tilesched_plugin_result json_result = {TILESCHED_PLUGIN_ERROR, 0, NULL,
                                              "bad-c: request_json gave tilesched.request/1"};
static tilesched_plugin_result no_json_result = {TILESCHED_PLUGIN_ERROR, 0, NULL,
                                                 "bad-c: request_json gave something else"};

static int ends_with(const char* s, const char* tail) {
  const size_t n = strlen(s), k = strlen(tail);
  return n >= k && strcmp(s + n - k, tail) == 0;
}

tilesched_plugin_result* tilesched_plugin_schedule(const tilesched_plugin_graph* g) {
  if (ends_with(g->name, "-error")) return &error_result;
  if (ends_with(g->name, "-json")) {
    const char* json = g->request_json(g);
    return strstr(json, "{\"format\":\"tilesched.request/1\"") == json ? &json_result
                                                                        : &no_json_result;
  }
  return NULL;
}

void tilesched_plugin_free(tilesched_plugin_result* r) { (void)r; }
