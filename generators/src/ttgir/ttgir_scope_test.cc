// Tests for how the TTGIR importer resolves SSA names: in scope, as MLIR
// prints them (the values of sibling regions are numbered from the same
// count, so two scf.if branches may both define %18), and every use of a
// value that no definition above it reaches refused with its line, strict
// or not. The property: in every committed TTGIR file, each use in an
// imported loop's body, renamed to a value defined nowhere, is refused
// with that line and that name. And the flattened persistent matmul of
// generators/testdata/ttgir/flat/ (PROVENANCE.md there), which needs both.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "../schedule_expect.h"
#include "tilesched/graphgen/ttgir_import.h"
#include "tilesched/json_io.h"
#include "ttgir_syntax.h"

namespace tilesched::graphgen {
namespace {

namespace fs = std::filesystem;

const std::string kTtgir = std::string(TILESCHED_GEN_TESTDATA) + "/ttgir";

// A loop whose body is `body`, in a function with arguments %a, %n; %c0
// and %c1 are defined above the loop, %after below it.
std::string module_with(std::string_view body) {
  return std::string(R"(module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%a: i32, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32)  : i32 {
)") + std::string(body) + R"(
    }
    %after = arith.addi %r, %c1 : i32
    tt.return
  }
}
)";
}

StatusOr<TtgirImport> import_text(const std::string& text, bool strict) {
  return import_ttgir_text(text, "f.ttgir", TtgirOptions{0, strict}, "f");
}

const Edge* data_edge(const Graph& g, std::string_view from, std::string_view to) {
  const std::optional<OpId> u = g.find_op(from), v = g.find_op(to);
  for (const Edge& e : g.edges) {
    if (u && v && e.from == *u && e.to == *v && e.kind == EdgeKind::kData) return &e;
  }
  return nullptr;
}

TEST(TtgirScope, EveryUseOfAnUndefinedValueIsRefusedWithItsLineStrictOrNot) {
  struct Case {
    std::string body;
    int line;  // the module's line 6 is the body's first
    std::string value;
  };
  const std::vector<Case> cases = {
      {"      %x = arith.addi %acc, %nope : i32\n      scf.yield %x : i32", 6, "%nope"},
      {"      %x = tt.splat %nope : i32 -> tensor<4xi32>\n      scf.yield %acc : i32", 6, "%nope"},
      {"      scf.yield %nope : i32", 6, "%nope"},
      {"      %x = arith.addi %acc, %y : i32\n      %y = arith.addi %acc, %c1 : i32\n"
       "      scf.yield %x : i32", 6, "%y"},  // used above its definition
      {"      %x = arith.addi %acc, %after : i32\n      scf.yield %x : i32", 6, "%after"},
      {"      %t = arith.cmpi eq, %acc, %c0 : i32\n      %z = scf.if %t -> (i32) {\n"
       "        %in = arith.addi %acc, %c1 : i32\n        scf.yield %in : i32\n      } else {\n"
       "        scf.yield %acc : i32\n      }\n      %x = arith.addi %in, %z : i32\n"
       "      scf.yield %x : i32", 13, "%in"},  // defined only inside a branch
      {"      %z = scf.if %nope -> (i32) {\n        scf.yield %acc : i32\n      } else {\n"
       "        scf.yield %acc : i32\n      }\n      scf.yield %z : i32", 6, "%nope"},
      {"      %t = arith.cmpi eq, %acc, %c0 : i32\n      %z = scf.if %t -> (i32) {\n"
       "        scf.yield %nope : i32\n      } else {\n        scf.yield %acc : i32\n      }\n"
       "      scf.yield %z : i32", 8, "%nope"},
  };
  for (const Case& c : cases) {
    for (const bool strict : {false, true}) {
      StatusOr<TtgirImport> r = import_text(module_with(c.body), strict);
      ASSERT_FALSE(r.ok()) << c.body;
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
      EXPECT_EQ(r.status().message(), "f.ttgir:" + std::to_string(c.line) +
                                          ": use of undefined value '" + c.value +
                                          "' (no definition above it in scope)")
          << c.body;
    }
  }
  // What is defined around the loop resolves: arguments, values above the
  // loop, the induction variable, iter_args.
  StatusOr<TtgirImport> ok = import_text(
      module_with("      %x = arith.addi %a, %c1 : i32\n      %y = arith.addi %x, %i : i32\n"
                  "      %z = arith.addi %y, %acc : i32\n      scf.yield %z : i32"),
      true);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->graph.op_count(), 3);
}

