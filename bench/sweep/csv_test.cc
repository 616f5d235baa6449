// The sweep CSV: quoting and escaping round trip through libfccp, the
// version line, partial last lines, malformed rows.
#include "sweep/csv.h"

#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

namespace tilesched::sweep {
namespace {

SweepRow sample_row() {
  SweepRow r;
  r.family = "random_layered";
  r.ops = 16;
  r.graph_ops = 16;
  r.edges = 24;
  r.seed = 3;
  r.graph_hash = 0x0123456789abcdefull;
  r.generator = "cost-based";
  r.arm_policy = "best-cost";
  r.feasible = true;
  r.verified = true;
  r.ii = 12;
  r.mii = 11;
  r.stage_count = 2;
  r.engine_version = "0.1.0";
  r.stats.assign(stat_keys().size(), std::nullopt);
  r.stats[0] = 4;
  r.time_ns = 1234;
  return r;
}

TEST(SweepCsv, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field(" lead"), "\" lead\"");
  EXPECT_EQ(csv_field("trail\t"), "\"trail\t\"");
  EXPECT_EQ(csv_field("#hash"), "\"#hash\"");
  EXPECT_EQ(csv_field("two\nlines"), "two lines");
  EXPECT_EQ(csv_field("two\nlines\r"), "\"two lines \"");  // now a trailing blank
  EXPECT_EQ(csv_line({"a", "b,c", ""}), "a,\"b,c\",\n");
}

TEST(SweepCsv, TrickyFieldsRoundTripThroughLibfccp) {
  const std::vector<std::string> tricky = {
      "plain", "", "a,b,c", "\"", "\"\"", "say \"hi\", then go", " both ", "\tx", "#not a comment",
      "trailing,", ",leading", "ünïcödé ✓", "semi;colon", "back\\slash", "\"quoted, fully\""};
  std::string text = header_text();
  for (const std::string& t : tricky) {
    SweepRow r = sample_row();
    r.reason = t;
    r.failure = t;
    r.family = t;
    text += format_row(r);
  }
  StatusOr<ReadResult> read = parse_sweep_csv(text, "tricky.csv");
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->rows.size(), tricky.size());
  for (size_t i = 0; i < tricky.size(); ++i) {
    EXPECT_EQ(read->rows[i][Col::kReason], tricky[i]);
    EXPECT_EQ(read->rows[i][Col::kFailure], tricky[i]);
    EXPECT_EQ(read->rows[i][Col::kFamily], tricky[i]);
    EXPECT_EQ(read->rows[i][Col::kIi], "12");
    EXPECT_EQ(read->rows[i][Col::kGraphHash], "0123456789abcdef");
    EXPECT_EQ(read->rows[i][Col::kTimeNs], "1234");
    EXPECT_EQ(read->rows[i].line_number, i + 2);
    EXPECT_EQ(read->rows[i].line + "\n", format_row([&] {
                SweepRow r = sample_row();
                r.reason = r.failure = r.family = tricky[i];
                return r;
              }()));
  }
}

TEST(SweepCsv, LineBreaksBecomeSpacesSoEveryRowIsOneLine) {
  SweepRow r = sample_row();
  r.reason = "first\nsecond\r\nthird";
  StatusOr<ReadResult> read = parse_sweep_csv(header_text() + format_row(r), "nl.csv");
  ASSERT_TRUE(read.ok()) << read.status().message();
  ASSERT_EQ(read->rows.size(), 1u);
  EXPECT_EQ(read->rows[0][Col::kReason], "first second  third");
}

// Version 3: the header is line 1 (pandas and csv.DictReader read the file
// with no options); the format name lives in the context file.
TEST(SweepCsv, HeaderIsTheFirstLineAndHasTheSpecColumns) {
  const std::string h = header_text();
  EXPECT_EQ(h.rfind("family,ops,", 0), 0u);
  EXPECT_EQ(std::count(h.begin(), h.end(), '\n'), 1);
  for (const char* c : {"family", "ops", "edges", "seed", "graph_hash", "generator", "arm_policy",
                        "feasible", "ii", "mii", "res_mii", "rec_mii", "fine_mii", "dep_mii",
                        "stage_count", "time_ns", "verified", "optimal_ii", "proven",
                        "stages_proven", "engine_version", "failure", "reason", "graph",
                        "cb_ii_tried"}) {
    EXPECT_NE(("," + csv_line(sweep_columns())).find(std::string(",") + c + ","), std::string::npos) << c;
  }
  const std::vector<std::string> cols = sweep_columns();
  EXPECT_EQ(cols.front(), "family");
  EXPECT_EQ(cols.back(), "cpu_ns");
  EXPECT_EQ(cols[cols.size() - 2], "wall_ns");
  EXPECT_EQ(cols[cols.size() - 3], "time_ns");
}

