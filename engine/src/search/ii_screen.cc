// The II screen (see ii_screen.h).
#include "ii_screen.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "util/test_seams.h"

namespace tilesched {

namespace {

// Rule L6 as edges (docs/SEARCH.md, "The II screen"): a root r with
// s_v >= s_r for every op and, for an op with max_depth m,
// s_v <= s_r + (m + 1) II - 1 (an edge v -> r of latency 1 and distance
// m + 1). Any legal schedule meets them with s_r = 0, and they tie every
// capped op into one component with r, so the arcs see the stages.
Graph depth_rooted(const Graph& g) {
  Graph out = g;
  const OpId root = g.op_count();
  Op r;
  r.name = "stage root";
  r.kind = "generic";
  r.latency = 0;
  out.ops.push_back(r);
  for (OpId v = 0; v < root; ++v) {
    out.edges.push_back({root, v, 0, 0, EdgeKind::kOrder});
    if (g.ops[v].max_depth) out.edges.push_back({v, root, 1, *g.ops[v].max_depth + 1, EdgeKind::kOrder});
  }
  return out;
}

}  // namespace

IiScreen::IiScreen(const Graph& g, const Adjacency& adj, DistanceMatrix* shared,
                   const char* loop)
    : g_(g), adj_(adj), shared_(shared), loop_(loop) {
  capacity_.assign(static_cast<size_t>(g.target.slot_count()) + 1, 0);
  for (int s = 1; s <= g.target.slot_count(); ++s) capacity_[s] = g.target.slot(s).capacity;
  const int64_t n = std::max(1, g.op_count());
  budget_ = 4 * n * n;
  const Components comps = strongly_connected(g, adj, EdgeFilter::kAll);
  if (shared_ != nullptr) {
    std::vector<int> node_of(static_cast<size_t>(g.op_count()));
    for (OpId v = 0; v < g.op_count(); ++v) node_of[v] = v;
    op_of_node_ = node_of;
    find_claims(g, comps, node_of);
  } else if (!build_rooted_subgraph(g)) {
    build_subgraph(g, comps);
  }
}

bool IiScreen::build_rooted_subgraph(const Graph& g) {
  if (!any_max_depth(g) || g.op_count() >= kOwnClosureOps) return false;
  const Graph rooted = depth_rooted(g);
  return build_subgraph(rooted, strongly_connected(rooted, Adjacency::build(rooted), EdgeFilter::kAll));
}

// The claims the test can use: on a slot, inside a component, shared with
// another op of that component; grouped by (slot, component).
void IiScreen::find_claims(const Graph& g, const Components& comps,
                           const std::vector<int>& node_of) {
  claims_.clear();
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (node_of[v] < 0) continue;
    for (const Triple& t : g.ops[v].resources) {
      if (t.duration <= 0) continue;
      const int64_t units = capacity_[t.slot] > 1 ? t.occupancy : 1;
      claims_.push_back({node_of[v], comps.component[v], t.slot, t.duration, units});
    }
  }
  std::stable_sort(claims_.begin(), claims_.end(), [](const Claim& a, const Claim& b) {
    return a.slot != b.slot ? a.slot < b.slot : a.comp < b.comp;
  });
  std::vector<Claim> kept;
  for (size_t i = 0; i < claims_.size();) {
    size_t j = i;
    while (j < claims_.size() && claims_[j].slot == claims_[i].slot &&
           claims_[j].comp == claims_[i].comp) {
      ++j;
    }
    if (j - i >= 2) kept.insert(kept.end(), claims_.begin() + i, claims_.begin() + j);
    i = j;
  }
  claims_ = std::move(kept);
}

// Without a shared closure: the ops of the components that hold two claims
// of one slot, with the edges among them (a path between two ops of one
// component never leaves it, so their closure is the whole graph's there).
bool IiScreen::build_subgraph(const Graph& g, const Components& comps) {
  op_of_node_.clear();
  std::vector<int> all(static_cast<size_t>(g.op_count()));
  for (OpId v = 0; v < g.op_count(); ++v) all[v] = v;
  find_claims(g, comps, all);
  std::vector<char> keep_comp(static_cast<size_t>(comps.count), 0);
  for (const Claim& c : claims_) keep_comp[c.comp] = 1;
  std::vector<int> node_of(static_cast<size_t>(g.op_count()), -1);
  sub_ = Graph{};
  sub_.target = g.target;
  for (OpId v = 0; v < g.op_count(); ++v) {
    if (!keep_comp[comps.component[v]]) continue;
    node_of[v] = sub_.op_count();
    op_of_node_.push_back(v);
    sub_.ops.push_back(g.ops[v]);
  }
  if (sub_.op_count() == 0 || sub_.op_count() > kOwnClosureOps) {
    claims_.clear();  // nothing to test, or more than the screen closes on its own
    return false;
  }
  for (const Edge& e : g.edges) {
    if (node_of[e.from] < 0 || node_of[e.to] < 0) continue;
    if (comps.component[e.from] != comps.component[e.to]) continue;
    Edge local = e;
    local.from = node_of[e.from];
    local.to = node_of[e.to];
    sub_.edges.push_back(local);
  }
  sub_adj_ = Adjacency::build(sub_);
  own_closure_ = true;
  find_claims(g, comps, node_of);
  return true;
}

