// The TTGIR parser (ttgir_syntax.h): tokens to a tree of operations. MLIR
// prints one operation per line; a `{` that ends a line opens a region,
// whose lines are operations (and `^bb` block labels) up to the matching
// `}`, after which the operation goes on (`} {tt.num_stages = 3 : i32}`).
// Top-level lines `#name = ...` and `!name = ...` are aliases.
#include <charconv>

#include "ttgir_syntax.h"

namespace tilesched::graphgen::ttgir {

namespace {

class Parser {
 public:
  Parser(const std::vector<Token>& tokens, std::string_view source)
      : t_(tokens), source_(source) {}
  StatusOr<Document> run();

 private:
  bool at_end() const { return i_ >= t_.size(); }
  const Token& peek() const { return t_[i_]; }
  int line() const { return at_end() ? (t_.empty() ? 1 : t_.back().line) : peek().line; }
  bool region_opens() const;
  void skip_newlines();
  Status error(std::string_view what) const { return error_at(source_, line(), what); }

  Status alias(Document& doc);
  Status operation(Operation& op, int depth);
  Status results(Operation& op);
  Status body(Operation& op, int depth);
  Status region(Region& r, int depth);
  Status block_label(Block& b);
  Status aliases_defined(const Document& doc) const;
  Status aliases_used(const Document& doc, const Operation& op, size_t top) const;

  const std::vector<Token>& t_;
  std::string_view source_;
  size_t i_ = 0;
};

// A `{` followed by the end of its line.
bool Parser::region_opens() const {
  return peek().is("{") && (i_ + 1 >= t_.size() || t_[i_ + 1].kind == Tok::kNewline);
}

void Parser::skip_newlines() {
  while (!at_end() && peek().kind == Tok::kNewline) ++i_;
}

StatusOr<Document> Parser::run() {
  Document doc;
  for (skip_newlines(); !at_end(); skip_newlines()) {
    const bool alias_line = (peek().kind == Tok::kHash || peek().kind == Tok::kBang) &&
                            i_ + 1 < t_.size() && t_[i_ + 1].is("=");
    if (alias_line) {
      if (Status s = alias(doc); !s.ok()) return s;
      continue;
    }
    if (peek().is("}")) return error("'}' closes no region");
    Operation op;
    if (Status s = operation(op, 0); !s.ok()) return s;
    doc.ops.push_back(std::move(op));
  }
  if (Status s = aliases_defined(doc); !s.ok()) return s;
  return doc;
}

// An alias name: `#blocked1`, `!mytype`; `#ttg.blocked` and `!tt.ptr` name
// a dialect's attribute or type instead.
bool names_alias(const Token& t) {
  return (t.kind == Tok::kHash || t.kind == Tok::kBang) &&
         t.text.find('.') == std::string_view::npos;
}

// Every alias used is defined: an undefined layout would otherwise be read
// as no layout, and the op priced with other latencies and resources.
Status Parser::aliases_used(const Document& doc, const Operation& op, size_t top) const {
  for (const Token& t : op.tokens) {
    if (names_alias(t) && find_alias(doc, t.text, top) == nullptr) {
      return error_at(source_, t.line, "the alias " + quoted(t.text) +
                                           " is used but not defined above it");
    }
  }
  for (const Region& r : op.regions) {
    for (const Block& b : r.blocks) {
      for (const Operation& inner : b.ops) {
        if (Status s = aliases_used(doc, inner, top); !s.ok()) return s;
      }
    }
  }
  return Status::Ok();
}

Status Parser::aliases_defined(const Document& doc) const {
  for (const Alias& a : doc.aliases) {
    for (const Token& t : a.tokens) {
      if (names_alias(t) && find_alias(doc, t.text, a.before_op) == nullptr) {
        return error_at(source_, t.line, "the alias " + quoted(t.text) + " (in " +
                                             quoted(a.name) + ") is used but not defined");
      }
    }
  }
  for (size_t k = 0; k < doc.ops.size(); ++k) {
    if (Status s = aliases_used(doc, doc.ops[k], k); !s.ok()) return s;
  }
  return Status::Ok();
}

Status Parser::alias(Document& doc) {
  Alias a;
  a.name = std::string(peek().text);
  a.before_op = doc.ops.size();
  i_ += 2;  // the name and '='
  int depth = 0;
  for (; !at_end() && !(peek().kind == Tok::kNewline && depth == 0); ++i_) {
    if (peek().is("(") || peek().is("[") || peek().is("{")) ++depth;
    if ((peek().is(")") || peek().is("]") || peek().is("}")) && --depth < 0) {
      return error("unbalanced " + quoted(peek().text) + " in alias " + quoted(a.name));
    }
    a.tokens.push_back(peek());
  }
  if (depth != 0) return error("unbalanced brackets in alias " + quoted(a.name));
  doc.aliases.push_back(std::move(a));
  return Status::Ok();
}

// `%a, %b = ` or `%a:3 = `, if the operation has results.
Status Parser::results(Operation& op) {
  size_t j = i_;
  while (j < t_.size() && t_[j].kind != Tok::kNewline && !t_[j].is("=")) ++j;
  if (j >= t_.size() || !t_[j].is("=") || peek().kind != Tok::kValue) return Status::Ok();
  while (i_ < j) {
    if (peek().kind != Tok::kValue) return error("expected a result name, got " + quoted(peek().text));
    const std::string name(peek().text);
    ++i_;
    int64_t count = 1;
    if (i_ + 1 < j && peek().is(":")) {
      const std::string_view n = t_[i_ + 1].text;
      const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), count);
      if (ec != std::errc() || end != n.data() + n.size() || count < 1 || count > kMaxResultGroup) {
        return error("result group " + quoted(n) + " is not a count in 1.." +
                     std::to_string(kMaxResultGroup));
      }
      i_ += 2;
    }
    for (int64_t k = 0; k < count; ++k) {
      op.results.push_back(count == 1 ? name : name + "#" + std::to_string(k));
    }
    if (i_ < j && !peek().is(",")) return error("expected ',' between result names");
    if (i_ < j) ++i_;
  }
  ++i_;  // '='
  return Status::Ok();
}

