// Reading and writing schedules in tilesched.schedule/1 (docs/FORMATS.md). A
// schedule is read against its graph: every op of the graph appears exactly
// once, by its JSON id, with a start cycle; stage and order fall back to
// their derived values (derive_stage_order). Everything the writer emits is
// read back, so parse(write(s)) == s for any schedule a generator produces,
// feasible or not; the Pipe_/Mutex_ values are read as written and the graph
// edges each one carries (not in the JSON) derived.
#include <algorithm>
#include <map>
#include <span>
#include <utility>

#include "json_reader.h"
#include "model/value_edges.h"
#include "tilesched/json_io.h"
#include "tilesched/limits.h"
#include "util/text.h"

namespace tilesched {

namespace {

using jsonio::Cursor;
using jsonio::Fields;
using jsonio::Json;
using text::quote;

constexpr std::string_view kTopFields[] = {"format",    "graph",       "generator",   "options",
                                           "selection", "feasible",    "failure",     "ii",
                                           "mii",       "stage_count", "ops",         "pipes",
                                           "mutexes",   "flags",       "diagnostics", "stats",
                                           "time_ns",   "lower_bound", "proven_optimal", "stages_proven"};
constexpr std::string_view kMiiFields[] = {"resource", "recurrence", "fine_density", "dependency",
                                           "max"};
constexpr std::string_view kOpFields[] = {"id", "start", "stage", "order", "agent"};
constexpr std::string_view kPipeFields[] = {"id",    "producers",      "consumer",
                                            "owner", "depth",          "producer_agent",
                                            "consumer_agent"};
constexpr std::string_view kMutexFields[] = {"id", "releaser", "acquirer", "owner", "depth"};

constexpr FailureReason kFailureReasons[] = {
    FailureReason::kNone, FailureReason::kDependenceCycle, FailureReason::kStorageBudget,
    FailureReason::kIiCapReached, FailureReason::kBudgetExhausted};

// Generous bound on MII figures: far above anything kMaxOps x kMaxEdges
// x kMaxLatency can produce, far below overflow.
constexpr int64_t kMaxBound = limits::kMaxStart;

class ScheduleReader {
 public:
  explicit ScheduleReader(const Graph& g) : g_(g) {}
  StatusOr<Schedule> read(const Cursor& root);

 private:
  Status read_options(const Cursor& c);
  Status read_stats(const Cursor& c);
  Status read_failure(const Cursor& c);
  Status read_mii(const Cursor& c);
  Status read_proof(const Fields& top);
  Status read_ops(const Cursor& c, const Fields& top);
  Status take_agents(const Cursor& c, const std::vector<std::optional<std::string>>& agent);
  Status read_pipes(const Cursor& c);
  StatusOr<Pipe> read_pipe(const Fields& f) const;
  Status read_mutexes(const Cursor& c);
  StatusOr<Mutex> read_mutex(const Fields& f) const;
  StatusOr<OpId> read_op_id(const Cursor& c) const;
  StatusOr<OpId> read_op_field(const Fields& f, std::string_view key) const;
  StatusOr<std::vector<std::string>> read_strings(const Cursor& c) const;

