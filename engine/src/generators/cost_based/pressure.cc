// The pressure evaluators' state (see pressure.h).
#include "pressure.h"

#include <algorithm>

namespace tilesched::cost_based {

Pressure::Pressure(const Context& ctx) : ctx_(ctx) {
  surcharges_.assign(ctx.g.op_count(), {});
  surcharge_total_.assign(ctx.g.op_count(), 0);
}

void Pressure::reset_bank(int64_t ii) {
  ii_ = ii;
  bank_windows_.assign(static_cast<size_t>(ii), 0);
  bank_total_.assign(static_cast<size_t>(ii), 0);
}

void Pressure::add_bank(OpId v, int64_t t, int64_t sign) {
  if (!ctx_.touches_bank[v]) return;
  const int64_t d = ctx_.bank_duration[v];
  for (int64_t c = t; c < t + d; ++c) {
    const int64_t window = c / ii_, row = c % ii_;
    const size_t at = static_cast<size_t>(window * ii_ + row);
    if (at >= bank_windows_.size()) bank_windows_.resize(static_cast<size_t>((window + 1) * ii_), 0);
    bank_windows_[at] += sign;
    bank_total_[row] += sign;
  }
}

int64_t Pressure::bank_in_iteration(int64_t c) const {
  const size_t at = static_cast<size_t>(c / ii_ * ii_ + c % ii_);
  return at < bank_windows_.size() ? bank_windows_[at] : 0;
}

int64_t Pressure::surcharge(OpId v, int64_t t) const {
  for (const auto& [at, amount] : surcharges_[v]) {
    if (at == t) return amount;
  }
  return 0;
}

void Pressure::add_surcharge(OpId v, int64_t t, int64_t amount) {
  amount = std::min(amount, kSpillSurchargeCap - surcharge_total_[v]);
  if (amount <= 0) return;
  surcharge_total_[v] += amount;
  for (auto& [at, value] : surcharges_[v]) {
    if (at == t) {
      value += amount;
      return;
    }
  }
  surcharges_[v].push_back({t, amount});
}

void Pressure::clear_surcharges() {
  for (auto& s : surcharges_) s.clear();
  std::fill(surcharge_total_.begin(), surcharge_total_.end(), 0);
}

}  // namespace tilesched::cost_based
