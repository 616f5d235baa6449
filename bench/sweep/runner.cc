// The sweep runner (runner.h).
#include "sweep/runner.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/context.h"
#include "sweep/csv.h"
#include "sweep/row.h"
#include "tilesched/json_io.h"

namespace tilesched::sweep {
namespace {

namespace fs = std::filesystem;

std::string graph_row_key(const GraphKey& g, const GeneratorConfig& c) {
  return row_key(g.family, std::to_string(g.ops), std::to_string(g.seed), c.name(),
                 c.arm_policy_text());
}

// Rows of earlier runs, by key (first occurrence wins).
struct Kept {
  std::map<std::string, std::string> line;
  std::map<std::string, bool> verified;
};

Status collect(const ReadResult& read, Kept& kept) {
  for (const ReadRow& r : read.rows) {
    const std::string key = r.key();
    if (kept.line.count(key)) continue;
    kept.line[key] = r.line;
    kept.verified[key] = r[Col::kVerified] == "1";
  }
  return Status::Ok();
}

StatusOr<nlohmann::json> read_json(const std::string& path) {
  StatusOr<std::string> text = slurp(path);
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidInput(path + ": not valid JSON");
  return j;
}

// Fills `kept` from the journal or a finished file, per the rules in
// runner.h. Prints one note on stderr when it starts over.
Status load_previous(const SweepOptions& opts, const nlohmann::json& signature, Kept& kept) {
  const std::string partial = opts.out + ".partial";
  const std::string partial_ctx = opts.out + ".partial.json";
  const std::string header = header_text();
  if (fs::exists(partial)) {
    StatusOr<nlohmann::json> ctx = read_json(partial_ctx);
    if (!ctx.ok() || *ctx != signature) {
      return Status::InvalidInput(
          partial + ": the interrupted sweep there has other parameters or another engine "
                    "revision than this one (" + partial_ctx +
          "); run the same command to resume it, or drop --resume to start over");
    }
    StatusOr<ReadResult> read = read_sweep_csv(partial, /*drop_partial_tail=*/true);
    if (!read.ok()) return read.status();
    if (read->header_line + "\n" != header.substr(header.find('\n') + 1)) {
      return Status::InvalidInput(partial + ": line 2: header differs from this build's columns");
    }
    if (read->dropped_bytes > 0) {
      std::cerr << "tilesched sweep: " << partial << ": dropped a partial last line ("
                << read->dropped_bytes << " bytes)\n";
    }
    return collect(*read, kept);
  }
  if (fs::exists(opts.out) && fs::exists(opts.out + ".json")) {
    StatusOr<nlohmann::json> ctx = read_json(opts.out + ".json");
    if (ctx.ok() && ctx->is_object() && ctx->contains("sweep") && (*ctx)["sweep"] == signature) {
      StatusOr<ReadResult> read = read_sweep_csv(opts.out);
      if (read.ok() && read->header_line + "\n" == header.substr(header.find('\n') + 1)) {
        return collect(*read, kept);
      }
    }
    std::cerr << "tilesched sweep: " << opts.out
              << " holds another sweep or another engine revision's rows: starting over\n";
  }
  return Status::Ok();
}

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "--:--";
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

void draw_progress(size_t done, size_t total, size_t fresh_done, size_t fresh_total,
                   double elapsed) {
  constexpr int kWidth = 30;
  const double share = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = static_cast<int>(share * kWidth);
  const double rate = elapsed > 0 ? static_cast<double>(fresh_done) / elapsed : 0;
  const double eta = rate > 0 ? static_cast<double>(fresh_total - fresh_done) / rate : -1;
  std::fprintf(stderr, "\r[%s%s] %zu/%zu rows  %.1f rows/s  ETA %s ", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, '.').c_str(), done, total, rate,
               format_duration(eta).c_str());
  std::fflush(stderr);
}

}  // namespace

