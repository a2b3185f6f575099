#include "symbolite/archive/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/fixtures.h"

// Fixtures come from tests/fixtures/archive/make_archives.py; expected.json holds what
// Python's zipfile reads from the valid ones.

namespace symbolite::archive {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Buffer = std::vector<std::uint8_t>;

std::string archive_fixture(std::string_view name) {
  return symbolite::testing::fixture_path("archive/" + std::string(name));
}

Buffer load(std::string_view name) {
  Bytes file = map_file(archive_fixture(name));
  return Buffer(file.data(), file.data() + file.size());
}

ZipReader reader_of(const Buffer& buffer, ZipLimits limits = {}) {
  return ZipReader(Bytes::from_vector(buffer), "test.zip", limits);
}

nlohmann::json expected() {
  std::ifstream in(archive_fixture("expected.json"));
  return nlohmann::json::parse(in);
}

std::uint32_t crc_of(const Bytes& data) {
  return static_cast<std::uint32_t>(crc32_z(0, data.data(), data.size()));
}

using symbolite::testing::error_from;

Error read_error(const Buffer& buffer, std::string_view entry) {
  return error_from([&] {
    ZipReader zip = reader_of(buffer);
    const ZipEntry* found = zip.find(entry);
    ASSERT_NE(found, nullptr);
    zip.read(*found);
  });
}

void put_u16(Buffer& buffer, std::size_t at, std::uint16_t value) {
  buffer[at] = static_cast<std::uint8_t>(value);
  buffer[at + 1] = static_cast<std::uint8_t>(value >> 8);
}

void put_u32(Buffer& buffer, std::size_t at, std::uint32_t value) {
  put_u16(buffer, at, static_cast<std::uint16_t>(value));
  put_u16(buffer, at + 2, static_cast<std::uint16_t>(value >> 16));
}

// Offset of the last occurrence of a 4-byte signature.
std::size_t last_signature(const Buffer& buffer, const char (&signature)[5]) {
  for (std::size_t pos = buffer.size() - 4; pos-- > 0;) {
    if (std::memcmp(buffer.data() + pos, signature, 4) == 0) return pos;
  }
  ADD_FAILURE() << "signature not found";
  return 0;
}

// Offset of the central directory header of `name`.
std::size_t central_header(const Buffer& buffer, std::string_view name) {
  for (std::size_t pos = 0; pos + 46 + name.size() <= buffer.size(); ++pos) {
    if (std::memcmp(buffer.data() + pos, "PK\1\2", 4) == 0 &&
        buffer[pos + 28] + (buffer[pos + 29] << 8) == static_cast<int>(name.size()) &&
        std::memcmp(buffer.data() + pos + 46, name.data(), name.size()) == 0) {
      return pos;
    }
  }
  ADD_FAILURE() << "no central header for " << name;
  return 0;
}

// Field offsets inside a central directory header.
constexpr std::size_t kCentralCrc = 16;
constexpr std::size_t kCentralCompressedSize = 20;
constexpr std::size_t kCentralUncompressedSize = 24;
constexpr std::size_t kCentralLocalOffset = 42;

// --- Valid archives --------------------------------------------------------------------

TEST(ZipReaderTest, ListsEntriesLikePythonZipfile) {
  nlohmann::json all = expected();
  for (const auto& [archive, want] : all.items()) {
    SCOPED_TRACE(archive);
    ZipReader zip(map_file(archive_fixture(archive)), archive);
    const auto& entries = zip.entries();
    ASSERT_EQ(entries.size(), want["entries"].size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& w = want["entries"][i];
      EXPECT_EQ(entries[i].name, w["name"].get<std::string>());
      EXPECT_EQ(entries[i].method, w["method"].get<int>());
      EXPECT_EQ(entries[i].uncompressed_size, w["size"].get<std::uint64_t>());
      EXPECT_EQ(entries[i].crc32, w["crc32"].get<std::uint32_t>());
      EXPECT_EQ(zip.find(entries[i].name), &entries[i]);
    }
  }
}

TEST(ZipReaderTest, ReadsEveryEntryLikePythonZipfile) {
  nlohmann::json all = expected();
  for (const auto& [archive, want] : all.items()) {
    SCOPED_TRACE(archive);
    ZipReader zip(map_file(archive_fixture(archive)), archive);
    for (const auto& w : want["entries"]) {
      const ZipEntry* entry = zip.find(w["name"].get<std::string>());
      ASSERT_NE(entry, nullptr) << w["name"];
      Bytes data = zip.read(*entry);
      EXPECT_EQ(data.size(), w["size"].get<std::uint64_t>()) << w["name"];
      EXPECT_EQ(crc_of(data), w["crc32"].get<std::uint32_t>()) << w["name"];
    }
  }
}

TEST(ZipReaderTest, ReadsMobileAndScriptArchives) {
  ZipReader mobile(map_file(archive_fixture("mobile.ptl")), "mobile.ptl");
  ASSERT_NE(mobile.find("mobile/bytecode.pkl"), nullptr);
  EXPECT_EQ(mobile.read(*mobile.find("mobile/version")).str(), "3\n");
  Bytes code = mobile.read(*mobile.find("mobile/code/__torch__.py"));
  EXPECT_THAT(std::string(code.str()), StartsWith("class Outer(Module):\n"));

  ZipReader script(map_file(archive_fixture("script.pt")), "script.pt");
  EXPECT_EQ(script.find("script/bytecode.pkl"), nullptr);
  EXPECT_EQ(script.find("nope"), nullptr);
  EXPECT_EQ(script.read(*script.find("script/version")).str(), "3\n");
}

TEST(ZipReaderTest, StoredEntriesAreViewsIntoTheFile) {
  Bytes file = map_file(archive_fixture("mobile.ptl"));
  ZipReader zip(file, "mobile.ptl");
  int stored = 0;
  for (const ZipEntry& entry : zip.entries()) {
    if (entry.method != 0) continue;
    ++stored;
    Bytes data = zip.read(entry);
    EXPECT_GE(data.data(), file.data()) << entry.name;
    EXPECT_LE(data.data() + data.size(), file.data() + file.size()) << entry.name;
    EXPECT_EQ(data.data(), file.data() + entry.data_offset) << entry.name;
    EXPECT_EQ(data.owner(), file.owner()) << entry.name;
  }
  EXPECT_GT(stored, 5);
}

TEST(ZipReaderTest, HonoursPyTorchDataAlignmentPadding) {
  ZipReader zip(map_file(archive_fixture("mobile.ptl")), "mobile.ptl");
  for (const ZipEntry& entry : zip.entries()) {
    EXPECT_EQ(entry.data_offset % 64, 0u) << entry.name;
  }
}

TEST(ZipReaderTest, ReadsZip64ExtraFields) {
  ZipReader zip(map_file(archive_fixture("zip64.zip")), "zip64.zip");
  ASSERT_EQ(zip.entries().size(), 3u);
  const ZipEntry* data = zip.find("z64/data.pkl");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->uncompressed_size, 50u);
  EXPECT_GT(data->local_header_offset, 0u);
  std::string want;
  for (int i = 0; i < 10; ++i) want += "\x80\x02K*.";
  EXPECT_EQ(zip.read(*data).str(), want);
  EXPECT_EQ(zip.read(*zip.find("z64/code/m.py")).size(), 600u);
}

