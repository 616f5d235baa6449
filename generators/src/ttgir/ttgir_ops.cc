// The TTGIR reader's op tables and per-op readings (ttgir_ops.h). The
// tables are docs/TTGIR.md's "Folded ops" and "Kinds".
#include "ttgir_ops.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace tilesched::graphgen::ttgir {

namespace {

using hopper::Element;

struct Entry {
  std::string_view op;
  Role role;
  std::string_view kind;
};

constexpr Entry kTable[] = {
    // Folded: constants, shape and layout bookkeeping, memdesc views.
    {"arith.constant", Role::kFold, ""},      {"tt.splat", Role::kFold, ""},
    {"tt.broadcast", Role::kFold, ""},        {"tt.expand_dims", Role::kFold, ""},
    {"tt.make_range", Role::kFold, ""},       {"tt.reshape", Role::kFold, ""},
    {"tt.join", Role::kFold, ""},             {"tt.split", Role::kFold, ""},
    {"tt.get_program_id", Role::kFold, ""},   {"tt.get_num_programs", Role::kFold, ""},
    {"arith.index_cast", Role::kFold, ""},    {"arith.index_castui", Role::kFold, ""},
    {"arith.bitcast", Role::kFold, ""},       {"tt.bitcast", Role::kFold, ""},
    {"tt.int_to_ptr", Role::kFold, ""},       {"tt.ptr_to_int", Role::kFold, ""},
    {"ub.poison", Role::kFold, ""},           {"llvm.intr.assume", Role::kFold, ""},
    {"ttg.memdesc_index", Role::kFold, ""},   {"ttg.memdesc_subview", Role::kFold, ""},
    {"ttg.memdesc_subslice", Role::kFold, ""}, {"ttg.memdesc_trans", Role::kFold, ""},
    {"ttg.memdesc_reinterpret", Role::kFold, ""}, {"ttg.local_dealloc", Role::kFold, ""},
    // Memory.
    {"tt.load", Role::kCost, "global_load"},
    {"tt.store", Role::kCost, "global_store"},
    {"tt.atomic_rmw", Role::kCost, "global_store"},
    {"tt.atomic_cas", Role::kCost, "global_store"},
    {"tt.descriptor_load", Role::kCost, "tiled_tma_load"},
    {"tt.descriptor_gather", Role::kCost, "tiled_tma_load"},
    {"ttng.async_tma_copy_global_to_local", Role::kCost, "tiled_tma_load"},
    {"ttng.async_tma_gather", Role::kCost, "tiled_tma_load"},
    {"tt.descriptor_store", Role::kCost, "tma_store"},
    {"tt.descriptor_scatter", Role::kCost, "tma_store"},
    {"tt.descriptor_reduce", Role::kCost, "tma_store"},
    {"ttng.async_tma_copy_local_to_global", Role::kCost, "tma_store"},
    {"ttng.async_tma_reduce", Role::kCost, "tma_store"},
    {"ttng.async_tma_scatter", Role::kCost, "tma_store"},
    {"ttg.async_copy_global_to_local", Role::kCost, "cp_async"},
    {"ttg.async_commit_group", Role::kCost, "cp_async_commit"},
    {"ttg.async_wait", Role::kCost, "cp_async_wait"},
    {"ttng.async_tma_store_wait", Role::kCost, "cp_async_wait"},
    {"ttg.local_alloc", Role::kCost, "smem_write"},
    {"ttg.local_store", Role::kCost, "smem_write"},
    {"ttg.local_load", Role::kCost, "smem_read"},
    {"ttg.convert_layout", Role::kCost, "convert_layout"},
    {"tt.trans", Role::kCost, "convert_layout"},
    // Tensor cores and synchronization.
    {"ttng.warp_group_dot", Role::kCost, "wgmma"},
    {"tt.dot", Role::kCost, "wgmma"},
    {"ttng.warp_group_dot_wait", Role::kCost, "wgmma_wait"},
    {"ttng.wait_barrier", Role::kCost, "mbarrier_wait"},
    {"ttng.barrier_expect", Role::kCost, "mbarrier_arrive"},
    {"ttng.arrive_barrier", Role::kCost, "mbarrier_arrive"},
    {"ttng.init_barrier", Role::kCost, "mbarrier_arrive"},
    {"ttng.inval_barrier", Role::kCost, "mbarrier_arrive"},
    {"gpu.barrier", Role::kCost, "named_barrier"},
    {"ttg.barrier", Role::kCost, "named_barrier"},
    {"ttng.fence_async_shared", Role::kCost, "fence"},
    // CUDA cores and SFU.
    {"tt.reduce", Role::kCost, "reduce"},     {"tt.scan", Role::kCost, "reduce"},
    {"math.exp2", Role::kCost, "exp"},        {"math.exp", Role::kCost, "exp"},
    {"math.log", Role::kCost, "sfu"},         {"math.log2", Role::kCost, "sfu"},
    {"math.sqrt", Role::kCost, "sfu"},        {"math.rsqrt", Role::kCost, "sfu"},
    {"math.sin", Role::kCost, "sfu"},         {"math.cos", Role::kCost, "sfu"},
    {"math.tanh", Role::kCost, "sfu"},        {"math.erf", Role::kCost, "sfu"},
    {"arith.divf", Role::kCost, "sfu"},       {"tt.precise_sqrt", Role::kCost, "sfu"},
    {"tt.precise_divf", Role::kCost, "sfu"},
    {"arith.truncf", Role::kCost, "convert"}, {"arith.extf", Role::kCost, "convert"},
    {"arith.sitofp", Role::kCost, "convert"}, {"arith.uitofp", Role::kCost, "convert"},
    {"arith.fptosi", Role::kCost, "convert"}, {"arith.fptoui", Role::kCost, "convert"},
    {"tt.fp_to_fp", Role::kCost, "convert"},
    {"tt.addptr", Role::kCost, "address"},    {"tt.advance", Role::kCost, "address"},
    {"tt.clampf", Role::kCost, "alu"},        {"tt.mulhiui", Role::kCost, "alu"},
};

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view unquote(const Token& t) {
  if (t.kind == Tok::kString && t.text.size() >= 2) return t.text.substr(1, t.text.size() - 2);
  return t.text;
}

// The %values of `op`'s tokens and, recursively, of its regions' ops, in
// order: `uses`, and what they define (results, block arguments,
// `%x = ...` of a loop header): `defs`.
void collect_values(const Operation& op, bool self, std::vector<std::string>& uses,
                    std::set<std::string, std::less<>>& defs) {
  if (!self) defs.insert(op.results.begin(), op.results.end());
  for (size_t i = 0; i < op.tokens.size(); ++i) {
    if (op.tokens[i].kind != Tok::kValue) continue;
    const bool defined = i + 1 < op.tokens.size() && op.tokens[i + 1].is("=");
    if (defined) {
      defs.emplace(op.tokens[i].text);
    } else {
      uses.emplace_back(op.tokens[i].text);
    }
  }
  for (const Region& r : op.regions) {
    for (const Block& b : r.blocks) {
      defs.insert(b.args.begin(), b.args.end());
      for (const Operation& inner : b.ops) collect_values(inner, false, uses, defs);
    }
  }
}

// The %values after the op's first `]`: the destination of a TMA copy.
std::vector<std::string> after_brackets(const Operation& op) {
  std::vector<std::string> out;
  bool seen = false;
  for (const Token& t : op.tokens) {
    if (t.is("]")) seen = true;
    if (seen && t.kind == Tok::kValue) out.emplace_back(t.text);
  }
  return out;
}

const TileType* nth_input(const TypeSection& types, size_t n) {
  return n < types.inputs.size() ? &types.inputs[n] : nullptr;
}

Status type_error(const Operation& op, std::string_view source, std::string_view want) {
  return error_at(source, op.line, quoted(op.name) + " needs " + std::string(want));
}

StatusOr<hopper::Work> mma_work(const Operation& op, const TypeSection& types,
                                const LayoutLookup& layouts, std::string_view source) {
  const TileType* a = nth_input(types, 0);
  const TileType* b = nth_input(types, 1);
  const TileType* c = types.results.empty() ? nullptr : &types.results.front();
  if (!a || !b || !c || a->shape.size() < 2 || b->shape.size() < 2 || c->shape.size() < 2) {
    return type_error(op, source, "types A * B -> C of rank 2 or more");
  }
  hopper::Work w;
  w.m = c->elements() / c->shape.back();  // batch dimensions folded into M
  w.n = c->shape.back();
  w.k = a->shape.back();
  w.element = a->element.value_or(b->element.value_or(Element::kF16));
  w.a_in_smem = a->kind == TypeKind::kMemdesc;
  if (const auto warps = layouts.list(c->encoding, "warpsPerCTA"); warps && warps->size() == 2) {
    const int64_t groups = std::max<int64_t>(1, (*warps)[0] * (*warps)[1] / 4);
    w.warp_groups_m = std::clamp<int64_t>((*warps)[0] / 4, 1, groups);
    w.warp_groups_n = std::max<int64_t>(1, groups / w.warp_groups_m);
  }
  return w;
}

// Elements per vectorized access of a tensor of pointers: its layout's
// sizePerThread along the fastest dimension, at most 16 bytes.
int64_t vector_of(const TileType& t, const LayoutLookup& layouts) {
  const auto per_thread = layouts.list(t.encoding, "sizePerThread");
  const auto order = layouts.list(t.encoding, "order");
  if (!per_thread || !order || order->empty()) return 1;
  const int64_t fastest = order->front();
  if (fastest < 0 || fastest >= static_cast<int64_t>(per_thread->size())) return 1;
  const int64_t bits = hopper::element_bits(t.pointee.value_or(Element::kI32));
  return std::clamp<int64_t>((*per_thread)[fastest], 1, 128 / bits);
}

}  // namespace

