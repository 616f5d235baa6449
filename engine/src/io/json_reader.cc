// The guarded JSON parse, the path-tracking cursor and the writers' text
// layout (see json_reader.h). The depth pre-scan runs before nlohmann's
// parser so that no input can drive the parser or the value tree into deep
// recursion; duplicate keys are caught by a parser callback that tracks the
// path of every open container.
#include "json_reader.h"

#include <cassert>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "tilesched/limits.h"
#include "util/text.h"

namespace tilesched::jsonio {

using text::kEchoBytes;
using text::one_line;
using text::quote;

namespace {

constexpr size_t kMaxMessage = 400;   // cap on text taken from nlohmann's messages
constexpr size_t kLayoutWidth = 100;  // column limit of format_document

bool is_identifier(std::string_view key) {
  if (key.empty()) return false;
  for (size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

// "line L, column C" of byte offset `pos` (one-based, columns in bytes).
std::string position_of(std::string_view text, size_t pos) {
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Refuses nesting of [ and { deeper than kMaxJsonDepth, counting only
// brackets outside strings (escapes inside strings honoured).
Status check_nesting(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits::kMaxJsonDepth) {
        return Status::InvalidInput("$: nesting deeper than " +
                                    std::to_string(limits::kMaxJsonDepth) + " levels at " +
                                    position_of(text, i));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Status::Ok();
}

std::string describe(const Json::exception& e);

// Builds the value tree from nlohmann's SAX events (as its own DOM parser
// does), refusing a key seen twice in one object. Object members are
// appended without nlohmann's lookup, which is linear per key in an
// ordered_json; duplicates are found with a set per open object instead,
// so no input makes the parse quadratic.
class DomBuilder {
 public:
  // The message of the first problem, once a handler has returned false.
  const std::optional<std::string>& problem() const { return problem_; }
  Json& root() { return root_; }

  bool null() { return add(Json(nullptr)); }
  bool boolean(bool v) { return add(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return add(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(Json(v)); }
  bool number_float(Json::number_float_t v, const Json::string_t& text) {
    // An integer literal arrives here only when it does not fit in 64 bits.
    if (text.find_first_of(".eE") == std::string::npos) {
      return fail(value_path() + ": " + one_line(text.substr(0, kEchoBytes)) +
                  " does not fit in 64 bits");
    }
    return add(Json(v));
  }
  bool string(Json::string_t& v) { return add(Json(std::move(v))); }
  bool binary(Json::binary_t& /*v*/) { return fail("$: binary values are not JSON"); }
  bool start_object(std::size_t /*elements*/) { return open(Json::object()); }
  bool start_array(std::size_t /*elements*/) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(Json::string_t& k) {
    Frame& top = frames_.back();
    if (!top.keys.insert(k).second) {
      return fail(member_path(path(), k) + ": duplicate key " + quote(k) +
                  " (each key may appear once per object)");
    }
    top.key = std::move(k);
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const Json::exception& e) {
    return fail("$: invalid JSON: " + describe(e));
  }

 private:
  struct Frame {
    Json* value;                 // the open container
    std::string key;             // objects: the key whose value comes next
    std::set<std::string> keys;  // objects: keys seen so far
  };

  bool fail(std::string message) {
    if (!problem_) problem_ = std::move(message);
    return false;
  }

  // Puts `v` where the parser is and returns where it went. An open
  // container is always the last member of its parent, and the parent does
  // not grow while it is open, so the pointers in frames_ stay valid.
  Json* place(Json v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Frame& top = frames_.back();
    if (top.value->is_array()) {
      auto& array = top.value->get_ref<Json::array_t&>();
      array.push_back(std::move(v));
      return &array.back();
    }
    auto& members = static_cast<Json::object_t::Container&>(top.value->get_ref<Json::object_t&>());
    members.emplace_back(top.key, std::move(v));  // top.key names it in paths
    return &members.back().second;
  }
  bool add(Json v) {
    place(std::move(v));
    return true;
  }
  bool open(Json container) {
    frames_.push_back(Frame{place(std::move(container)), {}, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  // Path of the innermost open container.
  std::string path() const {
    std::string p = "$";
    for (size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Json& v = *frames_[i].value;
      p = v.is_array() ? p + "[" + std::to_string(v.size() - 1) + "]"
                       : member_path(p, frames_[i].key);
    }
    return p;
  }

  // Path of the value about to be placed.
  std::string value_path() const {
    if (frames_.empty()) return "$";
    const Frame& top = frames_.back();
    return top.value->is_array() ? path() + "[" + std::to_string(top.value->size()) + "]"
                                 : member_path(path(), top.key);
  }

  Json root_;
  std::vector<Frame> frames_;
  std::optional<std::string> problem_;
};

// nlohmann's message without its "[json.exception.x.n] " tag, made one line.
std::string describe(const Json::exception& e) {
  std::string_view what = e.what();
  if (!what.empty() && what.front() == '[') {
    const size_t close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  if (what.size() > kMaxMessage) what = what.substr(0, kMaxMessage);
  return one_line(what);
}

std::string describe_value(const Json& v) {
  if (v.is_string()) return "string " + quote(v.get_ref<const std::string&>());
  if (v.is_number() || v.is_boolean()) {
    return std::string(v.type_name()) + " " +
           v.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  return v.type_name();
}

std::string range_text(int64_t lo, int64_t hi) {
  return std::to_string(lo) + ".." + std::to_string(hi);
}

std::string scalar_text(const Json& v) {
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// A string nlohmann's dump writes as it is, between quotes: printable
// ASCII without '"' or '\\'.
bool plain_string(std::string_view s) {
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

// A member name as scalar_text(Json(key)) writes it.
void append_key(std::string_view key, std::string& out) {
  if (!plain_string(key)) {
    out += scalar_text(Json(std::string(key)));
    return;
  }
  out += '"';
  out += key;
  out += '"';
}

// scalar_text(v) appended to `out`, byte for byte, without building a
// string for the common scalars (integers, booleans, null, plain strings);
// the writers of every document go through here.
void append_scalar(const Json& v, std::string& out) {
  if (v.is_number_integer() && !v.is_number_unsigned()) {
    char buf[24];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get<int64_t>());
    out.append(buf, end);
  } else if (v.is_number_unsigned()) {
    char buf[24];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v.get<uint64_t>());
    out.append(buf, end);
  } else if (v.is_boolean()) {
    out += v.get<bool>() ? "true" : "false";
  } else if (v.is_null()) {
    out += "null";
  } else if (v.is_string() && plain_string(v.get_ref<const std::string&>())) {
    append_key(v.get_ref<const std::string&>(), out);
  } else {
    out += scalar_text(v);
  }
}

// One-line rendering with ", " and ": " separators.
void append_inline(const Json& v, std::string& out) {
  if (v.is_object()) {
    out += '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      append_key(it.key(), out);
      out += ": ";
      append_inline(it.value(), out);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += ", ";
      append_inline(v[i], out);
    }
    out += ']';
  } else {
    append_scalar(v, out);
  }
}

std::string inline_text(const Json& v) {
  std::string out;
  append_inline(v, out);
  return out;
}

// Lays out `v`, whose first character lands at column `column`.
void append_layout(const Json& v, size_t indent, size_t column, bool top, std::string& out) {
  if (v.is_object() && !v.empty()) {
    if (!top) {  // the document itself always takes one member per line
      const std::string flat = inline_text(v);
      if (column + flat.size() <= kLayoutWidth) {
        out += flat;
        return;
      }
    }
    out += "{\n";
    size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it) {
      out.append(indent + 2, ' ');
      std::string key;
      append_key(it.key(), key);
      key += ": ";
      out += key;
      append_layout(it.value(), indent + 2, indent + 2 + key.size(), false, out);
      if (++i < v.size()) out += ',';
      out += '\n';
    }
    out.append(indent, ' ');
    out += '}';
  } else if (v.is_array() && !v.empty()) {
    bool structured = false;
    for (const Json& e : v) structured = structured || e.is_structured();
    if (!structured) {
      const std::string flat = inline_text(v);
      if (column + flat.size() <= kLayoutWidth) {
        out += flat;
        return;
      }
    }
    out += "[\n";
    for (size_t i = 0; i < v.size(); ++i) {
      out.append(indent + 2, ' ');
      append_inline(v[i], out);
      if (i + 1 < v.size()) out += ',';
      out += '\n';
    }
    out.append(indent, ' ');
    out += ']';
  } else {
    append_inline(v, out);
  }
}

}  // namespace

Status with_source(const Status& s, std::string_view source) {
  std::string msg = one_line(source) + ": " + one_line(s.message());
  return s.code() == StatusCode::kIoError ? Status::IoError(std::move(msg))
                                          : Status::InvalidInput(std::move(msg));
}

Status cannot_read(std::string_view source, const std::exception& e) {
  return Status::InvalidInput(one_line(source) + ": $: cannot read: " + one_line(e.what()));
}

std::string member_path(const std::string& path, std::string_view key) {
  if (is_identifier(key)) return path + "." + std::string(key);
  return path + "[" + quote(key) + "]";
}

StatusOr<Json> parse_json_text(std::string_view text) {
  if (static_cast<int64_t>(text.size()) > limits::kMaxFileBytes) {
    return Status::InvalidInput("$: input is " + std::to_string(text.size()) +
                                " bytes, more than the limit of " +
                                std::to_string(limits::kMaxFileBytes) + " bytes");
  }
  TS_RETURN_IF_ERROR(check_nesting(text));
  try {
    DomBuilder builder;
    const bool ok = Json::sax_parse(text.begin(), text.end(), &builder, Json::input_format_t::json,
                                    /*strict=*/true,
                                    /*ignore_comments=*/false);
    if (!ok || builder.problem()) {
      return Status::InvalidInput(builder.problem().value_or("$: invalid JSON"));
    }
    return std::move(builder.root());
  } catch (const Json::exception& e) {
    return Status::InvalidInput("$: invalid JSON: " + describe(e));
  } catch (const std::exception& e) {
    // Allocation failure and the like: still a value, never a throw.
    return Status::InvalidInput("$: cannot parse: " + one_line(e.what()));
  }
}

Cursor Cursor::member(std::string_view key) const {
  const auto it = value_->find(key);
  assert(it != value_->end());
  return Cursor(*it, member_path(path_, key));
}

Cursor Cursor::element(size_t i) const {
  return Cursor((*value_)[i], path_ + "[" + std::to_string(i) + "]");
}

Status Cursor::error(std::string_view problem) const {
  return Status::InvalidInput(path_ + ": " + std::string(problem));
}

Status Cursor::type_error(std::string_view expected) const {
  return error("expected " + std::string(expected) + ", got " + describe_value(*value_));
}

StatusOr<int64_t> Cursor::integer(int64_t lo, int64_t hi) const {
  const Json& v = *value_;
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (hi < 0 || u > static_cast<uint64_t>(hi) || static_cast<int64_t>(u) < lo) {
      return error(std::to_string(u) + " is out of range " + range_text(lo, hi));
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) {
    const auto x = v.get<int64_t>();
    if (x < lo || x > hi)
      return error(std::to_string(x) + " is out of range " + range_text(lo, hi));
    return x;
  }
  // Integer literals beyond 64 bits were refused by the parse.
  if (v.is_number_float()) return type_error("an integer (no fraction or exponent)");
  return type_error("an integer");
}

StatusOr<bool> Cursor::boolean() const {
  if (!value_->is_boolean()) return type_error("true or false");
  return value_->get<bool>();
}

StatusOr<std::string> Cursor::string(size_t min_len, size_t max_len) const {
  if (!value_->is_string()) return type_error("a string");
  const auto& s = value_->get_ref<const std::string&>();
  if (s.size() < min_len) {
    return error(min_len == 1 ? std::string("expected a non-empty string")
                              : "string shorter than " + std::to_string(min_len) + " bytes");
  }
  if (s.size() > max_len) {
    return error("string of " + std::to_string(s.size()) + " bytes is longer than the limit of " +
                 std::to_string(max_len));
  }
  return s;
}

StatusOr<size_t> Cursor::array(size_t max_size, std::string_view what) const {
  if (!value_->is_array()) return type_error("an array");
  if (value_->size() > max_size) {
    return error(std::to_string(value_->size()) + " " + std::string(what) +
                 ", more than the limit of " + std::to_string(max_size));
  }
  return value_->size();
}

Status Cursor::expect_object() const {
  if (!value_->is_object()) return type_error("an object");
  return Status::Ok();
}

StatusOr<Fields> Fields::open(const Cursor& object, std::span<const std::string_view> known) {
  TS_RETURN_IF_ERROR(object.expect_object());
  for (auto it = object.value().begin(); it != object.value().end(); ++it) {
    bool ok = false;
    for (std::string_view k : known) ok = ok || k == it.key();
    if (ok) continue;
    std::string expected;
    for (std::string_view k : known) {
      if (!expected.empty()) expected += ", ";
      expected += k;
    }
    return Status::InvalidInput(member_path(object.path(), it.key()) +
                                ": unknown field (expected one of: " + expected + ")");
  }
  return Fields(object);
}

bool Fields::has(std::string_view key) const {
  return object_.value().find(key) != object_.value().end();
}

std::optional<Cursor> Fields::optional(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return object_.member(key);
}

StatusOr<Cursor> Fields::required(std::string_view key) const {
  if (!has(key)) {
    return object_.error("missing required field " + quote(key));
  }
  return object_.member(key);
}

StatusOr<int64_t> Fields::required_integer(std::string_view key, int64_t lo, int64_t hi) const {
  TS_ASSIGN_OR_RETURN(Cursor c, required(key));
  return c.integer(lo, hi);
}

StatusOr<std::optional<int64_t>> Fields::optional_integer(std::string_view key, int64_t lo,
                                                          int64_t hi) const {
  std::optional<Cursor> c = optional(key);
  if (!c) return std::optional<int64_t>();
  TS_ASSIGN_OR_RETURN(int64_t v, c->integer(lo, hi));
  return std::optional<int64_t>(v);
}

StatusOr<int64_t> Fields::integer_or(std::string_view key, int64_t lo, int64_t hi,
                                     int64_t fallback) const {
  std::optional<Cursor> c = optional(key);
  if (!c) return fallback;
  return c->integer(lo, hi);
}

StatusOr<std::string> Fields::required_string(std::string_view key, size_t min_len,
                                              size_t max_len) const {
  TS_ASSIGN_OR_RETURN(Cursor c, required(key));
  return c.string(min_len, max_len);
}

StatusOr<std::string> Fields::string_or(std::string_view key, size_t min_len, size_t max_len,
                                        std::string fallback) const {
  std::optional<Cursor> c = optional(key);
  if (!c) return fallback;
  return c->string(min_len, max_len);
}

StatusOr<bool> Fields::boolean_or(std::string_view key, bool fallback) const {
  std::optional<Cursor> c = optional(key);
  if (!c) return fallback;
  return c->boolean();
}

Status check_format(const Cursor& root, std::string_view expected) {
  TS_RETURN_IF_ERROR(root.expect_object());
  if (root.value().find("format") == root.value().end()) {
    return root.error("missing required field \"format\" (expected " + quote(expected) + ")");
  }
  const Cursor format = root.member("format");
  TS_ASSIGN_OR_RETURN(std::string got, format.string(0, SIZE_MAX));
  if (got != expected) return format.error("expected " + quote(expected) + ", got " + quote(got));
  return Status::Ok();
}

void append_string(std::string_view s, std::string& out) { append_key(s, out); }

void append_member_value(const Json& v, size_t indent, size_t column, std::string& out) {
  append_layout(v, indent, column, /*top=*/false, out);
}

std::string format_document(const Json& doc) {
  std::string out;
  append_layout(doc, 0, 0, /*top=*/true, out);
  out += '\n';
  return out;
}

}  // namespace tilesched::jsonio
