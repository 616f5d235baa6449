// Reading and writing loop graphs in tilesched.loop/1 (docs/FORMATS.md is
// the field-by-field reference). The reader checks every
// field where it stands, so each message names the JSON path of the
// offending value, then hands the whole graph to validate_graph for the
// checks that need all of it (zero-distance cycles, the storage budget).
// The writer leaves out whatever equals its default, and parse(write(g))
// gives g back.
#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include "json_reader.h"
#include "tilesched/agents.h"
#include "tilesched/json_io.h"
#include "tilesched/limits.h"
#include "tilesched/validate.h"
#include "util/text.h"

namespace tilesched {

namespace {

using jsonio::Cursor;
using jsonio::Fields;
using jsonio::Json;
using text::quote;

constexpr std::string_view kTopFields[] = {"format", "name", "target", "attrs", "ops", "edges"};
constexpr std::string_view kTargetFields[] = {"name", "slots", "pools", "register_budget"};
constexpr std::string_view kSlotFields[] = {"name", "capacity"};
constexpr std::string_view kPoolFields[] = {"name", "kind", "capacity"};
constexpr std::string_view kAttrFields[] = {"force_serial_execution", "triton_num_stages",
                                            "resident_smem_bytes", "num_warps",
                                            "mma_element_bits"};
constexpr std::string_view kOpFields[] = {
    "id",        "kind",      "latency", "resources", "pools",        "store_bytes",   "gid",
    "leader_gid", "max_depth", "registers", "agent",   "source_op", "source_position",
    "triton_stage", "triton_cluster"};
constexpr std::string_view kTripleFields[] = {"slot", "duration", "occupancy"};
constexpr std::string_view kEdgeFields[] = {"from", "to", "latency", "distance", "kind"};

constexpr size_t kMaxName = static_cast<size_t>(limits::kMaxNameLength);

std::string slot_label(const Target& t, int slot) {
  return "slot " + std::to_string(slot) + " (" + t.slot(slot).name + ")";
}

// ---- target ---------------------------------------------------------------

StatusOr<Slot> read_slot_decl(const Cursor& c) {
  TS_ASSIGN_OR_RETURN(Fields f, Fields::open(c, kSlotFields));
  Slot s;
  TS_ASSIGN_OR_RETURN(s.name, f.required_string("name", 1, kMaxName));
  TS_ASSIGN_OR_RETURN(s.capacity, f.integer_or("capacity", 1, limits::kMaxSlotCapacity, 1));
  return s;
}

StatusOr<Pool> read_pool_decl(const Cursor& c) {
  TS_ASSIGN_OR_RETURN(Fields f, Fields::open(c, kPoolFields));
  Pool p;
  TS_ASSIGN_OR_RETURN(p.name, f.required_string("name", 1, kMaxName));
  TS_ASSIGN_OR_RETURN(Cursor kind, f.required("kind"));
  TS_ASSIGN_OR_RETURN(std::string kind_name, kind.string(0, kMaxName));
  if (kind_name == "rate") {
    p.kind = PoolKind::kRate;
  } else if (kind_name == "storage") {
    p.kind = PoolKind::kStorage;
  } else {
    return kind.error("expected \"rate\" or \"storage\", got " + quote(kind_name));
  }
  TS_ASSIGN_OR_RETURN(p.capacity, f.required_integer("capacity", 1, limits::kMaxPoolCapacity));
  return p;
}

// An inline generic target: {"name", "slots": [...], "pools": [...]}.
StatusOr<Target> read_generic_target(const Cursor& c) {
  TS_ASSIGN_OR_RETURN(Fields f, Fields::open(c, kTargetFields));
  TS_ASSIGN_OR_RETURN(std::string name, f.required_string("name", 1, kMaxName));

  TS_ASSIGN_OR_RETURN(Cursor slots_c, f.required("slots"));
  TS_ASSIGN_OR_RETURN(size_t n_slots, slots_c.array(limits::kMaxSlots, "slots"));
  if (n_slots == 0) return slots_c.error("a target needs at least one slot");
  std::vector<Slot> slots;
  for (size_t i = 0; i < n_slots; ++i) {
    const Cursor e = slots_c.element(i);
    TS_ASSIGN_OR_RETURN(Slot s, read_slot_decl(e));
    for (size_t j = 0; j < slots.size(); ++j) {
      if (slots[j].name == s.name) {
        return e.member("name").error("duplicate slot name " + quote(s.name) + " (first at " +
                                      slots_c.element(j).path() + ")");
      }
    }
    slots.push_back(std::move(s));
  }

  std::vector<Pool> pools;
  if (std::optional<Cursor> pools_c = f.optional("pools")) {
    TS_ASSIGN_OR_RETURN(size_t n_pools, pools_c->array(limits::kMaxPools, "pools"));
    for (size_t i = 0; i < n_pools; ++i) {
      const Cursor e = pools_c->element(i);
      TS_ASSIGN_OR_RETURN(Pool p, read_pool_decl(e));
      for (size_t j = 0; j < pools.size(); ++j) {
        if (pools[j].name == p.name) {
          return e.member("name").error("duplicate pool name " + quote(p.name) + " (first at " +
                                        pools_c->element(j).path() + ")");
        }
        if (pools[j].kind == PoolKind::kStorage && p.kind == PoolKind::kStorage) {
          return e.member("kind").error("a target has at most one storage pool (first at " +
                                        pools_c->element(j).path() + ")");
        }
      }
      pools.push_back(std::move(p));
    }
  }
  TS_ASSIGN_OR_RETURN(int64_t register_budget,
                      f.integer_or("register_budget", 0, limits::kMaxRegisters, 0));
  return make_generic_target(std::move(name), std::move(slots), std::move(pools),
                             register_budget);
}

StatusOr<Target> read_target(const Cursor& c) {
  if (c.value().is_string()) {
    TS_ASSIGN_OR_RETURN(std::string name, c.string(0, SIZE_MAX));
    if (const Target* builtin = find_builtin_target(name)) return *builtin;
    return c.error("unknown target " + quote(name) + " (expected one of " +
                   builtin_target_names() + ", or an inline target object)");
  }
  if (!c.value().is_object()) {
    return c.type_error("\"blackwell\", \"hopper\" or an inline target object");
  }
  return read_generic_target(c);
}

// ---- ops and edges --------------------------------------------------------

class GraphReader {
 public:
  StatusOr<Graph> read(const Cursor& root);