OpRule rule_of(std::string_view op_name) {
  for (const Entry& e : kTable) {
    if (e.op == op_name) return OpRule{e.role, e.kind};
  }
  if (op_name.rfind("arith.", 0) == 0 || op_name.rfind("math.", 0) == 0) {
    return OpRule{Role::kCost, "alu"};
  }
  return OpRule{Role::kUnknown, ""};
}

std::vector<std::string> operands_of(const Operation& op) {
  std::vector<std::string> uses;
  std::set<std::string, std::less<>> defs;
  collect_values(op, true, uses, defs);
  std::erase_if(uses, [&defs](const std::string& u) { return defs.count(u) > 0; });
  return uses;
}

std::optional<int64_t> int_attr(const Operation& op, std::string_view key) {
  const std::vector<Token>& t = op.tokens;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    const bool named = t[i].kind == Tok::kIdent || t[i].kind == Tok::kString;
    if (named && unquote(t[i]) == key && t[i + 1].is("=") && t[i + 2].kind == Tok::kNumber) {
      return parse_int(t[i + 2].text);
    }
  }
  return std::nullopt;
}

bool is_load_op(std::string_view op_name) {
  const OpRule r = rule_of(op_name);
  return r.role == Role::kCost &&
         (r.kind == "global_load" || r.kind == "tiled_tma_load" || r.kind == "cp_async");
}

