// OutputFiles / write_file_atomically: a batch is staged to temporaries beside the final
// paths and renamed into place only on commit; nothing half-written is ever visible.
#include "symbolite/support/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/test_support/error_from.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite {
namespace {

namespace fs = std::filesystem;
using testing::error_from;
using testing::ScratchDir;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& entry : fs::directory_iterator(dir)) out.insert(entry.path().filename());
  return out;
}

TEST(WriteFileAtomically, WritesAndReplacesLeavingNoTemporary) {
  ScratchDir dir;
  std::string path = dir.file("result.json");
  write_file_atomically(path, std::string_view("first"));
  EXPECT_EQ(read(path), "first");
  const std::uint8_t bytes[] = {0, 1, 2};
  write_file_atomically(path, std::span<const std::uint8_t>(bytes));
  EXPECT_EQ(read(path), std::string("\0\1\2", 3));
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"result.json"});
}

TEST(WriteFileAtomically, ReplacesASymlinkInsteadOfWritingThroughIt) {
  ScratchDir dir;
  std::ofstream(dir.file("victim")) << "keep me";
  fs::create_symlink(dir.file("victim"), dir.file("out.txt"));
  write_file_atomically(dir.file("out.txt"), std::string_view("new"));
  EXPECT_FALSE(fs::is_symlink(dir.file("out.txt")));
  EXPECT_EQ(read(dir.file("out.txt")), "new");
  EXPECT_EQ(read(dir.file("victim")), "keep me");
}

TEST(WriteFileAtomically, FilesGetTheUsualPermissions) {
  ScratchDir dir;
  mode_t previous = ::umask(022);
  write_file_atomically(dir.file("a"), std::string_view("x"));
  ::umask(077);
  write_file_atomically(dir.file("b"), std::string_view("x"));
  ::umask(previous);
  struct stat st {};
  ASSERT_EQ(::stat(dir.file("a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  ASSERT_EQ(::stat(dir.file("b").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(WriteFileAtomically, AMissingDirectoryIsAnIoErrorNamingThePath) {
  ScratchDir dir;
  std::string path = dir.file("no/such/dir/out.json");
  Error e = error_from([&] { write_file_atomically(path, std::string_view("x")); });
  EXPECT_EQ(e.kind(), ErrorKind::kIo);
  EXPECT_EQ(e.message(), path + ": cannot write: " + std::strerror(ENOENT));
}

TEST(OutputFiles, NothingIsVisibleBeforeCommitThenEverything) {
  ScratchDir dir;
  std::ofstream(dir.file("b.txt")) << "old b";
  OutputFiles files;
  files.stage(dir.file("a.txt"), std::string_view("A"));
  files.stage(dir.file("b.txt"), std::string_view("B"));
  EXPECT_EQ(files.paths(), (std::vector<std::string>{dir.file("a.txt"), dir.file("b.txt")}));
  EXPECT_FALSE(fs::exists(dir.file("a.txt")));
  EXPECT_EQ(read(dir.file("b.txt")), "old b");
  files.commit();
  EXPECT_EQ(read(dir.file("a.txt")), "A");
  EXPECT_EQ(read(dir.file("b.txt")), "B");
  EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"a.txt", "b.txt"}));
  EXPECT_TRUE(files.paths().empty());
}

TEST(OutputFiles, AnUncommittedBatchLeavesNothingBehind) {
  ScratchDir dir;
  std::ofstream(dir.file("b.txt")) << "old b";
  {
    OutputFiles files;
    files.stage(dir.file("a.txt"), std::string_view("A"));
    files.stage(dir.file("b.txt"), std::string_view("B"));
    std::string temp = files.stage_empty(dir.file("c.txt"));
    EXPECT_TRUE(fs::exists(temp));
    EXPECT_EQ(names_in(dir.path()).size(), 4u);
  }
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"b.txt"});
  EXPECT_EQ(read(dir.file("b.txt")), "old b");
}

TEST(OutputFiles, StageEmptyGivesAHiddenTemporaryBesideThePath) {
  ScratchDir dir;
  OutputFiles files;
  std::string temp = files.stage_empty(dir.file("trace.json"));
  EXPECT_EQ(fs::path(temp).parent_path(), dir.path());
  EXPECT_EQ(fs::path(temp).filename().string().rfind(".trace.json.", 0), 0u) << temp;
  EXPECT_EQ(fs::file_size(temp), 0u);
  std::ofstream(temp) << "written by someone else";
  files.commit();
  EXPECT_EQ(read(dir.file("trace.json")), "written by someone else");
  EXPECT_FALSE(fs::exists(temp));
}

TEST(OutputFiles, ADirectoryInTheWayRefusesTheWholeBatch) {
  ScratchDir dir;
  fs::create_directory(dir.file("b.txt"));
  {
    OutputFiles files;
    files.stage(dir.file("a.txt"), std::string_view("A"));
    files.stage(dir.file("b.txt"), std::string_view("B"));
    Error e = error_from([&] { files.commit(); });
    EXPECT_EQ(e.kind(), ErrorKind::kIo);
    EXPECT_EQ(e.message(), dir.file("b.txt") + ": cannot write: " + std::strerror(EISDIR));
    // Checked before the first rename: a.txt, staged first, did not appear either.
    EXPECT_FALSE(fs::exists(dir.file("a.txt")));
  }
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"b.txt"});
  EXPECT_TRUE(fs::is_directory(dir.file("b.txt")));
}

TEST(OutputFiles, AnUnwritableDirectoryIsAnIoErrorNamingThePath) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  ScratchDir dir;
  fs::create_directory(dir.file("ro"));
  fs::permissions(dir.file("ro"), fs::perms::owner_read | fs::perms::owner_exec);
  OutputFiles files;
  std::string path = dir.file("ro/out.txt");
  Error e = error_from([&] { files.stage(path, std::string_view("x")); });
  fs::permissions(dir.file("ro"), fs::perms::owner_all);
  EXPECT_EQ(e.kind(), ErrorKind::kIo);
  EXPECT_EQ(e.message(), path + ": cannot write: " + std::strerror(EACCES));
}

}  // namespace
}  // namespace symbolite
