// The sweep runner: worker threads over the work list, a journal that
// survives a kill, resume, a progress bar, and the final CSV and context
// file written atomically in work-list order. For --output FILE.csv the
// journal is FILE.csv.partial (each finished graph's rows, one flushed write)
// beside the sweep's signature FILE.csv.partial.json; FILE.csv and its
// context are renamed into place when every row is done. A journal or a
// finished file from a different sweep is refused or replaced, never mixed
// in. The files and resume: docs/SWEEP.md.
#pragma once

#include <cstddef>
#include <string>

#include "sweep/worklist.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

// How the sweep reports progress on stderr: not at all, a bar redrawn in
// place (a terminal), or a plain line every 10 s and every 5 % of the rows
// (a log: Slurm, CI).
enum class Progress { kNone, kBar, kLines };

struct SweepOptions {
  SweepSpec spec;
  std::string out;        // FILE.csv
  int jobs = 1;           // worker threads, >= 1
  bool resume = false;
  Progress progress = Progress::kNone;
  double progress_seconds = 10;  // kLines: the longest gap between two lines
  std::string command;    // the exact command line, for the context file
};

struct SweepSummary {
  size_t rows = 0;      // rows in the final file
  size_t kept = 0;      // rows taken over from an earlier run
  size_t failures = 0;  // rows with verified = 0
};

// Runs the sweep. Errors: InvalidInput for a journal of a different sweep
// or an unreadable one, IoError when a file cannot be written.
StatusOr<SweepSummary> run_sweep(const SweepOptions& opts);

}  // namespace tilesched::sweep
