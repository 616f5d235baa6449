// The TTGIR reader's op knowledge (internal): which TTGIR op is folded,
// costed (and as which hopper kind) or unknown; the values an op reads;
// its attributes; the buffers it touches; the Work its tile types describe.
// docs/TTGIR.md has the same tables in prose.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/hopper.h"
#include "ttgir_syntax.h"
#include "ttgir_types.h"

namespace tilesched::graphgen::ttgir {

enum class Role {
  kFold,     // compiles to nothing: its users read its operands instead
  kCost,     // one graph op of kind OpRule::kind
  kUnknown,  // not in the tables: a `generic` graph op, and a warning
};

struct OpRule {
  Role role = Role::kUnknown;
  std::string_view kind;  // the hopper kind, for kCost
};

OpRule rule_of(std::string_view op_name);

// The values an op reads: every %value among its tokens that is not being
// defined there (`%iv = ...` of a loop header), then every value its
// regions read without defining it; in order, repeats kept (operand
// positions matter to scf.yield and to buffer_accesses).
std::vector<std::string> operands_of(const Operation& op);

// An integer attribute `key = N : type` of the op's own attribute
// dictionaries (not its regions'); keys may be quoted.
std::optional<int64_t> int_attr(const Operation& op, std::string_view key);

// The ops that load from global memory or multiply matrices, for --list.
bool is_load_op(std::string_view op_name);
bool is_dot_op(std::string_view op_name);

// A shared-memory buffer or barrier an op touches: the value naming it
// (before memdesc views are looked through) and whether the op writes it.
struct Access {
  std::string value;
  bool write = false;
};
std::vector<Access> buffer_accesses(const Operation& op, const std::vector<std::string>& operands);

// What a costed op of hopper kind `kind` does, from its types.
// `threads`: the CTA's threads (the module's ttg.num-warps x 32).
// InvalidInput "SOURCE:LINE: problem" when the types do not fit the kind.
StatusOr<hopper::Work> work_of(const Operation& op, std::string_view kind,
                               const TypeSection& types, const LayoutLookup& layouts,
                               std::string_view source);

// Shared memory Triton's pipeliner adds for an op that names no buffer
// (docs/TTGIR.md, "Buffers"): `load_bytes`, the tile a pipelined load
// (`tt.load` of a tensor whose accesses are at least 4 bytes, the least a
// cp.async copies, or `tt.descriptor_load`) lands in before it is read
// into registers -- needed when a user other than a ttg.local_alloc reads
// its value; `staging_bytes`, the tile a TMA store of a register tensor
// (`tt.descriptor_store`, scatter, reduce) is staged in.
struct ImplicitBuffer {
  int64_t load_bytes = 0;
  int64_t staging_bytes = 0;
};
ImplicitBuffer implicit_buffer(const Operation& op, const TypeSection& types,
                               const LayoutLookup& layouts);

// Registers per thread the op's result holds (0 for buffers and tokens).
int64_t result_registers(std::string_view kind, const TypeSection& types, int64_t threads);

}  // namespace tilesched::graphgen::ttgir
