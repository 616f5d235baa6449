// Comparing two sweep CSVs (compare.h).
#include "sweep/compare.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tilesched/foreign.h"

namespace tilesched::sweep {
namespace {

struct Row {
  std::string key, group_gen, family, hash;
  bool feasible = false, verified = false;
  bool foreign = false;  // ext:NAME, plugin:NAME (tilesched/foreign.h)
  int64_t ii = 0, mii = 0, stages = 0, time_ns = 0;
};

Status bad_field(const std::string& file, const ReadRow& r, Col c) {
  return Status::InvalidInput(file + ": line " + std::to_string(r.line_number) + ": " +
                              std::string(column_name(c)) + ": '" + r[c] +
                              "' is not a valid value");
}

StatusOr<std::vector<Row>> load(const ReadResult& read, const std::string& file) {
  std::vector<Row> rows;
  std::map<std::string, size_t> first_line;  // key -> line number
  for (const ReadRow& r : read.rows) {
    Row x;
    x.key = r.key();
    if (auto [at, fresh] = first_line.emplace(x.key, r.line_number); !fresh) {
      return Status::InvalidInput(file + ": line " + std::to_string(r.line_number) +
                                  ": duplicate row key " + x.key + " (first at line " +
                                  std::to_string(at->second) + ")");
    }
    x.group_gen = r[Col::kGenerator] + (r[Col::kArmPolicy].empty() ? "" : "/" + r[Col::kArmPolicy]);
    if (const std::string& cap = r[Col::kMaxStages]; !cap.empty() && cap != "0") {
      x.group_gen += " max_stages=" + cap;
    }
    x.family = r[Col::kFamily];
    x.foreign = is_foreign_generator(r[Col::kGenerator]);
    x.hash = r[Col::kGraphHash];
    for (Col c : {Col::kFeasible, Col::kVerified}) {
      if (r[c] != "0" && r[c] != "1") return bad_field(file, r, c);
    }
    x.feasible = r[Col::kFeasible] == "1";
    x.verified = r[Col::kVerified] == "1";
    const std::optional<int64_t> mii = field_int(r[Col::kMii]);
    const std::optional<int64_t> t = field_int(r[Col::kTimeNs]);
    if (!mii || *mii < 0) return bad_field(file, r, Col::kMii);
    if (!t || *t < 0) return bad_field(file, r, Col::kTimeNs);
    x.mii = *mii;
    x.time_ns = *t;
    if (x.feasible) {
      const std::optional<int64_t> ii = field_int(r[Col::kIi]);
      const std::optional<int64_t> st = field_int(r[Col::kStageCount]);
      if (!ii || *ii < 1) return bad_field(file, r, Col::kIi);
      if (!st || *st < 0) return bad_field(file, r, Col::kStageCount);
      x.ii = *ii;
      x.stages = *st;
    }
    rows.push_back(std::move(x));
  }
  return rows;
}

double median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? static_cast<double>(v[n / 2])
               : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
}

struct Side {
  size_t rows = 0, feasible = 0, at_mii = 0;
  double ratio_sum = 0, stage_sum = 0;
  std::vector<int64_t> times;
  void add(const Row& r) {
    ++rows;
    if (!r.feasible) return;
    ++feasible;
    at_mii += r.ii == r.mii ? 1 : 0;
    ratio_sum += r.mii > 0 ? static_cast<double>(r.ii) / static_cast<double>(r.mii) : 0;
    stage_sum += static_cast<double>(r.stages);
    times.push_back(r.time_ns);
  }
  double mean_ratio() const { return feasible ? ratio_sum / static_cast<double>(feasible) : 0; }
  double at_mii_share() const { return feasible ? static_cast<double>(at_mii) / static_cast<double>(feasible) : 0; }
  double mean_stages() const { return feasible ? stage_sum / static_cast<double>(feasible) : 0; }
};

struct Group {
  Side base, now;
  size_t wins = 0, losses = 0;
  std::vector<int64_t> base_times, now_times;  // matched feasible pairs
};

std::string time_text(double ns) {
  char buf[32];
  if (ns >= 1e9) std::snprintf(buf, sizeof buf, "%.2fs", ns / 1e9);
  else if (ns >= 1e6) std::snprintf(buf, sizeof buf, "%.2fms", ns / 1e6);
  else if (ns >= 1e3) std::snprintf(buf, sizeof buf, "%.1fus", ns / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0fns", ns);
  return buf;
}

using GroupKey = std::pair<std::string, std::string>;  // generator[/policy], family

// What the comparison found.
struct Findings {
  std::map<GroupKey, Group> groups;
  std::vector<std::string> regressions, warnings;
  size_t matched = 0, only_new = 0, graph_changes = 0;
  size_t lost = 0;  // scheduled-and-verified BASE rows missing from NEW (regressions)
};

// One matched pair of rows (same key, same graph): a lost schedule or a
// higher II is a regression; the feasible pairs' times are kept.
void judge_pair(const Row& b, const Row& n, Group& g, Findings& f) {
  if (b.feasible && b.verified && !(n.feasible && n.verified)) {
    f.regressions.push_back(n.key + ": scheduled and verified in base, not in new");
    ++g.losses;
  } else if (b.feasible && n.feasible) {
    if (n.ii > b.ii) {
      f.regressions.push_back(n.key + ": II " + std::to_string(b.ii) + " -> " +
                              std::to_string(n.ii));
      ++g.losses;
    } else if (n.ii < b.ii) {
      ++g.wins;
    }
    g.base_times.push_back(b.time_ns);
    g.now_times.push_back(n.time_ns);
  } else if (!b.feasible && n.feasible && n.verified) {
    ++g.wins;
  }
}

// Groups every row and matches NEW's rows to BASE's by key. A BASE row
// scheduled and verified that NEW lacks is a regression (a lost schedule),
// unless opts.allow_missing; returns how many other BASE rows NEW lacks.
size_t match_rows(const std::vector<Row>& base, const std::vector<Row>& now,
                  const CompareOptions& opts, Findings& f) {
  std::map<std::string, const Row*> base_by_key;
  for (const Row& r : base) base_by_key.emplace(r.key, &r);
  std::map<std::string, bool> seen;
  for (const Row& r : base) f.groups[{r.group_gen, r.family}].base.add(r);
  for (const Row& n : now) {
    Group& g = f.groups[{n.group_gen, n.family}];
    g.now.add(n);
    // A built-in generator's illegal schedule is a bug of ours; a foreign
    // scheduler's is its own finding, a regression only where BASE had it
    // verified (below).
    if (n.feasible && !n.verified && !n.foreign) {
      f.regressions.push_back(n.key + ": the schedule failed verification");
    }
    auto it = base_by_key.find(n.key);
    if (it == base_by_key.end()) {
      ++f.only_new;
      continue;
    }
    const Row& b = *it->second;
    seen[n.key] = true;
    ++f.matched;
    if (b.hash != n.hash) {
      ++f.graph_changes;
      if (!opts.allow_graph_changes) {
        f.regressions.push_back(n.key + ": graph changed (hash " + b.hash + " -> " + n.hash +
                                "): regenerate the baseline (scripts/baseline)");
      }
      continue;
    }
    judge_pair(b, n, g, f);
  }
  size_t only_base = 0;
  for (const Row& b : base) {
    if (seen.count(b.key)) continue;
    if (b.feasible && b.verified && !opts.allow_missing) {
      f.regressions.push_back(b.key + ": scheduled and verified in base, missing from new");
      ++f.groups[{b.group_gen, b.family}].losses;
      ++f.lost;
    } else {
      ++only_base;
    }
  }
  return only_base;
}

// The warnings about rows that were not compared.
void warn_unmatched(size_t only_base, const std::string& base_name, const std::string& now_name,
                    const CompareOptions& opts, Findings& f) {
  if (f.matched == 0) f.regressions.push_back("no row in common between the two files");
  if (only_base > 0) {
    f.warnings.push_back(std::to_string(only_base) + " row(s) of " + base_name +
                         " are missing from " + now_name +
                         (opts.allow_missing ? " (--allow-missing)"
                                             : " (none of them scheduled and verified)"));
  }
  if (f.only_new > 0) {
    f.warnings.push_back(std::to_string(f.only_new) + " row(s) of " + now_name + " are not in " +
                         base_name);
  }
  if (f.graph_changes > 0 && opts.allow_graph_changes) {
    f.warnings.push_back(std::to_string(f.graph_changes) +
                         " row(s) ran on a changed graph (not compared)");
  }
}

// A group's median time ratio `r` (base median `tb`) against the options:
// a regression past time_fail_ratio, else a warning past time_warn_ratio.
void judge_time(const GroupKey& name, double tb, double r, const CompareOptions& opts,
                Findings& f) {
  if (tb < static_cast<double>(opts.time_floor_ns) || r <= 0) return;
  char msg[256];
  if (opts.time_fail_ratio && r > *opts.time_fail_ratio) {
    std::snprintf(msg, sizeof msg, "%s %s: median time x%.2f > --time-fail-ratio %.2f",
                  name.first.c_str(), name.second.c_str(), r, *opts.time_fail_ratio);
    f.regressions.push_back(msg);
  } else if (r > opts.time_warn_ratio) {
    std::snprintf(msg, sizeof msg,
                  "%s %s: median time x%.2f (above x%.2f; timing only fails with "
                  "--time-fail-ratio)",
                  name.first.c_str(), name.second.c_str(), r, opts.time_warn_ratio);
    f.warnings.push_back(msg);
  }
}

// One group's figures, base -> new, as every format shows them.
// A figure is absent (a dash, null in JSON) on a side with no row of the
// group (`present`), and for times, on a side with no matched feasible pair.
struct GroupLine {
  std::string generator, family;
  size_t rows = 0, wins = 0, losses = 0;
  bool present[2] = {}, timed = false;
  double ratio[2] = {}, share[2] = {}, stages[2] = {}, time[2] = {}, time_ratio = 0;
};

// The groups' figures; judges each group's time.
std::vector<GroupLine> group_lines(const CompareOptions& opts, Findings& f) {
  std::vector<GroupLine> out;
  for (auto& [name, g] : f.groups) {
    GroupLine l;
    l.generator = name.first;
    l.family = name.second;
    l.rows = g.now.rows;
    l.wins = g.wins;
    l.losses = g.losses;
    l.present[0] = g.base.rows > 0;
    l.present[1] = g.now.rows > 0;
    l.timed = !g.base_times.empty();
    l.ratio[0] = g.base.mean_ratio();
    l.ratio[1] = g.now.mean_ratio();
    l.share[0] = g.base.at_mii_share();
    l.share[1] = g.now.at_mii_share();
    l.stages[0] = g.base.mean_stages();
    l.stages[1] = g.now.mean_stages();
    l.time[0] = median(g.base_times);
    l.time[1] = median(g.now_times);
    l.time_ratio = l.time[0] > 0 ? l.time[1] / l.time[0] : 0;
    if (l.timed) judge_time(name, l.time[0], l.time_ratio, opts, f);
    out.push_back(std::move(l));
  }
  return out;
}

struct Cells {
  std::string ratio, share, stages, times;
};

Cells cells(const GroupLine& l, const char* arrow) {
  // One figure's "base -> new" text; a side without rows shows a dash.
  auto pair = [&](const char* fmt, double scale, const double (&v)[2]) {
    std::string side[2];
    for (int i = 0; i < 2; ++i) {
      char buf[32];
      std::snprintf(buf, sizeof buf, fmt, scale * v[i]);
      side[i] = l.present[i] ? buf : "-";
    }
    return side[0] + " " + arrow + " " + side[1];
  };
  Cells c;
  c.ratio = pair("%.3f", 1, l.ratio);
  c.share = pair("%3.0f%%", 100, l.share);
  c.stages = pair("%.2f", 1, l.stages);
  if (l.timed) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%s %s %s (x%.2f)", time_text(l.time[0]).c_str(), arrow,
                  time_text(l.time[1]).c_str(), l.time_ratio);
    c.times = buf;
  } else {
    c.times = "-";
  }
  return c;
}

