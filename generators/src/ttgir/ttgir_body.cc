// One loop of a TTGIR document as a loop graph (ttgir_body.h). The body
// is walked once in program order: each op is folded or becomes a graph
// op, the ops of an scf.if's branches too (guarded: they read its
// condition); each value gets the list of graph ops that produce it (a
// folded op's list is its operands', an scf.if result's both branches');
// the loop's carried values resolve, after the walk, to what scf.yield
// passes them, one iteration later per hop. Names are resolved where they
// are read, in scope: MLIR numbers the values of sibling regions from the
// same count, so two scf.if branches may both define %18, and a name
// defined in a region is forgotten when the region closes. A name that
// resolves to nothing is refused. Data edges follow those lists; order
// edges follow the shared-memory buffers and barriers the ops touch
// (docs/TTGIR.md, "Edges"); loads whose value stays in registers get the
// buffer Triton's pipeliner gives them ("Buffers").
#include "ttgir_body.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "tilesched/graph_builder.h"
#include "tilesched/hopper.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/limits.h"
#include "ttgir_loops.h"
#include "ttgir_ops.h"
#include "ttgir_smem.h"
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

// Each producer once, with its least distance, in (op, iter_arg) order.
Producers unite(Producers list) {
  std::map<std::pair<int, int>, int64_t> least;
  for (const Producer& p : list) {
    const auto [it, fresh] = least.emplace(std::make_pair(p.op, p.arg), p.distance);
    if (!fresh) it->second = std::min(it->second, p.distance);
  }
  Producers out;
  for (const auto& [key, distance] : least) out.push_back(Producer{key.first, key.second, distance});
  return out;
}

// What a name stands for while it is in scope: its producers and the
// buffer it names (-1 until an access asks).
struct Binding {
  Producers producers;
  int key = -1;
};

// A buffer access with its buffer resolved.
struct KeyedAccess {
  int key = -1;
  bool write = false;
};

class BodyBuilder {
 public:
  BodyBuilder(const Document& doc, const LoopRef& loop, std::string_view source, bool strict)
      : doc_(doc), loop_(loop), source_(source), strict_(strict), b_(hopper_target()) {}
  StatusOr<TtgirImport> build(std::string name);

 private:
  // Where a body op sits: its top-level operation's position and attributes,
  // and the scf.if conditions guarding it.
  struct Place {
    int64_t position = 0;
    const Operation* top = nullptr;
    std::vector<std::string> guards;
  };

  Status error(int line, std::string_view what) const { return error_at(source_, line, what); }
  Status read_header();
  Status walk_body();
  Status walk_op(const Operation& op, const Place& place);
  Status walk_if(const Operation& op, const Place& place);
  Status add_op(const Operation& op, const std::vector<std::string>& operands, const Place& place);
  Status cost_op(const Operation& op, std::string_view kind, OpId id);
  void note_mma_bits(int64_t bits) {
    if (!mma_bits_ || *mma_bits_ == 16) mma_bits_ = bits;
  }
  Status triton_attrs(const Operation& op, const Operation& top, Op& out) const;
  Status note(const std::string& value, Producers list);
  void leave_scope(size_t mark);
  StatusOr<Producers> gather(const std::vector<std::string>& values, int line);
  Status resolve_iter_args();
  Status add_data_edges();
  Status add_buffer_edges();
  void add_load_buffers();
  int key_of(const std::string& value);
  int fresh_key() { return next_key_++; }
  void note_view(const Operation& op, const std::vector<std::string>& operands);
  std::string unique_id(const Operation& op);

