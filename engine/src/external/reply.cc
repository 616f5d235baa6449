// Checking a foreign scheduler's answer (reply.h). The JSON route classifies
// what it can name (empty, not JSON, cut short, another format, another
// graph, the op count, the II and the starts) before the schedule reader
// of docs/FORMATS.md reads the whole reply strictly; both routes then share
// the range checks and the request's caps.
#include "external/reply.h"

#include <algorithm>
#include <utility>

#include "io/json_reader.h"
#include "tilesched/json_io.h"
#include "tilesched/limits.h"
#include "tilesched/mii.h"

namespace tilesched::external {
namespace {

using jsonio::Cursor;
using jsonio::Json;

ForeignOutcome failed(ForeignFailure f, std::string message) {
  ForeignOutcome o;
  o.failure = f;
  o.message = std::move(message);
  return o;
}

bool blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; });
}

// The checks both routes share once the schedule is of `g`: II, starts,
// the request's II cap and stage cap; then the derived fields.
ForeignOutcome finish(Schedule s, const Graph& g, const Bounds& b, const std::string& who) {
  if (s.ii < 1 || s.ii > limits::kMaxII) {
    return failed(ForeignFailure::kIi, "II " + std::to_string(s.ii) + " is out of range 1.." +
                                           std::to_string(limits::kMaxII));
  }
  if (static_cast<int>(s.start.size()) != g.op_count()) {
    return failed(ForeignFailure::kOpCount, std::to_string(s.start.size()) +
                                                " starts for a graph of " +
                                                std::to_string(g.op_count()) + " ops");
  }
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (s.start[v] < 0 || s.start[v] > limits::kMaxStart) {
      return failed(ForeignFailure::kStart, "op '" + g.ops[v].name + "': start " +
                                                std::to_string(s.start[v]) +
                                                " is out of range 0..2^40");
    }
  }
  if (s.ii > b.ii_max) {
    return failed(ForeignFailure::kIiCap, "II " + std::to_string(s.ii) +
                                              " is above the request's ii_max " +
                                              std::to_string(b.ii_max));
  }
  const int64_t last = *std::max_element(s.start.begin(), s.start.end());
  if (b.max_stages > 0 && last / s.ii + 1 > b.max_stages) {
    return failed(ForeignFailure::kStageCap,
                  std::to_string(last / s.ii + 1) + " stages, above the request's max_stages " +
                      std::to_string(b.max_stages));
  }
  s.graph = g.name;
  s.generator = who;
  s.feasible = true;
  s.failure = FailureReason::kNone;
  s.mii = compute_mii(g);
  if (s.stage.empty() || s.order.empty()) derive_stage_order(s);
  ForeignOutcome o;
  o.schedule = std::move(s);
  return o;
}

// What the reply's JSON says before the strict read: a failure, or nothing.
std::optional<ForeignOutcome> classify(const Json& root, const Graph& g) {
  const Cursor doc(root, "$");
  if (Status s = jsonio::check_format(doc, kScheduleFormat); !s.ok()) {
    return failed(ForeignFailure::kFormat, s.message());
  }
  if (root.contains("graph") && root["graph"].is_string() &&
      root["graph"].get<std::string>() != g.name) {
    return failed(ForeignFailure::kOtherGraph,
                  "$.graph: a schedule of graph \"" + root["graph"].get<std::string>() +
                      "\", not of \"" + g.name + "\"");
  }
  if (root.contains("feasible") && root["feasible"].is_boolean() &&
      !root["feasible"].get<bool>()) {
    return std::nullopt;  // no_schedule's case, read strictly below
  }
  if (!root.contains("ii") || !root["ii"].is_number_integer()) {
    return failed(ForeignFailure::kFormat, "$.ii: missing, or not an integer");
  }
  if (const int64_t ii = root["ii"].get<int64_t>(); ii < 1 || ii > limits::kMaxII) {
    return failed(ForeignFailure::kIi,
                  "$.ii: " + std::to_string(ii) + " is out of range 1.." + std::to_string(limits::kMaxII));
  }
  if (!root.contains("ops") || !root["ops"].is_array()) {
    return failed(ForeignFailure::kFormat, "$.ops: missing, or not an array");
  }
  const Json& ops = root["ops"];
  if (ops.size() != static_cast<size_t>(g.op_count())) {
    return failed(ForeignFailure::kOpCount, "$.ops: " + std::to_string(ops.size()) +
                                                " ops for a graph of " +
                                                std::to_string(g.op_count()));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string at = "$.ops[" + std::to_string(i) + "]";
    const Json& op = ops[i];
    if (!op.is_object() || !op.contains("id") || !op["id"].is_string()) {
      return failed(ForeignFailure::kFormat, at + ": not an object with a string \"id\"");
    }
    if (!g.find_op(op["id"].get<std::string>())) {
      return failed(ForeignFailure::kOtherGraph, at + ".id: \"" + op["id"].get<std::string>() +
                                                     "\" is no op of graph \"" + g.name + "\"");
    }
    if (!op.contains("start") || !op["start"].is_number_integer()) {
      return failed(ForeignFailure::kFormat, at + ".start: missing, or not an integer");
    }
    const int64_t start = op["start"].get<int64_t>();
    if (start < 0 || start > limits::kMaxStart) {
      return failed(ForeignFailure::kStart,
                    at + ".start: " + std::to_string(start) + " is out of range 0..2^40");
    }
  }
  return std::nullopt;
}

}  // namespace

