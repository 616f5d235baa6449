// A plain main for the fuzz targets (fuzz/README.md): runs the target's
// LLVMFuzzerTestOneInput once on every file argument and on every regular
// file in every directory argument (sorted by name; dot files skipped), so
// the corpora and regressions replay under any compiler without libFuzzer.
// A broken check aborts, which fails the ctest test that runs it.
// With TILESCHED_REPLAY_SLOWEST=N in the environment it ends by listing the
// N slowest inputs and their times (where a fuzzer's time per input goes).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    if (fs::is_directory(arg)) {
      std::vector<fs::path> files;
      for (const fs::directory_entry& e : fs::directory_iterator(arg)) {
        if (e.is_regular_file() && e.path().filename().string().rfind('.', 0) != 0) {
          files.push_back(e.path());
        }
      }
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(arg)) {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  const char* slowest = std::getenv("TILESCHED_REPLAY_SLOWEST");
  std::vector<std::pair<double, std::string>> times;  // ms, input; only when asked
  for (const fs::path& p : inputs) {
    std::ifstream f(p, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (!f.good() && !f.eof()) {
      std::fprintf(stderr, "replay: %s: cannot read\n", p.c_str());
      return 2;
    }
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
    const auto t0 = std::chrono::steady_clock::now();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (slowest != nullptr) {
      times.emplace_back(std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - t0).count(), p.string());
    }
  }
  if (slowest != nullptr) {
    const size_t shown =
        std::min(times.size(), static_cast<size_t>(std::strtoul(slowest, nullptr, 10)));
    std::partial_sort(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(shown), times.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    double total = 0;
    for (const auto& t : times) total += t.first;
    std::printf("replay: %.1f ms in all; the %zu slowest inputs:\n", total, shown);
    for (size_t i = 0; i < shown; ++i) {
      std::printf("  %10.2f ms  %s\n", times[i].first, times[i].second.c_str());
    }
  }
  std::printf("replay: %zu inputs ran clean\n", inputs.size());
  return 0;
}
