// One scf.for of a TTGIR document as a loop graph (ttgir_loop.h). The body
// is walked once in program order: each op is folded or becomes a graph
// op; each value gets the list of graph ops that produce it (a folded op's
// list is its operands'); the loop's iter_args resolve, after the walk,
// to what scf.yield passes them, one iteration later per hop. Data edges
// follow those lists; order edges follow the shared-memory buffers and
// barriers the ops touch (docs/TTGIR.md, "Edges").
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "tilesched/graph_builder.h"
#include "tilesched/graphgen/ttgir.h"
#include "tilesched/hopper.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/limits.h"
#include "ttgir_loop.h"
#include "ttgir_ops.h"
#include "ttgir_types.h"

namespace tilesched::graphgen::ttgir {

namespace {

// A producer of a value: a graph op, or (before the iter_args are
// resolved) iter_arg `arg`, `distance` iterations back.
struct Producer {
  int op = -1;
  int arg = -1;
  int64_t distance = 0;
};
using Producers = std::vector<Producer>;

// Every operation under `root` by its result names, first definition kept.
std::map<std::string, const Operation*, std::less<>> definitions(const Operation& root) {
  std::map<std::string, const Operation*, std::less<>> defs;
  std::vector<const Operation*> stack = {&root};
  while (!stack.empty()) {
    const Operation* op = stack.back();
    stack.pop_back();
    for (const std::string& r : op->results) defs.emplace(r, op);
    for (const Region& reg : op->regions) {
      for (const Block& b : reg.blocks) {
        for (const Operation& inner : b.ops) stack.push_back(&inner);
      }
    }
  }
  return defs;
}

// Bytes of the buffers allocated outside the loop that it uses: the
// ttg.local_alloc results its operands reach through memdesc views, each
// counted once.
StatusOr<int64_t> resident_smem(const LoopRef& loop, std::string_view source) {
  if (loop.func == nullptr) return int64_t{0};
  const auto defs = definitions(*loop.func);
  std::vector<std::string> work = operands_of(*loop.op);
  std::set<std::string, std::less<>> seen;
  int64_t bytes = 0;
  while (!work.empty()) {
    const std::string v = std::move(work.back());
    work.pop_back();
    const auto it = defs.find(v);
    if (it == defs.end() || !seen.insert(v).second) continue;
    const Operation& def = *it->second;
    if (def.name.rfind("ttg.memdesc_", 0) == 0) {
      const std::vector<std::string> from = operands_of(def);
      if (!from.empty()) work.push_back(from.front());
    } else if (def.name == "ttg.local_alloc" && seen.insert("alloc " + def.results.front()).second) {
      StatusOr<TypeSection> types = read_types(def, source);
      if (!types.ok()) return types.status();
      if (!types->results.empty()) bytes += types->results.front().data_bytes();
      bytes = std::min(bytes, limits::kMaxPoolCapacity);
    }
  }
  return bytes;
}

class BodyBuilder {
 public:
  BodyBuilder(const Document& doc, const LoopRef& loop, std::string_view source, bool strict)
      : doc_(doc), loop_(loop), source_(source), strict_(strict), b_(hopper_target()) {}
  StatusOr<TtgirImport> build(std::string name);

 private:
  Status error(int line, std::string_view what) const { return error_at(source_, line, what); }
  Status read_header();
  Status walk_body();
  Status add_op(const Operation& op, const std::vector<std::string>& operands, int64_t position);
  Status cost_op(const Operation& op, std::string_view kind, OpId id);
  Status triton_attrs(const Operation& op, Op& out) const;
  Status note(const std::string& value, Producers list);
  StatusOr<Producers> gather(const std::vector<std::string>& values, int line);
  Status resolve_iter_args();
  Status add_data_edges();
  Status add_buffer_edges();
  int key_of(const std::string& value);
  void note_view(const Operation& op, const std::vector<std::string>& operands);
  std::string unique_id(const Operation& op);

