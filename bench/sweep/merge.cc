// Merging the shards of a sweep (merge.h).
#include "sweep/merge.h"

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "sweep/context.h"
#include "sweep/csv.h"
#include "tilesched/json_io.h"

namespace tilesched::sweep {
namespace {

namespace fs = std::filesystem;

struct ShardFile {
  std::string path;
  nlohmann::json context;  // the whole context file
  ReadResult rows;
};

StatusOr<ShardFile> read_shard(const std::string& path) {
  ShardFile s;
  s.path = path;
  StatusOr<ReadResult> read = read_sweep_csv(path);
  if (!read.ok()) return read.status();
  if (read->version != kCsvVersion) {
    return Status::InvalidInput(path + ": a tilesched.sweep/" + std::to_string(read->version) +
                                " file; merge takes shards of this build's format (" +
                                std::string(kCsvFormat) + ")");
  }
  s.rows = *std::move(read);
  const std::string ctx_path = path + ".json";
  StatusOr<std::string> text = slurp(ctx_path);
  if (!text.ok()) {
    return Status::InvalidInput(ctx_path + ": cannot open (merge needs each shard's context file)");
  }
  s.context = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (s.context.is_discarded() || !s.context.is_object() || !s.context.contains("sweep") ||
      !s.context["sweep"].is_object() || !s.context["sweep"].contains("shard") ||
      !s.context["sweep"]["shard"].is_string()) {
    return Status::InvalidInput(ctx_path + ": $.sweep: not a sweep context file");
  }
  return s;
}

// The first member in which two signatures differ.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b) {
  for (const auto& [name, value] : a.items()) {
    if (!b.contains(name) || b[name] != value) return name;
  }
  for (const auto& [name, value] : b.items()) {
    if (!a.contains(name)) return name;
  }
  return "";
}

std::string member_text(const nlohmann::json& j, const std::string& name) {
  if (!j.contains(name)) return "absent";
  std::string t = j[name].dump();
  return t.size() > 80 ? t.substr(0, 77) + "..." : t;
}

std::string shard_count(const std::string& shard_text) {
  const size_t slash = shard_text.find('/');
  return slash == std::string::npos ? shard_text : shard_text.substr(slash + 1);
}

// Every shard describes the same sweep: equal signatures but for the shard,
// the same split N, the same header.
Status check_same_sweep(const std::vector<ShardFile>& shards) {
  const ShardFile& first = shards.front();
  nlohmann::json base = first.context["sweep"];
  const std::string n = shard_count(base["shard"].get<std::string>());
  base.erase("shard");
  for (const ShardFile& s : shards) {
    nlohmann::json sig = s.context["sweep"];
    const std::string shard_text = sig["shard"].get<std::string>();
    sig.erase("shard");
    if (sig != base) {
      const std::string name = first_difference(base, sig);
      return Status::InvalidInput(s.path + ".json: $.sweep." + name + " is " +
                                  member_text(sig, name) + ", " + first.path + ".json has " +
                                  member_text(base, name) +
                                  ": not shards of one sweep (engine revision, preset or options)");
    }
    if (shard_count(shard_text) != n) {
      return Status::InvalidInput(s.path + ".json: $.sweep.shard is " + shard_text + ", " +
                                  first.path + ".json's split is into " + n + " shards");
    }
    if (s.rows.header_line != first.rows.header_line) {
      return Status::InvalidInput(s.path + ": line 1: header differs from " + first.path + "'s");
    }
  }
  return Status::Ok();
}

// A shard's row in the work list's order.
struct Placed {
  const ReadRow* row = nullptr;
  const ShardFile* shard = nullptr;
};

// Every shard row at its key's place in the work list (`keys`, in order);
// a key outside the sweep or found twice is InvalidInput naming its line.
// Counts the rows that did not verify into `failures`.
StatusOr<std::vector<Placed>> place_rows(const std::vector<ShardFile>& shards,
                                         const std::vector<std::string>& keys, size_t& failures) {
  std::map<std::string, size_t> position;  // key -> its place in the work list
  for (size_t i = 0; i < keys.size(); ++i) position.emplace(keys[i], i);
  std::vector<Placed> placed(keys.size());
  for (const ShardFile& s : shards) {
    for (const ReadRow& r : s.rows.rows) {
      const std::string key = r.key();
      const auto at = position.find(key);
      const std::string where = s.path + ": line " + std::to_string(r.line_number) + ": ";
      if (at == position.end()) {
        return Status::InvalidInput(where + "key " + key + " is not in the sweep its context "
                                    "describes");
      }
      Placed& p = placed[at->second];
      if (p.row) {
        return Status::InvalidInput(where + "duplicate key " + key + " (also " + p.shard->path +
                                    ": line " + std::to_string(p.row->line_number) + ")");
      }
      p = {&r, &s};
      if (r[Col::kVerified] != "1") ++failures;
    }
  }
  return placed;
}

// The merged CSV: the header, then every row in work-list order; a key no
// shard holds is InvalidInput naming the first and the count.
StatusOr<std::string> merged_content(const std::string& header_line,
                                     const std::vector<Placed>& placed,
                                     const std::vector<std::string>& keys) {
  std::string content = header_line + "\n";
  size_t missing = 0;
  std::string first_missing;
  for (size_t i = 0; i < placed.size(); ++i) {
    if (!placed[i].row) {
      if (missing++ == 0) first_missing = keys[i];
      continue;
    }
    content += placed[i].row->line + "\n";
  }
  if (missing > 0) {
    return Status::InvalidInput("missing key " + first_missing + " (" + std::to_string(missing) +
                                " of " + std::to_string(placed.size()) +
                                " rows in no shard: a shard not given or not finished?)");
  }
  return content;
}

// The first kListedFailures rows that did not verify, in work-list order.
std::vector<std::string> failed_rows(const std::vector<Placed>& placed) {
  std::vector<std::string> out;
  for (const Placed& p : placed) {
    if (out.size() == kListedFailures) break;
    const ReadRow& r = *p.row;
    if (r[Col::kVerified] == "1") continue;
    out.push_back(r.key() + ": " + r[Col::kFailure] + ": " + r[Col::kReason]);
  }
  return out;
}

}  // namespace