TEST(ZipReaderTest, FindsEndRecordBeforeComment) {
  ZipReader commented(map_file(archive_fixture("python_zipfile.zip")), "python_zipfile.zip");
  EXPECT_EQ(commented.entries().size(), 5u);
  // The comment holds a fake "PK\5\6"; the real end record is the one whose comment ends
  // exactly at the end of the file.
  ZipReader tricky(map_file(archive_fixture("comment_with_signature.zip")), "c.zip");
  ASSERT_EQ(tricky.entries().size(), 1u);
  EXPECT_EQ(tricky.read(tricky.entries()[0]).str(), "3\n");
}

TEST(ZipReaderTest, CopiesKeepAWorkingIndex) {
  std::optional<ZipReader> original(ZipReader(map_file(archive_fixture("mobile.ptl")), "m"));
  ZipReader copy = *original;
  original.reset();
  const ZipEntry* entry = copy.find("mobile/version");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(copy.read(*entry).str(), "3\n");
}

// --- Bad input -------------------------------------------------------------------------

TEST(ZipReaderErrorTest, TruncatedFileFailsAtEveryLength) {
  Buffer full = load("mobile.ptl");
  for (std::size_t length = 0; length < full.size(); ++length) {
    Buffer cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
    Error e = error_from([&] { reader_of(cut); });
    ASSERT_EQ(e.kind(), ErrorKind::kFormat) << length << ": " << e.what();
    ASSERT_THAT(e.what(), StartsWith("test.zip: ")) << length;
  }
  Error tiny = error_from([&] { reader_of(Buffer(full.begin(), full.begin() + 10)); });
  EXPECT_THAT(tiny.what(), HasSubstr("10 bytes is too short"));
  Error half = error_from([&] { reader_of(Buffer(full.begin(), full.begin() + 2000)); });
  EXPECT_THAT(half.what(), HasSubstr("no end of central directory record"));
}

