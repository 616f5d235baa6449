/* A deliberately broken plug-in for the loader's tests
 * (cli/foreign_test.sh): it returns NULL for every graph whose name does
 * not end in "-error", and reports an error for those that do. */
#include <string.h>

#include "tilesched/plugin.h"

int32_t tilesched_plugin_abi(void) { return TILESCHED_PLUGIN_ABI; }
const char* tilesched_plugin_name(void) { return "bad-c"; }
const char* tilesched_plugin_version(void) { return "0.1"; }

static tilesched_plugin_result error_result = {TILESCHED_PLUGIN_ERROR, 0, NULL,
                                               "bad-c: failing on purpose"};

tilesched_plugin_result* tilesched_plugin_schedule(const tilesched_plugin_graph* g) {
  const size_t n = strlen(g->name);
  if (n >= 6 && strcmp(g->name + n - 6, "-error") == 0) return &error_result;
  return NULL;
}

void tilesched_plugin_free(tilesched_plugin_result* r) { (void)r; }
