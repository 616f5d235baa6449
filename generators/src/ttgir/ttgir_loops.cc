// The TTGIR reader's loops (ttgir_loops.h): where the loops of a document
// are, what each carries and holds, and how many graph ops an import of
// it makes (docs/TTGIR.md, "Which loop" and "Loop shapes").
#include <algorithm>

#include "ttgir_loops.h"
#include "ttgir_ops.h"

namespace tilesched::graphgen::ttgir {

namespace {

bool is_terminator(std::string_view op_name) {
  return op_name == "scf.yield" || op_name == "scf.condition";
}

// The values a loop header defines in its carried list: `iter_args(%a =
// %x, ...)` of an scf.for, the leading `(%a = %x, ...)` of an scf.while.
std::vector<std::string> header_carried(const Operation& loop, bool is_while) {
  std::vector<std::string> out;
  int depth = 0;
  bool in_list = false, seen_list = false;
  for (size_t i = 0; i < loop.tokens.size(); ++i) {
    const Token& t = loop.tokens[i];
    if (!is_while && t.kind == Tok::kIdent && t.text == "iter_args") in_list = true;
    if (t.is("(") && ++depth == 1 && is_while && !seen_list) in_list = seen_list = true;
    if (t.is(")") && --depth == 0) in_list = false;
    const bool defined = i + 1 < loop.tokens.size() && loop.tokens[i + 1].is("=");
    if (in_list && depth == 1 && t.kind == Tok::kValue && defined) out.emplace_back(t.text);
  }
  return out;
}

// The trailing terminator's operands, if the block ends in `name`.
std::vector<std::string> terminator_operands(const Block& b, std::string_view name) {
  if (b.ops.empty() || b.ops.back().name != name) return {};
  return operands_of(b.ops.back());
}

Status read_while(const Operation& loop, std::string_view source, LoopShape& s) {
  const Block& before = loop.regions[0].blocks.front();
  const Block& after = loop.regions[1].blocks.front();
  if (s.iter_args.empty()) s.iter_args = before.args;
  if (before.ops.empty() || before.ops.back().name != "scf.condition") {
    return error_at(source, loop.line, "scf.while's first region does not end in scf.condition");
  }
  std::vector<std::string> cond = operands_of(before.ops.back());
  if (cond.empty()) return error_at(source, before.ops.back().line, "scf.condition without a condition");
  s.condition = cond.front();
  s.forwarded.assign(cond.begin() + 1, cond.end());
  s.after_args = after.args;
  if (s.forwarded.size() != s.after_args.size()) {
    return error_at(source, before.ops.back().line,
                    "scf.condition passes " + std::to_string(s.forwarded.size()) +
                        " values to a do block of " + std::to_string(s.after_args.size()) +
                        " arguments");
  }
  s.blocks = {&before, &after};
  s.yielded = terminator_operands(after, "scf.yield");
  if (s.yielded.size() != s.iter_args.size()) {
    return error_at(source, loop.line,
                    "scf.while's scf.yield passes " + std::to_string(s.yielded.size()) +
                        " values to " + std::to_string(s.iter_args.size()) + " carried values");
  }
  return Status::Ok();
}

// The values `op`'s header defines for its regions: `%x = ...` among its
// tokens (an induction variable, iter_args) and a function's `%x: type`
// arguments.
void header_values(const Operation& op, std::set<std::string, std::less<>>& out) {
  const bool func = op.name == "tt.func" || op.name == "func.func";
  for (size_t i = 0; i + 1 < op.tokens.size(); ++i) {
    const Token& next = op.tokens[i + 1];
    if (op.tokens[i].kind == Tok::kValue && (next.is("=") || (func && next.is(":")))) {
      out.emplace(op.tokens[i].text);
    }
  }
}

// True when `loop` is `at` or inside it; then adds what is visible at the
// loop from `at`'s regions. Recursion is bounded by kMaxNesting.
bool add_visible(const Operation& at, const Operation* loop,
                 std::set<std::string, std::less<>>& out) {
  if (&at == loop) {
    header_values(at, out);
    for (const Region& r : at.regions) {
      for (const Block& b : r.blocks) out.insert(b.args.begin(), b.args.end());
    }
    return true;
  }
  for (const Region& r : at.regions) {
    for (const Block& b : r.blocks) {
      for (size_t i = 0; i < b.ops.size(); ++i) {
        if (!add_visible(b.ops[i], loop, out)) continue;
        header_values(at, out);
        out.insert(b.args.begin(), b.args.end());
        for (size_t j = 0; j < i; ++j) out.insert(b.ops[j].results.begin(), b.ops[j].results.end());
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::set<std::string, std::less<>> values_visible_in(const Document& doc, const LoopRef& loop) {
  std::set<std::string, std::less<>> out;
  if (loop.top_index < doc.ops.size()) add_visible(doc.ops[loop.top_index], loop.op, out);
  return out;
}

bool is_loop_op(std::string_view op_name) { return op_name == "scf.for" || op_name == "scf.while"; }

StatusOr<LoopShape> read_loop_shape(const Operation& loop, std::string_view source) {
  const bool is_while = loop.name == "scf.while";
  const size_t regions = is_while ? 2 : 1;
  bool bodied = loop.regions.size() >= regions;
  for (size_t r = 0; bodied && r < regions; ++r) bodied = !loop.regions[r].blocks.empty();
  if (!bodied) return error_at(source, loop.line, loop.name + " without a body");
  LoopShape s;
  s.iter_args = header_carried(loop, is_while);
  if (is_while) {
    if (Status st = read_while(loop, source, s); !st.ok()) return st;
  } else {
    s.blocks = {&loop.regions.front().blocks.front()};
    s.yielded = terminator_operands(*s.blocks.front(), "scf.yield");
    if (s.yielded.size() != s.iter_args.size()) {
      return error_at(source, loop.line, "scf.yield passes " + std::to_string(s.yielded.size()) +
                                             " values to " + std::to_string(s.iter_args.size()) +
                                             " iter_args");
    }
  }
  if (s.iter_args.size() > kMaxIterArgs) return error_at(source, loop.line, "more than 4096 iter_args");
  return s;
}

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
    if (is_loop_op(e.op->name)) out.push_back(LoopRef{e.op, e.top, e.func});
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

int imported_op_count(const Operation& loop) {
  int n = 0;
  // (block's ops, next index): scf.if branches are walked, nested loops not.
  // The blocks the builder walks: each region's first (two for scf.while).
  std::vector<std::pair<const std::vector<Operation>*, size_t>> stack;
  const size_t regions = std::min<size_t>(loop.regions.size(), loop.name == "scf.while" ? 2 : 1);
  for (size_t r = regions; r-- > 0;) {
    if (!loop.regions[r].blocks.empty()) stack.emplace_back(&loop.regions[r].blocks.front().ops, 0);
  }
  while (!stack.empty()) {
    auto& [ops, next] = stack.back();
    if (next >= ops->size()) {
      stack.pop_back();
      continue;
    }
    const Operation& op = (*ops)[next++];
    if (op.name == "scf.if") {
      for (const Region& r : op.regions) {
        if (!r.blocks.empty()) stack.emplace_back(&r.blocks.front().ops, 0);
      }
    } else if (!is_terminator(op.name) && !is_loop_op(op.name) && rule_of(op.name).role != Role::kFold) {
      ++n;
    }
  }
  return n;
}

TtgirLoop describe_loop(const LoopRef& loop, int index) {
  TtgirLoop d;
  d.index = index;
  d.line = loop.op->line;
  d.op = loop.op->name;
  d.function = "-";
  if (loop.func != nullptr && (loop.func->name == "tt.func" || loop.func->name == "func.func")) {
    const auto sym = std::find_if(loop.func->tokens.begin(), loop.func->tokens.end(),
                                  [](const Token& t) { return t.kind == Tok::kSymbol; });
    if (sym != loop.func->tokens.end()) d.function = std::string(sym->text.substr(0, 64));
  }
  d.op_count = imported_op_count(*loop.op);
  d.innermost = true;
  std::vector<const Operation*> stack;
  for (const Region& r : loop.op->regions) {
    for (const Block& b : r.blocks) {
      for (const Operation& op : b.ops) {
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
    d.innermost &= !is_loop_op(op->name);
    for (const Region& r : op->regions) {
      for (const Block& b : r.blocks) {
        for (const Operation& inner : b.ops) stack.push_back(&inner);
      }
    }
  }
  return d;
}

}  // namespace tilesched::graphgen::ttgir