TEST(ZipReaderErrorTest, MissingEndRecord) {
  Buffer buffer = load("python_zipfile.zip");
  buffer[last_signature(buffer, "PK\5\6") + 3] = 0;
  Error e = error_from([&] { reader_of(buffer); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(std::string(e.what()),
            "test.zip: not a zip archive, or truncated: no end of central directory record "
            "(PK\\5\\6) in the last 1527 bytes");
}

TEST(ZipReaderErrorTest, CentralDirectoryPastTheEnd) {
  Buffer plain = load("python_zipfile.zip");
  std::size_t end = last_signature(plain, "PK\5\6");
  put_u32(plain, end + 16, static_cast<std::uint32_t>(plain.size() + 100));
  Error e = error_from([&] { reader_of(plain); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), HasSubstr(fmt::format("byte {}: central directory (offset {}", end,
                                              plain.size() + 100)));
  EXPECT_THAT(e.what(), HasSubstr("lies outside the file (1527 bytes)"));

  // In a PyTorch archive the offset that counts is the ZIP64 end record's.
  Buffer torch = load("mobile.ptl");
  std::size_t record = last_signature(torch, "PK\6\6");
  torch[record + 48 + 7] = 0x7f;
  Error zip64 = error_from([&] { reader_of(torch); });
  EXPECT_EQ(zip64.kind(), ErrorKind::kFormat);
  EXPECT_THAT(zip64.what(), HasSubstr(fmt::format("byte {}: central directory", record)));
  EXPECT_THAT(zip64.what(), HasSubstr("lies outside the file"));
}

TEST(ZipReaderErrorTest, EntryDataPastTheEnd) {
  Buffer buffer = load("mobile.ptl");
  std::string name = "mobile/callstack_debug_map.pkl";  // deflated, data at byte 3648
  put_u32(buffer, central_header(buffer, name) + kCentralCompressedSize, 5000);
  Error e = error_from([&] { reader_of(buffer); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(std::string(e.what()),
            "test.zip: archive entry 'mobile/callstack_debug_map.pkl': byte 3648: entry data "
            "(5000 bytes) runs past the end of the file (5036 bytes)");

  // A local extra field longer than the rest of the file.
  Buffer padded = load("mobile.ptl");
  ZipEntry last = reader_of(padded).entries().back();
  put_u16(padded, last.local_header_offset + 28, 0xFFFF);
  Error extra = error_from([&] { reader_of(padded); });
  EXPECT_EQ(extra.kind(), ErrorKind::kFormat);
  EXPECT_THAT(extra.what(), StartsWith("test.zip: archive entry 'mobile/version': byte "));
  EXPECT_THAT(extra.what(), HasSubstr("truncated local header: needs 65535 more bytes"));
}

TEST(ZipReaderErrorTest, LocalHeaderProblems) {
  Buffer bad_signature = load("mobile.ptl");
  ZipEntry first = reader_of(bad_signature).entries().front();
  bad_signature[first.local_header_offset + 2] = 9;
  Error e = error_from([&] { reader_of(bad_signature); });
  EXPECT_EQ(std::string(e.what()),
            "test.zip: archive entry 'mobile/data/0': byte 0: bad local header signature "
            "0x04094b50 (expected PK\\3\\4)");

  Buffer far_away = load("python_zipfile.zip");
  put_u32(far_away, central_header(far_away, "any folder-1.0/empty") + kCentralLocalOffset, 100000);
  Error outside = error_from([&] { reader_of(far_away); });
  EXPECT_EQ(std::string(outside.what()),
            "test.zip: archive entry 'any folder-1.0/empty': byte 100000: local header lies "
            "outside the file (1527 bytes)");
}

TEST(ZipReaderErrorTest, CorruptStoredByteFailsCrc) {
  Buffer buffer = load("mobile.ptl");
  const ZipEntry entry = *reader_of(buffer).find("mobile/data.pkl");
  buffer[entry.data_offset + 100] ^= 0x01;
  Error e = read_error(buffer, "mobile/data.pkl");
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(),
              StartsWith(fmt::format("test.zip: archive entry 'mobile/data.pkl': byte {}: "
                                     "CRC-32 mismatch (expected 0x{:08x}, got 0x",
                                     entry.data_offset, entry.crc32)));
}

TEST(ZipReaderErrorTest, CorruptCentralCrcFailsDeflatedRead) {
  Buffer buffer = load("mobile.ptl");
  buffer[central_header(buffer, "mobile/code/__torch__.py") + kCentralCrc] ^= 0x80;
  Error e = read_error(buffer, "mobile/code/__torch__.py");
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), HasSubstr("archive entry 'mobile/code/__torch__.py': byte 832: "
                                  "CRC-32 mismatch"));
}

TEST(ZipReaderErrorTest, CorruptDeflateStream) {
  Buffer buffer = load("mobile.ptl");
  const ZipEntry entry = *reader_of(buffer).find("mobile/code/__torch__.py");
  std::fill_n(buffer.begin() + static_cast<std::ptrdiff_t>(entry.data_offset), 8, 0xFF);
  Error e = read_error(buffer, "mobile/code/__torch__.py");
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), StartsWith("test.zip: archive entry 'mobile/code/__torch__.py': byte "));
  EXPECT_THAT(e.what(), HasSubstr("corrupt deflate stream"));

  Buffer short_stream = load("mobile.ptl");
  std::size_t header = central_header(short_stream, "mobile/code/__torch__.py");
  put_u32(short_stream, header + kCentralCompressedSize, 100);
  Error truncated = read_error(short_stream, "mobile/code/__torch__.py");
  EXPECT_THAT(truncated.what(), HasSubstr("deflate stream is truncated"));
}

