// `tilesched candidates GRAPH -o DIR`: the distinct stage assignments of a
// loop imported from TTGIR that every generator finds under every stage cap
// from 1 to the graph's stage bound, and Triton's own, each priced by the
// hopper model and ranked by predicted time
// (tilesched/triton_candidates.h; docs/TTGIR.md, "Candidates").
// DIR gets one tilesched.triton/1 export per candidate the export accepts
// (RANK.SOURCE.json), candidates.tsv and candidates.json, written into a
// fresh directory beside it that then takes its place: DIR holds one whole
// set or stays as it was. A DIR holding anything but an earlier set is
// refused before any work.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "commands.h"
#include "hopper_options.h"
#include "option_rules.h"
#include "tilesched/triton_candidates.h"
#include "tilesched/hopper_registers.h"

namespace po = boost::program_options;

namespace tilesched::cli {

namespace {

constexpr int64_t kMaxCapAsked = 32;
constexpr int64_t kDefaultWarps = 4;  // Triton's num_warps when the graph does not say

struct CandidateFlags {
  std::string graph_path, dir;
  std::string generators = "serial,cost-based,cost-based-seed,ims,sms,exact";
  std::string effort = "default";
  int64_t max_cap = 0;
  double time_limit_s = 5.0;
};

po::options_description candidate_options(CandidateFlags& f) {
  po::options_description visible("options");
  visible.add_options()
      ("help,h", "show this help")
      ("output,o", po::value(&f.dir)->value_name("DIR")->required(),
       "the directory written: the exports, candidates.tsv and candidates.json, as one set (a "
       "new or empty directory, or an earlier run's, whose set is replaced whole)")
      ("generators,g", po::value(&f.generators)->default_value(f.generators),
       "the generators run under each cap, comma-separated (auto is not one: it runs one of "
       "them; without exact the list is deterministic)")
      ("max-cap", po::value(&f.max_cap)->default_value(0),
       "stage caps tried: 1..N (1..32); 0 = the graph's stage bound")
      ("registers", po::value<int64_t>(),
       "registers per thread (default: estimated from the graph)")
      ("warps", po::value<int64_t>(), "warps per CTA (default: the graph's num_warps, else 4)")
      ("effort", po::value(&f.effort)->default_value(f.effort),
       "cost-based: fast | default | full, its work budget (tilesched schedule --effort)")
      ("time-limit", po::value(&f.time_limit_s)->default_value(5.0),
       "exact: wall-clock budget per cap in seconds");
  add_quiet_option(visible);
  return visible;
}

// The generators of --generators, in the order given.
StatusOr<std::vector<GeneratorKind>> parse_generators(const std::string& list) {
  std::vector<GeneratorKind> out;
  for (size_t b = 0; b <= list.size();) {
    size_t e = list.find(',', b);
    if (e == std::string::npos) e = list.size();
    const std::string name = list.substr(b, e - b);
    const std::optional<GeneratorKind> k = parse_generator(name);
    if (!k || *k == GeneratorKind::kAuto) {
      return Status::InvalidInput("--generators: '" + name + "' is not one of serial, cost-based, "
                                  "cost-based-seed, ims, sms, exact");
    }
    if (std::find(out.begin(), out.end(), *k) == out.end()) out.push_back(*k);
    b = e + 1;
  }
  return out;
}

Status check_flags(const CandidateFlags& f, const po::variables_map& vm) {
  StatusOr<std::vector<GeneratorKind>> g = parse_generators(f.generators);
  if (!g.ok()) return g.status();
  if (!parse_effort(f.effort)) {
    return Status::InvalidInput("--effort: unknown level '" + f.effort + "' (fast, default, full)");
  }
  if (Status s = check_option_rules("candidates", vm, *g); !s.ok()) return s;
  if (f.max_cap < 0 || f.max_cap > kMaxCapAsked) {
    return Status::InvalidInput("--max-cap must be between 0 and " + std::to_string(kMaxCapAsked));
  }
  if (!(f.time_limit_s >= 0.0 && f.time_limit_s <= 86400.0)) {
    return Status::InvalidInput("--time-limit must be between 0 and 86400 seconds");
  }
  if (vm.count("registers")) {
    const int64_t r = vm["registers"].as<int64_t>();
    if (r < 1 || r > hopper::kMaxRegistersPerThread) {
      return Status::InvalidInput("--registers must be between 1 and " +
                                  std::to_string(hopper::kMaxRegistersPerThread));
    }
  }
  const int64_t max_warps = hopper::kMaxThreadsPerSm / 32;
  if (vm.count("warps") && (vm["warps"].as<int64_t>() < 1 || vm["warps"].as<int64_t>() > max_warps)) {
    return Status::InvalidInput("--warps must be between 1 and " + std::to_string(max_warps));
  }
  return Status::Ok();
}

CandidateOptions options_for(const Graph& g, const CandidateFlags& f,
                                       const po::variables_map& vm) {
  CandidateOptions o;
  o.generators = *parse_generators(f.generators);  // checked by check_flags
  o.max_cap = f.max_cap;
  o.effort = *parse_effort(f.effort);  // checked by check_flags
  o.exact_time_limit_ms = static_cast<int64_t>(f.time_limit_s * 1000.0 + 0.5);
  int64_t warps = kDefaultWarps;
  if (vm.count("warps")) {
    warps = vm["warps"].as<int64_t>();
  } else if (g.attrs.num_warps && *g.attrs.num_warps <= hopper::kMaxThreadsPerSm / 32) {
    warps = *g.attrs.num_warps;
  }
  o.cta.threads = warps * 32;
  o.cta.registers_per_thread =
      vm.count("registers") ? vm["registers"].as<int64_t>() : hopper::estimated_registers(g);
  return o;
}

// RANK.SOURCE.json, the rank zero-padded to two digits and a finder's '/'
// written '-'.
std::string file_name(size_t rank, const std::string& source) {
  std::string name = (rank < 10 ? "0" : "") + std::to_string(rank) + "." + source + ".json";
  for (char& c : name) {
    if (c == '/') c = '-';
  }
  return name;
}

namespace fs = std::filesystem;

// A file `candidates` writes: candidates.tsv, candidates.json, NN.SOURCE.json.
bool written_by_candidates(const fs::directory_entry& e) {
  std::error_code ec;
  if (!e.is_regular_file(ec)) return false;
  const std::string name = e.path().filename().string();
  if (name == "candidates.tsv" || name == "candidates.json") return true;
  return name.size() > 8 && std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::isdigit(static_cast<unsigned char>(name[1])) && name[2] == '.' &&
         name.ends_with(".json");
}

// Where the set goes: DIR itself (a link's target), refused when it is
// standard output, not a directory, or a directory holding anything but
// an earlier run's set (which the new set replaces whole). Checked before
// any work.
StatusOr<std::string> output_dir(const std::string& dir) {
  if (dir == kStdio) {
    return Status::InvalidInput(
        "-o -: candidates writes a directory of files, not standard output");
  }
  if (dir.empty()) return Status::InvalidInput("-o: empty directory name");
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) return dir;
  if (!fs::is_directory(st)) return Status::InvalidInput(dir + ": exists and is not a directory");
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!written_by_candidates(e)) {
      return Status::InvalidInput(dir + ": holds '" + e.path().filename().string() +
                                  "', which candidates did not write: give a new or empty "
                                  "directory (an earlier run's set is replaced whole)");
    }
  }
  if (ec) return Status::IoError(dir + ": cannot list the directory (" + ec.message() + ")");
  return fs::is_symlink(fs::symlink_status(dir, ec)) ? fs::canonical(dir, ec).string() : dir;
}

