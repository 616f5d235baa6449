// Text made safe for one-line messages, and the UTF-8 check (see text.h).
#include "util/text.h"

#include <cstdio>

namespace tilesched::text {

namespace {

// Length of the well-formed UTF-8 sequence at s[i], or 0 if there is none.
size_t utf8_length(std::string_view s, size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  // The second byte's range (Unicode's table of well-formed sequences): no
  // overlong forms (E0, F0), no surrogates (ED), nothing above U+10FFFF
  // (F4). JSON readers refuse those, so a name holding one would not
  // survive write -> read (fuzz/regressions/fuzz_import/overlong-utf8-node-id).
  unsigned char low = 0x80, high = 0xBF;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  const auto second = static_cast<unsigned char>(s[i + 1]);
  if (second < low || second > high) return 0;
  for (size_t k = 2; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// Copies `s`, escaping control characters and bytes that are not UTF-8
// (and, when asked, quotes and backslashes).
void append_escaped(std::string& out, std::string_view s, bool escape_quotes) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    char buf[8];
    if (u >= 0x80) {
      const size_t n = utf8_length(s, i);
      if (n > 0) {
        out.append(s.substr(i, n));
        i += n - 1;
      } else {
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(u));
        out += buf;
      }
    } else if (u < 0x20 || u == 0x7f) {
      switch (c) {
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(u));
          out += buf;
      }
    } else if (escape_quotes && (c == '"' || c == '\\')) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
}

}  // namespace

bool is_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) < 0x80) continue;
    const size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n - 1;
  }
  return true;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  if (s.size() > kEchoBytes) {
    size_t cut = kEchoBytes;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    append_escaped(out, s.substr(0, cut), true);
    out += "...";
  } else {
    append_escaped(out, s, true);
  }
  out += '"';
  return out;
}

std::string one_line(std::string_view s) {
  std::string out;
  append_escaped(out, s, false);
  return out;
}

}  // namespace tilesched::text