 private:
  Status read_op(const Cursor& c);
  static Status read_source_fields(const Fields& f, Op& op);
  Status read_resources(const Cursor& c, Op& op) const;
  StatusOr<int> read_slot_ref(const Cursor& c) const;
  Status read_pools(const Cursor& c, Op& op) const;
  Status read_edge(const Cursor& c);
  StatusOr<OpId> read_endpoint(const Fields& f, std::string_view key) const;

  Graph g_;
  std::map<std::string, OpId, std::less<>> ids_;  // JSON op id -> OpId
};

StatusOr<Graph> GraphReader::read(const Cursor& root) {
  TS_RETURN_IF_ERROR(jsonio::check_format(root, kLoopFormat));
  TS_ASSIGN_OR_RETURN(Fields top, Fields::open(root, kTopFields));
  TS_ASSIGN_OR_RETURN(g_.name, top.string_or("name", 0, kMaxName, "graph"));
  TS_ASSIGN_OR_RETURN(Cursor target_c, top.required("target"));
  TS_ASSIGN_OR_RETURN(g_.target, read_target(target_c));

  if (std::optional<Cursor> attrs_c = top.optional("attrs")) {
    TS_ASSIGN_OR_RETURN(Fields attrs, Fields::open(*attrs_c, kAttrFields));
    TS_ASSIGN_OR_RETURN(g_.attrs.force_serial_execution,
                        attrs.boolean_or("force_serial_execution", false));
    TS_ASSIGN_OR_RETURN(g_.attrs.triton_num_stages,
                        attrs.optional_integer("triton_num_stages", 0, limits::kMaxMaxDepth));
    TS_ASSIGN_OR_RETURN(g_.attrs.resident_smem_bytes,
                        attrs.optional_integer("resident_smem_bytes", 0, limits::kMaxPoolCapacity));
    TS_ASSIGN_OR_RETURN(g_.attrs.num_warps, attrs.optional_integer("num_warps", 1, limits::kMaxWarps));
    TS_ASSIGN_OR_RETURN(g_.attrs.mma_element_bits,
                        attrs.optional_integer("mma_element_bits", 1, limits::kMaxElementBits));
  }

  TS_ASSIGN_OR_RETURN(Cursor ops_c, top.required("ops"));
  TS_ASSIGN_OR_RETURN(size_t n_ops, ops_c.array(limits::kMaxOps, "ops"));
  if (n_ops == 0) return ops_c.error("a graph needs at least one op");
  g_.ops.reserve(n_ops);
  for (size_t i = 0; i < n_ops; ++i) TS_RETURN_IF_ERROR(read_op(ops_c.element(i)));

  if (std::optional<Cursor> edges_c = top.optional("edges")) {
    TS_ASSIGN_OR_RETURN(size_t n_edges, edges_c->array(limits::kMaxEdges, "edges"));
    g_.edges.reserve(n_edges);
    for (size_t i = 0; i < n_edges; ++i) TS_RETURN_IF_ERROR(read_edge(edges_c->element(i)));
  }

  TS_RETURN_IF_ERROR(validate_graph(g_));
  return std::move(g_);
}

Status GraphReader::read_op(const Cursor& c) {
  TS_ASSIGN_OR_RETURN(Fields f, Fields::open(c, kOpFields));
  const Target& t = g_.target;
  Op op;

  TS_ASSIGN_OR_RETURN(Cursor id_c, f.required("id"));
  TS_ASSIGN_OR_RETURN(op.name, id_c.string(1, kMaxName));
  if (auto seen = ids_.find(op.name); seen != ids_.end()) {
    return id_c.error("duplicate op id " + quote(op.name) + " (first at $.ops[" +
                      std::to_string(seen->second) + "])");
  }

  TS_ASSIGN_OR_RETURN(Cursor kind_c, f.required("kind"));
  TS_ASSIGN_OR_RETURN(op.kind, kind_c.string(1, kMaxName));
  if (t.find_kind(op.kind) == nullptr) {
    if (!t.builtin) {
      return kind_c.error("unknown kind " + quote(op.kind) + ": an inline target " + quote(t.name) +
                          " has only the kind \"generic\"");
    }
    std::string known;
    for (const OpKind& k : t.kinds) known += (known.empty() ? "" : ", ") + k.name;
    return kind_c.error("unknown kind " + quote(op.kind) + " for target " + t.name +
                        " (kinds: " + known + ")");
  }
  apply_kind_defaults(t, op);

  TS_ASSIGN_OR_RETURN(op.latency, f.integer_or("latency", 0, limits::kMaxLatency, op.latency));
  if (std::optional<Cursor> r = f.optional("resources")) TS_RETURN_IF_ERROR(read_resources(*r, op));
  if (std::optional<Cursor> p = f.optional("pools")) TS_RETURN_IF_ERROR(read_pools(*p, op));

  TS_ASSIGN_OR_RETURN(op.store_bytes, f.integer_or("store_bytes", 0, limits::kMaxPoolCapacity, 0));
  if (op.store_bytes > 0 && !t.storage_pool()) {
    return c.member("store_bytes")
        .error("target " + quote(t.name) + " has no storage pool for store_bytes to charge");
  }
  TS_ASSIGN_OR_RETURN(op.gid, f.optional_integer("gid", 0, limits::kMaxGroupId));
  TS_ASSIGN_OR_RETURN(op.leader_gid, f.optional_integer("leader_gid", 0, limits::kMaxGroupId));
  TS_ASSIGN_OR_RETURN(op.max_depth, f.optional_integer("max_depth", 0, limits::kMaxMaxDepth));
  TS_ASSIGN_OR_RETURN(op.registers,
                      f.integer_or("registers", 0, limits::kMaxRegisters, op.registers));
  if (std::optional<Cursor> a = f.optional("agent")) {
    TS_ASSIGN_OR_RETURN(std::string agent, a->string(1, kMaxName));
    if (!valid_agent_name(agent)) {
      return a->error("agent " + quote(agent) +
                      " is not a name of 1..64 characters from [A-Za-z0-9_] not starting with a digit");
    }
    op.agent = std::move(agent);
  }
  TS_RETURN_IF_ERROR(read_source_fields(f, op));

  const OpId id = g_.op_count();
  ids_.emplace(op.name, id);
  g_.ops.push_back(std::move(op));
  return Status::Ok();
}

// source_op, source_position, triton_stage, triton_cluster: where an
// imported op came from.
Status GraphReader::read_source_fields(const Fields& f, Op& op) {
  if (std::optional<Cursor> s = f.optional("source_op")) {
    TS_ASSIGN_OR_RETURN(std::string name, s->string(1, kMaxName));
    op.source_op = std::move(name);
  }
  TS_ASSIGN_OR_RETURN(op.source_position,
                      f.optional_integer("source_position", 0, limits::kMaxSourcePosition));
  TS_ASSIGN_OR_RETURN(op.triton_stage, f.optional_integer("triton_stage", 0, limits::kMaxMaxDepth));
  TS_ASSIGN_OR_RETURN(op.triton_cluster,
                      f.optional_integer("triton_cluster", 0, limits::kMaxMaxDepth));
  return Status::Ok();
}

StatusOr<int> GraphReader::read_slot_ref(const Cursor& c) const {
  const Target& t = g_.target;
  if (c.value().is_string()) {
    TS_ASSIGN_OR_RETURN(std::string name, c.string(0, SIZE_MAX));
    std::optional<int> slot = t.find_slot(name);
    if (!slot) return c.error("unknown slot " + quote(name) + " on target " + quote(t.name));
    return *slot;
  }
  if (!c.value().is_number()) return c.type_error("a slot number or slot name");
  TS_ASSIGN_OR_RETURN(int64_t slot, c.integer(1, t.slot_count()));
  return static_cast<int>(slot);
}

// "resources": [{"slot", "duration", "occupancy"}...] replaces the kind's.
Status GraphReader::read_resources(const Cursor& c, Op& op) const {
  const Target& t = g_.target;
  TS_ASSIGN_OR_RETURN(size_t n, c.array(limits::kMaxTriplesPerOp, "resource triples"));
  op.resources.clear();
  for (size_t i = 0; i < n; ++i) {
    const Cursor e = c.element(i);
    TS_ASSIGN_OR_RETURN(Fields f, Fields::open(e, kTripleFields));
    Triple tr;
    TS_ASSIGN_OR_RETURN(Cursor slot_c, f.required("slot"));
    TS_ASSIGN_OR_RETURN(tr.slot, read_slot_ref(slot_c));
    for (size_t j = 0; j < op.resources.size(); ++j) {
      if (op.resources[j].slot == tr.slot) {
        return slot_c.error(slot_label(t, tr.slot) + " is already used by " + c.element(j).path() +
                            " (one triple per slot)");
      }
    }
    TS_ASSIGN_OR_RETURN(tr.duration, f.required_integer("duration", 1, limits::kMaxDuration));
    TS_ASSIGN_OR_RETURN(tr.occupancy, f.integer_or("occupancy", 1, limits::kMaxSlotCapacity, 1));
    const int64_t capacity = t.slot(tr.slot).capacity;
    if (tr.occupancy > capacity) {
      return e.member("occupancy")
          .error("occupancy " + std::to_string(tr.occupancy) + " is more than the capacity " +
                 std::to_string(capacity) + " of " + slot_label(t, tr.slot));
    }
    op.resources.push_back(tr);
  }
  return Status::Ok();
}

// "pools": {"name": count, ...} replaces the kind's; rate pools only.
Status GraphReader::read_pools(const Cursor& c, Op& op) const {
  const Target& t = g_.target;
  TS_RETURN_IF_ERROR(c.expect_object());
  op.pools.clear();
  for (auto it = c.value().begin(); it != c.value().end(); ++it) {
    const Cursor e(it.value(), jsonio::member_path(c.path(), it.key()));
    std::optional<int> index = t.find_pool(it.key());
    if (!index) return e.error("unknown pool " + quote(it.key()) + " on target " + quote(t.name));
    const Pool& pool = t.pools[*index];
    if (pool.kind == PoolKind::kStorage) {
      return e.error("pool " + quote(pool.name) +
                     " is a storage pool: give the op's bytes as \"store_bytes\" instead");
    }
    if (pool.kind == PoolKind::kSlot) {
      return e.error("pool " + quote(pool.name) + " is the capacity of " +
                     slot_label(t, pool.bound_slot) +
                     ": give \"occupancy\" on that slot's resource triple instead");
    }
    TS_ASSIGN_OR_RETURN(int64_t count, e.integer(1, limits::kMaxPoolCapacity));
    if (count > pool.capacity) {
      return e.error("count " + std::to_string(count) + " is more than the capacity " +
                     std::to_string(pool.capacity) + " of pool " + quote(pool.name));
    }
    op.pools.push_back(PoolUse{*index, count});
  }
  std::sort(op.pools.begin(), op.pools.end(),
            [](const PoolUse& a, const PoolUse& b) { return a.pool < b.pool; });
  return Status::Ok();
}

StatusOr<OpId> GraphReader::read_endpoint(const Fields& f, std::string_view key) const {
  TS_ASSIGN_OR_RETURN(Cursor c, f.required(key));
  TS_ASSIGN_OR_RETURN(std::string name, c.string(1, kMaxName));
  auto it = ids_.find(name);
  if (it == ids_.end()) return c.error("unknown op id " + quote(name));
  return it->second;
}

Status GraphReader::read_edge(const Cursor& c) {
  TS_ASSIGN_OR_RETURN(Fields f, Fields::open(c, kEdgeFields));
  Edge e;
  TS_ASSIGN_OR_RETURN(e.from, read_endpoint(f, "from"));
  TS_ASSIGN_OR_RETURN(e.to, read_endpoint(f, "to"));
  TS_ASSIGN_OR_RETURN(e.latency,
                      f.integer_or("latency", 0, limits::kMaxLatency, g_.ops[e.from].latency));
  TS_ASSIGN_OR_RETURN(e.distance, f.integer_or("distance", 0, limits::kMaxDistance, 0));
  if (std::optional<Cursor> kind_c = f.optional("kind")) {
    TS_ASSIGN_OR_RETURN(std::string kind, kind_c->string(0, kMaxName));
    if (kind == "data") {
      e.kind = EdgeKind::kData;
    } else if (kind == "order") {
      e.kind = EdgeKind::kOrder;
    } else {
      return kind_c->error("expected \"data\" or \"order\", got " + quote(kind));
    }
  }
  g_.edges.push_back(e);
  return Status::Ok();
}

// ---- writer ---------------------------------------------------------------

Json target_json(const Target& t) {
  if (t.builtin) return t.name;
  Json slots = Json::array();
  for (const Slot& s : t.slots) slots.push_back(Json{{"name", s.name}, {"capacity", s.capacity}});
  Json out = Json::object();
  out["name"] = t.name;
  out["slots"] = std::move(slots);
  if (!t.pools.empty()) {
    Json pools = Json::array();
    for (const Pool& p : t.pools) {
      pools.push_back(Json{{"name", p.name},
                           {"kind", std::string(pool_kind_name(p.kind))},
                           {"capacity", p.capacity}});
    }
    out["pools"] = std::move(pools);
  }
  if (t.register_budget != 0) out["register_budget"] = t.register_budget;
  return out;
}

std::string pool_name(const Target& t, int pool) {
  if (pool >= 0 && pool < static_cast<int>(t.pools.size())) return t.pools[pool].name;
  return std::to_string(pool);
}

}  // namespace

StatusOr<Graph> parse_graph_json(std::string_view text, std::string_view source) {
  return jsonio::read_document<Graph>(text, source,
                                      [](const Cursor& root) { return GraphReader().read(root); });
}

StatusOr<Graph> read_graph_file(const std::string& path) {
  StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return text.status();
  return parse_graph_json(*text, path);
}

namespace {

// The text writers of the ops and edges, one line each as format_document
// writes an object inside an array of objects (", " and ": " separators),
// without building a Json per op and edge: the sweep hashes every graph it
// runs through write_graph_json. The text is the one the Json writer gave
// (families_test.cc's golden hashes, the sweeps' graph_hash columns).
using namespace std::string_view_literals;

class InlineObject {
 public:
  explicit InlineObject(std::string& out) : out_(out) { out_ += '{'; }
  ~InlineObject() { out_ += '}'; }
  InlineObject(const InlineObject&) = delete;
  InlineObject& operator=(const InlineObject&) = delete;
  std::string& key(std::string_view k) {
    if (!first_) out_ += ", "sv;
    first_ = false;
    jsonio::append_string(k, out_);
    out_ += ": "sv;
    return out_;
  }
  void integer(std::string_view k, int64_t v) {
    char buf[24];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    key(k).append(buf, end);
  }
  void string(std::string_view k, std::string_view v) { jsonio::append_string(v, key(k)); }

