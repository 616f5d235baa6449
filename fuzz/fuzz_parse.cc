// fuzz_parse: bytes -> the tilesched.loop/1 reader and validate_graph.
// Checks: the reader never crashes; it accepts or refuses with one line
// naming the source and a JSON path; an accepted graph passes
// validate_graph, survives write -> read unchanged, and writing it again
// gives the same text (docs/FORMATS.md, "How tilesched writes graphs").
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "tilesched/json_io.h"
#include "tilesched/validate.h"

using namespace tilesched;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<Graph> g = parse_graph_json(text, "fuzz");
  if (!g.ok()) {
    const std::string& msg = g.status().message();
    FUZZ_CHECK(g.status().code() == StatusCode::kInvalidInput, "refusal is not InvalidInput", msg);
    FUZZ_CHECK(msg.rfind("fuzz: $", 0) == 0, "refusal does not start with 'SOURCE: $'", msg);
    FUZZ_CHECK(msg.find('\n') == std::string::npos, "refusal is more than one line", msg);
    return 0;
  }
  const Status valid = validate_graph(*g);
  FUZZ_CHECK(valid.ok(), "accepted graph fails validate_graph", valid.message());
  const std::string written = write_graph_json(*g);
  StatusOr<Graph> again = parse_graph_json(written, "written");
  FUZZ_CHECK(again.ok(), "written graph is refused",
             again.status().message() + "\n" + written);
  FUZZ_CHECK(*again == *g, "write -> read changed the graph",
             std::string(text) + "\nwritten:\n" + written);
  FUZZ_CHECK(write_graph_json(*again) == written, "writing twice gives different text", written);
  return 0;
}
