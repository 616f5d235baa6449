// The diagnostic lines the cost-based generator's phases leave in the
// schedule (seed 004 "Diagnostics"): why an II failed, which builder
// constraints were added or lifted. At most kMaxLines per schedule.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace tilesched::cost_based {

class Notes {
 public:
  static constexpr size_t kMaxLines = 8;

  void add(std::string line) {
    if (lines_.size() < kMaxLines) lines_.push_back(std::move(line));
  }
  std::vector<std::string>& lines() { return lines_; }

 private:
  std::vector<std::string> lines_;
};

}  // namespace tilesched::cost_based