  const Graph& g_;
  std::map<std::string, OpId, std::less<>> ids_;  // op JSON id -> OpId
  Schedule s_;
};

StatusOr<Schedule> ScheduleReader::read(const Cursor& root) {
  for (OpId v = 0; v < g_.op_count(); ++v) ids_.emplace(g_.ops[v].name, v);
  TS_RETURN_IF_ERROR(jsonio::check_format(root, kScheduleFormat));
  TS_ASSIGN_OR_RETURN(Fields top, Fields::open(root, kTopFields));
  TS_ASSIGN_OR_RETURN(s_.graph, top.string_or("graph", 0, SIZE_MAX, g_.name));
  if (s_.graph != g_.name) {  // a schedule of another graph, even with the same op ids
    return top.object().member("graph").error("the schedule is of graph " + quote(s_.graph) +
                                              ", not of " + quote(g_.name));
  }
  TS_ASSIGN_OR_RETURN(s_.generator, top.string_or("generator", 0, SIZE_MAX, ""));
  if (std::optional<Cursor> c = top.optional("options")) TS_RETURN_IF_ERROR(read_options(*c));
  TS_ASSIGN_OR_RETURN(s_.selection, top.string_or("selection", 0, SIZE_MAX, ""));
  // A schedule without "feasible" (hand-written, for `verify`) claims to be one.
  TS_ASSIGN_OR_RETURN(s_.feasible, top.boolean_or("feasible", true));
  if (std::optional<Cursor> c = top.optional("failure")) TS_RETURN_IF_ERROR(read_failure(*c));
  // An infeasible schedule may carry no schedule at all: II 0, no ops.
  TS_ASSIGN_OR_RETURN(s_.ii, top.required_integer("ii", s_.feasible ? 1 : 0, limits::kMaxII));
  if (std::optional<Cursor> c = top.optional("mii")) TS_RETURN_IF_ERROR(read_mii(*c));
  TS_ASSIGN_OR_RETURN(Cursor ops_c, top.required("ops"));
  TS_RETURN_IF_ERROR(read_ops(ops_c, top));
  if (std::optional<Cursor> c = top.optional("pipes")) TS_RETURN_IF_ERROR(read_pipes(*c));
  if (std::optional<Cursor> c = top.optional("mutexes")) TS_RETURN_IF_ERROR(read_mutexes(*c));
  // The edges each value carries follow from its fields and the schedule.
  derive_value_edges(g_, s_);
  if (std::optional<Cursor> c = top.optional("flags")) {
    TS_ASSIGN_OR_RETURN(s_.flags, read_strings(*c));
  }
  if (std::optional<Cursor> c = top.optional("diagnostics")) {
    TS_ASSIGN_OR_RETURN(s_.diagnostics, read_strings(*c));
  }
  if (std::optional<Cursor> c = top.optional("stats")) TS_RETURN_IF_ERROR(read_stats(*c));
  TS_ASSIGN_OR_RETURN(s_.time_ns, top.integer_or("time_ns", 0, INT64_MAX, 0));
  TS_RETURN_IF_ERROR(read_proof(top));
  return std::move(s_);
}

Status ScheduleReader::read_options(const Cursor& c) {
  TS_RETURN_IF_ERROR(c.expect_object());
  for (auto it = c.value().begin(); it != c.value().end(); ++it) {
    const Cursor member(it.value(), jsonio::member_path(c.path(), it.key()));
    TS_ASSIGN_OR_RETURN(std::string value, member.string(0, SIZE_MAX));
    s_.options.emplace_back(it.key(), std::move(value));
  }
  return Status::Ok();
}

Status ScheduleReader::read_stats(const Cursor& c) {
  TS_RETURN_IF_ERROR(c.expect_object());
  for (auto it = c.value().begin(); it != c.value().end(); ++it) {
    const Cursor member(it.value(), jsonio::member_path(c.path(), it.key()));
    TS_ASSIGN_OR_RETURN(int64_t value, member.integer(0, INT64_MAX));
    s_.stats.emplace_back(it.key(), value);
  }
  return Status::Ok();
}

Status ScheduleReader::read_failure(const Cursor& c) {
  TS_ASSIGN_OR_RETURN(std::string name, c.string(0, SIZE_MAX));
  std::string known;
  for (FailureReason r : kFailureReasons) {
    if (failure_reason_name(r) == name) {
      s_.failure = r;
      return Status::Ok();
    }
    known += (known.empty() ? "" : ", ") + std::string(failure_reason_name(r));
  }
  return c.error("unknown failure reason " + quote(name) + " (expected one of: " + known + ")");
}

Status ScheduleReader::read_mii(const Cursor& c) {
  TS_ASSIGN_OR_RETURN(Fields f, Fields::open(c, kMiiFields));
  MiiBounds& m = s_.mii;
  TS_ASSIGN_OR_RETURN(m.resource, f.integer_or("resource", 0, kMaxBound, 1));
  TS_ASSIGN_OR_RETURN(m.recurrence, f.integer_or("recurrence", 0, kMaxBound, 1));
  TS_ASSIGN_OR_RETURN(m.fine_density, f.integer_or("fine_density", 0, kMaxBound, 1));
  TS_ASSIGN_OR_RETURN(m.dependency, f.integer_or("dependency", 0, kMaxBound, 1));
  TS_ASSIGN_OR_RETURN(std::optional<int64_t> max, f.optional_integer("max", 0, kMaxBound));
  if (max && *max != m.max()) {
    return c.member("max").error(std::to_string(*max) + " is not the largest of the four bounds (" +
                                 std::to_string(m.max()) + ")");
  }
  return Status::Ok();
}

// The exact oracle's "lower_bound" and "proven_optimal": a proof claims
// the reported II, so it needs the bound to meet it.
Status ScheduleReader::read_proof(const Fields& top) {
  TS_ASSIGN_OR_RETURN(s_.lower_bound, top.optional_integer("lower_bound", 1, limits::kMaxII));
  TS_ASSIGN_OR_RETURN(s_.proven_optimal, top.boolean_or("proven_optimal", false));
  if (s_.proven_optimal && (!s_.feasible || s_.lower_bound != s_.ii)) {
    return top.object().member("proven_optimal")
        .error("a proven optimum needs a feasible schedule with lower_bound equal to ii");
  }
  TS_ASSIGN_OR_RETURN(s_.stages_proven, top.boolean_or("stages_proven", false));
  if (s_.stages_proven && (!s_.feasible || !s_.lower_bound)) {
    return top.object().member("stages_proven")
        .error("a proven stage count needs a feasible schedule with a lower_bound");
  }
  if (s_.feasible && s_.lower_bound && *s_.lower_bound > s_.ii) {
    return top.object().member("lower_bound")
        .error(std::to_string(*s_.lower_bound) + " is above the schedule's ii " +
               std::to_string(s_.ii));
  }
  return Status::Ok();
}

// "ops": every graph op once, in any order; fills start, stage, order and
// stage_count (recorded values win, absent ones are derived).
Status ScheduleReader::read_ops(const Cursor& c, const Fields& top) {
  TS_ASSIGN_OR_RETURN(size_t n, c.array(limits::kMaxOps, "ops"));
  if (n == 0 && !s_.feasible) {
    TS_ASSIGN_OR_RETURN(s_.stage_count, top.integer_or("stage_count", 0, kMaxBound, 0));
    return Status::Ok();
  }
  if (s_.ii < 1) return top.object().member("ii").error("a schedule with ops needs ii >= 1");

  const size_t n_ops = static_cast<size_t>(g_.op_count());
  std::vector<std::optional<size_t>> listed_at(n_ops);  // element index per op
  std::vector<std::optional<int64_t>> stage(n_ops), order(n_ops);
  std::vector<std::optional<std::string>> agent(n_ops);
  s_.start.assign(n_ops, 0);

  for (size_t i = 0; i < n; ++i) {
    const Cursor e = c.element(i);
    TS_ASSIGN_OR_RETURN(Fields f, Fields::open(e, kOpFields));
    TS_ASSIGN_OR_RETURN(Cursor id_c, f.required("id"));
    TS_ASSIGN_OR_RETURN(const OpId v, read_op_id(id_c));
    const std::string& name = g_.ops[v].name;
    if (listed_at[v]) {
      return id_c.error("op " + quote(name) + " is listed twice (first at " +
                        c.element(*listed_at[v]).path() + ")");
    }
    listed_at[v] = i;
    TS_ASSIGN_OR_RETURN(s_.start[v], f.required_integer("start", 0, limits::kMaxStart));
    TS_ASSIGN_OR_RETURN(stage[v], f.optional_integer("stage", 0, limits::kMaxStart));
    TS_ASSIGN_OR_RETURN(order[v], f.optional_integer("order", 0, limits::kMaxOps));
    if (std::optional<Cursor> a = f.optional("agent")) {
      TS_ASSIGN_OR_RETURN(agent[v], a->string(1, limits::kMaxNameLength));
    }
  }
  for (size_t v = 0; v < n_ops; ++v) {
    if (!listed_at[v]) {
      return c.error("op " + quote(g_.ops[v].name) + " is missing (every op of graph " +
                     quote(g_.name) + " needs a start)");
    }
  }

  Schedule derived;
  derived.ii = s_.ii;
  derived.start = s_.start;
  derive_stage_order(derived);
  s_.stage = derived.stage;
  s_.order = derived.order;
  for (size_t v = 0; v < n_ops; ++v) {
    if (stage[v]) s_.stage[v] = *stage[v];
    if (order[v]) s_.order[v] = *order[v];
  }
  TS_RETURN_IF_ERROR(take_agents(c, agent));
  TS_ASSIGN_OR_RETURN(s_.stage_count,
                      top.integer_or("stage_count", 0, kMaxBound, derived.stage_count));
  return Status::Ok();
}

// Agents: every op names one, or none does (a file from before agents).
Status ScheduleReader::take_agents(const Cursor& c,
                                   const std::vector<std::optional<std::string>>& agent) {
  const size_t n_ops = agent.size();
  const size_t named = static_cast<size_t>(
      std::count_if(agent.begin(), agent.end(), [](const auto& a) { return a.has_value(); }));
  if (named != 0 && named != n_ops) {
    return c.error("either every op or none names its \"agent\" (" + std::to_string(named) +
                   " of " + std::to_string(n_ops) + " do)");
  }
  if (named == n_ops) {
    for (size_t v = 0; v < n_ops; ++v) s_.agents.push_back(*agent[v]);
  }
  return Status::Ok();
}

StatusOr<OpId> ScheduleReader::read_op_id(const Cursor& c) const {
  TS_ASSIGN_OR_RETURN(std::string name, c.string(0, SIZE_MAX));
  auto it = ids_.find(name);
  if (it == ids_.end()) {
    return c.error("unknown op id " + quote(name) + " (not in graph " + quote(g_.name) + ")");
  }
  return it->second;
}

// A required member naming an op of the graph.
StatusOr<OpId> ScheduleReader::read_op_field(const Fields& f, std::string_view key) const {
  TS_ASSIGN_OR_RETURN(Cursor c, f.required(key));
  return read_op_id(c);
}

// An array of at most limits::kMaxEdges objects with the fields `known`,
// each read into `out` by `read_one` (Fields -> StatusOr<T>).
template <class T, class ReadOne>
Status read_value_array(const Cursor& c, std::string_view what,
                        std::span<const std::string_view> known, ReadOne read_one,
                        std::vector<T>& out) {
  TS_ASSIGN_OR_RETURN(size_t n, c.array(limits::kMaxEdges, what));
  for (size_t i = 0; i < n; ++i) {
    TS_ASSIGN_OR_RETURN(Fields f, Fields::open(c.element(i), known));
    TS_ASSIGN_OR_RETURN(T value, read_one(f));
    out.push_back(std::move(value));
  }
  return Status::Ok();
}

// "pipes": each {id, producers, consumer, owner, depth}; whether they are
// the right ones is the verifier's question (docs/VERIFIER.md).
Status ScheduleReader::read_pipes(const Cursor& c) {
  return read_value_array(c, "pipes", kPipeFields, [&](const Fields& f) { return read_pipe(f); },
                          s_.pipes);
}

StatusOr<Pipe> ScheduleReader::read_pipe(const Fields& f) const {
  Pipe p;
  TS_ASSIGN_OR_RETURN(p.id, f.required_string("id", 1, limits::kMaxNameLength));
  TS_ASSIGN_OR_RETURN(Cursor producers, f.required("producers"));
  TS_ASSIGN_OR_RETURN(size_t k, producers.array(limits::kMaxOps, "producers"));
  for (size_t j = 0; j < k; ++j) {
    TS_ASSIGN_OR_RETURN(OpId u, read_op_id(producers.element(j)));
    p.producers.push_back(u);
  }
  TS_ASSIGN_OR_RETURN(p.consumer, read_op_field(f, "consumer"));
  TS_ASSIGN_OR_RETURN(p.owner, read_op_field(f, "owner"));
  TS_ASSIGN_OR_RETURN(p.depth, f.required_integer("depth", 0, kMaxBound));
  if (std::optional<Cursor> a = f.optional("producer_agent")) {
    TS_ASSIGN_OR_RETURN(p.producer_agent, a->string(1, limits::kMaxNameLength));
  }
  if (std::optional<Cursor> a = f.optional("consumer_agent")) {
    TS_ASSIGN_OR_RETURN(p.consumer_agent, a->string(1, limits::kMaxNameLength));
  }
  return p;
}

// "mutexes": each {id, releaser, acquirer, owner, depth}.
Status ScheduleReader::read_mutexes(const Cursor& c) {
  return read_value_array(c, "mutexes", kMutexFields,
                          [&](const Fields& f) { return read_mutex(f); }, s_.mutexes);
}

StatusOr<Mutex> ScheduleReader::read_mutex(const Fields& f) const {
  Mutex m;
  TS_ASSIGN_OR_RETURN(m.id, f.required_string("id", 1, limits::kMaxNameLength));
  TS_ASSIGN_OR_RETURN(m.releaser, read_op_field(f, "releaser"));
  TS_ASSIGN_OR_RETURN(m.acquirer, read_op_field(f, "acquirer"));
  TS_ASSIGN_OR_RETURN(m.owner, read_op_field(f, "owner"));
  TS_ASSIGN_OR_RETURN(m.depth, f.required_integer("depth", 0, kMaxBound));
  return m;
}

StatusOr<std::vector<std::string>> ScheduleReader::read_strings(const Cursor& c) const {
  TS_ASSIGN_OR_RETURN(size_t n, c.array(SIZE_MAX, "strings"));
  std::vector<std::string> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    TS_ASSIGN_OR_RETURN(std::string s, c.element(i).string(0, SIZE_MAX));
    out.push_back(std::move(s));
  }
  return out;
}

template <typename T>
int64_t at_or_zero(const std::vector<T>& v, size_t i) {
  return i < v.size() ? static_cast<int64_t>(v[i]) : 0;
}

// An op by its JSON id. REQUIRES: inside the graph; a stray index is
// written as a number.
Json op_ref(const Graph& g, OpId v) {
  return v >= 0 && static_cast<size_t>(v) < g.ops.size() ? Json(g.ops[v].name) : Json(v);
}

// Key-value pairs (options, stats) as one JSON object, in their order.
template <typename Pairs>
Json object_of(const Pairs& pairs) {
  Json out = Json::object();
  for (const auto& [key, value] : pairs) out[key] = value;
  return out;
}

Json mii_json(const MiiBounds& m) {
  return Json{{"resource", m.resource},
              {"recurrence", m.recurrence},
              {"fine_density", m.fine_density},
              {"dependency", m.dependency},
              {"max", m.max()}};
}

// REQUIRES: one start per graph op.
Json ops_json(const Graph& g, const Schedule& s) {
  Json ops = Json::array();
  for (size_t v = 0; v < s.start.size(); ++v) {
    Json op{{"id", op_ref(g, static_cast<OpId>(v))},
            {"start", s.start[v]},
            {"stage", at_or_zero(s.stage, v)},
            {"order", at_or_zero(s.order, v)}};
    if (s.agents.size() == s.start.size()) op["agent"] = s.agents[v];
    ops.push_back(std::move(op));
  }
  return ops;
}

Json pipes_json(const Graph& g, const std::vector<Pipe>& pipes) {
  Json out = Json::array();
  for (const Pipe& p : pipes) {
    Json producers = Json::array();
    for (OpId u : p.producers) producers.push_back(op_ref(g, u));
    Json pipe{{"id", p.id},
              {"producers", std::move(producers)},
              {"consumer", op_ref(g, p.consumer)},
              {"owner", op_ref(g, p.owner)},
              {"depth", p.depth}};
    if (!p.producer_agent.empty()) pipe["producer_agent"] = p.producer_agent;
    if (!p.consumer_agent.empty()) pipe["consumer_agent"] = p.consumer_agent;
    out.push_back(std::move(pipe));
  }
  return out;
}

Json mutexes_json(const Graph& g, const std::vector<Mutex>& mutexes) {
  Json out = Json::array();
  for (const Mutex& m : mutexes) {
    out.push_back(Json{{"id", m.id},
                       {"releaser", op_ref(g, m.releaser)},
                       {"acquirer", op_ref(g, m.acquirer)},
                       {"owner", op_ref(g, m.owner)},
                       {"depth", m.depth}});
  }
  return out;
}

}  // namespace

