// The test seams (test_seams.h): unset, the default component size and no
// per-check cap.
#include "test_seams.h"

namespace tilesched::test_seams {

std::function<void(int64_t ii)> before_ii_attempt;
void (*between_checks)() = nullptr;
void (*build_poll)(const char* phase) = nullptr;
int min_component_ops = 8;
int64_t per_check_limit_ms = 0;
void (*loop_trips)(const char* loop, int64_t trips) = nullptr;
void (*loop_units)(const char* loop, int64_t units) = nullptr;

}  // namespace tilesched::test_seams
