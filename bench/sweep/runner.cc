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
    if (read->version != kCsvVersion || read->header_line + "\n" != header) {
      return Status::InvalidInput(partial + ": header differs from this build's columns");
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
      if (read.ok() && read->version == kCsvVersion && read->header_line + "\n" == header) {
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

// rows done/total, the rate and the ETA of the rows this run computes.
struct ProgressFigures {
  size_t done = 0, total = 0;
  double rate = 0, eta = -1;
};

ProgressFigures progress_figures(size_t done, size_t total, size_t fresh_done, size_t fresh_total,
                                 double elapsed) {
  ProgressFigures p{done, total, 0, -1};
  p.rate = elapsed > 0 ? static_cast<double>(fresh_done) / elapsed : 0;
  p.eta = p.rate > 0 ? static_cast<double>(fresh_total - fresh_done) / p.rate : -1;
  return p;
}

void draw_bar(const ProgressFigures& p) {
  constexpr int kWidth = 30;
  const double share = p.total ? static_cast<double>(p.done) / static_cast<double>(p.total) : 1.0;
  const int filled = static_cast<int>(share * kWidth);
  std::fprintf(stderr, "\r[%s%s] %zu/%zu rows  %.1f rows/s  ETA %s ", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, '.').c_str(), p.done, p.total, p.rate,
               format_duration(p.eta).c_str());
  std::fflush(stderr);
}

void print_line(const ProgressFigures& p) {
  const double share =
      p.total ? 100.0 * static_cast<double>(p.done) / static_cast<double>(p.total) : 100.0;
  std::fprintf(stderr, "tilesched sweep: %zu/%zu rows (%.0f%%), %.1f rows/s, ETA %s\n", p.done,
               p.total, share, p.rate, format_duration(p.eta).c_str());
  std::fflush(stderr);
}

// Refuses an output that cannot be written, before any work or any file.
Status check_output(const std::string& out) {
  if (fs::is_directory(out)) return Status::InvalidInput(out + ": is a directory");
  if (const fs::path dir = fs::path(out).parent_path(); !dir.empty() && !fs::is_directory(dir)) {
    if (fs::exists(dir)) return Status::IoError(out + ": " + dir.string() + " is not a directory");
    return Status::IoError(out + ": directory " + dir.string() + " does not exist");
  }
  return Status::Ok();
}

// The sweep's state, per graph of the (sharded) work list.
struct Work {
  std::vector<std::vector<std::string>> lines;  // its rows' lines once known
  std::vector<size_t> failures;                 // its rows with verified = 0
  std::vector<size_t> todo;                     // the graphs still to run
  std::string journal;                          // the header, then the kept rows
  size_t kept = 0;                              // rows taken over from `Kept`
};

// Takes over the graphs all of whose rows an earlier run left; the others
// are to do.
Work plan_work(const std::vector<GraphKey>& graphs, const std::vector<GeneratorConfig>& configs,
               Kept& kept) {
  Work w;
  w.lines.resize(graphs.size());
  w.failures.assign(graphs.size(), 0);
  w.journal = header_text();
  for (size_t i = 0; i < graphs.size(); ++i) {
    bool all = !configs.empty();
    for (const GeneratorConfig& c : configs) {
      all = all && kept.line.count(row_key(graphs[i], c).text());
    }
    if (!all) {
      w.todo.push_back(i);
      continue;
    }
    for (const GeneratorConfig& c : configs) {
      const std::string key = row_key(graphs[i], c).text();
      w.lines[i].push_back(kept.line[key]);
      w.journal += kept.line[key] + "\n";
      if (!kept.verified[key]) ++w.failures[i];
      ++w.kept;
    }
  }
  return w;
}

// One graph's rows as text: the journal block, the lines without their
// '\n', and how many did not verify.
struct GraphText {
  std::string block;
  std::vector<std::string> lines;
  size_t failures = 0;
};

GraphText format_graph(const std::vector<SweepRow>& rows) {
  GraphText t;
  for (const SweepRow& r : rows) {
    std::string line = format_row(r);
    t.block += line;
    line.pop_back();  // the '\n'
    t.lines.push_back(std::move(line));
    if (!r.verified) ++t.failures;
  }
  return t;
}

// What the workers and the progress display share, under `mu`.
struct Pool {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  size_t finished_graphs = 0, fresh_rows = 0;
  Status io_status;
};

// Waits for the workers, reporting progress as `progress` says: a bar
// redrawn every 200 ms, or a line every 10 s and at every 5 % of the rows
// (but at most one a second: a sweep of a second prints none).
void wait_for_workers(Pool& pool, const Work& w, size_t graphs, size_t configs, Progress progress,
                      double line_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto line_every = std::chrono::duration<double>(line_seconds);
  const auto line_floor = std::min(line_every, std::chrono::duration<double>(1.0));
  const size_t total_rows = graphs * configs;
  const size_t fresh_total = w.todo.size() * configs;
  const auto t0 = Clock::now();
  auto last_line = t0;
  size_t last_step = 0;  // the last 5 % step a line was printed for
  auto figures = [&] {
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    return progress_figures(w.kept + pool.fresh_rows, total_rows, pool.fresh_rows, fresh_total,
                            elapsed);
  };
  std::unique_lock<std::mutex> lock(pool.mu);
  while (pool.finished_graphs < w.todo.size() && pool.io_status.ok()) {
    pool.cv.wait_for(lock, std::chrono::milliseconds(200));
    if (progress == Progress::kBar) draw_bar(figures());
    if (progress == Progress::kLines) {
      const ProgressFigures p = figures();
      const size_t step = p.total ? 20 * p.done / p.total : 20;
      const auto since = Clock::now() - last_line;
      if (since >= line_every || (step > last_step && p.done < p.total && since >= line_floor)) {
        print_line(p);
        last_line = Clock::now();
        last_step = step;
      }
    }
  }
  if (progress == Progress::kBar) {
    draw_bar(figures());
    std::fputc('\n', stderr);
  }
}

// Runs the graphs to do on opts.jobs threads; each finished graph's rows
// go to the journal `jf` in one flushed write and into `w`.
Status run_todo(const std::vector<GraphKey>& graphs, const SweepOptions& opts,
                const std::string& partial, std::FILE* jf, Work& w) {
  const std::vector<GeneratorConfig>& configs = opts.spec.generators;
  Pool pool;
  auto worker = [&] {
    for (;;) {
      const size_t t = pool.next.fetch_add(1);
      if (t >= w.todo.size()) return;
      const size_t i = w.todo[t];
      const std::vector<SweepRow> rows = run_graph(graphs[i], configs);
      GraphText text = format_graph(rows);
      std::lock_guard<std::mutex> lock(pool.mu);
      if (std::fwrite(text.block.data(), 1, text.block.size(), jf) != text.block.size() ||
          std::fflush(jf) != 0) {
        if (pool.io_status.ok()) pool.io_status = Status::IoError(partial + ": cannot append rows");
        pool.next.store(w.todo.size());
      }
      w.lines[i] = std::move(text.lines);
      w.failures[i] = text.failures;
      pool.fresh_rows += rows.size();
      ++pool.finished_graphs;
      // The main thread draws progress every 200 ms on its own; waking it
      // per graph would take a core from the workers (--jobs = cores).
      if (pool.finished_graphs == w.todo.size() || !pool.io_status.ok()) pool.cv.notify_all();
    }
  };
  const int jobs =
      std::max(1, std::min<int>(opts.jobs, static_cast<int>(std::max<size_t>(1, w.todo.size()))));
  std::vector<std::thread> threads;
  for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
  wait_for_workers(pool, w, graphs.size(), configs.size(), opts.progress, opts.progress_seconds);
  for (std::thread& t : threads) t.join();
  return pool.io_status;
}

// The final CSV in work-list order and its context file.
Status write_results(const SweepOptions& opts, const nlohmann::json& signature, const Work& w,
                     SweepSummary& summary, std::chrono::steady_clock::time_point t_start) {
  std::string content = header_text();
  for (size_t i = 0; i < w.lines.size(); ++i) {
    for (const std::string& l : w.lines[i]) content += l + "\n";
    summary.rows += w.lines[i].size();
    summary.failures += w.failures[i];
  }
  if (Status s = write_file_atomic(opts.out, content); !s.ok()) return s;
  nlohmann::json ctx = {
      {"format", std::string(kContextFormat)},
      {"csv_format", std::string(kCsvFormat)},
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
  return write_file_atomic(opts.out + ".json", ctx.dump(2) + "\n");
}

}  // namespace

StatusOr<SweepSummary> run_sweep(const SweepOptions& opts) {
  const auto t_start = std::chrono::steady_clock::now();
  const std::vector<GraphKey> graphs = shard_graphs(expand_graphs(opts.spec), opts.spec.shard);
  const nlohmann::json signature = sweep_signature(opts.spec);
  const std::string partial = opts.out + ".partial";
  const std::string partial_ctx = opts.out + ".partial.json";
  if (Status s = check_output(opts.out); !s.ok()) return s;

  Kept kept;
  if (opts.resume) {
    if (Status s = load_previous(opts, signature, kept); !s.ok()) return s;
  }
  Work work = plan_work(graphs, opts.spec.generators, kept);
  SweepSummary summary;
  summary.kept = work.kept;

  // The journal starts as the kept rows; workers append to it.
  if (Status s = write_file_atomic(partial_ctx, signature.dump(2) + "\n"); !s.ok()) return s;
  if (Status s = write_file_atomic(partial, work.journal); !s.ok()) return s;
  std::FILE* jf = std::fopen(partial.c_str(), "ab");
  if (!jf) return Status::IoError(partial + ": cannot open for appending");
  const Status ran = run_todo(graphs, opts, partial, jf, work);
  std::fclose(jf);
  if (!ran.ok()) return ran;

  if (Status s = write_results(opts, signature, work, summary, t_start); !s.ok()) return s;
  std::error_code ec;
  fs::remove(partial, ec);
  fs::remove(partial_ctx, ec);
  return summary;
}

}  // namespace tilesched::sweep