// A fresh directory beside `dir` for the new set.
StatusOr<std::string> fresh_dir_beside(const std::string& dir) {
  fs::path target = fs::path(dir).lexically_normal();
  if (target.filename().empty()) target = target.parent_path();
  const fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) {
    return Status::IoError(parent.string() + ": cannot create the directory (" + ec.message() + ")");
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path temp = parent / ("." + target.filename().string() + ".tmp-" +
                                    std::to_string(::getpid()) + "-" + std::to_string(attempt));
    if (fs::create_directory(temp, ec)) return temp.string();
    if (ec) {
      return Status::IoError(temp.string() + ": cannot create the directory (" + ec.message() +
                             ")");
    }
  }
  return Status::IoError(dir + ": cannot create a temporary directory beside it");
}

// Puts the finished set `temp` in place of `dir`: swapped in one rename
// where the file system allows it, else the old set moved aside first.
Status publish(const std::string& temp, const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    if (::rename(temp.c_str(), dir.c_str()) == 0) return Status::Ok();
  } else if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(temp, ec);  // now the earlier set
    return Status::Ok();
  } else if (const std::string old = temp + ".old";
             ::rename(dir.c_str(), old.c_str()) == 0) {
    if (::rename(temp.c_str(), dir.c_str()) == 0) {
      fs::remove_all(old, ec);
      return Status::Ok();
    }
    (void)::rename(old.c_str(), dir.c_str());
  }
  const int err = errno;
  fs::remove_all(temp, ec);
  return Status::IoError(dir + ": cannot put the new set in place (" + std::strerror(err) + ")");
}

