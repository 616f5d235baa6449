// write_file_atomic on what an output path can be: a symbolic link (written
// through, the link kept), a FIFO, /dev/null, /dev/fd/N and a link into
// /proc (written in place, never replaced), a directory (refused, nothing
// left behind), a path whose directory is missing (named); and
// read_standard_input.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "tilesched/json_io.h"
#include "tilesched/limits.h"
#include "testing/test_files.h"

namespace tilesched {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  StatusOr<std::string> text = read_file(path);
  return text.ok() ? *text : "<unreadable: " + text.status().message() + ">";
}

TEST(FileIo, WritesThroughASymlinkAndKeepsIt) {
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  const std::string target = dir.path() + "/target.json";
  ASSERT_TRUE(write_file_atomic(target, "old").ok());
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  ASSERT_EQ(::symlink("target.json", (dir.path() + "/link.json").c_str()), 0);  // relative
  ASSERT_TRUE(write_file_atomic(dir.path() + "/link.json", "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir.path() + "/link.json"));
  EXPECT_EQ(Slurp(target), "new");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"link.json", "target.json"}));
}

TEST(FileIo, FollowsAChainOfLinksIntoAnotherDirectory) {
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(fs::create_directory(dir.path() + "/sub"));
  const std::string target = dir.path() + "/sub/real.json";
  ASSERT_TRUE(write_file_atomic(target, "old").ok());
  ASSERT_EQ(::symlink(target.c_str(), (dir.path() + "/a").c_str()), 0);  // absolute
  ASSERT_EQ(::symlink("a", (dir.path() + "/b").c_str()), 0);
  ASSERT_TRUE(write_file_atomic(dir.path() + "/b", "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir.path() + "/a"));
  EXPECT_TRUE(fs::is_symlink(dir.path() + "/b"));
  EXPECT_EQ(Slurp(target), "new");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"a", "b", "sub"}));
}

TEST(FileIo, ADanglingLinkGetsItsTargetCreated) {
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_EQ(::symlink("later.json", (dir.path() + "/link.json").c_str()), 0);
  ASSERT_TRUE(write_file_atomic(dir.path() + "/link.json", "made").ok());
  EXPECT_TRUE(fs::is_symlink(dir.path() + "/link.json"));
  EXPECT_EQ(Slurp(dir.path() + "/later.json"), "made");
}

TEST(FileIo, ALinkLoopIsRefused) {
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_EQ(::symlink("y", (dir.path() + "/x").c_str()), 0);
  ASSERT_EQ(::symlink("x", (dir.path() + "/y").c_str()), 0);
  Status s = write_file_atomic(dir.path() + "/x", "z");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), dir.path() + "/x: too many levels of symbolic links");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"x", "y"}));
}

TEST(FileIo, WritesAFifoInPlace) {
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  const std::string fifo = dir.path() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader opens the FIFO too, so the writer's open does not block forever.
  std::future<std::string> got = std::async(std::launch::async, [&] { return Slurp(fifo); });
  ASSERT_TRUE(write_file_atomic(fifo, "through the pipe").ok());
  EXPECT_EQ(got.get(), "through the pipe");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"pipe"});
}

TEST(FileIo, WritesDevNullInPlace) {
  // As root a regression would replace the system's /dev/null, so the test
  // writes a private node of the same device (1, 3) when it may make one;
  // without the right to, /dev/null itself cannot be replaced either.
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  std::string null_path = dir.path() + "/null";
  if (::mknod(null_path.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) null_path = "/dev/null";
  ASSERT_TRUE(write_file_atomic(null_path, "discarded").ok());
  struct stat st {};
  ASSERT_EQ(::lstat(null_path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(FileIo, WritesADescriptorAlias) {
  // /dev/fd/N writes descriptor N itself, here the write end of a pipe.
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  ASSERT_TRUE(write_file_atomic("/dev/fd/" + std::to_string(ends[1]), "via fd").ok());
  ASSERT_EQ(::close(ends[1]), 0);
  char buf[16] = {};
  EXPECT_EQ(::read(ends[0], buf, sizeof buf), 6);
  EXPECT_EQ(std::string(buf), "via fd");
  ::close(ends[0]);
}

TEST(FileIo, WritesALinkIntoProcInPlace) {
  // The link's target names a descriptor, not a file that can be replaced:
  // the file open there is truncated and written, the same inode.
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  const std::string file = dir.path() + "/open.txt";
  ASSERT_TRUE(write_file_atomic(file, "a longer old content").ok());
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  struct stat before {};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  const std::string link = dir.path() + "/via_proc";
  ASSERT_EQ(::symlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), link.c_str()), 0);
  ASSERT_TRUE(write_file_atomic(link, "new").ok());
  ::close(fd);
  struct stat after {};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(Slurp(file), "new");
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST(FileIo, RefusesADirectoryAndALinkToOne) {
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(fs::create_directory(dir.path() + "/sub"));
  ASSERT_EQ(::symlink("sub", (dir.path() + "/to_sub").c_str()), 0);
  for (const std::string& path : {dir.path() + "/sub", dir.path() + "/to_sub"}) {
    Status s = write_file_atomic(path, "x");
    EXPECT_EQ(s.code(), StatusCode::kIoError);
    EXPECT_EQ(s.message(), path + ": is a directory");
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"sub", "to_sub"}));
  EXPECT_TRUE(fs::is_empty(dir.path() + "/sub"));
}

TEST(FileIo, NamesAMissingDirectory) {
  TempDir dir("tilesched-io");
  ASSERT_FALSE(dir.path().empty());
  ASSERT_TRUE(write_file_atomic(dir.path() + "/file", "x").ok());
  const std::string missing = dir.path() + "/missing/deeper";
  Status s = write_file_atomic(missing + "/out.json", "x");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), missing + "/out.json: directory " + missing + " does not exist");
  // A file where the directory should be is named as what it is.
  const std::string file = dir.path() + "/file";
  s = write_file_atomic(file + "/out.json", "x");
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), file + "/out.json: " + file + " is not a directory");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"file"}));
}

TEST(FileIo, ReadsStandardInput) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const int saved = ::dup(STDIN_FILENO);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(ends[0], STDIN_FILENO), STDIN_FILENO);
  ::close(ends[0]);
  ASSERT_EQ(::write(ends[1], "from stdin", 10), 10);
  ::close(ends[1]);
  StatusOr<std::string> text = read_standard_input();
  ASSERT_EQ(::dup2(saved, STDIN_FILENO), STDIN_FILENO);
  ::close(saved);
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, "from stdin");
}

}  // namespace
}  // namespace tilesched