constexpr size_t kShown = 20;  // regressions listed in text and markdown

// The table, a line per group, base -> new; then the summary, the
// warnings, the first regressions and the result line.
std::string render_text(const std::vector<GroupLine>& lines, const Findings& f) {
  // The label columns as wide as their longest entry (a generator with its
  // arm policy and stage cap, a family name), so every row lines up.
  int gen_w = 26, fam_w = 20;
  for (const GroupLine& l : lines) {
    gen_w = std::max(gen_w, static_cast<int>(l.generator.size()));
    fam_w = std::max(fam_w, static_cast<int>(l.family.size()));
  }
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line, "%-*s %-*s %5s  %-15s %-13s %-13s %-27s %s\n", gen_w,
                "generator", fam_w, "family", "rows", "II/MII", "at MII", "stages",
                "median time (ratio)", "wins/losses");
  out += line;
  std::snprintf(line, sizeof line, "%-*s %-*s %5s  %-15s %-13s %-13s %-27s %s\n", gen_w, "",
                fam_w, "", "", "base -> new", "base -> new", "base -> new", "base -> new", "");
  out += line;
  for (const GroupLine& l : lines) {
    const Cells c = cells(l, "->");
    std::snprintf(line, sizeof line, "%-*s %-*s %5zu  %-15s %-13s %-13s %-27s %zu/%zu\n", gen_w,
                  l.generator.c_str(), fam_w, l.family.c_str(), l.rows, c.ratio.c_str(),
                  c.share.c_str(), c.stages.c_str(), c.times.c_str(), l.wins, l.losses);
    out += line;
  }
  std::snprintf(line, sizeof line, "\n%zu matched row(s); %zu regression(s)\n", f.matched,
                f.regressions.size());
  out += line;
  for (const std::string& w : f.warnings) out += "warning: " + w + "\n";
  for (size_t i = 0; i < f.regressions.size() && i < kShown; ++i) {
    out += "REGRESSION: " + f.regressions[i] + "\n";
  }
  if (f.regressions.size() > kShown) {
    out += "... and " + std::to_string(f.regressions.size() - kShown) + " more\n";
  }
  out += f.regressions.empty() ? "result: ok\n" : "result: REGRESSION\n";
  return out;
}

