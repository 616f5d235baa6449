// fuzz_import: bytes -> the HatScheT GraphML/XML importer
// (tilesched/graphgen/hatschet.h). The input is the GraphML text, a NUL byte,
// then the resource-model XML (no NUL: an empty resource model). Checks:
// the importer never crashes; it accepts or refuses with one line naming
// one of the two sources; an accepted graph passes validate_graph and
// survives write -> read unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "tilesched/graphgen/hatschet.h"
#include "tilesched/json_io.h"
#include "tilesched/validate.h"

using namespace tilesched;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const size_t nul = bytes.find('\0');
  const std::string_view graphml = bytes.substr(0, nul);
  const std::string_view rm = nul == std::string_view::npos ? "" : bytes.substr(nul + 1);
  StatusOr<Graph> g = graphgen::import_hatschet_text(graphml, "g.graphml", rm, "rm.xml", "fuzz");
  if (!g.ok()) {
    const std::string& msg = g.status().message();
    FUZZ_CHECK(g.status().code() == StatusCode::kInvalidInput, "refusal is not InvalidInput", msg);
    FUZZ_CHECK(msg.rfind("g.graphml", 0) == 0 || msg.rfind("rm.xml", 0) == 0,
               "refusal does not name its source", msg);
    FUZZ_CHECK(msg.find('\n') == std::string::npos, "refusal is more than one line", msg);
    return 0;
  }
  const Status valid = validate_graph(*g);
  FUZZ_CHECK(valid.ok(), "imported graph fails validate_graph", valid.message());
  const std::string written = write_graph_json(*g);
  StatusOr<Graph> again = parse_graph_json(written, "written");
  FUZZ_CHECK(again.ok(), "written graph is refused", again.status().message() + "\n" + written);
  FUZZ_CHECK(*again == *g, "write -> read changed the imported graph", written);
  return 0;
}