bool is_dot_op(std::string_view op_name) { return rule_of(op_name).kind == "wgmma"; }

std::vector<Access> buffer_accesses(const Operation& op, const std::vector<std::string>& operands) {
  const std::string_view n = op.name;
  auto operand = [&](size_t i) { return i < operands.size() ? operands[i] : std::string(); };
  std::vector<Access> out;
  if (n == "ttg.local_alloc" && !op.results.empty()) out.push_back({op.results.front(), true});
  if (n == "ttg.local_store" || n == "ttg.async_copy_global_to_local") out.push_back({operand(1), true});
  if (n == "ttg.local_load" || n == "ttng.wait_barrier") out.push_back({operand(0), false});
  if (n == "ttng.barrier_expect" || n == "ttng.arrive_barrier" || n == "ttng.init_barrier" ||
      n == "ttng.inval_barrier") {
    out.push_back({operand(0), true});
  }
  if (n == "ttng.warp_group_dot" || n == "tt.dot") {
    out.push_back({operand(0), false});
    out.push_back({operand(1), false});
  }
  if (n == "ttng.warp_group_dot_wait") {
    for (const std::string& v : operands) out.push_back({v, false});
  }
  if (n == "ttng.async_tma_copy_global_to_local" || n == "ttng.async_tma_copy_local_to_global") {
    const std::vector<std::string> rest = after_brackets(op);
    const bool load = n == "ttng.async_tma_copy_global_to_local";
    for (size_t i = 0; i < rest.size() && i < (load ? 2u : 1u); ++i) out.push_back({rest[i], load});
  }
  std::erase_if(out, [](const Access& a) { return a.value.empty(); });
  return out;
}

