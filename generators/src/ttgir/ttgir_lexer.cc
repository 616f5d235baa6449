// The TTGIR tokenizer (ttgir_syntax.h): MLIR's lexical forms as Triton
// prints them, one pass over the text, tokens viewing the text. Debug
// locations, `loc(...)`, are dropped as they are read.
#include <cctype>

#include "../import_text.h"
#include "ttgir_syntax.h"

namespace tilesched::graphgen::ttgir {

namespace {

bool id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '.';
}
bool value_char(char c) { return id_char(c) || c == '-'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

class Lexer {
 public:
  Lexer(std::string_view text, std::string_view source) : text_(text), source_(source) {}
  StatusOr<std::vector<Token>> run();

 private:
  Status next();
  Status string_literal();
  Status prefixed(Tok kind, bool (*body)(char));
  void number();
  Status skip_loc();
  Status skip_metadata();
  Status push(Tok kind, size_t begin);
  Status error(std::string_view what) const { return error_at(source_, line_, what); }

  std::string_view text_, source_;
  size_t pos_ = 0, line_start_ = 0;
  int line_ = 1;
  std::vector<Token> out_;
};

StatusOr<std::vector<Token>> Lexer::run() {
  if (text_.size() > kMaxInputBytes) {
    return error_at(source_, 1, "the input is larger than " + std::to_string(kMaxInputBytes) +
                                    " bytes");
  }
  while (pos_ < text_.size()) {
    if (Status s = next(); !s.ok()) return s;
    if (pos_ - line_start_ > kMaxLineBytes) {
      return error("line longer than " + std::to_string(kMaxLineBytes) + " bytes");
    }
  }
  return std::move(out_);
}

Status Lexer::push(Tok kind, size_t begin) {
  if (out_.size() >= kMaxTokens) {
    return error("more than " + std::to_string(kMaxTokens) + " tokens");
  }
  out_.push_back(Token{kind, text_.substr(begin, pos_ - begin), line_});
  return Status::Ok();
}

Status Lexer::next() {
  const char c = text_[pos_];
  const size_t begin = pos_;
  if (c == ' ' || c == '\t' || c == '\r') {
    ++pos_;
    return Status::Ok();
  }
  if (c == '\n') {
    ++pos_;
    Status s = push(Tok::kNewline, begin);
    ++line_;
    line_start_ = pos_;
    return s;
  }
  if (text_.compare(pos_, 2, "//") == 0) {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    return Status::Ok();
  }
  if (text_.compare(pos_, 3, "{-#") == 0) return skip_metadata();
  if (c == '"') return string_literal();
  if (c == '%') return prefixed(Tok::kValue, value_char);
  if (c == '^') return prefixed(Tok::kBlock, value_char);
  if (c == '@') {
    if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
      ++pos_;
      Status s = string_literal();
      if (s.ok()) out_.back() = Token{Tok::kSymbol, text_.substr(begin, pos_ - begin), line_};
      return s;
    }
    return prefixed(Tok::kSymbol, value_char);
  }
  if (c == '#') return prefixed(Tok::kHash, id_char);
  if (c == '!') return prefixed(Tok::kBang, id_char);
  if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
    pos_ += 2;
    return push(Tok::kArrow, begin);
  }
  if (digit(c) || (c == '-' && pos_ + 1 < text_.size() && digit(text_[pos_ + 1]))) {
    number();
    return push(Tok::kNumber, begin);
  }
  if (ascii_letter(c) || c == '_') {
    while (pos_ < text_.size() && id_char(text_[pos_])) ++pos_;
    if (text_.substr(begin, pos_ - begin) == "loc") return skip_loc();
    return push(Tok::kIdent, begin);
  }
  if (std::string_view("()[]{}<>,:=+*?|").find(c) != std::string_view::npos) {
    ++pos_;
    return push(Tok::kPunct, begin);
  }
  return error("unexpected character " + quoted(text_.substr(pos_, 1)));
}

