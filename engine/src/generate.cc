// Generator selection (seed 001, "Selector Predicate") and dispatch.
#include "tilesched/generate.h"

#include <cstdlib>

#include "tilesched/materialize.h"
#include "tilesched/serial.h"

namespace tilesched {

std::string_view generator_name(GeneratorKind k) {
  switch (k) {
    case GeneratorKind::kAuto: return "auto";
    case GeneratorKind::kSerial: return "serial";
    case GeneratorKind::kCostBased: return "cost-based";
    case GeneratorKind::kExact: return "exact";
  }
  return "auto";
}

std::optional<GeneratorKind> parse_generator(std::string_view name) {
  for (GeneratorKind k : {GeneratorKind::kAuto, GeneratorKind::kSerial,
                          GeneratorKind::kCostBased, GeneratorKind::kExact}) {
    if (generator_name(k) == name) return k;
  }
  return std::nullopt;
}

Selection select_generator(const Graph& g, const GenerateOptions& opts) {
  if (g.attrs.force_serial_execution) {
    return {GeneratorKind::kSerial, "force_serial_execution is set"};
  }
  if (g.op_count() < opts.serial_threshold) {
    return {GeneratorKind::kSerial, "op count " + std::to_string(g.op_count()) +
                                        " is below serial_threshold " +
                                        std::to_string(opts.serial_threshold)};
  }
  for (const Op& op : g.ops) {
    const OpKind* kind = g.target.find_kind(op.kind);
    if (kind != nullptr && (kind->async || kind->tma || kind->wgmma)) {
      return {GeneratorKind::kCostBased,
              "async/TMA/WGMMA op '" + op.name + "' present and " +
                  std::to_string(g.op_count()) + " ops"};
    }
  }
  return {GeneratorKind::kSerial, "no async pipeline, TMA or WGMMA op"};
}

namespace {

// MaterializeSchedule after the generator (seed 003's second pass), outside
// the generator's time_ns. Only the plain schedule goes in.
Schedule materialized(const Graph& g, Schedule s) {
  if (!s.feasible) return s;
  StatusOr<Materialization> m = materialize(g, s);
  if (m.ok()) {
    attach_materialization(s, *m);
  } else {
    s.diagnostics.push_back(m.status().message());
  }
  return s;
}

}  // namespace

StatusOr<Schedule> generate_schedule(const Graph& g, const GenerateOptions& opts) {
  Selection sel;
  if (opts.generator == GeneratorKind::kAuto) {
    sel = select_generator(g, opts);
    sel.reason = "auto: " + sel.reason;
  } else {
    sel = {opts.generator, "requested"};
  }
  switch (sel.chosen) {
    case GeneratorKind::kSerial: {
      Schedule s = materialized(g, generate_serial(g));
      s.selection = std::move(sel.reason);
      return s;
    }
    case GeneratorKind::kCostBased: {
      Schedule s = materialized(g, generate_cost_based(g, opts.cost_based).schedule);
      s.selection = std::move(sel.reason);
      return s;
    }
    case GeneratorKind::kExact: {
      StatusOr<ExactResult> r = generate_exact(g, opts.exact);
      if (!r.ok()) return r.status();
      Schedule s = materialized(g, std::move(r->schedule));
      s.selection = std::move(sel.reason);
      return s;
    }
    case GeneratorKind::kAuto:
      break;
  }
  std::abort();  // unreachable: select_generator always chooses one of the three
}

}  // namespace tilesched
