// The test seams (test_seams.h): unset, and the default component size.
#include "test_seams.h"

namespace tilesched::test_seams {

std::function<void(int64_t ii)> before_ii_attempt;
void (*between_checks)() = nullptr;
void (*build_poll)(const char* phase) = nullptr;
int min_component_ops = 8;

}  // namespace tilesched::test_seams
