// The sweep CSV (docs/SWEEP.md lists every column and the layout): our own
// RFC 4180 writer with a fixed, versioned column list (tilesched.sweep/4:
// the header, then one row per line), and a reader built on libfccp (the
// Fast C++ CSV Parser) that the resume, compare and replay paths share; it
// still takes versions 1 and 2 (old baselines). Fields never contain line
// breaks (the writer turns them into spaces), so a row that is one line can
// be appended, detected as partial and dropped atomically.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/status.h"

namespace tilesched::sweep {

inline constexpr std::string_view kCsvFormat = "tilesched.sweep/7";
inline constexpr int kCsvVersion = 7;
// The first line of the older versions. Version 1 lacks stages_proven,
// graph and max_stages, version 2 graph and max_stages, version 3 (no
// version line, like 4 to 7) max_stages, version 4 cpu_ns, version 5
// effort, version 6 generator_version; the reader
// takes them all (an absent
// column reads as empty fields), so older baselines and results compare.
inline constexpr std::string_view kVersionLine1 = "# tilesched.sweep/1";
inline constexpr std::string_view kVersionLine2 = "# tilesched.sweep/2";

// One field, quoted when needed (see above).
std::string csv_field(std::string_view value);
// The fields joined by commas, with a trailing '\n'.
std::string csv_line(const std::vector<std::string>& fields);

// The columns every sweep CSV has, in order, before the cost-based
// statistics columns ("cb_*") and the timing columns at the end.
enum class Col {
  kFamily, kOps, kEdges, kSeed, kGraphHash, kGenerator, kArmPolicy, kFeasible, kIi, kMii,
  kResMii, kRecMii, kFineMii, kDepMii, kStageCount, kVerified, kOptimalIi, kProven,
  kStagesProven,
  kEngineVersion, kFailure, kReason, kGraphOps, kGraph, kMaxStages, kEffort, kGeneratorVersion,
  kTimeNs, kWallNs, kCpuNs,  // written last, after the statistics columns
};
inline constexpr size_t kFixedColumnCount = 30;
std::string_view column_name(Col c);
// time_ns, wall_ns and cpu_ns: the only columns that may differ between
// runs of the same sweep.
inline bool is_timing_column(Col c) {
  return c == Col::kTimeNs || c == Col::kWallNs || c == Col::kCpuNs;
}

// The cost-based generator's counters as the CSV names them: "cb_" + the
// schedule JSON's stats key with '.' and '-' turned into '_'.
const std::vector<std::string>& stat_keys();      // the stats keys, in order
std::string stat_column_name(std::string_view key);

// Every column name, in file order.
std::vector<std::string> sweep_columns();
// The header line, with its '\n'.
std::string header_text();

// One row of the sweep, as written.
struct SweepRow {
  std::string family;      // a registry family, or "file" / "hatschet" (--graphs)
  std::string graph;       // --graphs: the file's path relative to its argument; else ""
  int64_t max_stages = 0;  // the stage cap the generator ran under; 0: none (part of the key)
  std::string effort;      // the schedule's effort option (cost-based's); "" when none
  // A foreign scheduler's version (tilesched/foreign.h); "" for the
  // built-in generators, whose version is engine_version.
  std::string generator_version;
  int ops = 0;            // the requested size (part of the key)
  int graph_ops = 0;      // ops the graph has
  int edges = 0;
  uint64_t seed = 0;
  uint64_t graph_hash = 0;
  std::string generator;
  std::string arm_policy;  // "" for generators without one
  bool feasible = false;
  bool verified = false;
  std::string failure = "none";  // see docs/SWEEP.md
  std::string reason;            // "" when verified
  std::optional<int64_t> ii;     // absent when infeasible
  int64_t mii = 0, res_mii = 0, rec_mii = 0, fine_mii = 0, dep_mii = 0;
  std::optional<int64_t> stage_count;
  std::optional<int64_t> optimal_ii;
  std::optional<bool> proven;
  std::optional<bool> stages_proven;
  std::string engine_version;
  std::vector<std::optional<int64_t>> stats;  // aligned with stat_keys()
  int64_t time_ns = 0;
  int64_t wall_ns = 0;
  int64_t cpu_ns = 0;  // the worker thread's CPU time of the generator call (no verify)
};

std::string format_row(const SweepRow& row);
std::string hash_text(uint64_t hash);  // 16 lowercase hex digits

// The key that matches rows across files (resume, merge, compare, replay):
// family, ops, seed, generator, arm policy, the graph file for --graphs
// rows (empty for family rows, which keeps their keys those of versions 1
// and 2) and the stage cap (empty or "0" for none, which keeps the keys of
// uncapped rows those of version 3). worklist.h makes one from a work item
// and a configuration.
struct RowKey {
  std::string family, ops, seed, generator, arm_policy, graph, max_stages;
  // "family|ops|seed|generator|arm_policy", then "|graph" when there is
  // one, then "|max_stages=S" for a cap S > 0.
  std::string text() const;
};

// A row read back: the fixed columns as text, the raw line (without '\n')
// and its line number in the file.
struct ReadRow {
  std::array<std::string, kFixedColumnCount> fields;
  std::string line;
  size_t line_number = 0;
  const std::string& operator[](Col c) const { return fields[static_cast<size_t>(c)]; }
  std::string key() const;  // RowKey of the row's fields, as text
};

struct ReadResult {
  int version = kCsvVersion;  // 1, 2 (a '#' line first), 3 (no max_stages), 4 (no cpu_ns),
                              // 5 (no effort), 6 (no generator_version) or 7
  std::string header_line;   // the file's header, as written
  std::vector<ReadRow> rows;
  size_t dropped_bytes = 0;  // a partial last line that was cut off
};

// Parses `content` (a whole file, named `source` in messages) with libfccp.
// With `drop_partial_tail`, an unterminated last line (a write cut short by
// a kill) is dropped instead of refused. InvalidInput, naming the source and
// line, for a file that is not a sweep CSV, missing columns, a row with the
// wrong number of fields or a bad quote. Without `drop_partial_tail`, an
// unterminated last line is refused as torn.
StatusOr<ReadResult> parse_sweep_csv(std::string_view content, const std::string& source,
                                     bool drop_partial_tail = false);
StatusOr<ReadResult> read_sweep_csv(const std::string& path, bool drop_partial_tail = false);

// Whole file into a string, no size limit (file_io's read_file caps inputs
// at 64 MiB; a paper sweep's CSV may grow past that).
StatusOr<std::string> slurp(const std::string& path);

// Parses an integer column; nullopt for an empty or malformed field.
std::optional<int64_t> field_int(const std::string& text);

}  // namespace tilesched::sweep
