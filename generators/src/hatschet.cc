// The HatScheT GraphML + resource-model importer (hatschet.h), with pugixml.
// Every refusal is one line: "FILE: <element> N (id ...): attribute 'x': problem".
#include "tilesched/graphgen/hatschet.h"

#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <vector>

#include <pugixml.hpp>

#include "import_text.h"
#include "tilesched/graph_builder.h"
#include "tilesched/json_io.h"
#include "tilesched/limits.h"

namespace tilesched::graphgen {

namespace {

struct Resource {
  std::string name;
  int64_t limit = -1;  // -1: unlimited
  int64_t latency = 0;
  int64_t blocking = 0;
  int uses = 0;
  int slot = 0;  // one-based slot, 0: no reservation
};

// Distances read from a file; those above limits::kMaxDistance are clamped.
constexpr int64_t kMaxImportDistance = int64_t{1} << 20;

// One line, whatever the file holds: the values a message echoes may carry
// line breaks and other control characters, written here as \xNN (found
// by fuzz_import; fuzz/regressions/fuzz_import/newline-in-deptype).
Status bad(std::string_view source, const std::string& what) {
  return Status::InvalidInput(std::string(source) + ": " + one_line(what));
}

StatusOr<pugi::xml_document*> load(pugi::xml_document& doc, std::string_view text,
                                   std::string_view source) {
  const pugi::xml_parse_result r = doc.load_buffer(text.data(), text.size());
  if (!r) {
    return bad(source, "not well-formed XML at byte " + std::to_string(r.offset) + ": " +
                           r.description());
  }
  return &doc;
}

// A decimal integer in [lo, hi], strictly (no sign but '-', no spaces).
std::optional<int64_t> parse_int(std::string_view s, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

// "<edge> 3 (id 'a_b')": how messages name an element.
std::string where(std::string_view element, int index, const pugi::xml_node& n) {
  std::string s = "<" + std::string(element) + "> " + std::to_string(index);
  if (const pugi::xml_attribute id = n.attribute("id")) s += " (id '" + std::string(id.value()) + "')";
  return s;
}

StatusOr<int64_t> int_attr(const pugi::xml_node& n, const char* attr, int64_t lo, int64_t hi,
                           std::string_view source, const std::string& at) {
  const pugi::xml_attribute a = n.attribute(attr);
  if (!a) return bad(source, at + ": missing attribute '" + attr + "'");
  const std::optional<int64_t> v = parse_int(a.value(), lo, hi);
  if (!v) {
    return bad(source, at + ": attribute '" + attr + "' = '" + a.value() +
                           "' is not an integer in " + std::to_string(lo) + ".." +
                           std::to_string(hi));
  }
  return *v;
}

StatusOr<std::vector<Resource>> read_resources(std::string_view text, std::string_view source) {
  pugi::xml_document doc;
  if (StatusOr<pugi::xml_document*> d = load(doc, text, source); !d.ok()) return d.status();
  const pugi::xml_node resources = doc.child("ModelInformation").child("Resources");
  if (!resources) return bad(source, "no <ModelInformation><Resources> element");
  std::vector<Resource> out;
  int index = 0;
  for (const pugi::xml_node n : resources.children("Resource")) {
    const std::string at = "<Resource> " + std::to_string(index++);
    Resource r;
    r.name = n.attribute("name").value();
    if (r.name.empty()) return bad(source, at + ": missing attribute 'name'");
    const std::string named = at + " ('" + r.name + "')";
    for (const Resource& other : out) {
      if (other.name == r.name) return bad(source, named + ": duplicate resource name");
    }
    StatusOr<int64_t> limit = int_attr(n, "limit", -1, limits::kMaxSlotCapacity, source, named);
    if (!limit.ok()) return limit.status();
    if (*limit == 0) return bad(source, named + ": attribute 'limit' = '0' (expected -1 or >= 1)");
    StatusOr<int64_t> latency = int_attr(n, "latency", 0, limits::kMaxLatency, source, named);
    if (!latency.ok()) return latency.status();
    StatusOr<int64_t> blocking =
        int_attr(n, "blockingTime", 0, limits::kMaxDuration, source, named);
    if (!blocking.ok()) return blocking.status();
    r.limit = *limit;
    r.latency = *latency;
    r.blocking = *blocking;
    out.push_back(std::move(r));
  }
  return out;
}

// The text of a node's <data key="KEY"> child, if any.
std::optional<std::string> data(const pugi::xml_node& n, std::string_view key) {
  for (const pugi::xml_node d : n.children("data")) {
    if (key == d.attribute("key").value()) return std::string(d.child_value());
  }
  return std::nullopt;
}

// The GraphML nodes, in document order: each one's id and resource.
struct Node {
  std::string id;
  int resource;
};
struct Nodes {
  std::vector<Node> list;
  std::map<std::string, OpId> by_id;
};

// Reads every <node>, counting each resource's uses.
StatusOr<Nodes> read_nodes(const pugi::xml_node& graph, std::vector<Resource>& resources,
                           std::string_view src, std::string_view rm_source) {
  Nodes nodes;
  int index = 0;
  for (const pugi::xml_node n : graph.children("node")) {
    const std::string at = where("node", index++, n);
    const std::string id = n.attribute("id").value();
    if (id.empty()) return bad(src, at + ": missing attribute 'id'");
    if (id.size() > static_cast<size_t>(limits::kMaxNameLength)) {
      return bad(src, at + ": attribute 'id' is longer than " +
                          std::to_string(limits::kMaxNameLength) + " characters");
    }
    if (nodes.by_id.count(id)) return bad(src, at + ": duplicate node id");
    if (static_cast<int>(nodes.list.size()) == limits::kMaxOps) {
      return bad(src, at + ": more than " + std::to_string(limits::kMaxOps) + " nodes");
    }
    const std::optional<std::string> use = data(n, "uses_resource");
    if (!use) return bad(src, at + ": no <data key=\"uses_resource\">");
    int r = 0;
    while (r < static_cast<int>(resources.size()) && resources[r].name != *use) ++r;
    if (r == static_cast<int>(resources.size())) {
      return bad(src, at + ": <data key=\"uses_resource\"> names resource '" + *use +
                          "', which " + std::string(rm_source) + " does not define");
    }
    ++resources[r].uses;
    nodes.by_id[id] = static_cast<OpId>(nodes.list.size());
    nodes.list.push_back({id, r});
  }
  return nodes;
}

// Slots: the limited resources some node holds, in resource-model order
// (only the binding ones if there are too many); sets each one's `slot`.
// A target has at least one slot: an instance without limited resources
// gets one that no op claims.
StatusOr<std::vector<Slot>> make_slots(std::vector<Resource>& resources,
                                       std::string_view rm_source) {
  auto reserves = [](const Resource& r) { return r.limit >= 1 && r.blocking >= 1 && r.uses > 0; };
  auto binding = [](const Resource& r) { return r.blocking > 1 || r.uses > r.limit; };
  int wanted = 0;
  for (const Resource& r : resources) wanted += reserves(r) ? 1 : 0;
  const bool only_binding = wanted > limits::kMaxSlots;
  std::vector<Slot> slots;
  for (Resource& r : resources) {
    if (!reserves(r) || (only_binding && !binding(r))) continue;
    if (static_cast<int>(slots.size()) == limits::kMaxSlots) {
      return bad(rm_source, "more than " + std::to_string(limits::kMaxSlots) +
                                " limited resources that can be over-subscribed (one RRT row "
                                "holds 64 slots)");
    }
    slots.push_back(Slot{r.name, r.limit, false});
    r.slot = static_cast<int>(slots.size());
  }
  if (slots.empty()) slots.push_back(Slot{"unused", 1, false});
  return slots;
}

// One <edge>, resolved: its ends, latency, distance and kind.
struct EdgeSpec {
  OpId from = 0, to = 0;
  int64_t latency = 0, distance = 0;
  EdgeKind kind = EdgeKind::kData;
};

// The ends of <edge> `e` (source and target) as op ids.
Status read_ends(const pugi::xml_node& e, const Nodes& nodes, std::string_view src,
                 const std::string& at, EdgeSpec& out) {
  OpId* ends[2] = {&out.from, &out.to};
  const char* attrs[2] = {"source", "target"};
  for (int k = 0; k < 2; ++k) {
    const pugi::xml_attribute a = e.attribute(attrs[k]);
    if (!a) return bad(src, at + ": missing attribute '" + attrs[k] + "'");
    const auto it = nodes.by_id.find(a.value());
    if (it == nodes.by_id.end()) {
      return bad(src, at + ": attribute '" + attrs[k] + "' names unknown node '" + a.value() +
                          "'");
    }
    *ends[k] = it->second;
  }
  return Status::Ok();
}

// <edge> `e`'s delay and distance, as read (the distance not yet clamped).
Status read_delay_distance(const pugi::xml_node& e, std::string_view src, const std::string& at,
                           int64_t (&fields)[2]) {
  const char* keys[2] = {"delay", "distance"};
  const int64_t lo[2] = {-limits::kMaxLatency, 0};
  const int64_t hi[2] = {limits::kMaxLatency, kMaxImportDistance};
  for (int k = 0; k < 2; ++k) {
    const std::optional<std::string> text = data(e, keys[k]);
    if (!text) return bad(src, at + ": no <data key=\"" + keys[k] + "\">");
    const std::optional<int64_t> v = parse_int(*text, lo[k], hi[k]);
    if (!v) {
      return bad(src, at + ": <data key=\"" + keys[k] + "\"> = '" + *text +
                          "' is not an integer in " + std::to_string(lo[k]) + ".." +
                          std::to_string(hi[k]));
    }
    fields[k] = *v;
  }
  return Status::Ok();
}

// <edge> `e` (the `index`th): deptype Precedence gives an order edge, Data
// or none a data edge; the latency is the source's plus the delay.
StatusOr<EdgeSpec> read_edge(const pugi::xml_node& e, int index, const Nodes& nodes,
                             const std::vector<Resource>& resources, std::string_view src) {
  const std::string at = where("edge", index, e);
  if (index >= limits::kMaxEdges) {
    return bad(src, at + ": more than " + std::to_string(limits::kMaxEdges) + " edges");
  }
  EdgeSpec edge;
  if (Status s = read_ends(e, nodes, src, at, edge); !s.ok()) return s;
  int64_t fields[2] = {0, 0};  // delay, distance
  if (Status s = read_delay_distance(e, src, at, fields); !s.ok()) return s;
  if (const std::optional<std::string> dep = data(e, "deptype")) {
    if (*dep == "Precedence") {
      edge.kind = EdgeKind::kOrder;
    } else if (*dep != "Data") {
      return bad(src, at + ": <data key=\"deptype\"> = '" + *dep +
                          "' (expected Data or Precedence)");
    }
  }
  edge.latency = resources[nodes.list[edge.from].resource].latency + fields[0];
  if (edge.latency < 0 || edge.latency > limits::kMaxLatency) {
    return bad(src, at + ": latency of the source plus delay = " + std::to_string(edge.latency) +
                        " is out of range 0.." + std::to_string(limits::kMaxLatency));
  }
  edge.distance = fields[1];
  return edge;
}

}  // namespace

StatusOr<Graph> import_hatschet_text(std::string_view graphml, std::string_view graphml_source,
                                     std::string_view rm, std::string_view rm_source,
                                     std::string graph_name) {
  StatusOr<std::vector<Resource>> resources = read_resources(rm, rm_source);
  if (!resources.ok()) return resources.status();
  const std::string_view src = graphml_source;
  pugi::xml_document doc;
  if (StatusOr<pugi::xml_document*> d = load(doc, graphml, src); !d.ok()) return d.status();
  const pugi::xml_node graph = doc.child("graphml").child("graph");
  if (!graph) return bad(src, "no <graphml><graph> element");
  StatusOr<Nodes> nodes = read_nodes(graph, *resources, src, rm_source);
  if (!nodes.ok()) return nodes.status();
  StatusOr<std::vector<Slot>> slots = make_slots(*resources, rm_source);
  if (!slots.ok()) return slots.status();

  GraphBuilder b(make_generic_target("hatschet", std::move(*slots), {}), std::move(graph_name));
  for (const Node& n : nodes->list) {
    const Resource& r = (*resources)[n.resource];
    std::vector<Triple> triples;
    if (r.slot > 0) triples.push_back(Triple{r.slot, r.blocking, 1});
    b.generic(n.id, r.latency, std::move(triples));
  }
  int index = 0;
  int clamped = 0;
  for (const pugi::xml_node e : graph.children("edge")) {
    StatusOr<EdgeSpec> edge = read_edge(e, index++, *nodes, *resources, src);
    if (!edge.ok()) return edge.status();
    if (edge->distance > limits::kMaxDistance) {  // see hatschet.h: only tightens the edge
      edge->distance = limits::kMaxDistance;
      ++clamped;
    }
    b.edge(edge->from, edge->to, edge->latency, edge->distance, edge->kind);
  }

  StatusOr<Graph> g = b.build();
  if (!g.ok()) return bad(src, g.status().message());
  if (clamped > 0) g->name += "/clamped_distances=" + std::to_string(clamped);
  return g;
}

StatusOr<Graph> import_hatschet(const std::string& graphml_path, const std::string& rm_path) {
  StatusOr<std::string> graphml = read_file(graphml_path);
  if (!graphml.ok()) return graphml.status();
  StatusOr<std::string> rm = read_file(rm_path);
  if (!rm.ok()) return rm.status();
  const std::filesystem::path p(graphml_path);
  std::string dir = p.parent_path().filename().string();
  std::string name = "hatschet/" + (dir.empty() ? "" : dir + "/") + p.stem().string();
  return import_hatschet_text(*graphml, graphml_path, *rm, rm_path, std::move(name));
}

}  // namespace tilesched::graphgen