// A GitHub-flavoured Markdown report (a CI job summary): the result as a
// heading, the table, the warnings and the first regressions.
std::string render_markdown(const std::vector<GroupLine>& lines, const Findings& f,
                            const std::string& base_name, const std::string& now_name) {
  auto cell = [](std::string t) {  // '|' would end the cell
    std::string o;
    for (char c : t) o += c == '|' ? std::string("\\|") : std::string(1, c);
    return o;
  };
  std::string out = std::string("### tilesched compare: ") +
                    (f.regressions.empty() ? "ok" : "REGRESSION") + "\n\n";
  out += "`" + cell(base_name) + "` → `" + cell(now_name) + "`: " + std::to_string(f.matched) +
         " matched row(s), " + std::to_string(f.regressions.size()) + " regression(s)\n\n";
  out += "| generator | family | rows | II/MII | at MII | stages | median time (ratio) | "
         "wins/losses |\n";
  out += "|---|---|---:|---|---|---|---|---:|\n";
  for (const GroupLine& l : lines) {
    const Cells c = cells(l, "→");
    out += "| " + cell(l.generator) + " | " + cell(l.family) + " | " + std::to_string(l.rows) +
           " | " + c.ratio + " | " + c.share + " | " + c.stages + " | " + c.times + " | " +
           std::to_string(l.wins) + "/" + std::to_string(l.losses) + " |\n";
  }
  if (!f.warnings.empty()) {
    out += "\n**Warnings**\n\n";
    for (const std::string& w : f.warnings) out += "- " + cell(w) + "\n";
  }
  if (!f.regressions.empty()) {
    out += "\n**Regressions**\n\n";
    for (size_t i = 0; i < f.regressions.size() && i < kShown; ++i) {
      out += "- " + cell(f.regressions[i]) + "\n";
    }
    if (f.regressions.size() > kShown) {
      out += "- ... and " + std::to_string(f.regressions.size() - kShown) + " more\n";
    }
  }
  return out;
}