StatusOr<hopper::Work> work_of(const Operation& op, std::string_view kind,
                               const TypeSection& types, const LayoutLookup& layouts,
                               std::string_view source) {
  if (kind == "wgmma") return mma_work(op, types, layouts, source);
  hopper::Work w;
  int64_t bytes = 0;
  for (const auto* list : {&types.inputs, &types.results}) {
    for (const TileType& t : *list) bytes = std::max(bytes, t.data_bytes());
  }
  const bool allocates = op.name == "ttg.local_alloc";
  w.bytes = allocates && operands_of(op).empty() ? 0 : bytes;  // an empty buffer moves nothing
  if (kind == "convert_layout" && !types.inputs.empty()) w.bytes = types.inputs.front().data_bytes();
  const TileType* data = types.inputs.empty() ? types.result() : &types.inputs.back();
  if (kind == "address" || kind == "reduce") data = types.first_input();
  if (data != nullptr) {
    w.elements = data->elements();
    w.element = data->element.value_or(Element::kF32);
    if (kind == "address") w.vector = vector_of(*data, layouts);
  }
  if (kind == "reduce" && !types.results.empty()) w.out_elements = types.results.front().elements();
  // tt.descriptor_load gives registers: its TMA copy lands in SMEM and is read back.
  w.to_registers = kind == "tiled_tma_load" && !types.results.empty() &&
                   types.results.front().kind == TypeKind::kTensor;
  return w;
}

ImplicitBuffer implicit_buffer(const Operation& op, const TypeSection& types,
                               const LayoutLookup& layouts) {
  ImplicitBuffer out;
  const TileType* t = types.result();
  const bool tensor = t != nullptr && t->kind == TypeKind::kTensor && !t->shape.empty();
  if (op.name == "tt.load" && tensor && t->pointee) {
    const int64_t access_bits = vector_of(*t, layouts) * hopper::element_bits(*t->pointee);
    if (access_bits >= 32) out.load_bytes = t->data_bytes();
  }
  if (op.name == "tt.descriptor_load" && tensor) out.load_bytes = t->data_bytes();
  if (op.name == "tt.descriptor_store" || op.name == "tt.descriptor_scatter" ||
      op.name == "tt.descriptor_reduce") {
    for (const TileType& in : types.inputs) {
      if (in.kind == TypeKind::kTensor) out.staging_bytes = std::max(out.staging_bytes, in.data_bytes());
    }
  }
  return out;
}

int64_t result_registers(std::string_view kind, const TypeSection& types, int64_t threads) {
  for (std::string_view k : {"tiled_tma_load", "tma_store", "global_store", "cp_async",
                             "smem_write", "cp_async_commit", "cp_async_wait", "wgmma_wait",
                             "mbarrier_arrive", "mbarrier_wait", "named_barrier", "fence"}) {
    if (kind == k) return 0;
  }
  const TileType* r = types.result();
  if (r == nullptr || r->kind != TypeKind::kTensor) return 0;
  // tt.load names the pointers' type; what it returns is their pointees.
  const std::optional<Element> e = kind == "global_load" && r->pointee ? r->pointee : r->element;
  const int64_t bits = hopper::element_bits(e.value_or(Element::kF32));
  return hopper::registers_per_thread(r->elements() * bits / 8, threads);
}

}  // namespace tilesched::graphgen::ttgir