// `cols` and `row` without the (empty) column `name`.
void drop_column(std::vector<std::string>& cols, std::string& row, const std::string& name) {
  const auto at = std::find(cols.begin(), cols.end(), name);
  ASSERT_NE(at, cols.end());
  const size_t index = static_cast<size_t>(at - cols.begin());
  cols.erase(at);
  size_t comma = 0;
  for (size_t i = 0; i < index; ++i) comma = row.find(',', comma) + 1;
  row.erase(comma, 1);
}

// Version 1 files (no stages_proven, no graph) and version 2 files (no
// graph), with their '#' version line, still read, the fields empty and
// the keys those of version 3's family rows; one missing another column
// is refused.
TEST(SweepCsv, ReadsVersionsOneAndTwo) {
  SweepRow r;
  r.family = "chain";
  r.generator = "serial";
  r.stats.assign(stat_keys().size(), std::nullopt);
  for (int version : {1, 2}) {
    std::vector<std::string> cols = sweep_columns();
    std::string row = format_row(r);
    drop_column(cols, row, "graph");
    if (version == 1) drop_column(cols, row, "stages_proven");
    const std::string line = "# tilesched.sweep/" + std::to_string(version) + "\n";
    StatusOr<ReadResult> read = parse_sweep_csv(line + csv_line(cols) + row, "old.csv");
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read->version, version);
    ASSERT_EQ(read->rows.size(), 1u);
    EXPECT_EQ(read->rows[0][Col::kFamily], "chain");
    EXPECT_EQ(read->rows[0][Col::kStagesProven], "");
    EXPECT_EQ(read->rows[0][Col::kGraph], "");
    EXPECT_EQ(read->rows[0][Col::kGenerator], "serial");
    EXPECT_EQ(read->rows[0].line_number, 3u);
    EXPECT_EQ(read->rows[0].key(), "chain|0|0|serial|");

    cols.erase(std::find(cols.begin(), cols.end(), "proven"));
    EXPECT_FALSE(parse_sweep_csv(line + csv_line(cols), "bad.csv").ok());
  }
  EXPECT_FALSE(parse_sweep_csv("# tilesched.sweep/9\n" + header_text(), "v9.csv").ok());
}

// Versions 3 to 6 have no version line: a file lacking generator_version
// is version 6, one lacking effort too version 5, one lacking cpu_ns too
// version 4, one lacking max_stages too version 3; their rows read as
// before.
TEST(SweepCsv, ReadsVersionsThreeToSix) {
  SweepRow r = sample_row();
  r.cpu_ns = 77;
  r.effort = "default";
  r.generator_version = "1.0";
  for (int version : {3, 4, 5, 6}) {
    std::vector<std::string> cols = sweep_columns();
    std::vector<std::string> fields;  // the sample row has no quoted field
    std::stringstream in(format_row(r));
    for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
    fields.back().pop_back();  // its '\n'
    for (const char* name : {"generator_version", "effort", "cpu_ns", "max_stages"}) {
      if (version >= 4 && std::string_view(name) == "max_stages") continue;
      if (version >= 5 && std::string_view(name) == "cpu_ns") continue;
      if (version == 6 && std::string_view(name) == "effort") continue;
      const auto at = std::find(cols.begin(), cols.end(), name);
      ASSERT_NE(at, cols.end());
      fields.erase(fields.begin() + (at - cols.begin()));
      cols.erase(at);
    }
    StatusOr<ReadResult> read = parse_sweep_csv(csv_line(cols) + csv_line(fields), "old.csv");
    ASSERT_TRUE(read.ok()) << read.status().message();
    EXPECT_EQ(read->version, version);
    ASSERT_EQ(read->rows.size(), 1u);
    EXPECT_EQ(read->rows[0][Col::kCpuNs], version >= 5 ? "77" : "");
    EXPECT_EQ(read->rows[0][Col::kEffort], version == 6 ? "default" : "");
    EXPECT_EQ(read->rows[0][Col::kGeneratorVersion], "");
    EXPECT_EQ(read->rows[0][Col::kFamily], r.family);
  }
  StatusOr<ReadResult> now = parse_sweep_csv(header_text() + format_row(r), "new.csv");
  ASSERT_TRUE(now.ok()) << now.status().message();
  EXPECT_EQ(now->version, kCsvVersion);
  EXPECT_EQ(now->rows[0][Col::kCpuNs], "77");
  EXPECT_EQ(now->rows[0][Col::kEffort], "default");
  EXPECT_EQ(now->rows[0][Col::kGeneratorVersion], "1.0");
}

