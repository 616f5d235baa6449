// A scheduler plug-in loaded with dlopen (tilesched/plugin.h): its five
// exports found and its ABI, name and version checked once, then called
// per graph, its result copied out and freed by the plug-in.
#pragma once

#include <memory>
#include <string>

#include "external/reply.h"
#include "tilesched/plugin.h"
#include "tilesched/status.h"

namespace tilesched {

class LoadedPlugin {
 public:
  // InvalidInput "PATH: problem" for a library that cannot be loaded, lacks
  // an export, has another ABI, or an empty or malformed name or version.
  static StatusOr<std::shared_ptr<LoadedPlugin>> load(const std::string& path);

  const std::string& path() const { return path_; }
  const std::string& name() const { return name_; }  // the plug-in's own name
  const std::string& version() const { return version_; }

  // One call on `g`; the outcome's schedule, if any, is named `who`.
  ForeignOutcome schedule(const Graph& g, const external::Bounds& b, int64_t time_limit_ms,
                          const std::string& who) const;

 private:
  LoadedPlugin() = default;
  std::string path_, name_, version_;
  void* handle_ = nullptr;  // kept open for the process's life
  tilesched_plugin_result* (*schedule_)(const tilesched_plugin_graph*) = nullptr;
  void (*free_)(tilesched_plugin_result*) = nullptr;
};

}  // namespace tilesched
