// Internal helpers shared by the two file formats (graph_json.cc,
// schedule_json.cc): a guarded JSON parse, a cursor that reads typed values
// and knows its JSON path ("$.ops[3].resources[0].slot"), and the one text
// layout both writers use. Messages produced here have the shape
// "$.json.path: problem" and are always one line; the callers put the
// source name in front (docs/FORMATS.md, "Error messages").
//
// Nothing here throws: nlohmann exceptions are caught and turned into
// Status values at parse_json_text, and the cursor checks types before
// every typed access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "tilesched/status.h"

// Early return on error, for Status and StatusOr<T> chains.
#define TS_JSON_CONCAT_INNER(a, b) a##b
#define TS_JSON_CONCAT(a, b) TS_JSON_CONCAT_INNER(a, b)
#define TS_RETURN_IF_ERROR(expr)                     \
  do {                                               \
    ::tilesched::Status ts_status_tmp_ = (expr);     \
    if (!ts_status_tmp_.ok()) return ts_status_tmp_; \
  } while (0)
#define TS_ASSIGN_OR_RETURN(lhs, expr) \
  TS_ASSIGN_OR_RETURN_IMPL(TS_JSON_CONCAT(ts_or_tmp_, __LINE__), lhs, expr)
#define TS_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

namespace tilesched::jsonio {

// Object keys keep their document order, so "the first unknown field" and
// everything the writers emit follow the text.
using Json = nlohmann::ordered_json;

// Parses `text` as one JSON document. Refuses, before nlohmann's parser
// runs, text longer than limits::kMaxFileBytes and nesting of [ and {
// deeper than limits::kMaxJsonDepth; refuses duplicate keys in an object
// and integer literals that do not fit in 64 bits, at their paths.
// Errors are InvalidInput "$...: problem" (no source name).
StatusOr<Json> parse_json_text(std::string_view text);

// "SOURCE: " + s.message(), one line, with the status code of `s`.
Status with_source(const Status& s, std::string_view source);

// "$.a" + key: ".key" for identifier-like keys, otherwise ["quoted"].
std::string member_path(const std::string& path, std::string_view key);

// A JSON value together with its path from the document root.
class Cursor {
 public:
  Cursor(const Json& value, std::string path) : value_(&value), path_(std::move(path)) {}

  const Json& value() const { return *value_; }
  const std::string& path() const { return path_; }

  // REQUIRES: value() is an object holding `key`.
  Cursor member(std::string_view key) const;
  // REQUIRES: value() is an array with more than `i` elements.
  Cursor element(size_t i) const;

  // InvalidInput "PATH: problem".
  Status error(std::string_view problem) const;

  // "expected X, got <type and a short echo of the value>".
  Status type_error(std::string_view expected) const;

  // Typed reads; each refuses a wrong type or a value out of range.
  // Integers: JSON integers only (no fraction, no exponent), checked
  // against [lo, hi] without overflow (parse_json_text has already refused
  // literals beyond 64 bits).
  StatusOr<int64_t> integer(int64_t lo, int64_t hi) const;
  StatusOr<bool> boolean() const;
  // Strings of min_len..max_len bytes.
  StatusOr<std::string> string(size_t min_len, size_t max_len) const;
  // An array of at most max_size elements; returns its size. `what` names
  // the elements in the message ("ops", "edges").
  StatusOr<size_t> array(size_t max_size, std::string_view what) const;
  Status expect_object() const;

 private:
  const Json* value_;
  std::string path_;
};

// The fields of one JSON object. open() refuses a non-object and any key
// not in `known` (naming the key's path and the expected keys); the other
// calls hand out members by name.
class Fields {
 public:
  static StatusOr<Fields> open(const Cursor& object, std::span<const std::string_view> known);

  const Cursor& object() const { return object_; }
  bool has(std::string_view key) const;
  std::optional<Cursor> optional(std::string_view key) const;
  // Refuses a missing key: "PATH: missing required field \"key\"".
  StatusOr<Cursor> required(std::string_view key) const;

  StatusOr<int64_t> required_integer(std::string_view key, int64_t lo, int64_t hi) const;
  StatusOr<std::optional<int64_t>> optional_integer(std::string_view key, int64_t lo,
                                                    int64_t hi) const;
  StatusOr<int64_t> integer_or(std::string_view key, int64_t lo, int64_t hi,
                               int64_t fallback) const;
  StatusOr<std::string> required_string(std::string_view key, size_t min_len, size_t max_len) const;
  StatusOr<std::string> string_or(std::string_view key, size_t min_len, size_t max_len,
                                  std::string fallback) const;
  StatusOr<bool> boolean_or(std::string_view key, bool fallback) const;

 private:
  explicit Fields(Cursor object) : object_(std::move(object)) {}
  Cursor object_;
};

// Refuses a root that is not an object, lacks "format", or whose "format"
// is not the string `expected`. Run it before Fields::open on the root, so
// that a file of the other format says so instead of naming a field.
Status check_format(const Cursor& root, std::string_view expected);

// "SOURCE: $: cannot read: what" (read_document's last line of defence).
Status cannot_read(std::string_view source, const std::exception& e);

// Reads one whole document: parses `text`, hands its root ("$") to
// `read` (a callable returning StatusOr<T>) and puts `source` in front of
// every message. Typed access is checked before use; an exception that
// still escapes becomes an InvalidInput value, a last line of defence.
template <class T, class Read>
StatusOr<T> read_document(std::string_view text, std::string_view source, Read&& read) {
  try {
    StatusOr<Json> doc = parse_json_text(text);
    if (!doc.ok()) return with_source(doc.status(), source);
    StatusOr<T> out = read(Cursor(*doc, "$"));
    if (!out.ok()) return with_source(out.status(), source);
    return out;
  } catch (const std::exception& e) {
    return cannot_read(source, e);
  }
}

// Text layout of the writers: the top-level object one field per line;
// arrays of objects one element per line; other containers on one line
// when they fit in 100 columns. Deterministic; invalid UTF-8 in strings is
// replaced rather than thrown on. Ends with a newline.
std::string format_document(const Json& doc);

// Pieces of format_document for a writer that builds part of its text
// without a Json (write_graph_json's ops and edges), byte for byte as
// format_document writes them: a string (quoted, escaped), and `v` laid
// out as the value of a member at `indent` whose first character lands at
// `column`.
void append_string(std::string_view s, std::string& out);
void append_member_value(const Json& v, size_t indent, size_t column, std::string& out);

}  // namespace tilesched::jsonio
