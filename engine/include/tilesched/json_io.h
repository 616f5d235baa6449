// Reading and writing the two file formats of docs/FORMATS.md:
// tilesched.loop/1 (loop graphs) and tilesched.schedule/1 (schedules).
// Readers refuse malformed input with one message "FILE: $.json.path:
// problem"; writers produce output that the readers give back unchanged.
#pragma once

#include <string>
#include <string_view>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"
#include "tilesched/status.h"

namespace tilesched {

inline constexpr std::string_view kLoopFormat = "tilesched.loop/1";
inline constexpr std::string_view kScheduleFormat = "tilesched.schedule/1";

// `source` names the input in messages (a file name, or "<stdin>").
StatusOr<Graph> parse_graph_json(std::string_view text, std::string_view source);
StatusOr<Graph> read_graph_file(const std::string& path);
// Fields equal to the kind's defaults are left out.
std::string write_graph_json(const Graph& g);
// write_graph_json(g)'s text with `name` written for g.name, appended to
// `out` (what the sweep hashes, under an empty name, with no copy of g).
void append_graph_json(const Graph& g, std::string_view name, std::string& out);

// Reads a schedule of graph `g`: needs format, ii and every op's start;
// stage and order default to their derived values when absent. A schedule
// marked "feasible": false may instead carry ii 0 and no ops.
StatusOr<Schedule> parse_schedule_json(std::string_view text, std::string_view source,
                                       const Graph& g);
StatusOr<Schedule> read_schedule_file(const std::string& path, const Graph& g);
std::string write_schedule_json(const Graph& g, const Schedule& s);

// Whole-file I/O. read_file and read_standard_input refuse input over
// limits::kMaxFileBytes; messages about standard input name it kStdinName.
inline constexpr std::string_view kStdinName = "<stdin>";
StatusOr<std::string> read_file(const std::string& path);
StatusOr<std::string> read_standard_input();

// Writes `contents` to `path` so that a reader never sees a partial file
// where that can be helped. A regular file or a new path: a temporary file
// beside it, renamed over it (the old file's permissions kept). A symbolic
// link: the same at the link's final target; the link stays. A FIFO, a
// device, a socket, /dev/stdout, /dev/stderr, /dev/fd/N or a link into
// /proc: opened and written in place, never replaced. A directory: refused.
Status write_file_atomic(const std::string& path, std::string_view contents);

}  // namespace tilesched