ForeignOutcome no_schedule(const Graph& g, const std::string& who, std::string reason) {
  Schedule s;
  s.graph = g.name;
  s.generator = who;
  s.feasible = false;
  s.failure = FailureReason::kIiCapReached;
  s.mii = compute_mii(g);
  if (!reason.empty()) s.diagnostics.push_back(std::move(reason));
  ForeignOutcome o;
  o.schedule = std::move(s);
  return o;
}

namespace {

ForeignOutcome check_reply_text(std::string_view text, const Graph& g, const Bounds& b,
                                const std::string& who) {
  if (blank(text)) return failed(ForeignFailure::kEmpty, "no reply on standard output");
  StatusOr<Json> root = jsonio::parse_json_text(text);
  if (!root.ok()) {
    // Cut short: an object begun and never closed (a partial write).
    const std::string& m = root.status().message();
    const size_t first = text.find_first_not_of(" \n\r\t");
    const size_t last = text.find_last_not_of(" \n\r\t");
    const bool cut = m.find("end of input") != std::string::npos ||
                     (text[first] == '{' && text[last] != '}');
    return failed(cut ? ForeignFailure::kTruncated : ForeignFailure::kNotJson,
                  (cut ? "the reply ends early: " : "") + m);
  }
  if (std::optional<ForeignOutcome> f = classify(*root, g)) return std::move(*f);
  StatusOr<Schedule> s = parse_schedule_json(text, "$reply", g);
  if (!s.ok()) {
    std::string m = s.status().message();
    if (m.rfind("$reply: ", 0) == 0) m = m.substr(8);
    return failed(ForeignFailure::kFormat, m);
  }
  if (!s->feasible) {
    return no_schedule(g, who, s->diagnostics.empty() ? "" : s->diagnostics.front());
  }
  // The harness materializes its own values, and proves nothing on a
  // foreign scheduler's word.
  s->pipes.clear();
  s->mutexes.clear();
  s->agents.clear();
  s->flags.clear();
  s->selection.clear();
  s->lower_bound.reset();
  s->proven_optimal = false;
  s->stages_proven = false;
  return finish(std::move(*s), g, b, who);
}

}  // namespace

ForeignOutcome check_reply_json(std::string_view text, const Graph& g, const Bounds& b,
                                const std::string& who) {
  try {
    return check_reply_text(text, g, b, who);
  } catch (const std::exception& e) {  // a last line of defence: typed access is checked
    return failed(ForeignFailure::kFormat, std::string("cannot read the reply: ") + e.what());
  }
}

ForeignOutcome check_reply_values(int64_t ii, std::span<const int64_t> start, const Graph& g,
                                  const Bounds& b, const std::string& who) {
  Schedule s;
  s.ii = ii;
  s.start.assign(start.begin(), start.end());
  return finish(std::move(s), g, b, who);
}

}  // namespace tilesched::external
