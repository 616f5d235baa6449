// The sweep CSV writer and its libfccp-based reader (csv.h).
#include "sweep/csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <libfccp/csv.h>

#include "tilesched/cost_based.h"

namespace tilesched::sweep {
namespace {

constexpr std::array<std::string_view, kFixedColumnCount> kColumnNames = {
    "family",      "ops",         "edges",     "seed",       "graph_hash",     "generator",
    "arm_policy",  "feasible",    "ii",        "mii",        "res_mii",        "rec_mii",
    "fine_mii",    "dep_mii",     "stage_count", "verified", "optimal_ii",     "proven",
    "stages_proven", "engine_version", "failure",  "reason",    "graph_ops",  "graph",
    "max_stages",  "effort",      "generator_version", "time_ns", "wall_ns",  "cpu_ns",
};
constexpr size_t kTimingColumns = 3;  // time_ns, wall_ns, cpu_ns: after the statistics

}  // namespace

namespace {

// csv_field(value) appended to `out`, with no string of its own unless the
// field is quoted (format_row writes every row through here).
void append_field(std::string_view v, std::string& out) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  // Line breaks become spaces, so a field that has one can start or end blank.
  auto at = [](char c) { return c == '\n' || c == '\r' ? ' ' : c; };
  const bool needs_quotes =
      v.find_first_of(",\"") != std::string_view::npos ||
      (!v.empty() && (blank(at(v.front())) || blank(at(v.back())) || v.front() == '#'));
  if (needs_quotes) out += '"';
  for (const char c : v) {
    if (needs_quotes && c == '"') out += '"';
    out += at(c);
  }
  if (needs_quotes) out += '"';
}

template <class Int>
void append_int(Int v, std::string& out) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

void append_opt_int(const std::optional<int64_t>& v, std::string& out) {
  if (v) append_int(*v, out);
}

}  // namespace

std::string csv_field(std::string_view value) {
  std::string out;
  append_field(value, out);
  return out;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    append_field(fields[i], out);
  }
  out += '\n';
  return out;
}

std::string_view column_name(Col c) { return kColumnNames[static_cast<size_t>(c)]; }

const std::vector<std::string>& stat_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& [key, value] : stats_fields(CostBasedStats{})) out.push_back(key);
    out.emplace_back("refinement_status");  // appended by the cost-based generator
    // and by the packing repair after its search (api/generate.cc)
    for (const char* k : {"repair.from_ii", "repair.tried", "repair.work"}) out.emplace_back(k);
    return out;
  }();
  return keys;
}

std::string stat_column_name(std::string_view key) {
  std::string out = "cb_";
  for (char c : key) out += (c == '.' || c == '-') ? '_' : c;
  return out;
}

std::vector<std::string> sweep_columns() {
  std::vector<std::string> cols;
  for (size_t i = 0; i < kFixedColumnCount - kTimingColumns; ++i) {
    cols.emplace_back(kColumnNames[i]);
  }
  for (const std::string& k : stat_keys()) cols.push_back(stat_column_name(k));
  for (size_t i = kFixedColumnCount - kTimingColumns; i < kFixedColumnCount; ++i) {
    cols.emplace_back(kColumnNames[i]);
  }
  return cols;
}

std::string header_text() { return csv_line(sweep_columns()); }

std::string hash_text(uint64_t hash) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

// The fields of csv_line, written straight into the line: no string per
// field (numbers never need quotes).
std::string format_row(const SweepRow& r) {
  std::string out;
  out.reserve(512);
  auto text = [&out](std::string_view v) {
    append_field(v, out);
    out += ',';
  };
  auto integer = [&out](int64_t v) {
    append_int(v, out);
    out += ',';
  };
  auto opt = [&out](const std::optional<int64_t>& v) {
    append_opt_int(v, out);
    out += ',';
  };
  auto flag = [&out](const std::optional<bool>& v) {
    if (v) out += *v ? '1' : '0';
    out += ',';
  };
  text(r.family);
  integer(r.ops);
  integer(r.edges);
  append_int(r.seed, out);
  out += ',';
  text(hash_text(r.graph_hash));
  text(r.generator);
  text(r.arm_policy);
  flag(std::optional<bool>(r.feasible));
  opt(r.ii);
  integer(r.mii);
  integer(r.res_mii);
  integer(r.rec_mii);
  integer(r.fine_mii);
  integer(r.dep_mii);
  opt(r.stage_count);
  flag(std::optional<bool>(r.verified));
  opt(r.optimal_ii);
  flag(r.proven);
  flag(r.stages_proven);
  text(r.engine_version);
  text(r.failure);
  text(r.reason);
  integer(r.graph_ops);
  text(r.graph);
  integer(r.max_stages);
  text(r.effort);
  text(r.generator_version);
  for (const std::optional<int64_t>& s : r.stats) opt(s);
  integer(r.time_ns);
  integer(r.wall_ns);
  append_int(r.cpu_ns, out);
  out += '\n';
  return out;
}