Status Parser::operation(Operation& op, int depth) {
  op.line = line();
  if (Status s = results(op); !s.ok()) return s;
  if (at_end() || (peek().kind != Tok::kIdent && peek().kind != Tok::kString)) {
    return error("expected an operation, got " +
                 (at_end() ? std::string("the end of the input") : quoted(peek().text)));
  }
  std::string_view name = peek().text;
  if (peek().kind == Tok::kString) name = name.substr(1, name.size() - 2);
  if (name.empty()) return error("an operation with an empty name");
  op.name = std::string(name);
  ++i_;
  return body(op, depth);
}

// The operation's tokens to the end of its line at bracket depth 0, with
// its regions parsed wherever a `{` ends a line. Brackets must pair up.
Status Parser::body(Operation& op, int depth) {
  std::string open;  // the closers the open brackets expect, innermost last
  while (!at_end() && !(peek().kind == Tok::kNewline && open.empty())) {
    if (peek().kind == Tok::kNewline) {
      ++i_;  // a line break inside brackets: only a region's lines may do that
      continue;
    }
    if (region_opens()) {
      if (depth + 1 > kMaxNesting) {
        return error("regions nested deeper than " + std::to_string(kMaxNesting));
      }
      Region r;
      if (Status s = region(r, depth + 1); !s.ok()) return s;
      op.regions.push_back(std::move(r));
      continue;
    }
    const std::string_view t = peek().kind == Tok::kPunct ? peek().text : "";
    if (t == "(" || t == "[" || t == "{") open += t == "(" ? ')' : t == "[" ? ']' : '}';
    if (t == ")" || t == "]" || t == "}") {
      if (open.empty() && t == "}") break;  // closes the enclosing region
      if (open.empty() || open.back() != t.front()) return error("unbalanced " + quoted(t));
      open.pop_back();
    }
    op.tokens.push_back(peek());
    ++i_;
  }
  if (!open.empty()) return error_at(source_, op.line, "unbalanced brackets in " + quoted(op.name));
  return Status::Ok();
}

// After a `{` that ends a line: blocks of operations up to the matching `}`.
Status Parser::region(Region& r, int depth) {
  r.line = line();
  ++i_;  // '{'
  for (skip_newlines(); !at_end(); skip_newlines()) {
    if (peek().is("}")) {
      ++i_;
      return Status::Ok();
    }
    if ((peek().kind == Tok::kHash || peek().kind == Tok::kBang) && i_ + 1 < t_.size() &&
        t_[i_ + 1].is("=")) {
      // Aliases sit at the top level only: the region ran past its end (a
      // cut or unbalanced input), so say where it opened.
      return error_at(source_, r.line,
                      "the region opened here is not closed before the alias " +
                          quoted(peek().text) + " at line " + std::to_string(line()));
    }
    if (peek().kind == Tok::kBlock) {
      r.blocks.emplace_back();
      if (Status s = block_label(r.blocks.back()); !s.ok()) return s;
      continue;
    }
    if (r.blocks.empty()) r.blocks.emplace_back().line = line();
    Operation op;
    if (Status s = operation(op, depth); !s.ok()) return s;
    r.blocks.back().ops.push_back(std::move(op));
  }
  return error_at(source_, r.line, "the region opened here is not closed");
}

// `^bb0(%a: f32, %b: f32):` -- the arguments are the values before each ':'.
Status Parser::block_label(Block& b) {
  b.line = line();
  ++i_;
  int depth = 0;
  bool seen_colon = false;
  for (; !at_end() && peek().kind != Tok::kNewline; ++i_) {
    if (peek().is("(")) ++depth;
    if (peek().is(")") && --depth < 0) return error("unbalanced ')' in a block label");
    if (depth == 1 && peek().kind == Tok::kValue) b.args.emplace_back(peek().text);
    if (depth == 0 && peek().is(":")) seen_colon = true;
  }
  if (depth != 0 || !seen_colon) return error("malformed block label");
  return Status::Ok();
}

}  // namespace

StatusOr<Document> parse_document(const std::vector<Token>& tokens, std::string_view source) {
  return Parser(tokens, source).run();
}

const Alias* find_alias(const Document& doc, std::string_view name, size_t top_index) {
  const Alias* found = nullptr;
  for (const Alias& a : doc.aliases) {
    if (a.before_op <= top_index && a.name == name) found = &a;
  }
  return found;
}

}  // namespace tilesched::graphgen::ttgir