// Everything, every regression included, as one JSON document.
std::string render_json(const std::vector<GroupLine>& lines, const Findings& f,
                        const std::string& base_name, const std::string& now_name) {
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupLine& l : lines) {
    auto side = [&](double v, bool present) { return present ? nlohmann::json(v) : nlohmann::json(); };
    auto pair = [&](const double (&v)[2]) {
      return nlohmann::json::array({side(v[0], l.present[0]), side(v[1], l.present[1])});
    };
    const nlohmann::json times = nlohmann::json::array({side(l.time[0], l.timed), side(l.time[1], l.timed)});
    groups.push_back({{"generator", l.generator},
                      {"family", l.family},
                      {"rows", l.rows},
                      {"ii_over_mii", pair(l.ratio)},
                      {"share_at_mii", pair(l.share)},
                      {"mean_stages", pair(l.stages)},
                      {"median_time_ns", times},
                      {"time_ratio", side(l.time_ratio, l.timed)},
                      {"wins", l.wins},
                      {"losses", l.losses}});
  }
  const nlohmann::json j = {
      {"format", "tilesched.compare/1"},
      {"base", base_name},
      {"new", now_name},
      {"groups", groups},
      {"matched", f.matched},
      {"warnings", f.warnings},
      {"regressions", f.regressions},
      {"result", f.regressions.empty() ? "ok" : "regression"},
  };
  return j.dump(2) + "\n";
}

}  // namespace

StatusOr<CompareReport> compare_sweeps(const ReadResult& base_read, const std::string& base_name,
                                       const ReadResult& now_read, const std::string& now_name,
                                       const CompareOptions& opts) {
  StatusOr<std::vector<Row>> base = load(base_read, base_name);
  if (!base.ok()) return base.status();
  StatusOr<std::vector<Row>> now = load(now_read, now_name);
  if (!now.ok()) return now.status();
  Findings f;
  const size_t only_base = match_rows(*base, *now, opts, f);
  warn_unmatched(only_base, base_name, now_name, opts, f);
  const std::vector<GroupLine> lines = group_lines(opts, f);
  std::string out;
  switch (opts.format) {
    case CompareFormat::kText: out = render_text(lines, f); break;
    case CompareFormat::kMarkdown: out = render_markdown(lines, f, base_name, now_name); break;
    case CompareFormat::kJson: out = render_json(lines, f, base_name, now_name); break;
  }
  return CompareReport{out, !f.regressions.empty()};
}

}  // namespace tilesched::sweep
