// The Blackwell slot model and pool vector (seeds 002 and 000), the registry of built-in targets (the Hopper target is
// built in hopper_target.cc) and inline generic targets. docs/TARGETS.md is the
// table of record: it says which number comes from which seed and which
// are this project's choices.
#include "tilesched/target.h"

#include <algorithm>
#include <cassert>


namespace tilesched {

namespace {

Slot seed_slot(const char* name, int64_t capacity = 1) { return {name, capacity, true}; }
Slot our_slot(const char* name, int64_t capacity = 1) { return {name, capacity, false}; }

// 24 one-based slots. Seed 002 fixes 11, 12, 15, 16 and 19 by name and the
// family counts (8 TMEM/SMEM banks, 4 WGMMA queue, 4 TMA descriptors,
// 4 named barriers, 4 cp.async queues); the rest is ours (docs/TARGETS.md).
std::vector<Slot> blackwell_slots() {
  return {
      our_slot("tmem_bank0"),   // 1
      our_slot("tmem_bank1"),   // 2
      our_slot("tmem_bank2"),   // 3
      our_slot("tmem_bank3"),   // 4
      our_slot("smem_bank0"),   // 5
      our_slot("smem_bank1"),   // 6
      our_slot("smem_bank2"),   // 7
      our_slot("smem_bank3"),   // 8
      our_slot("wgmma_queue0"), // 9  warpgroup MMA wait/commit queue
      our_slot("wgmma_queue1"), // 10
      seed_slot("tc_and_mma"),  // 11 tensor-core issue
      seed_slot("tma"),         // 12 TMA descriptor / issue
      our_slot("tma_store"),    // 13 TMA store descriptor
      our_slot("tma_reduce"),   // 14 TMA reduce / prefetch descriptor
      seed_slot("tp_smem_rd", 5),  // 15 SMEM read transport; capacity = pool 4
      seed_slot("tp_smem_wr"),  // 16 SMEM write transport
      our_slot("mbarrier"),     // 17 mbarrier arrive/wait unit
      our_slot("named_barrier"),// 18 bar.sync / bar.arrive unit
      seed_slot("tp_mma"),      // 19 MMA operand transport
      our_slot("tp_tmem"),      // 20 TMEM load/store transport (tcgen05.ld/st)
      our_slot("cp_async_q0"),  // 21
      our_slot("cp_async_q1"),  // 22
      our_slot("alu"),          // 23 CUDA-core issue (FMA/ALU), ours
      our_slot("sfu"),          // 24 MUFU (exp2) issue, ours
  };
}

// The 9-entry pool capacity vector. Seed entries: 1 TMEM = 4, 4 tp_smem_rd =
// 5, 5 SMEM bytes = 232448, 6 named barriers = 3. The others are ours.
std::vector<Pool> blackwell_pools() {
  return {
      {"cp_async_groups", PoolKind::kRate, 8, 0, false},      // 0
      {"tmem", PoolKind::kRate, 4, 0, true},                  // 1
      {"wgmma_groups", PoolKind::kRate, 4, 0, false},         // 2 in-flight wgmma groups
      {"tma_descriptors", PoolKind::kRate, 4, 0, false},      // 3
      {"tp_smem_rd", PoolKind::kSlot, 5, 15, true},           // 4 sizes slot 15
      {"smem_bytes", PoolKind::kStorage, 232448, 0, true},    // 5
      {"named_barriers", PoolKind::kRate, 3, 0, true},        // 6
      {"mbarriers", PoolKind::kRate, 16, 0, false},           // 7
      {"tmem_columns", PoolKind::kRate, 512, 0, false},       // 8 TMEM allocation columns
  };
}

// The bank model (seed 000's bank-pressure evaluator): TMEM/SMEM banks
// (1-8), the SMEM write and TMEM transports (16, 20) and the pooled SMEM
// read transport (15); in-iteration occupants capped by pool 1 (TMEM, 4),
// cross-iteration ones by pool 6 (named barriers, 3).
BankModel blackwell_bank_model() {
  BankModel m;
  for (int s = 1; s <= 8; ++s) m.singleton_slots |= slot_bit(s);
  m.singleton_slots |= slot_bit(16) | slot_bit(20);
  m.pooled_slots = slot_bit(15);
  m.in_iteration_pool = 1;
  m.cross_iteration_pool = 6;
  return m;
}

}  // namespace

OpKind generic_kind() {
  OpKind k;
  k.name = "generic";
  k.latency = 1;
  k.summary = "explicit latency, resources and pools";
  return k;
}

namespace {

// Register footprints (ours): an accumulator or TMEM tile 64, an SMEM
// read's fragment 32, ALU/SFU results 16; TMA, barriers, SMEM writes and
// MMAs into TMEM hold none.
int64_t blackwell_registers(std::string_view kind) {
  if (kind == "wgmma" || kind == "tmem_load") return 64;
  if (kind == "smem_read") return 32;
  if (kind == "alu" || kind == "exp") return 16;
  return 0;
}

// Appends one Blackwell kind: its encoding, the flags the rules read, and
// where it comes from.
void add_kind(std::vector<OpKind>& kinds, const char* name, int64_t latency,
              std::vector<Triple> res, std::vector<PoolUse> pools, bool async, bool tma,
              bool wgmma, bool from_seed, std::string_view summary) {
  OpKind k;
  k.name = name;
  k.latency = latency;
  k.resources = std::move(res);
  k.pools = std::move(pools);
  k.registers = blackwell_registers(name);
  k.async = async;
  k.tma = tma;
  k.wgmma = wgmma;
  const std::string_view n = name;
  k.waits = n == "mbarrier_wait" || n == "cp_async_wait" || n == "named_barrier";
  k.from_seed = from_seed;
  k.summary = summary;
  kinds.push_back(std::move(k));
}

std::vector<OpKind> blackwell_kinds() {
  std::vector<OpKind> kinds;
  // Seed 002's four concrete encodings. Latencies: TMA round trip 8 and
  // WGMMA accumulator 16 are the seed's; the SMEM pair's 7 equals their hold.
  add_kind(kinds, "tiled_tma_load", 8, {{12, 8, 1}, {16, 8, 1}}, {}, true, true, false, true,
      "TMA tiled load: descriptor on tma, payload on tp_smem_wr (seed 002)");
  add_kind(kinds, "wgmma", 16, {{11, 8, 1}, {19, 8, 1}}, {{1, 1}}, true, false, true, true,
      "WGMMA: 8-cycle issue window on tc_and_mma + tp_mma, TMEM pool (seed 002)");
  add_kind(kinds, "smem_write", 7, {{16, 7, 1}}, {}, false, false, false, true,
      "SMEM write on tp_smem_wr; store_bytes charge the SMEM budget (seed 002)");
  add_kind(kinds, "smem_read", 7, {{15, 7, 1}}, {}, false, false, false, true,
      "SMEM read on tp_smem_rd, pooled (capacity 5) (seed 002)");
  // Ours: the other kinds a Blackwell tile loop needs (docs/TARGETS.md).
  add_kind(kinds, "tma_store", 8, {{13, 8, 1}, {15, 8, 1}}, {{3, 1}}, true, true, false, false,
      "TMA store (epilogue): descriptor on tma_store, reads SMEM via tp_smem_rd");
  add_kind(kinds, "cp_async", 12, {{21, 4, 1}, {16, 4, 1}}, {{0, 1}}, true, false, false, false,
      "cp.async global->SMEM copy on a cp.async queue and tp_smem_wr");
  add_kind(kinds, "cp_async_wait", 1, {{21, 1, 1}}, {}, false, false, false, false,
      "cp.async.wait_group on the cp.async queue");
  add_kind(kinds, "tcgen05_mma", 16, {{11, 8, 1}, {19, 8, 1}}, {{1, 1}}, true, false, true, false,
      "Blackwell tcgen05.mma into TMEM (same issue window as wgmma)");
  add_kind(kinds, "tmem_load", 6, {{20, 4, 1}}, {{1, 1}}, true, false, false, false,
      "tcgen05.ld TMEM -> registers on tp_tmem");
  add_kind(kinds, "tmem_store", 4, {{20, 4, 1}}, {{1, 1}}, true, false, false, false,
      "tcgen05.st registers -> TMEM on tp_tmem");
  add_kind(kinds, "mbarrier_arrive", 1, {{17, 1, 1}}, {{7, 1}}, true, false, false, false,
      "mbarrier arrive (async transaction count)");
  add_kind(kinds, "mbarrier_wait", 1, {{17, 1, 1}}, {{7, 1}}, false, false, false, false,
      "mbarrier try_wait / phase wait");
  add_kind(kinds, "named_barrier", 2, {{18, 1, 1}}, {{6, 1}}, false, false, false, false,
      "bar.sync / bar.arrive on a named barrier");
  add_kind(kinds, "exp", 8, {{24, 4, 1}}, {}, false, false, false, false,
      "exp2 on the SFU (softmax), 4-cycle issue");
  add_kind(kinds, "alu", 4, {{23, 1, 1}}, {}, false, false, false, false,
      "FMA/ALU tile op on the CUDA cores");
  kinds.push_back(generic_kind());
  return kinds;
}

}  // namespace

bool BankModel::holds(const Target& target, const Triple& t) const {
  const uint64_t bits = target.slot(t.slot).capacity == 1 ? singleton_slots : pooled_slots;
  return (bits & slot_bit(t.slot)) != 0;
}

std::optional<int> Target::find_slot(std::string_view wanted) const {
  for (int s = 0; s < slot_count(); ++s) {
    if (slots[s].name == wanted) return s + 1;
  }
  return std::nullopt;
}

std::optional<int> Target::find_pool(std::string_view wanted) const {
  for (int p = 0; p < static_cast<int>(pools.size()); ++p) {
    if (pools[p].name == wanted) return p;
  }
  return std::nullopt;
}

const OpKind* Target::find_kind(std::string_view wanted) const {
  for (const OpKind& k : kinds) {
    if (k.name == wanted) return &k;
  }
  return nullptr;
}

std::optional<int> Target::storage_pool() const {
  for (int p = 0; p < static_cast<int>(pools.size()); ++p) {
    if (pools[p].kind == PoolKind::kStorage) return p;
  }
  return std::nullopt;
}

bool operator==(const Target& a, const Target& b) {
  // Kinds derive from the target's identity: builtin targets by name,
  // generic targets all share the single `generic` kind.
  return a.name == b.name && a.builtin == b.builtin && a.slots == b.slots &&
         a.pools == b.pools && a.register_budget == b.register_budget;
}

const Target& blackwell_target() {
  static const Target target = [] {
    Target t;
    t.name = "blackwell";
    t.builtin = true;
    t.slots = blackwell_slots();
    t.pools = blackwell_pools();
    t.kinds = blackwell_kinds();
    t.register_budget = 128;  // ours: registers per thread before spilling
    t.bank_model = blackwell_bank_model();
    return t;
  }();
  return target;
}

const Target* find_builtin_target(std::string_view wanted) {
  for (const Target* t : {&blackwell_target(), &hopper_target()}) {
    if (t->name == wanted) return t;
  }
  return nullptr;
}

std::string builtin_target_names() { return "blackwell, hopper"; }

Target make_generic_target(std::string name, std::vector<Slot> slots,
                           std::vector<Pool> pools, int64_t register_budget) {
  Target t;
  t.register_budget = register_budget;
  t.name = std::move(name);
  t.builtin = false;
  t.slots = std::move(slots);
  t.pools = std::move(pools);
  t.kinds.push_back(generic_kind());
  return t;
}

std::string_view pool_kind_name(PoolKind kind) {
  switch (kind) {
    case PoolKind::kRate: return "rate";
    case PoolKind::kStorage: return "storage";
    case PoolKind::kSlot: return "slot";
  }
  return "rate";
}

}  // namespace tilesched