IiScreen::Verdict IiScreen::check(int64_t ii) {
  if (dormant()) return Verdict::kAdmit;
  const Verdict v = test(ii);
  admitted_in_row_ = v == Verdict::kAdmit ? admitted_in_row_ + 1 : 0;
  if (v != Verdict::kAdmit) note(ii, v);
  return v;
}

void IiScreen::note(int64_t ii, Verdict v) {
  if (lines_.size() >= kLinesKept) return;
  std::string why = "II " + std::to_string(ii) + ": the II screen: ";
  if (v == Verdict::kCycle) {
    why += "a dependence cycle is longer than " + std::to_string(ii) + " cycles per iteration";
  } else {
    const Slot& slot = g_.target.slot(over_slot_);
    why += "slot " + std::to_string(over_slot_) + " " + slot.name + " (capacity " +
           std::to_string(slot.capacity) + ") must hold " + std::to_string(over_energy_) +
           " units in " + std::to_string(over_rows_) + " rows, given the distances to op '" +
           g_.ops[over_ref_].name + "'";
  }
  lines_.push_back(std::move(why));
}

std::vector<std::string> IiScreen::lines() const {
  std::vector<std::string> out = lines_;
  if (rejected() > static_cast<int64_t>(lines_.size())) {
    out.push_back("... and " + std::to_string(rejected() - static_cast<int64_t>(lines_.size())) +
                  " more IIs the II screen rejected");
  }
  return out;
}

IiScreen::Verdict IiScreen::test(int64_t ii) {
  DistanceMatrix* d = shared_;
  bool built = false;
  int64_t cells = 0;
  if (d != nullptr) {
    built = d->build(g_, adj_, ii);
    cells = int64_t{g_.op_count()} * g_.op_count();
  } else if (own_closure_) {
    d = &own_;
    built = d->build(sub_, sub_adj_, ii);
    cells = int64_t{sub_.op_count()} * sub_.op_count();
  } else {
    return Verdict::kAdmit;  // nothing the screen can test
  }
  work_ += cells;
  test_seams::count_trips(loop_, cells);
  if (!built) {
    ++by_cycle_;
    return Verdict::kCycle;
  }
  if (overloaded(*d, ii)) {
    ++by_overload_;
    return Verdict::kSlotOverload;
  }
  return Verdict::kAdmit;
}

bool IiScreen::overloaded(const DistanceMatrix& d, int64_t ii) {
  int64_t work = 0;
  for (size_t i = 0; i < claims_.size();) {
    size_t j = i;
    while (j < claims_.size() && claims_[j].slot == claims_[i].slot &&
           claims_[j].comp == claims_[i].comp) {
      ++j;
    }
    if (group_overloaded(d, ii, i, j, work)) {
      work_ += work;
      return true;
    }
    if (work > budget_) break;  // out of budget: admitted
    i = j;
  }
  work_ += work;
  return false;
}

bool IiScreen::group_overloaded(const DistanceMatrix& d, int64_t ii, size_t first, size_t last,
                                int64_t& work) {
  const int64_t capacity = capacity_[claims_[first].slot];
  for (size_t r = first; r < last && work <= budget_; ++r) {
    const int ref = claims_[r].node;
    items_.clear();
    for (size_t k = first; k < last; ++k) {
      const Claim& c = claims_[k];
      // Same component: both paths exist. Rows [D[r][v], -D[v][r] + d).
      const int64_t span = -d.at(c.node, ref) + c.duration - d.at(ref, c.node);
      if (span >= ii) continue;  // it may hold any row
      // Rows are modulo II: the item from its first row in [0, II), and
      // again one lap later, so that an arc across row 0 finds it too.
      const int64_t begin = (d.at(ref, c.node) % ii + ii) % ii;
      items_.push_back({begin, begin + span, c.units * c.duration});
      items_.push_back({begin + ii, begin + ii + span, c.units * c.duration});
    }
    if (items_.size() < 4) continue;
    work += static_cast<int64_t>(items_.size() * items_.size());
    if (arc_overloaded(ii, capacity)) {
      over_slot_ = claims_[first].slot;
      over_ref_ = op_of_node_[ref];
      return true;
    }
  }
  return false;
}

// Every arc [a, b) with a an item's first row (in [0, II)) and b an item's
// end, shorter than the II: the energy of the items inside it against
// capacity * (b - a). An arc shorter than the II holds at most one of an
// item's two laps.
bool IiScreen::arc_overloaded(int64_t ii, int64_t capacity) {
  std::sort(items_.begin(), items_.end(), [](const Item& x, const Item& y) {
    return x.end != y.end ? x.end < y.end : x.begin < y.begin;
  });
  for (const Item& from : items_) {
    const int64_t a = from.begin;
    if (a >= ii) continue;  // the same arcs as one lap earlier
    int64_t energy = 0;
    for (const Item& it : items_) {
      if (it.end - a >= ii) break;  // sorted by end: every later arc is too long
      if (it.begin < a) continue;
      energy += it.energy;
      if (energy > capacity * (it.end - a)) {
        over_energy_ = energy;
        over_rows_ = it.end - a;
        return true;
      }
    }
  }
  return false;
}

}  // namespace tilesched
