// Buffers alive while a loop runs (ttgir_smem.h). The function is walked
// once in program order, giving each operation a position; a value's last
// use is the last position naming it; a memdesc view's uses are its
// buffer's. A buffer allocated before the loop whose last use is at or
// after the loop's start is alive during it -- Triton's allocator gives
// such buffers their own space, while buffers whose lives do not overlap
// (two loops' pipeline buffers) share theirs.
#include "ttgir_smem.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tilesched/limits.h"
#include "ttgir_ops.h"
#include "ttgir_types.h"

namespace tilesched::graphgen::ttgir {

namespace {

struct Walk {
  std::vector<const Operation*> order;  // pre-order: an op before the ops in its regions
  int64_t loop_begin = -1;              // the loop's position
};

Walk walk_function(const Operation& func, const Operation* loop) {
  Walk w;
  std::vector<const Operation*> stack = {&func};
  while (!stack.empty()) {
    const Operation* op = stack.back();
    stack.pop_back();
    if (op == loop) w.loop_begin = static_cast<int64_t>(w.order.size());
    w.order.push_back(op);
    std::vector<const Operation*> children;
    for (const Region& r : op->regions) {
      for (const Block& b : r.blocks) {
        for (const Operation& inner : b.ops) children.push_back(&inner);
      }
    }
    for (size_t k = children.size(); k-- > 0;) stack.push_back(children[k]);
  }
  return w;
}

// The buffer a value names: memdesc views followed to their source
// (memoized; a cycle, which SSA cannot have, stops the walk).
class Roots {
 public:
  explicit Roots(std::map<std::string, std::string, std::less<>> parent) : parent_(std::move(parent)) {}
  std::string of(const std::string& v) {
    std::vector<std::string> path;
    std::string cur = v, root;
    for (;;) {
      if (auto m = memo_.find(cur); m != memo_.end()) {
        root = m->second;
        break;
      }
      const auto p = parent_.find(cur);
      if (p == parent_.end() || path.size() > parent_.size()) {
        root = cur;
        break;
      }
      path.push_back(cur);
      cur = p->second;
    }
    for (const std::string& q : path) memo_[q] = root;
    return root;
  }

 private:
  std::map<std::string, std::string, std::less<>> parent_;
  std::map<std::string, std::string, std::less<>> memo_;
};

}  // namespace

StatusOr<int64_t> live_outside_smem(const LoopRef& loop, std::string_view source) {
  if (loop.func == nullptr) return int64_t{0};
  const Walk w = walk_function(*loop.func, loop.op);
  if (w.loop_begin < 0) return int64_t{0};
  std::map<std::string, int64_t, std::less<>> last_use;
  std::map<std::string, std::string, std::less<>> parent;
  for (size_t pos = 0; pos < w.order.size(); ++pos) {
    const Operation& op = *w.order[pos];
    const std::vector<Token>& t = op.tokens;
    for (size_t i = 0; i < t.size(); ++i) {
      const bool defined = i + 1 < t.size() && t[i + 1].is("=");
      if (t[i].kind != Tok::kValue || defined) continue;
      int64_t& last = last_use[std::string(t[i].text)];
      last = std::max(last, static_cast<int64_t>(pos));
    }
    if (op.name.rfind("ttg.memdesc_", 0) == 0 && !op.results.empty()) {
      const std::vector<std::string> from = operands_of(op);
      if (!from.empty()) parent.emplace(op.results.front(), from.front());
    }
  }
  Roots roots(std::move(parent));
  std::map<std::string, int64_t, std::less<>> end;  // buffer -> its last use, views included
  for (const auto& [value, pos] : last_use) {
    int64_t& e = end[roots.of(value)];
    e = std::max(e, pos);
  }
  int64_t bytes = 0;
  std::set<std::string, std::less<>> counted;
  for (int64_t pos = 0; pos < w.loop_begin; ++pos) {
    const Operation& def = *w.order[static_cast<size_t>(pos)];
    if (def.name != "ttg.local_alloc" || def.results.empty()) continue;
    const std::string& buffer = def.results.front();
    const auto e = end.find(buffer);
    if (e == end.end() || e->second < w.loop_begin || !counted.insert(buffer).second) continue;
    StatusOr<TypeSection> types = read_types(def, source);
    if (!types.ok()) return types.status();
    if (!types->results.empty()) bytes += types->results.front().data_bytes();
    bytes = std::min(bytes, limits::kMaxPoolCapacity);
  }
  return bytes;
}

}  // namespace tilesched::graphgen::ttgir
