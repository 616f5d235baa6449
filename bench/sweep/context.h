// The context file beside every sweep CSV (FILE.csv.json), in the spirit of
// Google Benchmark's context block: what produced the rows (engine version
// and git revision, compiler, build type) and where (host, CPUs, date), and
// the exact command. docs/SWEEP.md lists the fields.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/worklist.h"
#include "tilesched/status.h"

namespace tilesched::sweep {

inline constexpr std::string_view kContextFormat = "tilesched.sweep-context/2";

// What identifies a sweep for --resume: the CSV format and columns, the
// expanded lists, the shard and the engine revision. Two runs with equal
// signatures produce the same rows (timing columns aside).
nlohmann::json sweep_signature(const SweepSpec& spec);

// The row keys of the whole (unsharded) sweep a signature describes, in
// work-list order; InvalidInput when it is not a signature.
StatusOr<std::vector<std::string>> signature_row_keys(const nlohmann::json& signature);

// The CPUs this process may use: its affinity mask, capped by a cgroup v2
// cpu.max quota (rounded up) when there is one; what `nproc` reports, and
// sweep's default --jobs.
int usable_cpus();

// Engine version and git sha, compiler (id, version, flags), build type, Z3
// version, host, CPU counts (machine, usable) and model, load average, date
// (UTC, ISO 8601).
nlohmann::json machine_context();

}  // namespace tilesched::sweep
