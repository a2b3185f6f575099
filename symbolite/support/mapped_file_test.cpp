// map_file: a read-only mapping owned by the returned Bytes; errors name the path and reason.
#include "symbolite/support/mapped_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/test_support/error_from.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite {
namespace {

using testing::error_from;
using testing::ScratchDir;

void write(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

TEST(MapFile, MapsTheWholeFile) {
  ScratchDir dir;
  std::string content(10000, '\0');
  for (std::size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 7);
  write(dir.file("model.ptl"), content);
  Bytes b = map_file(dir.file("model.ptl"));
  EXPECT_EQ(b.size(), content.size());
  EXPECT_EQ(b.str(), content);
  EXPECT_NE(b.owner(), nullptr);
}

TEST(MapFile, SlicesKeepTheMappingAfterTheFileAndTheOriginalAreGone) {
  ScratchDir dir;
  write(dir.file("a.bin"), "header:payload");
  Bytes slice;
  {
    Bytes whole = map_file(dir.file("a.bin"));
    slice = whole.slice(7, 7);
  }
  std::filesystem::remove(dir.file("a.bin"));
  EXPECT_EQ(slice.str(), "payload");
}

TEST(MapFile, AnEmptyFileGivesEmptyBytes) {
  ScratchDir dir;
  write(dir.file("empty"), "");
  Bytes b = map_file(dir.file("empty"));
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.str(), "");
}

TEST(MapFile, AMissingFileIsNotFoundNamingThePathAndReason) {
  ScratchDir dir;
  std::string path = dir.file("absent.ptl");
  Error e = error_from([&] { map_file(path); });
  EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(e.message(), path + ": cannot open: " + std::strerror(ENOENT));
}

TEST(MapFile, ADirectoryIsRefused) {
  ScratchDir dir;
  Error e = error_from([&] { map_file(dir.path().string()); });
  EXPECT_EQ(e.kind(), ErrorKind::kIo);
  EXPECT_EQ(e.message(), dir.path().string() + ": is a directory, not a file");
}

TEST(MapFile, AFifoIsRefusedWithoutBlocking) {
  ScratchDir dir;
  std::string path = dir.file("pipe");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
  Error e = error_from([&] { map_file(path); });
  EXPECT_EQ(e.kind(), ErrorKind::kIo);
  EXPECT_EQ(e.message(), path +
                             ": is not a regular file (a device, FIFO or socket); save it to a "
                             "file first");
}

TEST(MapFile, AnUnreadableFileIsAnIoErrorNamingThePath) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  ScratchDir dir;
  std::string path = dir.file("secret");
  write(path, "x");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  Error e = error_from([&] { map_file(path); });
  EXPECT_EQ(e.kind(), ErrorKind::kIo);
  EXPECT_EQ(e.message(), path + ": cannot open: " + std::strerror(EACCES));
}

TEST(MapFile, ASymlinkToAFileIsFollowed) {
  ScratchDir dir;
  write(dir.file("target"), "through the link");
  std::filesystem::create_symlink(dir.file("target"), dir.file("link"));
  EXPECT_EQ(map_file(dir.file("link")).str(), "through the link");
}

// Resident kilobytes of the mapping that starts at `address` (/proc/self/smaps), -1 if none.
long resident_kib(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  std::stringstream start;
  start << std::hex << reinterpret_cast<std::uintptr_t>(address) << '-';
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    if (line.rfind(start.str(), 0) == 0) inside = true;
    if (inside && line.rfind("Rss:", 0) == 0) return std::stol(line.substr(4));
  }
  return -1;
}

TEST(MapFile, ReleasedPagesLeaveMemoryAndReadBackTheSame) {
  ScratchDir dir;
  const long page = ::sysconf(_SC_PAGESIZE);
  std::string content(static_cast<std::size_t>(page) * 64, '\0');
  for (std::size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>(i * 13 + 5);
  write(dir.file("weights.bin"), content);
  Bytes b = map_file(dir.file("weights.bin"), MapPrefetch::kWhole);
  ASSERT_EQ(resident_kib(b.data()), page * 64 / 1024);
  // Pages wholly inside the slice go; the partial first and last pages stay.
  release_mapped_pages(b.slice(static_cast<std::size_t>(page) / 2, content.size() - page));
  EXPECT_EQ(resident_kib(b.data()), page * 2 / 1024);
  EXPECT_EQ(b.str(), content);
  // Bytes that are not a file mapping keep their memory and contents.
  Bytes owned = Bytes::copy_of(content);
  release_mapped_pages(owned);
  EXPECT_EQ(owned.str(), content);
}

int unmapped_calls = 0;

TEST(MapFile, CallsWhatWasRegisteredOnceTheLastViewIsGone) {
  call_after_unmap([] { ++unmapped_calls; });
  ScratchDir dir;
  write(dir.file("model.ptl"), "weights");
  Bytes slice;
  {
    Bytes whole = map_file(dir.file("model.ptl"));
    slice = whole.slice(1, 3);
  }
  const int before = unmapped_calls;
  EXPECT_EQ(slice.str(), "eig");
  slice = Bytes();
  EXPECT_EQ(unmapped_calls, before + 1);
}

}  // namespace
}  // namespace symbolite