// Two scf.if ops whose then-branches both define %5 (as MLIR numbers
// sibling regions): each reader gets its own branch's %5.
TEST(TtgirScope, SiblingRegionsMayDefineTheSameName) {
  const std::string text = module_with(R"(      %t = arith.cmpi eq, %acc, %c0 : i32
      %p = scf.if %t -> (i32) {
        %5 = arith.addi %acc, %c1 : i32
        %pm = arith.muli %5, %a : i32
        scf.yield %pm : i32
      } else {
        scf.yield %acc : i32
      }
      %d = arith.muli %p, %p : i32
      %e = scf.if %t -> (i32) {
        %5 = arith.subi %d, %c1 : i32
        %st = arith.addi %5, %a : i32
        %sq = arith.muli %st, %st : i32
        scf.yield %sq : i32
      } else {
        scf.yield %d : i32
      }
      scf.yield %e : i32)");
  StatusOr<TtgirImport> r = import_text(text, true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Graph& g = r->graph;
  EXPECT_NE(data_edge(g, "v5", "pm"), nullptr);
  EXPECT_EQ(data_edge(g, "v5_2", "pm"), nullptr);
  EXPECT_NE(data_edge(g, "v5_2", "st"), nullptr);
  EXPECT_EQ(data_edge(g, "v5", "st"), nullptr);
  EXPECT_NE(data_edge(g, "d", "v5_2"), nullptr);
  expect_every_generator_verifies(g);
}

std::vector<std::string> committed_ttgir_files() {
  std::vector<std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(kTtgir)) {
    if (e.path().extension() == ".ttgir") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Calls f(op, line) for `op` and every op inside its regions, in file
// order; `line` is the line a refusal about the op's uses names (the op's
// own; for the ops inside a region that is not an scf.if branch, the line
// of the op holding the region).
void walk(const ttgir::Operation& op, int line,
          const std::function<void(const ttgir::Operation&, int)>& f) {
  f(op, line);
  for (const ttgir::Region& r : op.regions) {
    for (const ttgir::Block& b : r.blocks) {
      for (const ttgir::Operation& inner : b.ops) walk(inner, op.name == "scf.if" ? inner.line : line, f);
    }
  }
}

// A use of a value: where its token is, how long, the line a refusal names.
struct Use {
  size_t at = 0, size = 0;
  int line = 0;
};

void add_uses(const ttgir::Operation& op, int line, const std::string& text, std::vector<Use>& out) {
  for (size_t i = 0; i < op.tokens.size(); ++i) {
    const ttgir::Token& t = op.tokens[i];
    if (t.kind != ttgir::Tok::kValue) continue;
    if (i + 1 < op.tokens.size() && op.tokens[i + 1].is("=")) continue;  // %iv = ...
    out.push_back({static_cast<size_t>(t.text.data() - text.data()), t.text.size(), line});
  }
}

// The property, over every use in the body of every innermost loop of
// every committed file: the use renamed to a value defined nowhere makes
// the import refuse, naming the use's line and the value.
TEST(TtgirScope, EveryUseInAnImportedBodyResolvesOrTheImportIsRefused) {
  const std::string fresh = "%undefined_zz";
  int checked = 0;
  for (const std::string& path : committed_ttgir_files()) {
    StatusOr<std::string> text = read_file(path);
    ASSERT_TRUE(text.ok());
    StatusOr<std::vector<TtgirLoop>> listed = list_ttgir_loops(*text, "f.ttgir");
    StatusOr<std::vector<ttgir::Token>> tokens = ttgir::tokenize(*text, "f.ttgir");
    ASSERT_TRUE(listed.ok() && tokens.ok()) << path;
    StatusOr<ttgir::Document> doc = ttgir::parse_document(*tokens, "f.ttgir");
    ASSERT_TRUE(doc.ok()) << path;
    std::vector<const ttgir::Operation*> loops;  // in file order, as the importer numbers them
    for (const ttgir::Operation& top : doc->ops) {
      walk(top, top.line, [&loops](const ttgir::Operation& op, int) {
        if (op.name == "scf.for" || op.name == "scf.while") loops.push_back(&op);
      });
    }
    ASSERT_EQ(loops.size(), listed->size()) << path;
    for (const TtgirLoop& l : *listed) {
      if (!l.innermost) continue;
      ASSERT_TRUE(import_ttgir_text(*text, "f.ttgir", TtgirOptions{l.index, false}, "f").ok())
          << path << " loop " << l.index;
      std::vector<Use> uses;
      for (const ttgir::Region& r : loops[l.index]->regions) {
        for (const ttgir::Block& b : r.blocks) {
          for (const ttgir::Operation& op : b.ops) {
            walk(op, op.line, [&](const ttgir::Operation& o, int line) { add_uses(o, line, *text, uses); });
          }
        }
      }
      for (const Use& use : uses) {
        std::string mutated = *text;
        mutated.replace(use.at, use.size, fresh);
        const int line = use.line;
        StatusOr<TtgirImport> r =
            import_ttgir_text(mutated, "f.ttgir", TtgirOptions{l.index, false}, "f");
        ASSERT_FALSE(r.ok()) << path << " loop " << l.index << " line " << line;
        EXPECT_EQ(r.status().message(), "f.ttgir:" + std::to_string(line) +
                                            ": use of undefined value '" + fresh +
                                            "' (no definition above it in scope)")
            << path << " loop " << l.index;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

const std::string kFlat = kTtgir + "/flat/matmul_tma_persistent_STAGES3_BM128_BN128_BK64_W8";

// Triton 3.6's flattened persistent matmul: the k-tiles == 0 copy of the
// tile loop (no dot, no load) is loop 0; the fused loop is the default.
// Its prologue and epilogue scf.if both define %18 (the next tile's index;
// the epilogue's truncf): the prologue's pm reads its own.
TEST(TtgirScope, FlattenedPersistentMatmulImportsStrictlyWithItsOwnEdges) {
  StatusOr<TtgirImport> r = import_ttgir(kFlat + ".input.ttgir", TtgirOptions{std::nullopt, true});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->loop, 1);
  EXPECT_TRUE(r->unknown_ops.empty());
  const Graph& g = r->graph;
  EXPECT_NE(data_edge(g, "v18", "pm"), nullptr);
  EXPECT_EQ(data_edge(g, "v18_2", "pm"), nullptr);
  EXPECT_NE(data_edge(g, "acc_22", "v18_2"), nullptr);
  const std::optional<OpId> store = g.find_op("descriptor_store");
  ASSERT_TRUE(store.has_value());
  EXPECT_EQ(g.ops[*store].kind, "tma_store");
  expect_every_generator_verifies(g);
}

TEST(TtgirScope, FlattenedPersistentMatmulScheduledDumpsImportStrictly) {
  const std::string path = kFlat + ".triton-scheduled.ttgir";
  StatusOr<std::string> text = read_file(path);
  ASSERT_TRUE(text.ok());
  StatusOr<std::vector<TtgirLoop>> listed = list_ttgir_loops(*text, path);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  int fused = 0;
  for (const TtgirLoop& l : *listed) {
    if (!l.innermost || !l.has_dot) continue;
    StatusOr<TtgirImport> r = import_ttgir(path, TtgirOptions{l.index, true});
    ASSERT_TRUE(r.ok()) << "loop " << l.index << ": " << r.status().message();
    EXPECT_TRUE(r->unknown_ops.empty()) << "loop " << l.index;
    expect_every_generator_verifies(r->graph);
    ++fused;
  }
  EXPECT_EQ(fused, 2);  // before the pipeliner (Triton's schedule) and lowered
}

}  // namespace
}  // namespace tilesched::graphgen