  const Document& doc_;
  const LoopRef& loop_;
  std::string_view source_;
  bool strict_;
  GraphBuilder b_;
  int64_t threads_ = 128;
  int64_t warps_ = 4;  // the module's ttg.num-warps
  std::vector<std::string> iter_args_, yielded_;
  // Per graph op: the values it reads, and the buffers it touches.
  std::vector<std::vector<std::string>> reads_;
  std::vector<std::vector<Access>> accesses_;
  std::map<std::string, Producers, std::less<>> producers_;  // value -> its producers
  std::vector<Producers> iter_arg_producers_;
  size_t entries_ = 0;  // list entries stored and read, bounded by kMaxProducerEntries
  std::map<std::string, int, std::less<>> key_of_value_;    // memdesc views looked through
  std::map<std::pair<int, std::string>, int> keys_;         // (parent key, index) -> key
  std::set<std::string, std::less<>> ids_;
  std::vector<std::string> unknown_;
  std::set<std::pair<int, int>> data_;  // (u, v) joined by a data edge of distance 0
  int edges_ = 0;
};

StatusOr<TtgirImport> BodyBuilder::build(std::string name) {
  if (Status s = read_header(); !s.ok()) return s;
  if (Status s = walk_body(); !s.ok()) return s;
  if (Status s = resolve_iter_args(); !s.ok()) return s;
  if (Status s = add_data_edges(); !s.ok()) return s;
  if (Status s = add_buffer_edges(); !s.ok()) return s;
  StatusOr<Graph> g = b_.build();
  if (!g.ok()) return error(loop_.op->line, g.status().message());
  g->name = std::move(name);
  TtgirImport out{std::move(*g), 0, std::move(unknown_)};
  if (const std::optional<int64_t> n = int_attr(*loop_.op, "tt.num_stages")) {
    if (*n < 0 || *n > limits::kMaxMaxDepth) return error(loop_.op->line, "tt.num_stages is out of range");
    out.graph.attrs.triton_num_stages = *n;
  }
  StatusOr<int64_t> resident = resident_smem(loop_, source_);
  if (!resident.ok()) return resident.status();
  if (*resident > 0) out.graph.attrs.resident_smem_bytes = *resident;
  out.graph.attrs.num_warps = warps_;
  // The latency a schedule must hide is the loaded SM's (one memory
  // latency model for the target and the prediction, docs/TARGETS.md).
  out.graph = hopper::with_loaded_memory_latency(out.graph);
  return out;
}

// The header `%iv = %lb to %ub step %s iter_args(%a = %x, ...)`, the
// terminator's operands, and the CTA's thread count from the module.
Status BodyBuilder::read_header() {
  const Operation& loop = *loop_.op;
  if (loop.regions.empty() || loop.regions.front().blocks.empty()) {
    return error(loop.line, "scf.for without a body");
  }
  int depth = 0;
  bool in_iter_args = false;
  for (size_t i = 0; i < loop.tokens.size(); ++i) {
    const Token& t = loop.tokens[i];
    if (t.kind == Tok::kIdent && t.text == "iter_args") in_iter_args = true;
    if (t.is("(")) ++depth;
    if (t.is(")") && --depth == 0) in_iter_args = false;
    const bool defined = i + 1 < loop.tokens.size() && loop.tokens[i + 1].is("=");
    if (in_iter_args && depth == 1 && t.kind == Tok::kValue && defined) iter_args_.emplace_back(t.text);
  }
  if (iter_args_.size() > kMaxIterArgs) return error(loop.line, "more than 4096 iter_args");
  const std::vector<Operation>& ops = loop.regions.front().blocks.front().ops;
  if (!ops.empty() && ops.back().name == "scf.yield") yielded_ = operands_of(ops.back());
  if (yielded_.size() != iter_args_.size()) {
    return error(loop.line, "scf.yield passes " + std::to_string(yielded_.size()) +
                                " values to " + std::to_string(iter_args_.size()) + " iter_args");
  }
  const Operation& top = doc_.ops[loop_.top_index];
  const int64_t warps = int_attr(top, "ttg.num-warps").value_or(4);
  const int64_t lanes = int_attr(top, "ttg.threads-per-warp").value_or(32);
  threads_ = std::clamp<int64_t>(warps, 1, 1024) * std::clamp<int64_t>(lanes, 1, 1024);
  warps_ = std::clamp<int64_t>(warps, 1, 1024);
  iter_arg_producers_.resize(iter_args_.size());
  return Status::Ok();
}

Status BodyBuilder::walk_body() {
  const std::vector<Operation>& ops = loop_.op->regions.front().blocks.front().ops;
  for (size_t position = 0; position < ops.size(); ++position) {
    const Operation& op = ops[position];
    if (&op == &ops.back() && op.name == "scf.yield") break;
    const std::vector<std::string> operands = operands_of(op);
    const OpRule rule = rule_of(op.name);
    if (rule.role == Role::kFold) {
      StatusOr<Producers> list = gather(operands, op.line);
      if (!list.ok()) return list.status();
      for (const std::string& r : op.results) {
        if (Status s = note(r, *list); !s.ok()) return s;
      }
      note_view(op, operands);
      continue;
    }
    if (Status s = add_op(op, operands, static_cast<int64_t>(position)); !s.ok()) return s;
  }
  return Status::Ok();
}

Status BodyBuilder::add_op(const Operation& op, const std::vector<std::string>& operands,
                           int64_t position) {
  const OpRule rule = rule_of(op.name);
  if (rule.role == Role::kUnknown) {
    if (strict_) {
      return error(op.line, "unknown op " + quoted(op.name) +
                                " (--strict refuses ops the importer does not know)");
    }
    if (std::find(unknown_.begin(), unknown_.end(), op.name) == unknown_.end()) {
      unknown_.push_back(op.name);
    }
  }
  if (reads_.size() >= static_cast<size_t>(limits::kMaxOps)) {
    return error(op.line, "the loop has more than " + std::to_string(limits::kMaxOps) +
                              " ops that cost time (the format's limit)");
  }
  const OpId id = b_.op(unique_id(op), rule.role == Role::kCost ? std::string(rule.kind) : "generic");
  Op& out = b_.at(id);
  out.source_op = op.name;
  out.source_position = position;
  if (Status s = triton_attrs(op, out); !s.ok()) return s;
  if (rule.role == Role::kCost) {
    if (Status s = cost_op(op, rule.kind, id); !s.ok()) return s;
  }
  reads_.push_back(operands);
  accesses_.push_back(buffer_accesses(op, operands));
  for (const std::string& r : op.results) {
    if (Status s = note(r, Producers{Producer{id, -1, 0}}); !s.ok()) return s;
  }
  return Status::Ok();
}

// Latency, resources, registers and buffer size from the op's tile types.
Status BodyBuilder::cost_op(const Operation& op, std::string_view kind, OpId id) {
  StatusOr<TypeSection> types = read_types(op, source_);
  if (!types.ok()) return types.status();
  const LayoutLookup layouts{&doc_, loop_.top_index};
  StatusOr<hopper::Work> work = work_of(op, kind, *types, layouts, source_);
  if (!work.ok()) return work.status();
  StatusOr<hopper::Encoding> enc = hopper::encode(hopper::cycles_of(kind, *work));
  if (!enc.ok()) return error(op.line, quoted(op.name) + ": " + enc.status().message());
  Op& out = b_.at(id);
  out.latency = enc->latency;
  out.resources = enc->resources;
  out.registers = result_registers(kind, *types, threads_);
  if (op.name == "ttg.local_alloc" && !types->results.empty()) {
    out.store_bytes = types->results.front().data_bytes();
    if (out.store_bytes > hopper::kSmemBytesPerBlock) {
      return error(op.line, "a buffer of " + std::to_string(out.store_bytes) +
                                " bytes is larger than the " +
                                std::to_string(hopper::kSmemBytesPerBlock) +
                                " bytes of shared memory a block may use");
    }
  }
  return Status::Ok();
}

Status BodyBuilder::triton_attrs(const Operation& op, Op& out) const {
  const std::pair<std::string_view, std::optional<int64_t>*> keys[] = {
      {"loop.stage", &out.triton_stage}, {"loop.cluster", &out.triton_cluster}};
  for (const auto& [key, field] : keys) {
    const std::optional<int64_t> v = int_attr(op, key);
    if (!v) continue;
    if (*v < 0 || *v > limits::kMaxMaxDepth) {
      return error(op.line, std::string(key) + " = " + std::to_string(*v) + " is out of range 0.." +
                                std::to_string(limits::kMaxMaxDepth));
    }
    *field = *v;
  }
  return Status::Ok();
}

// Records `value`'s producers.
Status BodyBuilder::note(const std::string& value, Producers list) {
  entries_ += list.size();
  if (entries_ > kMaxProducerEntries) {
    return error(loop_.op->line, "the loop's values depend on each other in too many ways");
  }
  producers_[value] = std::move(list);
  return Status::Ok();
}

// The union of the values' producers, each once with its least distance,
// in (op, iter_arg) order. A value defined outside the body (or the
// induction variable) has none; iter_arg j stands for itself until
// resolve_iter_args. Every entry read counts against the bound.
StatusOr<Producers> BodyBuilder::gather(const std::vector<std::string>& values, int line) {
  std::map<std::pair<int, int>, int64_t> least;
  auto add = [&least](const Producer& p) {
    const auto [it, fresh] = least.emplace(std::make_pair(p.op, p.arg), p.distance);
    if (!fresh) it->second = std::min(it->second, p.distance);
  };
  for (const std::string& v : values) {
    auto it = producers_.find(v);
    if (it == producers_.end() && v.size() > 2 && v.compare(v.size() - 2, 2, "#0") == 0) {
      it = producers_.find(std::string_view(v).substr(0, v.size() - 2));  // %x#0 of %x
    }
    if (it != producers_.end()) {
      entries_ += it->second.size();
      if (entries_ > kMaxProducerEntries) {
        return error(line, "the loop's values depend on each other in too many ways");
      }
      for (const Producer& p : it->second) add(p);
      continue;
    }
    const auto arg = std::find(iter_args_.begin(), iter_args_.end(), v);
    if (arg != iter_args_.end()) add(Producer{-1, static_cast<int>(arg - iter_args_.begin()), 0});
  }
  Producers out;
  for (const auto& [key, distance] : least) out.push_back(Producer{key.first, key.second, distance});
  return out;
}

// What each iter_arg stands for: the graph ops producing the value
// scf.yield passes it, one iteration back, and through a yielded iter_arg
// one more per hop (a breadth-first walk, so each op gets its least
// distance; an iter_arg passed back unchanged produces nothing).
Status BodyBuilder::resolve_iter_args() {
  std::vector<Producers> yielded(iter_args_.size());
  for (size_t j = 0; j < iter_args_.size(); ++j) {
    StatusOr<Producers> p = gather({yielded_[j]}, loop_.op->line);
    if (!p.ok()) return p.status();
    yielded[j] = std::move(*p);
  }
  for (size_t j = 0; j < iter_args_.size(); ++j) {
    std::map<int, int64_t> least;
    std::vector<char> seen(iter_args_.size(), 0);
    std::vector<std::pair<size_t, int64_t>> frontier = {{j, 1}};
    seen[j] = 1;
    for (size_t f = 0; f < frontier.size(); ++f) {
      const auto [arg, hops] = frontier[f];
      for (const Producer& p : yielded[arg]) {
        if (p.op >= 0) least.emplace(p.op, std::min(hops + p.distance, limits::kMaxDistance));
        if (p.arg >= 0 && !seen[p.arg]) {
          seen[p.arg] = 1;
          frontier.emplace_back(p.arg, hops + 1);
        }
      }
    }
    for (const auto& [op, distance] : least) iter_arg_producers_[j].push_back(Producer{op, -1, distance});
    entries_ += iter_arg_producers_[j].size();
    if (entries_ > kMaxProducerEntries) {
      return error(loop_.op->line, "the loop's values depend on each other in too many ways");
    }
  }
  return Status::Ok();
}

// For each graph op, in order: one data edge from each op producing a
// value it reads, with the least distance over the ways it does.
Status BodyBuilder::add_data_edges() {
  for (size_t v = 0; v < reads_.size(); ++v) {
    StatusOr<Producers> list = gather(reads_[v], loop_.op->line);
    if (!list.ok()) return list.status();
    std::map<int, int64_t> least;
    for (const Producer& p : *list) {
      const Producers direct = {p};
      for (const Producer& q : p.arg >= 0 ? iter_arg_producers_[p.arg] : direct) {
        const int64_t d = std::min(q.distance + p.distance, limits::kMaxDistance);
        const auto [it, fresh] = least.emplace(q.op, d);
        if (!fresh) it->second = std::min(it->second, d);
      }
    }
    for (const auto& [u, distance] : least) {
      if (u == static_cast<int>(v) && distance == 0) continue;  // not in SSA; kept safe
      if (++edges_ > limits::kMaxEdges) break;
      b_.edge(u, static_cast<OpId>(v), std::nullopt, distance, EdgeKind::kData);
      if (distance == 0) data_.emplace(u, static_cast<int>(v));
    }
  }
  if (edges_ > limits::kMaxEdges) {
    return error(loop_.op->line, "the loop needs more than " + std::to_string(limits::kMaxEdges) +
                                     " edges (the format's limit)");
  }
  return Status::Ok();
}

// The buffer a value names: memdesc views looked through, an index
// telling slots of a multi-buffered allocation apart.
int BodyBuilder::key_of(const std::string& value) {
  if (auto it = key_of_value_.find(value); it != key_of_value_.end()) return it->second;
  const auto [it, fresh] = keys_.emplace(std::make_pair(-1, value), static_cast<int>(keys_.size()));
  key_of_value_[value] = it->second;
  return it->second;
}

// A memdesc view names the buffer of its source, or (memdesc_index,
// memdesc_subview, memdesc_subslice) one slot of it, told apart by the
// index operands' names.
void BodyBuilder::note_view(const Operation& op, const std::vector<std::string>& operands) {
  if (op.name.rfind("ttg.memdesc_", 0) != 0 || operands.empty() || op.results.empty()) return;
  const bool same_buffer = op.name == "ttg.memdesc_trans" || op.name == "ttg.memdesc_reinterpret";
  std::string index;
  for (size_t i = 1; !same_buffer && i < operands.size(); ++i) index += operands[i] + ",";
  const int parent = key_of(operands.front());
  if (same_buffer) {
    key_of_value_[op.results.front()] = parent;
    return;
  }
  const auto it = keys_.emplace(std::make_pair(parent, index), static_cast<int>(keys_.size())).first;
  key_of_value_[op.results.front()] = it->second;
}

// Order edges, distance 0, in program order: to a write from the last
// write and the reads since it, to a read from the last write of the same
// buffer. Pairs a data edge already orders are skipped.
Status BodyBuilder::add_buffer_edges() {
  struct Uses {
    int last_write = -1;
    std::vector<int> reads;
  };
  std::map<int, Uses> buffers;
  std::set<std::pair<int, int>> added;
  auto order = [&](int u, int v) {
    if (u < 0 || u == v || data_.count({u, v}) || !added.emplace(u, v).second) return;
    if (++edges_ <= limits::kMaxEdges) b_.edge(u, v, std::nullopt, 0, EdgeKind::kOrder);
  };
  for (size_t v = 0; v < accesses_.size(); ++v) {
    for (const Access& a : accesses_[v]) {
      Uses& u = buffers[key_of(a.value)];
      order(u.last_write, static_cast<int>(v));
      if (!a.write) {
        u.reads.push_back(static_cast<int>(v));
        continue;
      }
      for (const int r : u.reads) order(r, static_cast<int>(v));
      u.reads.clear();
      u.last_write = static_cast<int>(v);
    }
  }
  if (edges_ > limits::kMaxEdges) {
    return error(loop_.op->line, "the loop needs more than " + std::to_string(limits::kMaxEdges) +
                                     " edges (the format's limit)");
  }
  return Status::Ok();
}

// The op's id: its first result's SSA name ("%acc_56" -> "acc_56"), or for
// an op without results the last part of its name ("wait_barrier");
// characters other than [A-Za-z0-9_] become '_', a leading digit gets a
// "v", and a repeated id a suffix _2, _3, ...
std::string BodyBuilder::unique_id(const Operation& op) {
  std::string base;
  if (!op.results.empty()) {
    const std::string& r = op.results.front();
    base = r.substr(1, r.find('#') == std::string::npos ? std::string::npos : r.find('#') - 1);
  } else {
    base = op.name.substr(op.name.rfind('.') + 1);
  }
  base = base.substr(0, 200);
  for (char& c : base) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (base.empty()) base = "op";
  if (std::isdigit(static_cast<unsigned char>(base.front()))) base = "v" + base;
  std::string id = base;
  for (int n = 2; !ids_.insert(id).second; ++n) id = base + "_" + std::to_string(n);
  return id;
}

}  // namespace

std::vector<LoopRef> find_loops(const Document& doc) {
  std::vector<LoopRef> out;
  // An explicit stack (operation, top-level index) in place of recursion;
  // children are pushed in reverse so they pop in file order.
  struct Entry {
    const Operation* op;
    size_t top;
    const Operation* func;
  };
  std::vector<Entry> stack;
  for (size_t i = doc.ops.size(); i-- > 0;) stack.push_back({&doc.ops[i], i, &doc.ops[i]});
  while (!stack.empty()) {
    Entry e = stack.back();
    stack.pop_back();
    if (e.op->name == "tt.func" || e.op->name == "func.func") e.func = e.op;
    if (e.op->name == "scf.for") out.push_back(LoopRef{e.op, e.top, e.func});
    std::vector<const Operation*> children;
    for (const Region& r : e.op->regions) {
      for (const Block& b : r.blocks) {
        for (const Operation& inner : b.ops) children.push_back(&inner);
      }
    }
    for (size_t k = children.size(); k-- > 0;) stack.push_back({children[k], e.top, e.func});
  }
  return out;
}

TtgirLoop describe_loop(const LoopRef& loop, int index) {
  TtgirLoop d;
  d.index = index;
  d.line = loop.op->line;
  d.innermost = true;
  std::vector<const Operation*> stack;
  for (const Region& r : loop.op->regions) {
    for (const Block& b : r.blocks) {
      for (const Operation& op : b.ops) {
        if (op.name == "scf.yield") continue;
        ++d.op_count;
        d.triton_schedule |= int_attr(op, "loop.stage").has_value();
        stack.push_back(&op);
      }
    }
  }
  while (!stack.empty()) {
    const Operation* op = stack.back();
    stack.pop_back();
    d.has_dot |= is_dot_op(op->name);
    d.has_load |= is_load_op(op->name);
    d.innermost &= op->name != "scf.for" && op->name != "scf.while";
    for (const Region& r : op->regions) {
      for (const Block& b : r.blocks) {
        for (const Operation& inner : b.ops) stack.push_back(&inner);
      }
    }
  }
  return d;
}

StatusOr<TtgirImport> build_loop_graph(const Document& doc, const LoopRef& loop,
                                       std::string_view source, bool strict,
                                       std::string graph_name) {
  return BodyBuilder(doc, loop, source, strict).build(std::move(graph_name));
}

}  // namespace tilesched::graphgen::ttgir
