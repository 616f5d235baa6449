// The TTGIR reader's types (internal): the tile types an operation's
// trailing `: ...` section names (tensor<128x64xf16, #blocked>,
// !ttg.memdesc<...>, !tt.ptr<f16>, !tt.tensordesc<...>, scalars), their
// shapes and element types, and the layout attributes the cost rules read
// (sizePerThread, order, warpsPerCTA), through the module's aliases.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tilesched/hopper.h"
#include "ttgir_syntax.h"

namespace tilesched::graphgen::ttgir {

inline constexpr int64_t kMaxDim = int64_t{1} << 24;
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

enum class TypeKind { kScalar, kTensor, kMemdesc, kPointer, kTensorDesc, kOther };

struct TileType {
  TypeKind kind = TypeKind::kOther;
  std::vector<int64_t> shape;               // empty for scalars and pointers
  std::optional<hopper::Element> element;   // none when the element type is not one we model
  std::optional<hopper::Element> pointee;   // a pointer's, or a tensor of pointers'
  std::vector<Token> encoding;              // the layout after the shape, as written

  int64_t elements() const;                 // product of the shape (1 for scalars)
  // Bytes of data the type stands for: a tensor's or buffer's elements, a
  // tensor of pointers' pointees, a tensor descriptor's block.
  int64_t data_bytes() const;
};

// An operation's `: ...` section: the types before `->` or `to` (inputs)
// and after it (results); `a * b -> c` gives inputs a and b.
struct TypeSection {
  std::vector<TileType> inputs;
  std::vector<TileType> results;
  // The results, or the last input where the section names none.
  const TileType* result() const;
  const TileType* first_input() const { return inputs.empty() ? nullptr : &inputs.front(); }
};

// Reads the section after the operation's last ':' at bracket depth 0 (an
// empty section when there is none). InvalidInput "SOURCE:LINE: problem"
// for a malformed type.
StatusOr<TypeSection> read_types(const Operation& op, std::string_view source);

// A layout attribute's integer list, e.g. `warpsPerCTA = [8, 1]`, from an
// encoding written inline or through an alias of the document.
struct LayoutLookup {
  const Document* doc = nullptr;
  size_t top_index = 0;  // the top-level operation (module) the type sits in
  std::optional<std::vector<int64_t>> list(const std::vector<Token>& encoding,
                                           std::string_view key) const;
};

// The element type an identifier names (f16, bf16, f32, i1 ... f8E4M3FN).
std::optional<hopper::Element> element_of(std::string_view ident);

}  // namespace tilesched::graphgen::ttgir