TEST(ZipReaderErrorTest, DeflatedSizeMustMatch) {
  Buffer smaller = load("python_zipfile.zip");
  std::string name = "any folder-1.0/code/model.py";  // 660 bytes inflated
  put_u32(smaller, central_header(smaller, name) + kCentralUncompressedSize, 600);
  Error more = read_error(smaller, name);
  EXPECT_EQ(more.kind(), ErrorKind::kFormat);
  EXPECT_THAT(more.what(), HasSubstr("inflates to more than the declared 600 bytes"));

  Buffer larger = load("python_zipfile.zip");
  put_u32(larger, central_header(larger, name) + kCentralUncompressedSize, 700);
  Error fewer = read_error(larger, name);
  EXPECT_THAT(fewer.what(), HasSubstr("inflates to 660 bytes, but 700 are declared"));
}

TEST(ZipReaderErrorTest, StoredSizesMustAgree) {
  Buffer buffer = load("python_zipfile.zip");
  put_u32(buffer, central_header(buffer, "any folder-1.0/version") + kCentralCompressedSize, 3);
  Error e = error_from([&] { reader_of(buffer); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(std::string(e.what()),
            "test.zip: archive entry 'any folder-1.0/version': byte 0: stored entry has "
            "compressed size 3 but uncompressed size 2");
}

TEST(ZipReaderErrorTest, Zip64MarkerWithoutExtraField) {
  Buffer buffer = load("zip64.zip");
  std::size_t header = central_header(buffer, "z64/version");
  put_u16(buffer, header + 46 + 11, 0x0002);  // the extra field's id
  Error e = error_from([&] { reader_of(buffer); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), HasSubstr("archive entry 'z64/version'"));
  EXPECT_THAT(e.what(), HasSubstr("no ZIP64 extra field"));
}

TEST(ZipReaderErrorTest, UnsupportedMethodAndEncryption) {
  Error bzip2 = read_error(load("bzip2.zip"), "archive/data.pkl");
  EXPECT_EQ(bzip2.kind(), ErrorKind::kUnsupported);
  EXPECT_THAT(bzip2.what(), StartsWith("test.zip: archive entry 'archive/data.pkl': byte "));
  EXPECT_THAT(bzip2.what(), HasSubstr("compression method 12 (bzip2) is not supported"));

  Error encrypted = read_error(load("encrypted.zip"), "archive/secret");
  EXPECT_EQ(encrypted.kind(), ErrorKind::kUnsupported);
  EXPECT_THAT(encrypted.what(), HasSubstr("archive entry 'archive/secret'"));
  EXPECT_THAT(encrypted.what(), HasSubstr("encrypted"));
}

TEST(ZipReaderErrorTest, DuplicateNames) {
  Error e = error_from([&] { reader_of(load("duplicate.zip")); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), StartsWith("test.zip: archive entry 'archive/version': byte "));
  EXPECT_THAT(e.what(), HasSubstr("duplicate entry name"));
}

TEST(ZipReaderErrorTest, EnforcesLimits) {
  Buffer buffer = load("python_zipfile.zip");
  Error entries = error_from([&] { reader_of(buffer, ZipLimits{.max_entries = 4}); });
  EXPECT_EQ(entries.kind(), ErrorKind::kLimit);
  EXPECT_THAT(entries.what(), HasSubstr("5 entries, more than the limit of 4"));

  Error entry_size = error_from([&] { reader_of(buffer, ZipLimits{.max_entry_size = 1000}); });
  EXPECT_EQ(entry_size.kind(), ErrorKind::kLimit);
  EXPECT_THAT(entry_size.what(), HasSubstr("archive entry 'any folder-1.0/big.txt'"));

  Error total = error_from([&] { reader_of(buffer, ZipLimits{.max_total_size = 198500}); });
  EXPECT_EQ(total.kind(), ErrorKind::kLimit);
  EXPECT_THAT(total.what(), HasSubstr("more than the limit of 198500 bytes"));
}

TEST(ZipReaderErrorTest, EntryCountMustFitTheDirectory) {
  Buffer buffer = load("python_zipfile.zip");
  std::size_t end = last_signature(buffer, "PK\5\6");
  put_u16(buffer, end + 8, 900);
  put_u16(buffer, end + 10, 900);
  Error e = error_from([&] { reader_of(buffer); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), HasSubstr("claims 900 entries"));
}

TEST(ZipReaderErrorTest, OverlappingEntries) {
  Buffer pristine = load("mobile.ptl");
  std::vector<ZipEntry> entries = reader_of(pristine).entries();
  const ZipEntry& first = entries[0];   // mobile/data/0, stored
  const ZipEntry& second = entries[1];  // its local header follows the first's data
  ASSERT_EQ(first.method, 0);
  // The first entry's (stored) data claims to reach 100 bytes past the second's header.
  Buffer buffer = pristine;
  auto size = static_cast<std::uint32_t>(second.local_header_offset - first.data_offset + 100);
  put_u32(buffer, central_header(buffer, first.name) + kCentralCompressedSize, size);
  put_u32(buffer, central_header(buffer, first.name) + kCentralUncompressedSize, size);
  Error e = error_from([&] { reader_of(buffer); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(std::string(e.what()),
            fmt::format("test.zip: byte {}: entries 'mobile/data/0' (bytes [0, {})) and "
                        "'{}' (bytes [{}, {})) overlap",
                        second.local_header_offset, second.local_header_offset + 100, second.name,
                        second.local_header_offset, second.data_offset + second.compressed_size));

  // The last entry's data reaching into the central directory.
  Buffer into_directory = pristine;
  const ZipEntry& last = entries.back();
  std::size_t directory = central_header(into_directory, entries.front().name);
  auto reach = static_cast<std::uint32_t>(directory - last.data_offset + 1);
  put_u32(into_directory, central_header(into_directory, last.name) + kCentralCompressedSize,
          reach);
  put_u32(into_directory, central_header(into_directory, last.name) + kCentralUncompressedSize,
          reach);
  Error tail = error_from([&] { reader_of(into_directory); });
  EXPECT_EQ(tail.kind(), ErrorKind::kFormat);
  EXPECT_THAT(tail.what(), HasSubstr(fmt::format("entry '{}' (bytes [{}, {})) overlaps the "
                                                 "central directory at byte {}",
                                                 last.name, last.local_header_offset, directory + 1,
                                                 directory)));
}

// A cheap in-tree fuzz pass: no single-byte corruption may crash or throw anything but
// Error (ASan/UBSan builds check the memory side).
TEST(ZipReaderErrorTest, EveryByteFlipFailsCleanlyOrReads) {
  for (const char* name : {"mobile.ptl", "zip64.zip"}) {
    Buffer pristine = load(name);
    for (std::size_t pos = 0; pos < pristine.size(); ++pos) {
      Buffer buffer = pristine;
      buffer[pos] ^= 0xFF;
      try {
        ZipReader zip = reader_of(buffer);
        for (const ZipEntry& entry : zip.entries()) {
          try {
            zip.read(entry);
          } catch (const Error&) {
          }
        }
      } catch (const Error& e) {
        ASSERT_THAT(e.what(), StartsWith("test.zip: ")) << name << " byte " << pos;
      }
    }
  }
}

}  // namespace
}  // namespace symbolite::archive