// "..." with backslash escapes, on one line.
Status Lexer::string_literal() {
  const size_t begin = pos_++;
  while (pos_ < text_.size() && text_[pos_] != '"') {
    if (text_[pos_] == '\n') return error("unterminated string");
    if (text_[pos_] == '\\') ++pos_;
    ++pos_;
  }
  if (pos_ >= text_.size()) return error("unterminated string");
  ++pos_;
  return push(Tok::kString, begin);
}

// A sigil and at least one name character: %x, ^bb0, @f, #blocked, !tt.ptr.
// A value may end in #N (a result of a multi-result op).
Status Lexer::prefixed(Tok kind, bool (*body)(char)) {
  const size_t begin = pos_++;
  while (pos_ < text_.size() && body(text_[pos_])) ++pos_;
  if (pos_ == begin + 1) return error("a lone " + quoted(text_.substr(begin, 1)));
  if (kind == Tok::kValue && pos_ + 1 < text_.size() && text_[pos_] == '#' &&
      digit(text_[pos_ + 1])) {
    ++pos_;
    while (pos_ < text_.size() && digit(text_[pos_])) ++pos_;
  }
  return push(kind, begin);
}

// Digits, letters, '_' and '.', and a sign right after an exponent's e:
// 42, -1, 0.000000e+00, 0x7F, 128x64xf16. (A number may start the input:
// nothing before it is read; fuzz/regressions/fuzz_ttgir/number-at-the-first-byte.)
void Lexer::number() {
  const size_t begin = pos_;
  if (text_[pos_] == '-') ++pos_;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    const bool after_e = pos_ > begin && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
    const bool exponent_sign = (c == '+' || c == '-') && after_e && pos_ + 1 < text_.size() &&
                               digit(text_[pos_ + 1]);
    if (!id_char(c) && !exponent_sign) break;
    ++pos_;
  }
}

// After the identifier `loc`: a parenthesized location, dropped. `loc`
// not followed by `(` is an ordinary identifier.
Status Lexer::skip_loc() {
  size_t p = pos_;
  while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
  if (p >= text_.size() || text_[p] != '(') return push(Tok::kIdent, pos_ - 3);
  int depth = 0;
  for (; p < text_.size() && text_[p] != '\n'; ++p) {
    if (text_[p] == '"') {  // a file name may hold parentheses
      for (++p; p < text_.size() && text_[p] != '"' && text_[p] != '\n'; ++p) {
        if (text_[p] == '\\') ++p;
      }
      if (p >= text_.size() || text_[p] != '"') break;
      continue;
    }
    if (text_[p] == '(') ++depth;
    if (text_[p] == ')' && --depth == 0) {
      pos_ = p + 1;
      return Status::Ok();
    }
  }
  return error("unterminated loc(");
}

// `{-# ... #-}`: the file metadata MLIR may print after a module
// (dialect resources), skipped whole; its lines still count.
Status Lexer::skip_metadata() {
  const size_t end = text_.find("#-}", pos_ + 3);
  if (end == std::string_view::npos) return error("unterminated {-# metadata #-}");
  for (; pos_ < end + 3; ++pos_) {
    if (text_[pos_] == '\n') {
      ++line_;
      line_start_ = pos_ + 1;
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<Token>> tokenize(std::string_view text, std::string_view source) {
  return Lexer(text, source).run();
}

Status error_at(std::string_view source, int line, std::string_view what) {
  return Status::InvalidInput(one_line(std::string(source) + ":" + std::to_string(line) + ": " +
                                       std::string(what)));
}

std::string quoted(std::string_view text) {
  constexpr size_t kMax = 64;
  const bool cut = text.size() > kMax;
  return "'" + one_line(text.substr(0, kMax)) + (cut ? "...'" : "'");
}

}  // namespace tilesched::graphgen::ttgir