StatusOr<SweepSummary> run_sweep(const SweepOptions& opts) {
  const auto t_start = std::chrono::steady_clock::now();
  const std::vector<GraphKey> graphs = shard_graphs(expand_graphs(opts.spec), opts.spec.shard);
  const std::vector<GeneratorConfig>& configs = opts.spec.generators;
  const nlohmann::json signature = sweep_signature(opts.spec);
  const std::string partial = opts.out + ".partial";
  const std::string partial_ctx = opts.out + ".partial.json";

  // Refuse an output that cannot be written before any work or any file.
  if (fs::is_directory(opts.out)) return Status::InvalidInput(opts.out + ": is a directory");
  if (const fs::path dir = fs::path(opts.out).parent_path(); !dir.empty() && !fs::is_directory(dir)) {
    return Status::IoError(opts.out + ": directory " + dir.string() + " does not exist");
  }

  Kept kept;
  if (opts.resume) {
    if (Status s = load_previous(opts, signature, kept); !s.ok()) return s;
  }

  // Per graph: its rows' lines once known (kept, or computed now).
  std::vector<std::vector<std::string>> lines(graphs.size());
  std::vector<size_t> failures(graphs.size(), 0);
  std::vector<size_t> todo;
  std::string journal = header_text();
  SweepSummary summary;
  for (size_t i = 0; i < graphs.size(); ++i) {
    bool all = !configs.empty();
    for (const GeneratorConfig& c : configs) all = all && kept.line.count(graph_row_key(graphs[i], c));
    if (!all) {
      todo.push_back(i);
      continue;
    }
    for (const GeneratorConfig& c : configs) {
      const std::string key = graph_row_key(graphs[i], c);
      lines[i].push_back(kept.line[key]);
      journal += kept.line[key] + "\n";
      if (!kept.verified[key]) ++failures[i];
      ++summary.kept;
    }
  }

  // The journal starts as the kept rows; workers append to it.
  if (Status s = write_file_atomic(partial_ctx, signature.dump(2) + "\n"); !s.ok()) return s;
  if (Status s = write_file_atomic(partial, journal); !s.ok()) return s;
  std::FILE* jf = std::fopen(partial.c_str(), "ab");
  if (!jf) return Status::IoError(partial + ": cannot open for appending");

  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  size_t finished_graphs = 0, fresh_rows = 0;
  Status io_status;
  auto worker = [&] {
    for (;;) {
      const size_t t = next.fetch_add(1);
      if (t >= todo.size()) return;
      const size_t i = todo[t];
      const std::vector<SweepRow> rows = run_graph(graphs[i], configs);
      std::vector<std::string> text;
      std::string block;
      size_t bad = 0;
      for (const SweepRow& r : rows) {
        std::string line = format_row(r);
        block += line;
        line.pop_back();  // the '\n'
        text.push_back(std::move(line));
        if (!r.verified) ++bad;
      }
      std::lock_guard<std::mutex> lock(mu);
      if (std::fwrite(block.data(), 1, block.size(), jf) != block.size() || std::fflush(jf) != 0) {
        if (io_status.ok()) io_status = Status::IoError(partial + ": cannot append rows");
        next.store(todo.size());
      }
      lines[i] = std::move(text);
      failures[i] = bad;
      fresh_rows += rows.size();
      ++finished_graphs;
      cv.notify_all();
    }
  };
  const int jobs = std::max(1, std::min<int>(opts.jobs, static_cast<int>(std::max<size_t>(1, todo.size()))));
  std::vector<std::thread> threads;
  for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
  {
    const size_t total_rows = graphs.size() * configs.size();
    const size_t fresh_total = todo.size() * configs.size();
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mu);
    while (finished_graphs < todo.size() && io_status.ok()) {
      cv.wait_for(lock, std::chrono::milliseconds(200));
      if (opts.progress) {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        draw_progress(summary.kept + fresh_rows, total_rows, fresh_rows, fresh_total, elapsed);
      }
    }
    if (opts.progress) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      draw_progress(summary.kept + fresh_rows, total_rows, fresh_rows, fresh_total, elapsed);
      std::fputc('\n', stderr);
    }
  }
  for (std::thread& t : threads) t.join();
  std::fclose(jf);
  if (!io_status.ok()) return io_status;

  std::string content = header_text();
  for (size_t i = 0; i < graphs.size(); ++i) {
    for (const std::string& l : lines[i]) content += l + "\n";
    summary.rows += lines[i].size();
    summary.failures += failures[i];
  }
  if (Status s = write_file_atomic(opts.out, content); !s.ok()) return s;
  nlohmann::json ctx = {
      {"format", std::string(kContextFormat)},
      {"csv", fs::path(opts.out).filename().string()},
      {"command", opts.command},
      {"context", machine_context()},
      {"jobs", opts.jobs},
      {"rows", summary.rows},
      {"rows_kept_from_earlier_run", summary.kept},
      {"failures", summary.failures},
      {"wall_seconds_this_run",
       std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count()},
      {"sweep", signature},
  };
  if (Status s = write_file_atomic(opts.out + ".json", ctx.dump(2) + "\n"); !s.ok()) return s;
  std::error_code ec;
  fs::remove(partial, ec);
  fs::remove(partial_ctx, ec);
  return summary;
}

}  // namespace tilesched::sweep
