// Foreign schedulers (tilesched/foreign.h): the schedulers file, name
// resolution, and one call over either route with its outcome.
#include "tilesched/foreign.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <tuple>

#include "external/plugin_loader.h"
#include "external/reply.h"
#include "external/request.h"
#include "external/subprocess.h"
#include "io/json_reader.h"
#include "tilesched/json_io.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;
using jsonio::Cursor;
using jsonio::Fields;

constexpr std::string_view kExt = "ext:";
constexpr std::string_view kPlugin = "plugin:";

// A scheduler's name in the file: 1..64 of [A-Za-z0-9_.-].
bool good_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string replace_all(std::string s, std::string_view from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// One entry of the schedulers file, as declared.
struct Declared {
  std::string name, version, plugin;
  std::vector<std::string> command;
  int64_t time_limit_ms = kForeignDefaultTimeLimitMs;
};

StatusOr<int64_t> time_limit(const Cursor& c) {
  const jsonio::Json& v = c.value();
  if (!v.is_number()) return c.type_error("a number of seconds");
  const double s = v.get<double>();
  if (!(s > 0 && s * 1000 <= static_cast<double>(kForeignMaxTimeLimitMs))) {
    return c.error("must be above 0 and at most 86400 seconds");
  }
  return static_cast<int64_t>(std::llround(s * 1000));
}

StatusOr<Declared> read_entry(const Cursor& c, const std::string& dir) {
  static constexpr std::string_view kKeys[] = {"name", "version", "command", "plugin",
                                               "time_limit_s"};
  TS_ASSIGN_OR_RETURN(Fields f, Fields::open(c, kKeys));
  Declared d;
  TS_ASSIGN_OR_RETURN(d.name, f.required_string("name", 1, 64));
  if (!good_name(d.name)) {
    return f.required("name").value().error("a name is 1..64 of A-Z a-z 0-9 _ . -");
  }
  if (f.has("command") == f.has("plugin")) {
    return c.error("give exactly one of \"command\" (a program) and \"plugin\" (a library)");
  }
  if (std::optional<Cursor> cmd = f.optional("command")) {
    TS_ASSIGN_OR_RETURN(size_t n, cmd->array(4096, "arguments"));
    if (n == 0) return cmd->error("an empty command");
    for (size_t i = 0; i < n; ++i) {
      TS_ASSIGN_OR_RETURN(std::string arg, cmd->element(i).string(i == 0 ? 1 : 0, 4096));
      d.command.push_back(replace_all(std::move(arg), "{dir}", dir));
    }
    TS_ASSIGN_OR_RETURN(d.version, f.required_string("version", 1, 64));
  } else {
    if (f.has("version")) {
      return f.required("version").value().error("a plug-in's version is its own "
                                                 "(tilesched_plugin_version); leave it out");
    }
    TS_ASSIGN_OR_RETURN(std::string path, f.required_string("plugin", 1, 4096));
    d.plugin = replace_all(std::move(path), "{dir}", dir);
  }
  if (std::optional<Cursor> t = f.optional("time_limit_s")) {
    TS_ASSIGN_OR_RETURN(d.time_limit_ms, time_limit(*t));
  }
  return d;
}

StatusOr<std::vector<Declared>> read_schedulers(const std::string& path) {
  StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return text.status();
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return jsonio::read_document<std::vector<Declared>>(
      *text, path, [&](const Cursor& root) -> StatusOr<std::vector<Declared>> {
        TS_RETURN_IF_ERROR(jsonio::check_format(root, kSchedulersFormat));
        static constexpr std::string_view kKeys[] = {"format", "schedulers"};
        TS_ASSIGN_OR_RETURN(Fields f, Fields::open(root, kKeys));
        TS_ASSIGN_OR_RETURN(Cursor list, f.required("schedulers"));
        TS_ASSIGN_OR_RETURN(size_t n, list.array(1024, "schedulers"));
        std::vector<Declared> out;
        for (size_t i = 0; i < n; ++i) {
          TS_ASSIGN_OR_RETURN(Declared d, read_entry(list.element(i), dir));
          for (const Declared& o : out) {
            if (o.name == d.name) {
              return list.element(i).error("scheduler \"" + d.name + "\" declared twice");
            }
          }
          out.push_back(std::move(d));
        }
        return out;
      });
}

StatusOr<ForeignScheduler> load_plugin(const std::string& path, int64_t time_limit_ms) {
  StatusOr<std::shared_ptr<LoadedPlugin>> p = LoadedPlugin::load(path);
  if (!p.ok()) return p.status();
  ForeignScheduler s;
  s.name = std::string(kPlugin) + (*p)->name();
  s.version = (*p)->version();
  s.plugin_path = path;
  s.plugin = *p;
  s.time_limit_ms = time_limit_ms;
  return s;
}

std::string signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "signal " + std::to_string(sig);
  }
}

