// Foreign schedulers: a modulo scheduler that is not compiled into
// tilesched, run as one of its generators, by two routes with one contract:
// `ext:NAME`, a program declared in a schedulers file (tilesched.schedulers/1,
// through TILESCHED_SCHEDULERS) run as a bounded child process, and
// `plugin:PATH` (or `plugin:NAME`), a shared library with the C ABI of
// tilesched/plugin.h called in-process. The reply is checked here (shape,
// graph, op count, II range, stage cap); a failure is a value with a kind,
// never an exception or an abort; legality is the caller's verifier's
// question. docs/PLUGINS.md; the formats in docs/FORMATS.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/foreign_types.h"
#include "tilesched/graph.h"
#include "tilesched/status.h"

namespace tilesched {

class LoadedPlugin;  // a dlopen'ed library (plugin_loader.h)

// One foreign scheduler, resolved: what runs and under which bounds.
struct ForeignScheduler {
  std::string name;     // the generator's name: "ext:NAME" or "plugin:NAME"
  std::string version;  // the file's "version", or the plug-in's
  // ext: argv, "{dir}" replaced by the schedulers file's directory; the
  // tokens "{graph}" and "{request}" are replaced per call by paths of
  // files holding the loop graph and the request.
  std::vector<std::string> command;
  std::string plugin_path;             // plugin: the library
  std::shared_ptr<LoadedPlugin> plugin;  // plugin: loaded once, shared by threads
  int64_t time_limit_ms = kForeignDefaultTimeLimitMs;
  bool is_plugin() const { return plugin != nullptr; }
};

// True for "ext:..." and "plugin:...".
bool is_foreign_generator(std::string_view name);

// Resolves "ext:NAME" through the schedulers file `schedulers_file` (empty:
// $TILESCHED_SCHEDULERS), and "plugin:PATH" or "plugin:NAME" (a name the
// file declares) by loading the library. InvalidInput names the file and
// the JSON path, or the library and what is wrong with it.
StatusOr<ForeignScheduler> resolve_foreign(std::string_view name,
                                           const std::string& schedulers_file = "");

// Runs `s` on `g` once. Never throws: every misbehaviour of the foreign
// scheduler is a failure kind with a message.
ForeignOutcome run_foreign(const ForeignScheduler& s, const Graph& g, const ForeignRequest& req);

// The request document (tilesched.request/1) for `g`: the graph, its
// resolved view and the request's bounds (ii_max already filled in).
std::string foreign_request_json(const Graph& g, const ForeignRequest& req);

}  // namespace tilesched
