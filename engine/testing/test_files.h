// Test helpers shared by the engine's unit tests: a scratch directory,
// removed with everything in it when the helper goes, and the bundled
// example graphs.
#pragma once

#include <stdlib.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace tilesched {

class TempDir {
 public:
  // A fresh directory named `prefix`-XXXXXX in the system's temp directory.
  explicit TempDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    path_ = ::mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // The names in the directory, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::string path_;
};

#ifdef TILESCHED_EXAMPLES_DIR
// Every bundled example graph (engine/examples/*.loop.json), full paths in
// byte order. Fewer than kMinExamples is a test failure: a test looping over
// an empty or moved folder must not pass.
inline constexpr size_t kMinExamples = 7;
inline std::vector<std::string> example_files() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(TILESCHED_EXAMPLES_DIR, ec)) {
    if (entry.path().string().ends_with(".loop.json")) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_GE(files.size(), kMinExamples) << "examples in " << TILESCHED_EXAMPLES_DIR;
  return files;
}
#endif

}  // namespace tilesched
