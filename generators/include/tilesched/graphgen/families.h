// The registry of loop-graph families: random families that stress the
// scheduler's parts and structured families that model the loop bodies of
// real GPU kernels on the Blackwell target; the sweep, the property tests,
// the fuzzers and `tilesched generate` enumerate families through it.
// Deterministic: a family draws only from the project's SplitMix64
// (tilesched/rng.h), so the same family, size, parameters and seed give the
// same graph, and byte-identical JSON, on every machine and compiler.
// generators/README.md tabulates every family, its parameters and what the
// seed draws.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/graphgen/params.h"
#include "tilesched/status.h"

namespace tilesched::graphgen {

struct ParamSpec {
  std::string_view name;
  int64_t default_value;  // taken when not given and `drawn` is empty
  int64_t min, max;       // inclusive
  std::string_view doc;
  // When not empty: a parameter not given takes one of these values, drawn
  // uniformly by the seed (resolve_params), instead of default_value.
  std::span<const int64_t> drawn = {};
};

enum class FamilyKind { kRandom, kStructured };
std::string_view family_kind_name(FamilyKind k);  // "random" | "structured"

// Builds a graph of about `ops` ops from resolved parameters. The graph's
// name, as returned, holds only the derived sizes the family wants to
// record ("k_tiles=4"), or is empty; generate() writes the full name.
// The graph is valid (validate_graph): every family builds it with
// GraphBuilder::build(), which validates, and generate() does not validate
// it again.
using FamilyFn = StatusOr<Graph> (*)(int ops, uint64_t seed, const ParamMap& params);

struct Family {
  std::string_view name;
  FamilyKind kind;
  std::string_view description;  // one line
  std::vector<ParamSpec> params;  // in canonical (name) order
  int min_ops;                    // smallest size accepted with no parameter given
  int max_ops;                    // largest size accepted
  // The graph has between ops - op_tolerance and ops ops (random
  // families: exactly ops, tolerance 0; structured ones scale in whole
  // units and round down).
  int op_tolerance;
  FamilyFn build;

  // Whether the family builds graphs of `ops` ops (no parameter given, any seed).
  bool builds(int ops) const { return ops >= min_ops && ops <= max_ops; }
};

// Every family: random ones first, then structured, each in name order.
const std::vector<Family>& families();
const Family* find_family(std::string_view name);

// "name1, name2, ..." of every family; for error messages.
std::string family_names();

// Parses "key=value" strings into a map (values are decimal integers).
// InvalidInput names the offending string and the family's parameters.
StatusOr<ParamMap> parse_params(const Family& family, const std::vector<std::string>& kv);

// Checks every given value against its range and fills in the rest: the
// default, or for a parameter with `drawn` values the one `seed` draws.
// The draws come from a stream of their own, one per drawn parameter in
// name order whether given or not, so giving one parameter changes no other
// parameter's value. InvalidInput names the parameter and the valid ones.
StatusOr<ParamMap> resolve_params(const Family& family, const ParamMap& given, uint64_t seed);

// Generates family `name` at size `ops` with `seed`. The graph's name is
// "FAMILY/ops=N/seed=S/p1=v1/..." with every parameter in canonical order
// (defaults and drawn values included), then the derived sizes the family
// records: generating again with every parameter of the name given
// explicitly gives the same graph. SMEM
// store bytes are scaled down, if need be, so that every buffer fits the
// storage pool once per iteration it is live in a serial schedule (1 +
// the longest distance it is read at): the serial schedule is always legal.
// InvalidInput: unknown family (message lists the valid ones), bad
// parameter, ops outside [min_ops, max_ops].
StatusOr<Graph> generate(std::string_view name, int ops, uint64_t seed, const ParamMap& params);

// Σ store_bytes · (1 + longest distance of a data edge out of the op): the
// SMEM a serial schedule of `g` holds at most (rule L4, docs/CONTRACT.md).
int64_t serial_storage_bytes(const Graph& g);

}  // namespace tilesched::graphgen
