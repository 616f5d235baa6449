// The TTGIR reader's loops (internal): finding the scf.for operations of a
// document, describing them for --list, and turning one into a loop graph
// (ttgir_body.cc). tilesched/graphgen/ttgir.h is the public face.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graphgen/ttgir.h"
#include "ttgir_syntax.h"

namespace tilesched::graphgen::ttgir {

// Bounds on a loop that are not the graph format's own.
inline constexpr size_t kMaxIterArgs = 4096;
inline constexpr size_t kMaxProducerEntries = size_t{4} << 20;  // resolution lists, in all

struct LoopRef {
  const Operation* op = nullptr;    // the scf.for
  size_t top_index = 0;             // the top-level operation (module) holding it
  const Operation* func = nullptr;  // the nearest tt.func (or func.func) around it, else the module
};

// Every scf.for of the document, in file order (outer loops before the
// loops they hold).
std::vector<LoopRef> find_loops(const Document& doc);

TtgirLoop describe_loop(const LoopRef& loop, int index);

// The loop as a graph on hopper_target(), named `graph_name`.
StatusOr<TtgirImport> build_loop_graph(const Document& doc, const LoopRef& loop,
                                       std::string_view source, bool strict,
                                       std::string graph_name);

}  // namespace tilesched::graphgen::ttgir
