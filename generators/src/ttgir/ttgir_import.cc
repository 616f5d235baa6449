// The TTGIR importer's entry points (tilesched/graphgen/ttgir_import.h): read the
// text, find its loops, pick one, build its graph (ttgir_body.cc), bound
// its stages by shared memory.
#include "tilesched/graphgen/ttgir_import.h"

#include <algorithm>
#include <filesystem>

#include "tilesched/hopper.h"
#include "tilesched/hopper_predict.h"
#include "tilesched/json_io.h"
#include "tilesched/graphgen/ttgir_rules.h"
#include "ttgir_body.h"
#include "ttgir_loops.h"
#include "ttgir_syntax.h"

namespace tilesched::graphgen {

namespace {

StatusOr<ttgir::Document> read_document(std::string_view text, std::string_view source) {
  StatusOr<std::vector<ttgir::Token>> tokens = ttgir::tokenize(text, source);
  if (!tokens.ok()) return tokens.status();
  return ttgir::parse_document(*tokens, source);
}

}  // namespace

StatusOr<std::vector<TtgirLoop>> list_ttgir_loops(std::string_view text, std::string_view source) {
  StatusOr<ttgir::Document> doc = read_document(text, source);
  if (!doc.ok()) return doc.status();
  std::vector<TtgirLoop> out;
  const std::vector<ttgir::LoopRef> loops = ttgir::find_loops(*doc);
  for (size_t i = 0; i < loops.size(); ++i) {
    out.push_back(ttgir::describe_loop(loops[i], static_cast<int>(i)));
  }
  return out;
}

std::optional<int> default_ttgir_loop(const std::vector<TtgirLoop>& loops) {
  for (const TtgirLoop& l : loops) {
    if (l.innermost && (l.has_dot || l.has_load)) return l.index;
  }
  return std::nullopt;
}

StatusOr<TtgirImport> import_ttgir_text(std::string_view text, std::string_view source,
                                        const TtgirOptions& options, std::string graph_name) {
  StatusOr<ttgir::Document> doc = read_document(text, source);
  if (!doc.ok()) return doc.status();
  const std::vector<ttgir::LoopRef> loops = ttgir::find_loops(*doc);
  if (loops.empty()) return ttgir::error_at(source, 1, "no scf.for or scf.while loop in the input");
  std::vector<TtgirLoop> described;
  for (size_t i = 0; i < loops.size(); ++i) {
    described.push_back(ttgir::describe_loop(loops[i], static_cast<int>(i)));
  }
  std::optional<int> pick = options.loop;
  if (!pick) {
    pick = default_ttgir_loop(described);
    if (!pick) {
      return ttgir::error_at(source, loops.front().op->line,
                             "no innermost loop holds a dot or a load; name one with --loop N "
                             "(--list shows them)");
    }
  }
  if (*pick < 0 || *pick >= static_cast<int>(loops.size())) {
    return ttgir::error_at(source, 1, "--loop " + std::to_string(*pick) + ": the input has " +
                                          std::to_string(loops.size()) + " loops (0.." +
                                          std::to_string(loops.size() - 1) + ")");
  }
  if (!described[*pick].innermost) {
    return ttgir::error_at(source, loops[*pick].op->line,
                           "loop " + std::to_string(*pick) +
                               " holds another loop; only innermost loops are imported (the "
                               "outer loop's ops are their context; --list marks them)");
  }
  StatusOr<TtgirImport> out = ttgir::build_loop_graph(*doc, loops[*pick], source, options.strict,
                                                      std::move(graph_name));
  if (!out.ok()) return out;
  out->loop = *pick;
  if (options.triton_rules) {
    const std::string where = std::string(source) + ":" + std::to_string(loops[*pick].op->line);
    if (Status s = add_triton_rules(out->graph, where); !s.ok()) return s;
  }
  if (options.smem_stage_bound) {
    out->stage_bound = ttgir_stage_bound(out->graph);
    if (out->stage_bound) {
      const int64_t depth = out->stage_bound->stages - 1;
      for (Op& op : out->graph.ops) op.max_depth = op.max_depth ? std::min(*op.max_depth, depth) : depth;
    }
  }
  return out;
}

std::optional<TtgirStageBound> ttgir_stage_bound(const Graph& g) {
  int64_t fits = 0;
  for (int64_t s = 1; s < kMaxBoundedStages; ++s) {
    const int64_t bytes = hopper::predicted_smem_bytes(g, s);
    if (bytes > hopper::kSmemBytesPerBlock) {
      if (fits == 0) return std::nullopt;
      return TtgirStageBound{fits, bytes};
    }
    fits = s;
  }
  return std::nullopt;
}

StatusOr<TtgirImport> import_ttgir(const std::string& path, const TtgirOptions& options) {
  StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return text.status();
  StatusOr<TtgirImport> probe = import_ttgir_text(*text, path, options, "");
  if (!probe.ok()) return probe.status();
  probe->graph.name = "ttgir/" + std::filesystem::path(path).stem().string() + "/loop" +
                      std::to_string(probe->loop);
  return probe;
}

}  // namespace tilesched::graphgen
