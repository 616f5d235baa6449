// The TTGIR reader's loops (internal; ttgir_loops.cc): finding the scf.for
// and scf.while operations of a document, reading a loop's carried values
// and body, and describing loops for --list. ttgir_body.h turns one into a
// loop graph; tilesched/graphgen/ttgir_import.h is the public face.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graphgen/ttgir_loop.h"
#include "ttgir_syntax.h"

namespace tilesched::graphgen::ttgir {

// Bounds on a loop that are not the graph format's own.
inline constexpr size_t kMaxIterArgs = 4096;
inline constexpr size_t kMaxProducerEntries = size_t{4} << 20;  // resolution lists, in all

struct LoopRef {
  const Operation* op = nullptr;    // the scf.for or scf.while
  size_t top_index = 0;             // the top-level operation (module) holding it
  const Operation* func = nullptr;  // the nearest tt.func (or func.func) around it, else the module
};

bool is_loop_op(std::string_view op_name);  // scf.for, scf.while

// Every loop of the document, in file order (outer loops before the loops
// they hold).
std::vector<LoopRef> find_loops(const Document& doc);

TtgirLoop describe_loop(const LoopRef& loop, int index);

// What a loop carries and what its body is.
// - scf.for: `iter_args(%a = %x, ...)` carry values; the body is one block
//   whose trailing scf.yield passes the next iteration's values.
// - scf.while: the header `(%a = %x, ...)` (or the first block's
//   arguments) carry values; the body is the `before` block, ending in
//   `scf.condition(%c) %v...` whose values become the `do` block's
//   arguments, then the `do` block, whose scf.yield passes the next
//   iteration's values.
// Terminators are part of `blocks` (they have positions); the builder
// reads them through `yielded`, `forwarded` and `after_args`.
struct LoopShape {
  std::vector<std::string> iter_args;
  std::vector<const Block*> blocks;     // for: the body; while: before, do
  std::vector<std::string> yielded;     // what scf.yield passes to iter_args
  std::vector<std::string> forwarded;   // while: scf.condition's values ...
  std::vector<std::string> after_args;  // ... and the do block's arguments they become
  std::string condition;                // while: the value scf.condition tests
};

// InvalidInput "SOURCE:LINE: problem" for a loop without a body, an
// scf.yield (or scf.condition) that passes a different number of values
// than the loop carries, or more than kMaxIterArgs carried values.
StatusOr<LoopShape> read_loop_shape(const Operation& loop, std::string_view source);

// The values the loop's body may read that it does not define: the
// function's arguments, the results of the operations above the loop in
// every block around it, the block arguments and header values (`%iv =`,
// `iter_args(%a = ...)`) of the operations around it, and the loop's own
// (MLIR's dominance: nothing below the loop, nothing inside another
// operation's regions). `%a:3`'s results are `%a#0`..`%a#2`.
std::set<std::string, std::less<>> values_visible_in(const Document& doc, const LoopRef& loop);

// The graph ops an import of the loop makes: its body's operations, those
// in scf.if branches included, less the folded ones and the terminators.
// Nested loops count nothing (an outer loop is not imported).
int imported_op_count(const Operation& loop);

}  // namespace tilesched::graphgen::ttgir
