// TTGIR tile types (ttgir_types.h): a small recursive reader over the
// tokens of an operation's type section, and layout lookups through the
// document's aliases.
#include "ttgir_types.h"

#include <charconv>

namespace tilesched::graphgen::ttgir {

namespace {

using hopper::Element;

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

class TypeReader {
 public:
  TypeReader(const std::vector<Token>& t, size_t begin, size_t end, std::string_view source)
      : t_(t), p_(begin), end_(end), source_(source) {}
  StatusOr<TypeSection> section();

 private:
  bool at(std::string_view punct) const { return p_ < end_ && t_[p_].is(punct); }
  int line() const { return p_ < end_ ? t_[p_].line : (end_ > 0 ? t_[end_ - 1].line : 0); }
  Status error(std::string_view what) const { return error_at(source_, line(), what); }

  StatusOr<TileType> type(int depth);
  StatusOr<TileType> shaped(TypeKind kind, int depth);
  Status shape_word(std::string_view word, TileType& out, bool& element_follows);
  Status skip_angles();

  const std::vector<Token>& t_;
  size_t p_, end_;
  std::string_view source_;
};

StatusOr<TypeSection> TypeReader::section() {
  TypeSection s;
  bool results = false;
  while (p_ < end_) {
    const Token& tok = t_[p_];
    if (tok.is(",") || tok.is("*") || tok.is("(") || tok.is(")")) {
      ++p_;
      continue;
    }
    if (tok.kind == Tok::kArrow || (tok.kind == Tok::kIdent && tok.text == "to")) {
      results = true;
      ++p_;
      continue;
    }
    StatusOr<TileType> ty = type(0);
    if (!ty.ok()) return ty.status();
    (results ? s.results : s.inputs).push_back(std::move(*ty));
  }
  return s;
}

// Past a balanced <...> that starts at p_.
Status TypeReader::skip_angles() {
  int depth = 0;
  for (; p_ < end_; ++p_) {
    if (t_[p_].is("<")) ++depth;
    if (t_[p_].is(">") && --depth == 0) {
      ++p_;
      return Status::Ok();
    }
  }
  return error("unbalanced '<' in a type");
}

StatusOr<TileType> TypeReader::type(int depth) {
  if (depth > kMaxNesting) return error("types nested deeper than " + std::to_string(kMaxNesting));
  if (p_ >= end_) return error("expected a type");
  const Token& tok = t_[p_++];
  const bool angled = at("<");
  if (tok.kind == Tok::kIdent && tok.text == "tensor" && angled) return shaped(TypeKind::kTensor, depth);
  if (tok.is("<")) {  // a buffer type printed without its name: `-> <128x64xf16, #shared, ...>`
    --p_;
    return shaped(TypeKind::kMemdesc, depth);
  }
  if (tok.kind == Tok::kBang && tok.text == "!ttg.memdesc" && angled) {
    return shaped(TypeKind::kMemdesc, depth);
  }
  TileType out;
  if (tok.kind == Tok::kBang && (tok.text == "!tt.ptr" || tok.text == "!tt.tensordesc") && angled) {
    ++p_;
    StatusOr<TileType> inner = type(depth + 1);
    if (!inner.ok()) return inner.status();
    if (tok.text == "!tt.ptr") {
      out.kind = TypeKind::kPointer;
      out.element = Element::kPointer;
      out.pointee = inner->element;
    } else {
      out = std::move(*inner);
      out.kind = TypeKind::kTensorDesc;
    }
    while (p_ < end_ && !at(">")) ++p_;  // an address space, a layout
    if (!at(">")) return error("expected '>' after " + quoted(tok.text));
    ++p_;
    return out;
  }
  if (tok.kind == Tok::kIdent && element_of(tok.text)) {
    out.kind = TypeKind::kScalar;
    out.element = element_of(tok.text);
    return out;
  }
  if (tok.kind != Tok::kIdent && tok.kind != Tok::kBang) {
    return error("expected a type, got " + quoted(tok.text));
  }
  if (angled) {
    if (Status s = skip_angles(); !s.ok()) return s;
  }
  return out;  // a type no cost rule reads (!ttg.async.token, none, ...)
}

// `<` shape-and-element [`,` encoding...] `>` of a tensor or memdesc.
StatusOr<TileType> TypeReader::shaped(TypeKind kind, int depth) {
  TileType out;
  out.kind = kind;
  ++p_;  // '<'
  if (p_ >= end_) return error("expected a shape");
  bool element_follows = false;
  if (t_[p_].kind == Tok::kNumber) {
    if (Status s = shape_word(t_[p_++].text, out, element_follows); !s.ok()) return s;
  } else {
    element_follows = true;  // rank 0: tensor<f32>, tensor<!tt.ptr<f16>>
  }
  if (element_follows) {
    StatusOr<TileType> e = type(depth + 1);
    if (!e.ok()) return e.status();
    out.element = e->element;
    out.pointee = e->pointee;
  }
  int angles = 0;
  for (; p_ < end_; ++p_) {
    if (t_[p_].is("<")) ++angles;
    if (t_[p_].is(">") && angles-- == 0) break;
    if (angles > 0 || !t_[p_].is(",") || !out.encoding.empty()) out.encoding.push_back(t_[p_]);
  }
  if (!at(">")) return error("expected '>' to close a shaped type");
  ++p_;
  return out;
}

// "128x64xf16": dims 128 and 64, element f16; "128x64x": the element is
// the next type (a pointer).
Status TypeReader::shape_word(std::string_view word, TileType& out, bool& element_follows) {
  int64_t elements = 1;
  while (!word.empty()) {
    const size_t x = word.find('x');
    const std::optional<int64_t> dim = x == std::string_view::npos ? std::nullopt
                                                                    : parse_int(word.substr(0, x));
    if (!dim) break;
    if (*dim < 1 || *dim > kMaxDim || elements > kMaxElements / *dim) {
      return error("tensor dimension " + quoted(word.substr(0, x)) + " is out of range 1.." +
                   std::to_string(kMaxDim) + " (or the tile exceeds 2^40 elements)");
    }
    elements *= *dim;
    out.shape.push_back(*dim);
    word.remove_prefix(x + 1);
  }
  element_follows = word.empty();
  if (!element_follows) {
    if (word.front() >= '0' && word.front() <= '9') {
      return error("malformed shape " + quoted(word));
    }
    out.element = element_of(word);
  }
  return Status::Ok();
}

}  // namespace

std::optional<Element> element_of(std::string_view s) {
  if (s == "f16") return Element::kF16;
  if (s == "bf16") return Element::kBF16;
  if (s == "f32" || s == "tf32") return Element::kF32;
  if (s == "f64") return Element::kF64;
  if (s.rfind("f8", 0) == 0 || s.rfind("F8", 0) == 0) return Element::kF8;
  if (s == "i1") return Element::kI1;
  if (s == "i8") return Element::kI8;
  if (s == "i16") return Element::kI16;
  if (s == "i32") return Element::kI32;
  if (s == "i64" || s == "index") return Element::kI64;
  return std::nullopt;
}

int64_t TileType::elements() const {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;  // bounded by kMaxElements when read
  return n;
}

int64_t TileType::data_bytes() const {
  if (kind == TypeKind::kOther) return 0;
  const std::optional<Element> e =
      element == Element::kPointer && pointee ? pointee : element;
  const int64_t bits = e ? hopper::element_bits(*e) : 32;
  return elements() * bits / 8;
}

const TileType* TypeSection::result() const {
  if (!results.empty()) return &results.front();
  return inputs.empty() ? nullptr : &inputs.back();
}

StatusOr<TypeSection> read_types(const Operation& op, std::string_view source) {
  int depth = 0;
  size_t colon = op.tokens.size();
  for (size_t i = 0; i < op.tokens.size(); ++i) {
    const Token& t = op.tokens[i];
    if (t.is("(") || t.is("[") || t.is("{") || t.is("<")) ++depth;
    if (t.is(")") || t.is("]") || t.is("}") || t.is(">")) --depth;
    if (depth == 0 && t.is(":")) colon = i;
  }
  if (colon == op.tokens.size()) return TypeSection{};
  size_t end = colon + 1;  // up to an attribute dictionary after the types, if any
  for (depth = 0; end < op.tokens.size(); ++end) {
    const Token& t = op.tokens[end];
    if (depth == 0 && t.is("{")) break;
    if (t.is("(") || t.is("[") || t.is("{") || t.is("<")) ++depth;
    if (t.is(")") || t.is("]") || t.is("}") || t.is(">")) --depth;
  }
  return TypeReader(op.tokens, colon + 1, end, source).section();
}

std::optional<std::vector<int64_t>> LayoutLookup::list(const std::vector<Token>& encoding,
                                                       std::string_view key) const {
  const std::vector<Token>* where = &encoding;
  if (!encoding.empty() && encoding.front().kind == Tok::kHash && doc != nullptr) {
    if (const Alias* a = find_alias(*doc, encoding.front().text, top_index)) where = &a->tokens;
  }
  const std::vector<Token>& t = *where;
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].kind != Tok::kIdent || t[i].text != key || !t[i + 1].is("=") || !t[i + 2].is("[")) {
      continue;
    }
    std::vector<int64_t> out;
    for (size_t j = i + 3; j < t.size() && !t[j].is("]"); ++j) {
      if (t[j].is(",")) continue;
      const std::optional<int64_t> v = parse_int(t[j].text);
      if (!v || out.size() >= 8) return std::nullopt;
      out.push_back(*v);
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace tilesched::graphgen::ttgir