// The exports, then candidates.tsv and candidates.json, into a fresh
// directory renamed into place: a failure leaves DIR as it was.
Status write_all(const Graph& g, const std::string& dir,
                 const std::vector<Candidate>& list) {
  StatusOr<std::string> temp = fresh_dir_beside(dir);
  if (!temp.ok()) return temp.status();
  auto write_set = [&]() -> Status {
    std::vector<std::string> files;
    for (size_t i = 0; i < list.size(); ++i) {
      files.push_back(list[i].refused ? "" : file_name(i + 1, list[i].schedule.source));
      if (files.back().empty()) continue;
      const std::string text = triton_schedule_json(list[i].schedule);
      if (Status s = emit(*temp + "/" + files.back(), text); !s.ok()) return s;
    }
    if (Status s = emit(*temp + "/candidates.tsv", candidates_tsv(list, files)); !s.ok()) {
      return s;
    }
    return emit(*temp + "/candidates.json", candidates_json(g, list, files));
  };
  if (Status s = write_set(); !s.ok()) {
    std::error_code ec;
    fs::remove_all(*temp, ec);
    return s;
  }
  return publish(*temp, dir);
}

}  // namespace

int run_candidates(const Args& args) {
  CandidateFlags f;
  const po::options_description visible = candidate_options(f);
  po::options_description hidden;
  hidden.add_options()("graph", po::value(&f.graph_path)->value_name("GRAPH")->required(),
                       "a loop graph imported from TTGIR, - for standard input");
  po::positional_options_description positional;
  positional.add("graph", 1);
  po::variables_map vm;
  if (std::optional<int> done = parse_args(args, "candidates", "GRAPH -o DIR [--max-cap N]",
                                           visible, hidden, positional, vm)) {
    return *done;
  }
  if (Status s = check_flags(f, vm); !s.ok()) return fail("candidates", s);
  StatusOr<std::string> dir = output_dir(f.dir);
  if (!dir.ok()) return fail("candidates", dir.status());
  StatusOr<Graph> graph = read_graph_input(f.graph_path);
  if (!graph.ok()) return fail("candidates", graph.status());
  if (graph->target.name != "hopper") {
    return fail("candidates", Status::InvalidInput(input_name(f.graph_path) +
                                                   ": $.target: the graph is on '" +
                                                   graph->target.name +
                                                   "'; the price needs the hopper target"));
  }
  if (Status s = require_unpipelined_loop(*graph, f.graph_path, "a stage assignment");
      !s.ok()) {
    return fail("candidates", s);
  }
  StatusOr<std::vector<Candidate>> list =
      triton_candidates(*graph, options_for(*graph, f, vm));
  if (!list.ok()) return fail("candidates", list.status());
  if (Status s = write_all(*graph, *dir, *list); !s.ok()) return fail("candidates", s);
  if (!quiet(vm)) {
    size_t refused = 0;
    for (const Candidate& c : *list) refused += c.refused ? 1 : 0;
    std::cerr << "tilesched candidates: " << list->size() << " distinct stage assignments, "
              << refused << " refused by the export, in " << f.dir << "\n";
  }
  return kExitOk;
}

}  // namespace tilesched::cli