// The last non-empty line of `err`, cut to 200 bytes: a failed program's
// message.
std::string last_line(const std::string& err) {
  size_t end = err.find_last_not_of("\r\n\t ");
  if (end == std::string::npos) return "";
  const size_t begin = err.rfind('\n', end);
  std::string line = err.substr(begin == std::string::npos ? 0 : begin + 1,
                                end + 1 - (begin == std::string::npos ? 0 : begin + 1));
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < ' ') c = ' ';
  }
  if (line.size() > 200) line = line.substr(0, 197) + "...";
  return line;
}

// A directory of our own for the {graph} and {request} files, removed at
// the end of the call.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/tilesched-ext.XXXXXX";
    if (::mkdtemp(templ.data()) != nullptr) path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

ForeignOutcome failed(ForeignFailure f, std::string message) {
  ForeignOutcome o;
  o.failure = f;
  o.message = std::move(message);
  return o;
}

ForeignOutcome run_process_route(const ForeignScheduler& s, const Graph& g,
                                 const external::Bounds& b) {
  const std::string request = external::request_json(g, b, s.time_limit_ms);
  std::vector<std::string> argv = s.command;
  std::optional<TempDir> tmp;
  for (std::string& arg : argv) {
    for (const auto& [token, file, text] :
         {std::tuple<std::string_view, const char*, std::string>{"{graph}", "graph.loop.json",
                                                                  write_graph_json(g)},
          {"{request}", "request.json", request}}) {
      if (arg.find(token) == std::string::npos) continue;
      if (!tmp) tmp.emplace();
      const std::string path = tmp->path() + "/" + file;
      if (tmp->path().empty() || !write_file_atomic(path, text).ok()) {
        return failed(ForeignFailure::kSpawn, "cannot write the " + std::string(token) + " file");
      }
      arg = replace_all(arg, token, path);
    }
  }
  external::SpawnLimits limits;
  limits.time_limit_ms = s.time_limit_ms;
  limits.max_stdout = kForeignMaxStdout;
  limits.max_stderr = kForeignMaxStderr;
  const external::SpawnResult r = external::run_process(argv, request, limits);
  using End = external::SpawnResult::End;
  ForeignOutcome o;
  switch (r.end) {
    case End::kSpawnFailed: o = failed(ForeignFailure::kSpawn, r.error); break;
    case End::kSignaled:
      o = failed(ForeignFailure::kSignal, "killed by " + signal_text(r.term_signal) +
                                              (r.err.empty() ? "" : ": " + last_line(r.err)));
      break;
    case End::kTimedOut:
      o = failed(ForeignFailure::kTimeout,
                 "no reply within the time limit of " + std::to_string(s.time_limit_ms) +
                     " ms; its process group was killed");
      break;
    case End::kStdoutLimit:
      o = failed(ForeignFailure::kStdoutLimit, "more than " +
                                                   std::to_string(kForeignMaxStdout) +
                                                   " bytes on standard output; killed");
      break;
    case End::kStderrLimit:
      o = failed(ForeignFailure::kStderrLimit, "more than " +
                                                   std::to_string(kForeignMaxStderr) +
                                                   " bytes on standard error; killed");
      break;
    case End::kExited:
      if (r.exit_status != 0) {
        const std::string msg = last_line(r.err);
        o = failed(ForeignFailure::kExit, "exit status " + std::to_string(r.exit_status) +
                                              (msg.empty() ? "" : ": " + msg));
      } else {
        o = external::check_reply_json(r.out, g, b, s.name);
      }
      break;
  }
  o.child_cpu_ns = r.cpu_ns;
  return o;
}

}  // namespace

bool is_foreign_generator(std::string_view name) {
  return name.substr(0, kExt.size()) == kExt || name.substr(0, kPlugin.size()) == kPlugin;
}

