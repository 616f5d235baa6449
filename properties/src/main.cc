// Test main of properties_tests. Without RC_PARAMS the gate runs with a
// fixed RapidCheck seed, so CI is reproducible run to run; any RC_PARAMS
// (a nightly run, a replay) replaces it, and one without `seed=` draws a
// fresh random seed (printed as "Using configuration: seed=N").
#include <cstdlib>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  if (std::getenv("RC_PARAMS") == nullptr) setenv("RC_PARAMS", "seed=1", 0);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
