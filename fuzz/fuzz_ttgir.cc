// fuzz_ttgir: bytes -> the Triton TTGIR importer
// (tilesched/graphgen/ttgir_import.h). The input is TTGIR text. Checks: the
// importer never crashes or hangs; listing the loops, importing the
// default one, loop 0 strictly and each of the first four innermost loops
// either succeed or refuse with InvalidInput and one line
// "f.ttgir:LINE: ..."; an imported graph passes validate_graph, survives
// write -> read unchanged, comes out the same on a second import, has as
// many ops as --list says, and its serial schedule (up to 32 ops) is legal
// or infeasible with a reason.
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "tilesched/graphgen/ttgir_import.h"
#include "tilesched/json_io.h"
#include "tilesched/serial.h"
#include "tilesched/validate.h"

using namespace tilesched;

namespace {

constexpr std::string_view kSource = "f.ttgir";

// A refusal: InvalidInput, one line, "f.ttgir:LINE: problem".
void check_refusal(const Status& s) {
  const std::string& msg = s.message();
  FUZZ_CHECK(s.code() == StatusCode::kInvalidInput, "refusal is not InvalidInput", msg);
  FUZZ_CHECK(msg.find('\n') == std::string::npos, "refusal is more than one line", msg);
  const bool sourced = msg.rfind(std::string(kSource) + ":", 0) == 0;
  size_t p = kSource.size() + 1;
  const size_t digits_begin = p;
  while (p < msg.size() && std::isdigit(static_cast<unsigned char>(msg[p]))) ++p;
  FUZZ_CHECK(sourced && p > digits_begin && msg.compare(p, 2, ": ") == 0,
             "refusal does not start with f.ttgir:LINE: ", msg);
}

void check_graph(std::string_view text, const graphgen::TtgirOptions& options,
                 const graphgen::TtgirImport& imported,
                 const std::vector<graphgen::TtgirLoop>& loops) {
  const Graph& g = imported.graph;
  const bool listed = imported.loop >= 0 && imported.loop < static_cast<int>(loops.size());
  FUZZ_CHECK(listed, "the imported loop is not listed", std::to_string(imported.loop));
  FUZZ_CHECK(loops[imported.loop].op_count == g.op_count(),
             "--list's op count differs from the imported graph's",
             std::to_string(loops[imported.loop].op_count) + " vs " + std::to_string(g.op_count()));
  const Status valid = validate_graph(g);
  FUZZ_CHECK(valid.ok(), "imported graph fails validate_graph", valid.message());
  const std::string written = write_graph_json(g);
  StatusOr<Graph> again = parse_graph_json(written, "written");
  FUZZ_CHECK(again.ok(), "written graph is refused", again.status().message() + "\n" + written);
  FUZZ_CHECK(*again == g, "write -> read changed the imported graph", written);
  StatusOr<graphgen::TtgirImport> twice = graphgen::import_ttgir_text(text, kSource, options, "f");
  FUZZ_CHECK(twice.ok() && twice->graph == g, "a second import differs", written);
  if (g.op_count() <= 32) fuzz::check_result(g, generate_serial(g), "serial");
}

void import_and_check(std::string_view text, const graphgen::TtgirOptions& options,
                      const std::vector<graphgen::TtgirLoop>& loops) {
  StatusOr<graphgen::TtgirImport> imported =
      graphgen::import_ttgir_text(text, kSource, options, "f");
  if (!imported.ok()) {
    check_refusal(imported.status());
    return;
  }
  check_graph(text, options, *imported, loops);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  StatusOr<std::vector<graphgen::TtgirLoop>> loops = graphgen::list_ttgir_loops(text, kSource);
  if (!loops.ok()) {
    check_refusal(loops.status());
    return 0;
  }
  import_and_check(text, graphgen::TtgirOptions{}, *loops);
  if (!loops->empty()) import_and_check(text, graphgen::TtgirOptions{0, true}, *loops);
  int innermost = 0;
  for (const graphgen::TtgirLoop& l : *loops) {
    if (!l.innermost || l.index == 0 || ++innermost > 4) continue;
    import_and_check(text, graphgen::TtgirOptions{l.index, false}, *loops);
  }
  return 0;
}