StatusOr<ForeignScheduler> resolve_foreign(std::string_view name,
                                           const std::string& schedulers_file) {
  const bool ext = name.substr(0, kExt.size()) == kExt;
  const std::string rest =
      is_foreign_generator(name) ? std::string(name.substr(ext ? kExt.size() : kPlugin.size())) : "";
  if (rest.empty()) {
    return Status::InvalidInput("'" + std::string(name) + "' is not ext:NAME or plugin:PATH");
  }
  if (!ext && rest.find('/') != std::string::npos) {
    return load_plugin(rest, kForeignDefaultTimeLimitMs);
  }
  std::string file = schedulers_file;
  if (file.empty()) {
    const char* env = std::getenv(std::string(kSchedulersVariable).c_str());
    if (env == nullptr || *env == '\0') {
      return Status::InvalidInput(
          std::string(name) + ": no schedulers file: set " + std::string(kSchedulersVariable) +
          " to a tilesched.schedulers/1 file that declares \"" + rest + "\" (docs/PLUGINS.md)" +
          (ext ? "" : ", or give plugin:PATH with a '/' in it"));
    }
    file = env;
  }
  StatusOr<std::vector<Declared>> declared = read_schedulers(file);
  if (!declared.ok()) return declared.status();
  for (const Declared& d : *declared) {
    if (d.name != rest) continue;
    if (ext != d.plugin.empty()) {
      return Status::InvalidInput(file + ": \"" + rest + "\" is declared as a " +
                                  (ext ? "plug-in: use plugin:" : "program: use ext:") + rest);
    }
    if (!ext) {
      StatusOr<ForeignScheduler> s = load_plugin(d.plugin, d.time_limit_ms);
      if (s.ok() && s->name != name) {
        return Status::InvalidInput(file + ": \"" + rest + "\" names a plug-in that calls "
                                    "itself \"" + s->name.substr(kPlugin.size()) + "\"");
      }
      return s;
    }
    ForeignScheduler s;
    s.name = std::string(name);
    s.version = d.version;
    s.command = d.command;
    s.time_limit_ms = d.time_limit_ms;
    return s;
  }
  return Status::InvalidInput(file + ": declares no scheduler \"" + rest + "\"");
}

std::string_view foreign_failure_name(ForeignFailure f) {
  switch (f) {
    case ForeignFailure::kNone: return "none";
    case ForeignFailure::kSpawn: return "foreign-spawn";
    case ForeignFailure::kSignal: return "foreign-signal";
    case ForeignFailure::kTimeout: return "foreign-timeout";
    case ForeignFailure::kExit: return "foreign-exit";
    case ForeignFailure::kEmpty: return "foreign-empty";
    case ForeignFailure::kNotJson: return "foreign-not-json";
    case ForeignFailure::kTruncated: return "foreign-truncated";
    case ForeignFailure::kFormat: return "foreign-format";
    case ForeignFailure::kOtherGraph: return "foreign-other-graph";
    case ForeignFailure::kOpCount: return "foreign-op-count";
    case ForeignFailure::kStart: return "foreign-start";
    case ForeignFailure::kIi: return "foreign-ii";
    case ForeignFailure::kIiCap: return "foreign-ii-cap";
    case ForeignFailure::kStageCap: return "foreign-stage-cap";
    case ForeignFailure::kStdoutLimit: return "foreign-stdout-limit";
    case ForeignFailure::kStderrLimit: return "foreign-stderr-limit";
    case ForeignFailure::kNull: return "foreign-null";
    case ForeignFailure::kError: return "foreign-error";
  }
  return "foreign-error";
}

ForeignOutcome run_foreign(const ForeignScheduler& s, const Graph& g, const ForeignRequest& req) {
  const auto t0 = std::chrono::steady_clock::now();
  const external::Bounds b = external::request_bounds(g, req);
  ForeignOutcome o = s.is_plugin() ? s.plugin->schedule(g, b, s.time_limit_ms, s.name)
                                   : run_process_route(s, g, b);
  o.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - t0).count();
  if (o.schedule) o.schedule->time_ns = o.wall_ns;
  return o;
}

std::string foreign_request_json(const Graph& g, const ForeignRequest& req) {
  return external::request_json(g, external::request_bounds(g, req), kForeignDefaultTimeLimitMs);
}

}  // namespace tilesched
