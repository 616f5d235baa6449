// Resolving foreign schedulers (tilesched/foreign.h): the schedulers file's
// refusals, {dir}, and a whole call through the process route.
#include "tilesched/foreign.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tilesched/json_io.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

class ForeignFile : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("foreign_test." + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& text) {
    const std::string path = (dir_ / "schedulers.json").string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

std::string message_of(const StatusOr<ForeignScheduler>& s) {
  return s.ok() ? "" : s.status().message();
}

TEST_F(ForeignFile, RefusalsNameTheFileAndThePath) {
  const std::string head = R"({"format": "tilesched.schedulers/1", "schedulers": [)";
  struct Case {
    std::string entries, expect;
  };
  const Case cases[] = {
      {R"({"name": "x"})", "exactly one of"},
      {R"({"name": "x", "version": "1", "command": []})", "$.schedulers[0].command"},
      {R"({"name": "x y", "version": "1", "command": ["a"]})", "$.schedulers[0].name"},
      {R"({"name": "x", "command": ["a"]})", "version"},
      {R"({"name": "x", "version": "1", "command": ["a"], "time_limit_s": 0})", "time_limit_s"},
      {R"({"name": "x", "version": "1", "command": ["a"], "colour": 1})", "colour"},
      {R"({"name": "x", "version": "1", "command": ["a"]}, {"name": "x", "version": "2", "command": ["b"]})",
       "declared twice"},
      {R"({"name": "x", "version": "1", "plugin": "/p.so"})", "leave it out"},
  };
  for (const Case& c : cases) {
    const std::string path = write(head + c.entries + "]}");
    const std::string m = message_of(resolve_foreign("ext:x", path));
    EXPECT_NE(m.find(path), std::string::npos) << c.entries << ": " << m;
    EXPECT_NE(m.find(c.expect), std::string::npos) << c.entries << ": " << m;
  }
  const std::string path = write(head + R"({"name": "y", "version": "1", "command": ["a"]}]})");
  EXPECT_NE(message_of(resolve_foreign("ext:x", path)).find("declares no scheduler \"x\""),
            std::string::npos);
  EXPECT_NE(message_of(resolve_foreign("plugin:y", path)).find("use ext:y"), std::string::npos);
  EXPECT_FALSE(resolve_foreign("ext:", path).ok());
  EXPECT_FALSE(resolve_foreign("serial", path).ok());
}

TEST_F(ForeignFile, DirIsTheFilesDirectory) {
  const std::string path = write(R"({"format": "tilesched.schedulers/1", "schedulers": [
    {"name": "x", "version": "1", "command": ["{dir}/run", "--at={dir}"]}]})");
  StatusOr<ForeignScheduler> s = resolve_foreign("ext:x", path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->name, "ext:x");
  EXPECT_EQ(s->version, "1");
  EXPECT_EQ(s->command, (std::vector<std::string>{dir_.string() + "/run", "--at=" + dir_.string()}));
}

TEST_F(ForeignFile, AProgramRunsOverTheProtocol) {
  // A shell "scheduler": the serial answer of a one-op graph, via {graph}.
  const std::string path = write(R"({"format": "tilesched.schedulers/1", "schedulers": [
    {"name": "one", "version": "1", "command": ["/bin/sh", "-c",
     "test -s \"$0\" && cat >/dev/null && echo '{\"format\": \"tilesched.schedule/1\", \"ii\": 1, \"ops\": [{\"id\": \"a\", \"start\": 0}]}'",
     "{graph}"]}]})");
  StatusOr<Graph> g = parse_graph_json(R"({"format": "tilesched.loop/1", "name": "g",
    "target": {"name": "t", "slots": [{"name": "alu"}]},
    "ops": [{"id": "a", "kind": "generic", "resources": [{"slot": 1, "duration": 1}]}]})", "g");
  ASSERT_TRUE(g.ok()) << g.status().message();
  StatusOr<ForeignScheduler> s = resolve_foreign("ext:one", path);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const ForeignOutcome o = run_foreign(*s, *g, {});
  ASSERT_EQ(o.failure, ForeignFailure::kNone) << o.message;
  ASSERT_TRUE(o.schedule);
  EXPECT_EQ(o.schedule->ii, 1);
  EXPECT_EQ(o.schedule->generator, "ext:one");
  EXPECT_GT(o.wall_ns, 0);
  EXPECT_NE(foreign_request_json(*g, {}).find("\"format\":\"tilesched.request/1\""),
            std::string::npos);
}

}  // namespace
}  // namespace tilesched