// A --graphs row's key carries its file; a family row's does not.
TEST(SweepCsv, GraphFileRowsKeyOnTheirFile) {
  SweepRow r = sample_row();
  r.family = "file";
  r.graph = "sub/a.loop.json";
  StatusOr<ReadResult> read = parse_sweep_csv(header_text() + format_row(r), "g.csv");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->rows[0][Col::kGraph], "sub/a.loop.json");
  EXPECT_NE(read->rows[0].key().find("sub/a.loop.json"), std::string::npos);
  EXPECT_EQ(read->rows[0].key(), (RowKey{r.family, std::to_string(r.ops), std::to_string(r.seed),
                                         r.generator, r.arm_policy, r.graph}
                                      .text()));
}

TEST(SweepCsv, PartialLastLineIsDroppedOnlyWhenAsked) {
  const std::string full = header_text() + format_row(sample_row()) + format_row(sample_row());
  const std::string cut = full.substr(0, full.size() - 10);
  StatusOr<ReadResult> strict = parse_sweep_csv(cut, "cut.csv");
  EXPECT_FALSE(strict.ok());
  StatusOr<ReadResult> lenient = parse_sweep_csv(cut, "cut.csv", /*drop_partial_tail=*/true);
  ASSERT_TRUE(lenient.ok()) << lenient.status().message();
  EXPECT_EQ(lenient->rows.size(), 1u);
  EXPECT_GT(lenient->dropped_bytes, 0u);
}

TEST(SweepCsv, RefusesWhatIsNotASweepCsv) {
  StatusOr<ReadResult> r = parse_sweep_csv("fam,ops\nx,1\n", "plain.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("plain.csv: line 1"), std::string::npos);
  r = parse_sweep_csv(std::string(kVersionLine2) + "\nfamily,ops\nx,1\n", "few.csv");
  ASSERT_FALSE(r.ok());  // columns missing from the header
  EXPECT_NE(r.status().message().find("few.csv"), std::string::npos);
  r = parse_sweep_csv(header_text() + "a,b,c\n", "short.csv");
  ASSERT_FALSE(r.ok());  // too few fields
  r = parse_sweep_csv(header_text() + "\"unclosed,1\n", "quote.csv");
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(parse_sweep_csv("", "empty.csv").ok());
  r = parse_sweep_csv("family,ops\nx,1\n", "cols.csv");
  EXPECT_FALSE(r.ok());  // the header lacks columns
  // Another kind of file without a final line break: named for what it is
  // not, before the torn-line check.
  r = parse_sweep_csv("{\n  \"format\": \"tilesched.loop/1\"\n}", "x.loop.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "x.loop.json: line 1: not a sweep CSV (expected the header 'family,ops,...')");
  r = parse_sweep_csv(header_text() + "x,1", "torn.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("torn.csv: line 2: torn last line"), std::string::npos);
}

TEST(SweepCsv, FieldInt) {
  EXPECT_EQ(field_int("42"), 42);
  EXPECT_EQ(field_int("-3"), -3);
  EXPECT_FALSE(field_int(""));
  EXPECT_FALSE(field_int("4x"));
  EXPECT_FALSE(field_int("99999999999999999999"));
}

}  // namespace
}  // namespace tilesched::sweep
