// The TTGIR reader's syntax layer (internal): a tokenizer and a parser for
// the subset of MLIR's textual form that Triton prints (docs/TTGIR.md,
// "What is read"). No grammar of any one op is known here: an operation is
// its result names, its name, its tokens up to the end of its line, and
// the regions that open with a `{` at the end of a line. Debug locations
// (`loc(...)`) are dropped while tokenizing. Every limit below is checked,
// so no input makes the reader allocate without bound or recurse deeply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/status.h"

namespace tilesched::graphgen::ttgir {

inline constexpr size_t kMaxInputBytes = size_t{16} << 20;  // 16 MiB
inline constexpr size_t kMaxLineBytes = size_t{1} << 18;    // 256 KiB
inline constexpr size_t kMaxTokens = size_t{4} << 20;
inline constexpr int kMaxNesting = 64;                      // regions inside regions
inline constexpr int64_t kMaxResultGroup = 1024;            // %a:N

enum class Tok {
  kNewline,
  kPunct,   // ( ) [ ] { } < > , : = + * ? |
  kArrow,   // ->
  kValue,   // %name or %name#3
  kBlock,   // ^bb0
  kSymbol,  // @name
  kHash,    // #alias or #dialect.attr
  kBang,    // !alias or !dialect.type
  kIdent,   // bare identifier, dots allowed: arith.addi, tensor, f16
  kNumber,  // 42, -1, 0.5e+00, and shape words such as 128x64xf16
  kString,  // "text", quotes included
};

struct Token {
  Tok kind = Tok::kNewline;
  std::string_view text;  // a view into the source text
  int line = 0;
  bool is(std::string_view punct) const {
    return (kind == Tok::kPunct || kind == Tok::kArrow) && text == punct;
  }
};

// Splits `text` into tokens. InvalidInput "SOURCE:LINE: problem" on an
// unexpected byte, an unterminated string or loc(, a line longer than
// kMaxLineBytes, more than kMaxTokens tokens, or input over kMaxInputBytes.
StatusOr<std::vector<Token>> tokenize(std::string_view text, std::string_view source);

struct Operation;

struct Block {
  int line = 0;
  std::vector<std::string> args;  // block arguments ("%arg14")
  std::vector<Operation> ops;
};

struct Region {
  int line = 0;  // where its `{` is
  std::vector<Block> blocks;
};

struct Operation {
  int line = 0;
  std::string name;                  // "arith.addi"; a quoted generic name without quotes
  std::vector<std::string> results;  // "%x", or "%a#0".."%a#2" for %a:3
  std::vector<Token> tokens;         // after the name, the regions left out
  std::vector<Region> regions;
};

// `#name = ...` or `!name = ...` at the top level; `before_op` is the
// number of top-level operations above it.
struct Alias {
  std::string name;
  std::vector<Token> tokens;  // after the `=`
  size_t before_op = 0;
};

struct Document {
  std::vector<Operation> ops;  // top-level operations (modules), in file order
  std::vector<Alias> aliases;
};

// Parses the tokens into operations. InvalidInput "SOURCE:LINE: problem"
// on unbalanced brackets, an unterminated region, a line that does not
// start an operation, or regions nested deeper than kMaxNesting.
StatusOr<Document> parse_document(const std::vector<Token>& tokens, std::string_view source);

// The alias `name` as seen by the top-level operation `top_index`: the last
// definition above it, or nullptr.
const Alias* find_alias(const Document& doc, std::string_view name, size_t top_index);

// One line "SOURCE:LINE: what", with control characters and bytes that are
// not printable ASCII written as \xNN so that any input stays one line.
Status error_at(std::string_view source, int line, std::string_view what);

// `text` cut to 64 bytes and made printable, in single quotes, for messages.
std::string quoted(std::string_view text);

}  // namespace tilesched::graphgen::ttgir
