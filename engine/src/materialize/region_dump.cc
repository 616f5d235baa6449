// The rebuilt region as MLIR-like text (docs/MATERIALIZE.md, "Region dump"):
// what the pipeline looks like once the values are spliced in. Values are
// declared first; then one block per stage, its ops in order, each op
// preceded by the mutexes it acquires, followed by the pipes it produces into
// and the mutexes it releases, and reading the pipes that carry its operands.
// With two or more agents (warp roles), each stage's block is an
// agent_switch with one case per agent, its steps in order, and each value
// records the agents it joins.
// docs/MATERIALIZE.md, "Region dump", shows and explains an example.
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "tilesched/hopper.h"
#include "tilesched/materialize.h"
#include "value_rule.h"

namespace tilesched {

namespace {

std::string str(int64_t x) { return std::to_string(x); }

bool plain_symbol(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '$';
  });
}

// An op name as an MLIR symbol or value name: bare when it is plain,
// otherwise in double quotes with quotes, backslashes and control bytes
// escaped.
std::string symbol(std::string_view s) {
  if (plain_symbol(s)) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

class RegionPrinter {
 public:
  RegionPrinter(const Graph& g, const Schedule& s, const Materialization& m)
      : g_(g), s_(s), m_(m), adj_(Adjacency::build(g)), carrier_(g.edges.size(), -1) {
    for (size_t p = 0; p < m.pipes.size(); ++p) {
      for (int e : m.pipes[p].edges) {
        if (e >= 0 && e < g.edge_count() && carrier_[e] < 0) carrier_[e] = static_cast<int>(p);
      }
    }
    if (m.agents.size() == g.ops.size()) {
      std::map<std::string, int> seen;
      for (const std::string& a : m.agents) {
        const auto [it, fresh] = seen.try_emplace(a, static_cast<int>(agents_.size()));
        if (fresh) agents_.push_back(a);
        agent_index_.push_back(it->second);
      }
    }
    if (agents_.size() < 2) agents_.clear();  // one agent: no partition to show
  }
  std::string print();

 private:
  std::string op(OpId v) const { return "@" + symbol(g_.ops[v].name); }
  std::string value(OpId v) const { return "%" + symbol(g_.ops[v].name); }
  void declare_values();
  std::string reasons(const Pipe& p) const;
  void print_op(OpId v, const std::string& indent);
  void print_step(const RegionStep& step, const std::string& indent);
  void print_stage(int64_t stage, const std::vector<RegionStep>& steps);
  std::string agent_of(OpId v) const {
    return v >= 0 && v < static_cast<OpId>(m_.agents.size()) ? m_.agents[v] : std::string();
  }
  std::vector<std::string> operands(OpId v) const;
  // SM cycles per unit of the schedule's time: 16 on the hopper target, else 1.
  int64_t cycles_per_unit() const {
    return g_.target.builtin && g_.target.name == "hopper" ? hopper::kCyclesPerUnit : 1;
  }
  std::string time_unit() const {
    const int64_t c = cycles_per_unit();
    return c == 1 ? "" : " (units of " + str(c) + " cycles: " + str(s_.ii * c) + " cycles)";
  }

  const Graph& g_;
  const Schedule& s_;
  const Materialization& m_;
  const Adjacency adj_;
  std::vector<int> carrier_;  // per edge: the pipe carrying it, or -1
  std::vector<std::string> agents_;  // in order of first use; empty with one agent
  std::vector<int> agent_index_;     // per op: its agent's position in agents_
  std::string out_;
};

void RegionPrinter::declare_values() {
  for (const Mutex& mx : m_.mutexes) {
    out_ += "  %" + mx.id + " = tileas.mutex releaser(" + op(mx.releaser) + ") acquirer(" +
            op(mx.acquirer) + ") {owner = " + op(mx.owner) + ", depth = " + str(mx.depth);
    if (!agents_.empty()) {
      out_ += ", agents = " + symbol(agent_of(mx.releaser)) + " -> " + symbol(agent_of(mx.acquirer));
    }
    out_ += "}\n";
  }
  for (const Pipe& p : m_.pipes) {
    std::string producers;
    for (OpId u : p.producers) producers += (producers.empty() ? "" : ", ") + op(u);
    out_ += "  %" + p.id + " = tileas.pipe producers(" + producers + ") consumer(" +
            op(p.consumer) + ") {owner = " + op(p.owner) + ", depth = " + str(p.depth);
    if (!agents_.empty()) {
      out_ += ", agents = " + symbol(p.producer_agent) + " -> " + symbol(p.consumer_agent);
    }
    out_ += "}";
    out_ += "  // " + reasons(p);
    out_ += "\n";
  }
}

// Why the pipe exists, from the edges it carries (the rule of
// needs_pipe): an asynchronous producer, a stage crossing, a loop-carried
// value, a crossing between agents, or the consumer-only fallback.
std::string RegionPrinter::reasons(const Pipe& p) const {
  if (p.producers.empty()) return "trivial fallback: no producer is live here";
  bool async = false;
  int64_t max_distance = 0;
  int64_t first_stage = s_.stage[p.consumer];
  for (int e : p.edges) {
    if (e < 0 || e >= g_.edge_count()) continue;
    const Edge& edge = g_.edges[e];
    async = async || (edge.distance == 0 && is_async(g_, edge.from));
    max_distance = std::max(max_distance, edge.distance);
    first_stage = std::min(first_stage, s_.stage[edge.from]);
  }
  std::vector<std::string> parts;
  if (async) parts.push_back("async");
  if (first_stage != s_.stage[p.consumer]) {
    parts.push_back("stage " + str(first_stage) + " -> " + str(s_.stage[p.consumer]));
  }
  if (max_distance > 0) parts.push_back("loop-carried from i-" + str(max_distance));
  if (p.producer_agent != p.consumer_agent) parts.push_back("across agents");
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out.empty() ? "stage " + str(s_.stage[p.consumer]) : out;
}

// One operand per data in-edge, by producer (stage, order): the pipe that
// carries it (with the iteration it reads, when loop-carried), or the
// producer's value itself; repeats dropped.
std::vector<std::string> RegionPrinter::operands(OpId v) const {
  std::vector<int> in;
  for (int i = adj_.in_begin[v]; i < adj_.in_begin[v + 1]; ++i) {
    const int e = adj_.in_edges[i];
    if (g_.edges[e].kind == EdgeKind::kData) in.push_back(e);
  }
  std::stable_sort(in.begin(), in.end(), [&](int a, int b) {
    const OpId ua = g_.edges[a].from;
    const OpId ub = g_.edges[b].from;
    if (s_.stage[ua] != s_.stage[ub]) return s_.stage[ua] < s_.stage[ub];
    if (s_.order[ua] != s_.order[ub]) return s_.order[ua] < s_.order[ub];
    return ua < ub;
  });
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (int e : in) {
    const Edge& edge = g_.edges[e];
    std::string operand = carrier_[e] >= 0 ? "%" + m_.pipes[carrier_[e]].id : value(edge.from);
    if (edge.distance > 0) operand += "[i-" + str(edge.distance) + "]";
    if (seen.insert(operand).second) out.push_back(std::move(operand));
  }
  return out;
}

void RegionPrinter::print_op(OpId v, const std::string& indent) {
  std::string args;
  for (const std::string& a : operands(v)) args += (args.empty() ? "" : ", ") + a;
  out_ += indent + value(v) + " = tileas." + symbol(g_.ops[v].kind) + "(" + args +
          ") {start = " + str(s_.start[v]) + ", order = " + str(s_.order[v]) + "}\n";
}

std::string RegionPrinter::print() {
  out_ += "// graph " + symbol(g_.name) + ", generator " +
          symbol(s_.generator.empty() ? "unknown" : s_.generator) + "\n";
  const size_t n = g_.ops.size();
  if (!s_.feasible || s_.start.size() != n || s_.stage.size() != n || s_.order.size() != n) {
    out_ += "// no feasible schedule: nothing to materialize\n";
    return out_;
  }
  out_ += "// II " + str(s_.ii) + time_unit() + ", " + str(s_.stage_count) + " stage" +
          (s_.stage_count == 1 ? "" : "s") + ", " + str(static_cast<int64_t>(n)) + " ops, " +
          str(static_cast<int64_t>(m_.pipes.size())) +
          (m_.pipes.size() == 1 ? " pipe, " : " pipes, ") +
          str(static_cast<int64_t>(m_.mutexes.size())) +
          (m_.mutexes.size() == 1 ? " mutex" : " mutexes") +
          (m_.trivial_fallback ? ", trivial fallback" : "") + "\n";
  if (!agents_.empty()) {
    std::string names;
    for (const std::string& a : agents_) names += (names.empty() ? "" : ", ") + symbol(a);
    out_ += "// " + str(static_cast<int64_t>(agents_.size())) + " agents: " + names + "\n";
  }
  out_ += "tileas.scheduled_region @" + symbol(g_.name) + " {ii = " + str(s_.ii) +
          ", stage_count = " + str(s_.stage_count) + "} {\n";
  declare_values();
  // Steps come in (stage, order) of their ops: cut them into stages.
  std::vector<RegionStep> steps;
  for (size_t i = 0; i < m_.region.size(); ++i) {
    steps.push_back(m_.region[i]);
    const bool last = i + 1 == m_.region.size() ||
                      s_.stage[m_.region[i + 1].op] != s_.stage[m_.region[i].op];
    if (last) {
      print_stage(s_.stage[m_.region[i].op], steps);
      steps.clear();
    }
  }
  out_ += "}\n";
  return out_;
}

// One stage's block; with several agents, an agent_switch holding one case
// per agent that runs an op of the stage, its steps in order.
void RegionPrinter::print_stage(int64_t stage, const std::vector<RegionStep>& steps) {
  const int64_t c = cycles_per_unit();
  out_ += "  ^stage" + str(stage) + ":  // " + (c == 1 ? "cycles [" : "units [") +
          str(stage * s_.ii) + ", " + str((stage + 1) * s_.ii) + ")" +
          (c == 1 ? "" : ": cycles [" + str(stage * s_.ii * c) + ", " + str((stage + 1) * s_.ii * c) + ")") +
          "\n";
  if (agents_.empty()) {
    for (const RegionStep& step : steps) print_step(step, "    ");
    return;
  }
  // The steps grouped by agent, in order inside each group.
  std::vector<RegionStep> by_agent = steps;
  std::stable_sort(by_agent.begin(), by_agent.end(), [&](const RegionStep& a, const RegionStep& b) {
    return agent_index_[a.op] < agent_index_[b.op];
  });
  out_ += "    cute_nvgpu.arch.agent_switch {\n";
  for (size_t begin = 0; begin < by_agent.size();) {
    const int agent = agent_index_[by_agent[begin].op];
    size_t end = begin;
    int64_t ops = 0;
    for (; end < by_agent.size() && agent_index_[by_agent[end].op] == agent; ++end) {
      ops += by_agent[end].kind == RegionStep::Kind::kOp ? 1 : 0;
    }
    out_ += "    ^agent_" + symbol(agents_[agent]) + ":  // " + str(ops) +
            (ops == 1 ? " op" : " ops") + "\n";
    for (size_t i = begin; i < end; ++i) print_step(by_agent[i], "      ");
    begin = end;
  }
  out_ += "    }\n";
}

void RegionPrinter::print_step(const RegionStep& step, const std::string& indent) {
  switch (step.kind) {
    case RegionStep::Kind::kAcquire:
      out_ += indent + "tileas.mutex.acquire %" + m_.mutexes[step.value].id + "\n";
      break;
    case RegionStep::Kind::kOp: print_op(step.op, indent); break;
    case RegionStep::Kind::kProduce:
      out_ += indent + "tileas.pipe.produce %" + m_.pipes[step.value].id + ", " + value(step.op) +
              "\n";
      break;
    case RegionStep::Kind::kRelease:
      out_ += indent + "tileas.mutex.release %" + m_.mutexes[step.value].id + "\n";
      break;
  }
}

}  // namespace

std::string dump_region(const Graph& g, const Schedule& s, const Materialization& m) {
  return RegionPrinter(g, s, m).print();
}

}  // namespace tilesched