std::string RowKey::text() const {
  std::string k;
  for (const std::string* part : {&family, &ops, &seed, &generator, &arm_policy}) {
    if (!k.empty()) k += '|';
    k += *part;
  }
  if (!graph.empty()) k += "|" + graph;
  if (!max_stages.empty() && max_stages != "0") k += "|max_stages=" + max_stages;
  return k;
}

std::string ReadRow::key() const {
  const ReadRow& r = *this;
  return RowKey{r[Col::kFamily], r[Col::kOps], r[Col::kSeed], r[Col::kGenerator],
                r[Col::kArmPolicy], r[Col::kGraph], r[Col::kMaxStages]}
      .text();
}

std::optional<int64_t> field_int(const std::string& text) {
  int64_t v = 0;
  if (text.empty()) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

namespace {

// The table's lines after the version line (versions 1 and 2) and the
// header, each with its line number, so that a parsed row keeps its raw
// text; the version and the header into `result`.
Status split_table(std::string_view content, const std::string& source, ReadResult& result,
                   std::vector<std::string_view>& lines, std::vector<size_t>& line_numbers) {
  size_t begin = 0, number = 0;
  while (begin < content.size()) {
    size_t end = content.find('\n', begin);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    if (number == 1 && result.version < 3) {
      // the version line, read by check_line_one
    } else if (line.empty() || line.front() == '#') {
      return Status::InvalidInput(source + ": line " + std::to_string(number) +
                                  ": empty or comment line inside the table");
    } else if (result.header_line.empty()) {
      result.header_line = line;
    } else {
      lines.push_back(line);
      line_numbers.push_back(number);
    }
    begin = end + 1;
  }
  if (number == 0) return Status::InvalidInput(source + ": empty file");
  if (result.header_line.empty()) return Status::InvalidInput(source + ": no header line");
  return Status::Ok();
}

// Line 1 of a sweep CSV: a version line (versions 1 and 2, into `result`)
// or the header. Checked before anything else, so that a file of another
// kind is named as such (not as torn when it lacks a final line break).
Status check_line_one(std::string_view content, const std::string& source, ReadResult& result) {
  std::string_view line = content.substr(0, content.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line == kVersionLine1) {
    result.version = 1;
  } else if (line == kVersionLine2) {
    result.version = 2;
  } else if (!line.empty() && line.front() == '#') {
    return Status::InvalidInput(source + ": line 1: not a sweep CSV of a known "
                                "version (" + std::string(line.substr(0, 80)) + ")");
  } else if (line.rfind("family,ops,", 0) != 0) {
    return Status::InvalidInput(source + ": line 1: not a sweep CSV (expected the header "
                                "'family,ops,...')");
  }
  return Status::Ok();
}

// A last line without its line break (a write cut short): dropped from
// `content` and counted in `result` when `drop`, refused otherwise.
Status drop_torn_tail(std::string_view& content, const std::string& source, bool drop,
                      ReadResult& result) {
  if (content.empty() || content.back() == '\n') return Status::Ok();
  const size_t last = content.rfind('\n');
  const size_t keep = last == std::string_view::npos ? 0 : last + 1;
  if (!drop) {
    const size_t lines = static_cast<size_t>(std::count(content.begin(), content.end(), '\n'));
    return Status::InvalidInput(source + ": line " + std::to_string(lines + 1) +
                                ": torn last line (the file does not end with a line break)");
  }
  result.dropped_bytes = content.size() - keep;
  content = content.substr(0, keep);
  return Status::Ok();
}

// Version 1 lacks stages_proven, graph and max_stages, version 2 graph
// and max_stages, version 3 max_stages, version 4 cpu_ns, version 5
// effort, version 6 generator_version: those may be missing there.
bool may_lack(Col c, int version) {
  return (c == Col::kGeneratorVersion && version < 7) || (c == Col::kEffort && version < 6) ||
         (c == Col::kCpuNs && version < 5) || (c == Col::kMaxStages && version < 4) ||
         (c == Col::kGraph && version < 3) || (version == 1 && c == Col::kStagesProven);
}

// A file without a version line (`version` is then kCsvVersion) is
// version 3 when it lacks max_stages, else 4 when it lacks cpu_ns, else 5
// when it lacks effort, else 6 when it lacks generator_version, else 7.
template <class Reader>
int version_of(const Reader& in, int version) {
  if (version != kCsvVersion) return version;
  if (!in.has_column("max_stages")) return 3;
  if (!in.has_column("cpu_ns")) return 4;
  if (!in.has_column("effort")) return 5;
  if (!in.has_column("generator_version")) return 6;
  return version;
}

}  // namespace

StatusOr<ReadResult> parse_sweep_csv(std::string_view content, const std::string& source,
                                     bool drop_partial_tail) {
  ReadResult result;
  if (content.empty()) return Status::InvalidInput(source + ": empty file");
  if (Status st = check_line_one(content, source, result); !st.ok()) return st;
  if (Status st = drop_torn_tail(content, source, drop_partial_tail, result); !st.ok()) return st;
  std::vector<std::string_view> lines;
  std::vector<size_t> line_numbers;
  if (Status st = split_table(content, source, result, lines, line_numbers); !st.ok()) return st;

  using Reader = io::CSVReader<kFixedColumnCount, io::trim_chars<>,
                               io::double_quote_escape<',', '"'>, io::throw_on_overflow,
                               io::single_line_comment<'#'>>;
  try {
    Reader in(source, content.data(), content.data() + content.size());
    std::array<std::string, kFixedColumnCount> names;
    for (size_t i = 0; i < kFixedColumnCount; ++i) names[i] = kColumnNames[i];
    const io::ignore_column policy = io::ignore_extra_column | io::ignore_missing_column;
    std::apply([&](auto&... n) { in.read_header(policy, n...); }, names);
    result.version = version_of(in, result.version);
    for (size_t i = 0; i < kFixedColumnCount; ++i) {
      if (!may_lack(static_cast<Col>(i), result.version) && !in.has_column(names[i])) {
        return Status::InvalidInput(source + ": line 2: column '" + names[i] + "' is missing");
      }
    }
    ReadRow row;
    while (std::apply([&](auto&... f) { return in.read_row(f...); }, row.fields)) {
      const size_t i = result.rows.size();
      if (i >= lines.size()) return Status::InvalidInput(source + ": rows and lines disagree");
      row.line = lines[i];
      row.line_number = line_numbers[i];
      result.rows.push_back(row);
    }
  } catch (const io::error::base& e) {
    std::string msg = e.what();
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    return Status::InvalidInput(source + ": " + msg);
  }
  if (result.rows.size() != lines.size()) {
    return Status::InvalidInput(source + ": rows and lines disagree");
  }
  return result;
}

StatusOr<std::string> slurp(const std::string& path) {
  std::error_code ec;
  // A directory opens as a stream and reads as nothing ("empty file").
  if (std::filesystem::is_directory(path, ec)) {
    return Status::IoError(path + ": is a directory, not a file");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    return Status::IoError(path + ": cannot open" +
                           (err != 0 ? ": " + std::string(std::strerror(err)) : std::string()));
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::IoError(path + ": cannot read");
  return buf.str();
}

StatusOr<ReadResult> read_sweep_csv(const std::string& path, bool drop_partial_tail) {
  StatusOr<std::string> content = slurp(path);
  if (!content.ok()) return content.status();
  return parse_sweep_csv(*content, path, drop_partial_tail);
}

}  // namespace tilesched::sweep