  const Document& doc_;
  const LoopRef& loop_;
  std::string_view source_;
  bool strict_;
  GraphBuilder b_;
  int64_t threads_ = 128;
  int64_t num_warps_ = 4;  // the module's ttg.num-warps
  // Bits of the MMA operands' elements: the first MMA's, or the first
  // width other than 16 (the measured kernels') among the loop's MMAs.
  std::optional<int64_t> mma_bits_;
  LoopShape shape_;
  // Per graph op: the producers of the values it reads, the buffers it
  // touches, the bytes of the buffer its load needs when its value stays in
  // registers (0: none).
  std::vector<Producers> reads_;
  std::vector<std::vector<KeyedAccess>> accesses_;
  std::vector<int64_t> load_buffer_;
  std::vector<std::vector<int>> users_;  // graph ops reading each op's value, any distance
  int64_t staging_bytes_ = 0;            // TMA stores' staging buffers
  std::map<std::string, Binding, std::less<>> scope_;  // the body's names in scope
  // Undo log of scope_: a name and what it stood for before (none: unbound).
  std::vector<std::pair<std::string, std::optional<Binding>>> undo_;
  std::set<std::string, std::less<>> outside_;  // defined around the loop (values_visible_in)
  std::vector<Producers> iter_arg_producers_;
  size_t entries_ = 0;  // list entries stored and read, bounded by kMaxProducerEntries
  std::map<std::string, int, std::less<>> outer_keys_;  // buffers named outside the body
  std::map<std::pair<int, std::string>, int> keys_;     // (parent key, index) -> slot key
  int next_key_ = 0;
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
  add_load_buffers();
  StatusOr<Graph> g = b_.build();
  if (!g.ok()) return error(loop_.op->line, g.status().message());
  g->name = std::move(name);
  TtgirImport out{std::move(*g), 0, std::move(unknown_)};
  out.graph.attrs.num_warps = num_warps_;
  out.graph.attrs.mma_element_bits = mma_bits_;
  if (const std::optional<int64_t> n = int_attr(*loop_.op, "tt.num_stages")) {
    if (*n < 0 || *n > limits::kMaxMaxDepth) return error(loop_.op->line, "tt.num_stages is out of range");
    out.graph.attrs.triton_num_stages = *n;
  }
  StatusOr<int64_t> resident = live_outside_smem(loop_, source_);
  if (!resident.ok()) return resident.status();
  const int64_t bytes = std::min(*resident + staging_bytes_, limits::kMaxPoolCapacity);
  if (bytes > 0) out.graph.attrs.resident_smem_bytes = bytes;
  // The latency a schedule must hide is the loaded SM's (one memory
  // latency model for the target and the prediction, docs/TARGETS.md).
  out.graph = hopper::with_loaded_memory_latency(out.graph);
  return out;
}

// The loop's carried values and body (ttgir_loops.h), and the CTA's thread
// count from the module.
Status BodyBuilder::read_header() {
  StatusOr<LoopShape> shape = read_loop_shape(*loop_.op, source_);
  if (!shape.ok()) return shape.status();
  shape_ = std::move(*shape);
  const Operation& top = doc_.ops[loop_.top_index];
  const std::optional<int64_t> num_warps = int_attr(top, "ttg.num-warps");
  if (num_warps && (*num_warps < 1 || *num_warps > limits::kMaxWarps)) {
    return error(top.line, "ttg.num-warps = " + std::to_string(*num_warps) +
                               " is out of range 1.." + std::to_string(limits::kMaxWarps));
  }
  const int64_t warps = num_warps.value_or(4);  // Triton's default
  num_warps_ = warps;
  const int64_t lanes = int_attr(top, "ttg.threads-per-warp").value_or(32);
  threads_ = std::clamp<int64_t>(warps, 1, 1024) * std::clamp<int64_t>(lanes, 1, 1024);
  iter_arg_producers_.resize(shape_.iter_args.size());
  outside_ = values_visible_in(doc_, loop_);
  return Status::Ok();
}

