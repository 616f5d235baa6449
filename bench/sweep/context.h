// The context file beside every sweep CSV (FILE.csv.json), in the spirit of
// Google Benchmark's context block: what produced the rows (engine version
// and git revision, compiler, build type) and where (host, CPUs, date), and
// the exact command. docs/SWEEP.md lists the fields.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sweep/worklist.h"

namespace tilesched::sweep {

inline constexpr std::string_view kContextFormat = "tilesched.sweep-context/1";

// What identifies a sweep for --resume: the CSV format and columns, the
// expanded lists, the shard and the engine revision. Two runs with equal
// signatures produce the same rows (timing columns aside).
nlohmann::json sweep_signature(const SweepSpec& spec);

// Engine version and git sha, compiler, build type, host, CPU count and
// model, date (UTC, ISO 8601).
nlohmann::json machine_context();

}  // namespace tilesched::sweep
