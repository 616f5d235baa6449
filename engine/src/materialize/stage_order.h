// The (stage, order) relation the materializer sorts and splices by (seeds
// 000 and 003): lower stage first, then lower order. Like the seed's
// comparator it never answers "equal": on a valid schedule no two ops share
// (stage, order); should two do anyway, the lower op id comes first, so the
// relation stays a strict total order and every sort stays deterministic.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tilesched/graph.h"
#include "tilesched/schedule.h"

namespace tilesched::materialize_internal {

// -1 when a comes before b, +1 otherwise; never 0. Comparing an op with
// itself gives +1 (as the seed's), so before(a, a) is false, as a sort's
// "less" must be. REQUIRES: a and b index s.stage and s.order.
int compare_stage_order(const Schedule& s, OpId a, OpId b);

inline bool before(const Schedule& s, OpId a, OpId b) { return compare_stage_order(s, a, b) < 0; }

// Sorts ops by (stage, order): stably, the relation being total.
void sort_by_stage_order(const Schedule& s, std::vector<OpId>& ops);

// Every op of the schedule, in (stage, order).
std::vector<OpId> ops_in_stage_order(const Schedule& s);

// Why s cannot be materialized, if it cannot: sizes that disagree with the
// graph, or two ops sharing (stage, order). The message names the ops.
std::optional<std::string> stage_order_problem(const Graph& g, const Schedule& s);

}  // namespace tilesched::materialize_internal