// The body's operations in program order, positions counted across an
// scf.while's two blocks. scf.condition makes the do block's arguments
// stand for the values it forwards; the trailing scf.yield is read by
// resolve_iter_args.
Status BodyBuilder::walk_body() {
  int64_t position = 0;
  for (const Block* block : shape_.blocks) {
    for (const Operation& op : block->ops) {
      const Place place{position++, &op, {}};
      if (op.name == "scf.condition") {
        if (StatusOr<Producers> c = gather({shape_.condition}, op.line); !c.ok()) return c.status();
        for (size_t i = 0; i < shape_.after_args.size(); ++i) {
          StatusOr<Producers> list = gather({shape_.forwarded[i]}, op.line);
          if (!list.ok()) return list.status();
          if (Status s = note(shape_.after_args[i], std::move(*list)); !s.ok()) return s;
        }
        continue;
      }
      if (op.name == "scf.yield") continue;
      if (Status s = walk_op(op, place); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status BodyBuilder::walk_op(const Operation& op, const Place& place) {
  if (op.name == "scf.if") return walk_if(op, place);
  const std::vector<std::string> operands = operands_of(op);
  if (rule_of(op.name).role == Role::kFold) {
    StatusOr<Producers> list = gather(operands, op.line);
    if (!list.ok()) return list.status();
    for (const std::string& r : op.results) {
      if (Status s = note(r, *list); !s.ok()) return s;
    }
    note_view(op, operands);
    return Status::Ok();
  }
  return add_op(op, operands, place);
}

// Both branches' ops, each guarded by the condition (it reads it); each
// result is produced by what either branch yields for it, and depends on
// the condition that chose. A branch's names are in scope until it ends.
Status BodyBuilder::walk_if(const Operation& op, const Place& place) {
  const auto cond = std::find_if(op.tokens.begin(), op.tokens.end(),
                                 [](const Token& t) { return t.kind == Tok::kValue; });
  if (cond == op.tokens.end()) return error(op.line, "scf.if without a condition");
  StatusOr<Producers> chooser = gather({std::string(cond->text)}, op.line);
  if (!chooser.ok()) return chooser.status();
  Place inner = place;
  inner.guards.emplace_back(cond->text);
  std::vector<Producers> results(op.results.size());
  for (const Region& r : op.regions) {
    if (r.blocks.empty()) continue;
    const size_t mark = undo_.size();
    const std::vector<Operation>& ops = r.blocks.front().ops;
    for (const Operation& branch_op : ops) {
      if (branch_op.name == "scf.yield") continue;
      if (Status s = walk_op(branch_op, inner); !s.ok()) return s;
    }
    const bool yields = !ops.empty() && ops.back().name == "scf.yield";
    const std::vector<std::string> yielded = yields ? operands_of(ops.back()) : std::vector<std::string>{};
    if (yields && yielded.size() != op.results.size()) {
      return error(ops.back().line, "scf.yield passes " + std::to_string(yielded.size()) +
                                        " values to an scf.if of " +
                                        std::to_string(op.results.size()) + " results");
    }
    for (size_t i = 0; i < yielded.size(); ++i) {
      StatusOr<Producers> list = gather({yielded[i]}, ops.back().line);
      if (!list.ok()) return list.status();
      results[i].insert(results[i].end(), list->begin(), list->end());
    }
    leave_scope(mark);
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    results[i].insert(results[i].end(), chooser->begin(), chooser->end());
    if (Status s = note(op.results[i], unite(std::move(results[i]))); !s.ok()) return s;
  }
  return Status::Ok();
}

Status BodyBuilder::add_op(const Operation& op, const std::vector<std::string>& operands,
                           const Place& place) {
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
  out.source_position = place.position;
  if (Status s = triton_attrs(op, *place.top, out); !s.ok()) return s;
  load_buffer_.push_back(0);
  users_.emplace_back();
  if (rule.role == Role::kCost) {
    if (Status s = cost_op(op, rule.kind, id); !s.ok()) return s;
  }
  std::vector<std::string> reads = operands;
  reads.insert(reads.end(), place.guards.begin(), place.guards.end());
  StatusOr<Producers> list = gather(reads, op.line);
  if (!list.ok()) return list.status();
  reads_.push_back(std::move(*list));
  for (const std::string& r : op.results) {
    if (Status s = note(r, Producers{Producer{id, -1, 0}}); !s.ok()) return s;
  }
  std::vector<KeyedAccess> keyed;
  for (const Access& a : buffer_accesses(op, operands)) keyed.push_back({key_of(a.value), a.write});
  accesses_.push_back(std::move(keyed));
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
  if (kind == "wgmma") note_mma_bits(hopper::element_bits(work->element));
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
  const ImplicitBuffer implicit = implicit_buffer(op, *types, layouts);
  load_buffer_[id] = std::min(implicit.load_bytes, hopper::kSmemBytesPerBlock);
  staging_bytes_ = std::min(staging_bytes_ + implicit.staging_bytes, limits::kMaxPoolCapacity);
  return Status::Ok();
}

// Triton's loop.stage and loop.cluster: the op's own, else (an op in an
// scf.if branch) those of the top-level operation holding it.
Status BodyBuilder::triton_attrs(const Operation& op, const Operation& top, Op& out) const {
  const std::pair<std::string_view, std::optional<int64_t>*> keys[] = {
      {"loop.stage", &out.triton_stage}, {"loop.cluster", &out.triton_cluster}};
  for (const auto& [key, field] : keys) {
    const std::optional<int64_t> v = int_attr(op, key) ? int_attr(op, key) : int_attr(top, key);
    if (!v) continue;
    if (*v < 0 || *v > limits::kMaxMaxDepth) {
      return error(op.line, std::string(key) + " = " + std::to_string(*v) + " is out of range 0.." +
                                std::to_string(limits::kMaxMaxDepth));
    }
    *field = *v;
  }
  return Status::Ok();
}

// Binds `value` to its producers in the current scope.
Status BodyBuilder::note(const std::string& value, Producers list) {
  entries_ += list.size();
  if (entries_ > kMaxProducerEntries) {
    return error(loop_.op->line, "the loop's values depend on each other in too many ways");
  }
  auto it = scope_.find(value);
  undo_.emplace_back(value, it == scope_.end() ? std::nullopt : std::optional<Binding>(it->second));
  scope_[value] = Binding{std::move(list), -1};
  return Status::Ok();
}

// Forgets the names bound since `mark` (a region closes).
void BodyBuilder::leave_scope(size_t mark) {
  while (undo_.size() > mark) {
    auto& [name, before] = undo_.back();
    if (before) {
      scope_[name] = std::move(*before);
    } else {
      scope_.erase(name);
    }
    undo_.pop_back();
  }
}

// The union of the values' producers, each once with its least distance,
// in (op, iter_arg) order. A value defined around the loop (or the
// induction variable) has none; iter_arg j stands for itself until
// resolve_iter_args; a value that none of these define is refused. Every
// entry read counts against the bound.
StatusOr<Producers> BodyBuilder::gather(const std::vector<std::string>& values, int line) {
  Producers all;
  for (const std::string& v : values) {
    auto it = scope_.find(v);
    if (it == scope_.end() && v.size() > 2 && v.compare(v.size() - 2, 2, "#0") == 0) {
      it = scope_.find(std::string_view(v).substr(0, v.size() - 2));  // %x#0 of %x
    }
    if (it != scope_.end()) {
      entries_ += it->second.producers.size();
      if (entries_ > kMaxProducerEntries) {
        return error(line, "the loop's values depend on each other in too many ways");
      }
      all.insert(all.end(), it->second.producers.begin(), it->second.producers.end());
      continue;
    }
    const std::vector<std::string>& args = shape_.iter_args;
    const auto arg = std::find(args.begin(), args.end(), v);
    if (arg != args.end()) {
      all.push_back(Producer{-1, static_cast<int>(arg - args.begin()), 0});
    } else if (!outside_.count(v)) {
      return error(line, "use of undefined value " + quoted(v) +
                             " (no definition above it in scope)");
    }
  }
  return unite(std::move(all));
}

// What each iter_arg stands for: the graph ops producing the value
// scf.yield passes it, one iteration back, and through a yielded iter_arg
// one more per hop (a breadth-first walk, so each op gets its least
// distance; an iter_arg passed back unchanged produces nothing).
Status BodyBuilder::resolve_iter_args() {
  const size_t n = shape_.iter_args.size();
  std::vector<Producers> yielded(n);
  const std::vector<Operation>& last = shape_.blocks.back()->ops;
  const int yield_line = last.empty() ? loop_.op->line : last.back().line;
  for (size_t j = 0; j < n; ++j) {
    StatusOr<Producers> p = gather({shape_.yielded[j]}, yield_line);
    if (!p.ok()) return p.status();
    yielded[j] = std::move(*p);
  }
  for (size_t j = 0; j < n; ++j) {
    std::map<int, int64_t> least;
    std::vector<char> seen(n, 0);
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
    std::map<int, int64_t> least;
    for (const Producer& p : reads_[v]) {
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
      users_[u].push_back(static_cast<int>(v));
      if (distance == 0) data_.emplace(u, static_cast<int>(v));
    }
  }
  if (edges_ > limits::kMaxEdges) {
    return error(loop_.op->line, "the loop needs more than " + std::to_string(limits::kMaxEdges) +
                                     " edges (the format's limit)");
  }
  return Status::Ok();
}

// A pipelined load whose value a user other than a ttg.local_alloc reads
// is copied into a buffer of its own and read back into registers: the
// load op carries that buffer's bytes (docs/TTGIR.md, "Buffers").
void BodyBuilder::add_load_buffers() {
  for (size_t v = 0; v < load_buffer_.size(); ++v) {
    if (load_buffer_[v] == 0) continue;
    const bool to_registers = std::any_of(users_[v].begin(), users_[v].end(), [&](int u) {
      return b_.at(u).source_op != "ttg.local_alloc";
    });
    if (to_registers) b_.at(static_cast<OpId>(v)).store_bytes = load_buffer_[v];
  }
}

// The buffer a name in scope names: memdesc views looked through, an
// index telling slots of a multi-buffered allocation apart.
int BodyBuilder::key_of(const std::string& value) {
  const auto bound = scope_.find(value);
  if (bound == scope_.end()) {
    const auto [it, fresh] = outer_keys_.emplace(value, next_key_);
    if (fresh) ++next_key_;
    return it->second;
  }
  if (bound->second.key < 0) bound->second.key = fresh_key();
  return bound->second.key;
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
  int key = parent;
  if (!same_buffer) {
    const auto [it, fresh] = keys_.emplace(std::make_pair(parent, index), next_key_);
    if (fresh) ++next_key_;
    key = it->second;
  }
  scope_[op.results.front()].key = key;
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
    for (const KeyedAccess& a : accesses_[v]) {
      Uses& u = buffers[a.key];
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

StatusOr<TtgirImport> build_loop_graph(const Document& doc, const LoopRef& loop,
                                       std::string_view source, bool strict,
                                       std::string graph_name) {
  return BodyBuilder(doc, loop, source, strict).build(std::move(graph_name));
}

}  // namespace tilesched::graphgen::ttgir