 private:
  std::string& out_;
  bool first_ = true;
};

void append_op(const Target& t, const Op& op, std::string& out) {
  const OpKind* kind = t.find_kind(op.kind);
  InlineObject o(out);
  o.string("id", op.name);
  o.string("kind", op.kind);
  if (kind == nullptr || op.latency != kind->latency) o.integer("latency", op.latency);
  if (kind == nullptr || op.resources != kind->resources) {
    std::string& res = o.key("resources");
    res += '[';
    for (size_t i = 0; i < op.resources.size(); ++i) {
      if (i > 0) res += ", "sv;
      InlineObject tr(res);
      tr.integer("slot", op.resources[i].slot);
      tr.integer("duration", op.resources[i].duration);
      tr.integer("occupancy", op.resources[i].occupancy);
    }
    res += ']';
  }
  if (kind == nullptr || op.pools != kind->pools) {
    // A name given twice keeps its first place and its last count, as a
    // Json object's operator[] does.
    std::vector<std::pair<std::string, int64_t>> uses;
    for (const PoolUse& p : op.pools) {
      const std::string name = pool_name(t, p.pool);
      auto it = std::find_if(uses.begin(), uses.end(),
                             [&](const auto& u) { return u.first == name; });
      if (it == uses.end()) {
        uses.emplace_back(name, p.count);
      } else {
        it->second = p.count;
      }
    }
    InlineObject pools(o.key("pools"));
    for (const auto& [name, count] : uses) pools.integer(name, count);
  }
  if (op.store_bytes != 0) o.integer("store_bytes", op.store_bytes);
  if (op.gid) o.integer("gid", *op.gid);
  if (op.leader_gid) o.integer("leader_gid", *op.leader_gid);
  if (op.max_depth) o.integer("max_depth", *op.max_depth);
  if (kind == nullptr || op.registers != kind->registers) o.integer("registers", op.registers);
  if (op.agent) o.string("agent", *op.agent);
  if (op.source_op) o.string("source_op", *op.source_op);
  if (op.source_position) o.integer("source_position", *op.source_position);
  if (op.triton_stage) o.integer("triton_stage", *op.triton_stage);
  if (op.triton_cluster) o.integer("triton_cluster", *op.triton_cluster);
}

void append_edge(const Graph& g, const Edge& e, std::string& out) {
  auto valid = [&](OpId v) { return v >= 0 && v < g.op_count(); };
  InlineObject o(out);
  if (valid(e.from)) {
    o.string("from", g.ops[e.from].name);
  } else {
    o.integer("from", e.from);
  }
  if (valid(e.to)) {
    o.string("to", g.ops[e.to].name);
  } else {
    o.integer("to", e.to);
  }
  if (!valid(e.from) || e.latency != g.ops[e.from].latency) o.integer("latency", e.latency);
  if (e.distance != 0) o.integer("distance", e.distance);
  if (e.kind == EdgeKind::kOrder) o.string("kind", "order");
}

// `items` as format_document lays out an array of objects, one per line.
template <typename Item, typename Write>
void append_lines(const std::vector<Item>& items, Write write, std::string& out) {
  if (items.empty()) {
    out += "[]"sv;
    return;
  }
  out += "[\n"sv;
  for (size_t i = 0; i < items.size(); ++i) {
    out += "    "sv;
    write(items[i], out);
    if (i + 1 < items.size()) out += ',';
    out += '\n';
  }
  out += "  ]"sv;
}

}  // namespace

std::string write_graph_json(const Graph& g) {
  std::string out;
  append_graph_json(g, g.name, out);
  return out;
}

void append_graph_json(const Graph& g, std::string_view name, std::string& out) {
  out += "{\n"sv;
  auto member = [&](std::string_view key) {
    out += "  "sv;
    const size_t start = out.size();
    jsonio::append_string(key, out);
    out += ": "sv;
    return 2 + (out.size() - start);  // the value's column
  };
  auto value = [&](std::string_view key, const Json& v) {
    const size_t column = member(key);
    jsonio::append_member_value(v, 2, column, out);
    out += ",\n"sv;
  };
  value("format", Json(std::string(kLoopFormat)));
  value("name", Json(std::string(name)));
  value("target", target_json(g.target));
  if (g.attrs != GraphAttrs{}) {
    Json attrs = Json::object();
    if (g.attrs.force_serial_execution) attrs["force_serial_execution"] = true;
    if (g.attrs.triton_num_stages) attrs["triton_num_stages"] = *g.attrs.triton_num_stages;
    if (g.attrs.resident_smem_bytes) attrs["resident_smem_bytes"] = *g.attrs.resident_smem_bytes;
    if (g.attrs.num_warps) attrs["num_warps"] = *g.attrs.num_warps;
    if (g.attrs.mma_element_bits) attrs["mma_element_bits"] = *g.attrs.mma_element_bits;
    value("attrs", attrs);
  }
  member("ops");
  append_lines(g.ops, [&](const Op& op, std::string& o) { append_op(g.target, op, o); }, out);
  out += ",\n"sv;
  member("edges");
  append_lines(g.edges, [&](const Edge& e, std::string& o) { append_edge(g, e, o); }, out);
  out += "\n}\n"sv;
}

}  // namespace tilesched