StatusOr<Schedule> parse_schedule_json(std::string_view text, std::string_view source,
                                       const Graph& g) {
  return jsonio::read_document<Schedule>(
      text, source, [&](const Cursor& root) { return ScheduleReader(g).read(root); });
}

StatusOr<Schedule> read_schedule_file(const std::string& path, const Graph& g) {
  StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return text.status();
  return parse_schedule_json(*text, path, g);
}

std::string write_schedule_json(const Graph& g, const Schedule& s) {
  Json doc = Json::object();
  doc["format"] = std::string(kScheduleFormat);
  doc["graph"] = s.graph;
  doc["generator"] = s.generator;
  doc["options"] = object_of(s.options);
  doc["selection"] = s.selection;
  doc["feasible"] = s.feasible;
  if (!s.feasible) doc["failure"] = std::string(failure_reason_name(s.failure));
  doc["ii"] = s.ii;
  doc["mii"] = mii_json(s.mii);
  doc["stage_count"] = s.stage_count;
  doc["ops"] = ops_json(g, s);
  doc["pipes"] = pipes_json(g, s.pipes);
  doc["mutexes"] = mutexes_json(g, s.mutexes);
  doc["flags"] = s.flags;
  doc["diagnostics"] = s.diagnostics;
  if (!s.stats.empty()) doc["stats"] = object_of(s.stats);
  doc["time_ns"] = s.time_ns;
  if (s.lower_bound) {
    doc["lower_bound"] = *s.lower_bound;
    doc["proven_optimal"] = s.proven_optimal;
    doc["stages_proven"] = s.stages_proven;
  }
  return jsonio::format_document(doc);
}

}  // namespace tilesched
