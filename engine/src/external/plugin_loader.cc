// Loading and calling a scheduler plug-in (plugin_loader.h).
#include "external/plugin_loader.h"

#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "external/request.h"

namespace tilesched {
namespace {

constexpr size_t kMaxMessage = 300;

// A plug-in's name or version: 1..64 printable ASCII characters but space.
bool good_label(const char* s) {
  if (s == nullptr) return false;
  const size_t n = std::strlen(s);
  if (n == 0 || n > 64) return false;
  for (size_t i = 0; i < n; ++i) {
    if (s[i] <= ' ' || s[i] > '~') return false;
  }
  return true;
}

// The plug-in's message as one line of at most kMaxMessage bytes.
std::string one_line(const char* m) {
  if (m == nullptr) return "";
  std::string out;
  for (size_t i = 0; m[i] != '\0' && out.size() < kMaxMessage; ++i) {
    const unsigned char c = static_cast<unsigned char>(m[i]);
    out += c < ' ' || c == 0x7f ? ' ' : static_cast<char>(c);
  }
  return out;
}

template <class F>
bool find(void* handle, const char* symbol, F& out) {
  void* p = ::dlsym(handle, symbol);
  out = reinterpret_cast<F>(p);
  return p != nullptr;
}

}  // namespace

StatusOr<std::shared_ptr<LoadedPlugin>> LoadedPlugin::load(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Status::InvalidInput(path + ": cannot load the plug-in: " + one_line(why));
  }
  std::shared_ptr<LoadedPlugin> p(new LoadedPlugin());
  p->path_ = path;
  p->handle_ = handle;
  int32_t (*abi)() = nullptr;
  const char* (*name)() = nullptr;
  const char* (*version)() = nullptr;
  if (!find(handle, "tilesched_plugin_abi", abi) || !find(handle, "tilesched_plugin_name", name) ||
      !find(handle, "tilesched_plugin_version", version) ||
      !find(handle, "tilesched_plugin_schedule", p->schedule_) ||
      !find(handle, "tilesched_plugin_free", p->free_)) {
    return Status::InvalidInput(path + ": not a tilesched plug-in (it must export "
                                "tilesched_plugin_abi, _name, _version, _schedule and _free)");
  }
  if (const int32_t a = abi(); a != TILESCHED_PLUGIN_ABI) {
    return Status::InvalidInput(path + ": plug-in ABI " + std::to_string(a) + ", this tilesched "
                                "takes ABI " + std::to_string(TILESCHED_PLUGIN_ABI));
  }
  const char* n = name();
  const char* v = version();
  if (!good_label(n) || !good_label(v)) {
    return Status::InvalidInput(path + ": the plug-in's name and version must be 1..64 "
                                "printable characters without spaces");
  }
  p->name_ = n;
  p->version_ = v;
  return p;
}

ForeignOutcome LoadedPlugin::schedule(const Graph& g, const external::Bounds& b,
                                      int64_t time_limit_ms, const std::string& who) const {
  const external::PluginGraph view(g, b, time_limit_ms);
  tilesched_plugin_result* r = schedule_(&view.view());
  ForeignOutcome o;
  if (r == nullptr) {
    o.failure = ForeignFailure::kNull;
    o.message = "the plug-in returned NULL";
    return o;
  }
  const std::string message = one_line(r->message);
  if (r->status == TILESCHED_PLUGIN_OK && r->start != nullptr) {
    o = external::check_reply_values(
        r->ii, std::span<const int64_t>(r->start, static_cast<size_t>(g.op_count())), g, b, who);
  } else if (r->status == TILESCHED_PLUGIN_OK) {
    o.failure = ForeignFailure::kOpCount;
    o.message = "status OK with no start array";
  } else if (r->status == TILESCHED_PLUGIN_NO_SCHEDULE) {
    o = external::no_schedule(g, who, message);
  } else {
    o.failure = ForeignFailure::kError;
    o.message = message.empty() ? "the plug-in reported an error (status " +
                                      std::to_string(r->status) + ")"
                                : message;
  }
  free_(r);
  return o;
}

}  // namespace tilesched