StatusOr<MergeSummary> merge_shards(const std::string& out, const std::vector<std::string>& paths,
                                    const std::string& command) {
  if (paths.empty()) return Status::InvalidInput("no shard given");
  std::vector<ShardFile> shards;
  for (const std::string& p : paths) {
    StatusOr<ShardFile> s = read_shard(p);
    if (!s.ok()) return s.status();
    shards.push_back(*std::move(s));
  }
  if (Status s = check_same_sweep(shards); !s.ok()) return s;

  nlohmann::json signature = shards.front().context["sweep"];
  StatusOr<std::vector<std::string>> keys = signature_row_keys(signature);
  if (!keys.ok()) return Status::InvalidInput(shards.front().path + ".json: " + keys.status().message());
  MergeSummary summary;
  StatusOr<std::vector<Placed>> placed = place_rows(shards, *keys, summary.failures);
  if (!placed.ok()) return placed.status();
  StatusOr<std::string> content = merged_content(shards.front().rows.header_line, *placed, *keys);
  if (!content.ok()) return content.status();
  summary.rows = placed->size();
  summary.failed_rows = failed_rows(*placed);

  signature["shard"] = "1/1";
  nlohmann::json shard_contexts = nlohmann::json::array();
  for (const ShardFile& s : shards) shard_contexts.push_back(s.context);
  const nlohmann::json ctx = {
      {"format", std::string(kContextFormat)},
      {"csv_format", std::string(kCsvFormat)},
      {"csv", fs::path(out).filename().string()},
      {"command", command},
      {"context", machine_context()},
      {"rows", summary.rows},
      {"failures", summary.failures},
      {"sweep", signature},
      {"shards", shard_contexts},
  };
  if (Status s = write_file_atomic(out, *content); !s.ok()) return s;
  if (Status s = write_file_atomic(out + ".json", ctx.dump(2) + "\n"); !s.ok()) return s;
  return summary;
}

}  // namespace tilesched::sweep
