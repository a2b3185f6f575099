#include "symbolite/archive/zip_writer.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "symbolite/archive/deflate.h"
#include "symbolite/archive/zip_reader.h"
#include "symbolite/support/byte_cursor.h"
#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::archive {
namespace {

using ::testing::HasSubstr;
using Buffer = std::vector<std::uint8_t>;

Buffer buffer_of(std::string_view text) { return Buffer(text.begin(), text.end()); }

// Text that deflates well, `size` bytes long.
Buffer compressible(std::size_t size) {
  Buffer out;
  while (out.size() < size) {
    std::string line = fmt::format("def forward(self, x{}: Tensor) -> Tensor:\n", out.size() % 7);
    out.insert(out.end(), line.begin(), line.end());
  }
  out.resize(size);
  return out;
}

// Bytes that do not deflate: a fixed pseudo-random sequence.
Buffer incompressible(std::size_t size) {
  Buffer out(size);
  std::uint32_t state = 12345;
  for (auto& byte : out) {
    state = state * 1103515245 + 12345;
    byte = static_cast<std::uint8_t>(state >> 16);
  }
  return out;
}

ZipReader written_reader(Buffer archive) {
  return ZipReader(Bytes::from_vector(std::move(archive)), "written.zip");
}

using symbolite::testing::error_from;

using symbolite::testing::ScratchDir;

struct Sample {
  std::string name;
  Buffer data;
  Compression compression;
};

std::vector<Sample> samples() {
  return {
      {"m/data/0", incompressible(64), Compression::kStored},
      {"m/data/1", incompressible(1), Compression::kStored},
      {"m/data/empty", {}, Compression::kStored},
      {"m/data.pkl", incompressible(1170), Compression::kStored},
      {"m/code/__torch__/a/much/longer/name/to/move/the/alignment.py", compressible(4228),
       Compression::kDeflated},
      {"m/code/__torch__.py.debug_pkl", compressible(333), Compression::kDeflated},
      {"m/tiny_deflated", buffer_of("3\n"), Compression::kDeflated},
      {"m/empty_deflated", {}, Compression::kDeflated},
      {"m/noise_deflated", incompressible(500), Compression::kDeflated},
      {"m/version", buffer_of("3\n"), Compression::kStored},
  };
}

Buffer write_samples(ZipWriterOptions options = {}) {
  ZipWriter zip = ZipWriter::to_memory(options);
  for (const Sample& sample : samples()) zip.add(sample.name, sample.data, sample.compression);
  return zip.finish();
}

void expect_samples_read_back(const Buffer& archive) {
  ZipReader zip = written_reader(archive);
  std::vector<Sample> want = samples();
  ASSERT_EQ(zip.entries().size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const ZipEntry& entry = zip.entries()[i];
    SCOPED_TRACE(entry.name);
    EXPECT_EQ(entry.name, want[i].name);
    EXPECT_EQ(entry.uncompressed_size, want[i].data.size());
    EXPECT_EQ(entry.data_offset % 64, 0u);
    // As miniz: only entries of more than 3 bytes are deflated; data means a descriptor.
    bool deflated = want[i].compression == Compression::kDeflated && want[i].data.size() > 3;
    EXPECT_EQ(entry.method, deflated ? 8 : 0);
    EXPECT_EQ(entry.flags, want[i].data.empty() ? 0x0800 : 0x0808);
    Bytes data = zip.read(entry);
    EXPECT_EQ(Buffer(data.data(), data.data() + data.size()), want[i].data);
  }
}

TEST(ZipWriterTest, RoundTripsThroughZipReader) {
  Buffer archive = write_samples();
  expect_samples_read_back(archive);
  ZipReader zip = written_reader(archive);
  const ZipEntry* code = zip.find("m/code/__torch__/a/much/longer/name/to/move/the/alignment.py");
  ASSERT_NE(code, nullptr);
  EXPECT_LT(code->compressed_size, code->uncompressed_size / 4);
}

TEST(ZipWriterTest, PadsWithPyTorchsFbField) {
  ZipWriter writer = ZipWriter::to_memory();
  writer.add("m/data/0", incompressible(64));
  writer.add("m/data/1", incompressible(16));
  Buffer archive = writer.finish();
  // The first local header: 30 bytes, the name (8), then "FB", the padding length and 'Z's up
  // to byte 64.
  ASSERT_GT(archive.size(), 64u);
  EXPECT_EQ(load_u16le(archive.data() + 28), 64 - 30 - 8);
  EXPECT_EQ(std::memcmp(archive.data() + 38, "FB", 2), 0);
  EXPECT_EQ(load_u16le(archive.data() + 40), 64 - 30 - 8 - 4);
  for (std::size_t i = 42; i < 64; ++i) EXPECT_EQ(archive[i], 'Z') << i;
  // Data, then a 16-byte descriptor "PK\7\8", CRC, sizes.
  EXPECT_EQ(load_u32le(archive.data() + 128), 0x08074b50u);
  EXPECT_EQ(load_u32le(archive.data() + 136), 64u);
  EXPECT_EQ(load_u32le(archive.data() + 140), 64u);
  // The second entry starts right after: 144 + 30 + 8 + 4 = 186, so 6 bytes of padding.
  EXPECT_EQ(load_u32le(archive.data() + 144), 0x04034b50u);
  EXPECT_EQ(load_u16le(archive.data() + 144 + 40), 6u);
}

TEST(ZipWriterTest, WritesPyTorchsHeaderFields) {
  ZipWriter writer = ZipWriter::to_memory();
  writer.add("m/code.py", compressible(300), Compression::kDeflated);
  Buffer archive = writer.finish();
  // Local header: version needed 20 (deflated), flags descriptor + UTF-8, no time or date,
  // CRC and sizes left 0 for the descriptor.
  EXPECT_EQ(load_u16le(archive.data() + 4), 20u);
  EXPECT_EQ(load_u16le(archive.data() + 6), 0x0808u);
  EXPECT_EQ(load_u16le(archive.data() + 8), 8u);
  for (std::size_t at = 10; at < 26; ++at) EXPECT_EQ(archive[at], 0) << at;
  ZipReader zip = written_reader(archive);
  std::uint64_t central = load_u64le(archive.data() + archive.size() - 22 - 20 - 56 + 48);
  // Central header: version made by 0, needed 20, same flags, no extra field or attributes.
  EXPECT_EQ(load_u32le(archive.data() + central), 0x02014b50u);
  EXPECT_EQ(load_u16le(archive.data() + central + 4), 0u);
  EXPECT_EQ(load_u16le(archive.data() + central + 6), 20u);
  EXPECT_EQ(load_u16le(archive.data() + central + 8), 0x0808u);
  EXPECT_EQ(load_u32le(archive.data() + central + 12), 0u);  // time and date
  EXPECT_EQ(load_u32le(archive.data() + central + 16), zip.entries()[0].crc32);
  EXPECT_EQ(load_u16le(archive.data() + central + 30), 0u);  // extra field length
  EXPECT_EQ(load_u32le(archive.data() + central + 38), 0u);  // external attributes
}

TEST(ZipWriterTest, AlwaysWritesZip64EndRecords) {
  ZipWriter writer = ZipWriter::to_memory();
  writer.add("m/version", buffer_of("3\n"));
  Buffer archive = writer.finish();
  // 64 bytes of header and data, a 16-byte descriptor, a 55-byte central header.
  ASSERT_EQ(archive.size(), 64u + 2 + 16 + 55 + 56 + 20 + 22);
  const std::uint8_t* end64 = archive.data() + 64 + 2 + 16 + 55;
  EXPECT_EQ(load_u32le(end64), 0x06064b50u);
  EXPECT_EQ(load_u64le(end64 + 4), 44u);
  EXPECT_EQ(load_u16le(end64 + 12), 0x031Eu);
  EXPECT_EQ(load_u16le(end64 + 14), 45u);
  EXPECT_EQ(load_u64le(end64 + 24), 1u);
  EXPECT_EQ(load_u64le(end64 + 32), 1u);
  EXPECT_EQ(load_u64le(end64 + 40), 55u);
  EXPECT_EQ(load_u64le(end64 + 48), 82u);
  const std::uint8_t* locator = end64 + 56;
  EXPECT_EQ(load_u32le(locator), 0x07064b50u);
  EXPECT_EQ(load_u64le(locator + 8), 137u);
  EXPECT_EQ(load_u32le(locator + 16), 1u);
  const std::uint8_t* end = locator + 20;
  EXPECT_EQ(load_u32le(end), 0x06054b50u);
  EXPECT_EQ(load_u16le(end + 10), 1u);
  EXPECT_EQ(load_u32le(end + 12), 55u);
  EXPECT_EQ(load_u32le(end + 16), 82u);
}

TEST(ZipWriterTest, IsDeterministic) { EXPECT_EQ(write_samples(), write_samples()); }

TEST(ZipWriterTest, EmptyArchive) {
  Buffer archive = ZipWriter::to_memory().finish();
  EXPECT_EQ(archive.size(), 56u + 20 + 22);
  EXPECT_TRUE(written_reader(archive).entries().empty());
}

TEST(ZipWriterTest, PrecompressedEntriesKeepTheirBytes) {
  Buffer text = compressible(1000);
  Buffer compressed = deflate_raw(text);
  std::uint32_t crc = written_reader([&] {
                        ZipWriter plain = ZipWriter::to_memory();
                        plain.add("m/x", text);
                        return plain.finish();
                      }())
                          .entries()[0]
                          .crc32;
  ZipWriter writer = ZipWriter::to_memory();
  writer.add_precompressed("m/x", compressed, crc, text.size());
  ZipReader zip = written_reader(writer.finish());
  const ZipEntry& entry = zip.entries()[0];
  EXPECT_EQ(entry.method, 8);
  EXPECT_EQ(entry.data_offset % 64, 0u);
  Bytes raw = zip.read_raw(entry);
  EXPECT_EQ(Buffer(raw.data(), raw.data() + raw.size()), compressed);
  Bytes data = zip.read(entry);
  EXPECT_EQ(Buffer(data.data(), data.data() + data.size()), text);
}

TEST(ZipWriterTest, DeflatesLargeInput) {
  Buffer text = compressible(3 << 20);
  Buffer compressed = deflate_raw(text);
  EXPECT_LT(compressed.size(), text.size() / 10);
  ZipWriter writer = ZipWriter::to_memory();
  writer.add("m/big.py", text, Compression::kDeflated);
  ZipReader zip = written_reader(writer.finish());
  Bytes data = zip.read(zip.entries()[0]);
  EXPECT_EQ(Buffer(data.data(), data.data() + data.size()), text);
}

// --- ZIP64 -----------------------------------------------------------------------------

TEST(ZipWriterTest, Zip64EverywhereRoundTrips) {
  Buffer archive = write_samples({.zip64_threshold = 0});
  expect_samples_read_back(archive);
  // Every central header carries the marker and a ZIP64 extra field with both sizes and the
  // offset; the end record's size and offset hold the marker.
  ZipReader zip = written_reader(archive);
  std::uint64_t central = load_u64le(archive.data() + archive.size() - 22 - 20 - 56 + 48);
  EXPECT_EQ(load_u32le(archive.data() + central + 20), 0xFFFFFFFFu);
  EXPECT_EQ(load_u32le(archive.data() + central + 24), 0xFFFFFFFFu);
  EXPECT_EQ(load_u32le(archive.data() + central + 42), 0xFFFFFFFFu);
  std::size_t name_length = load_u16le(archive.data() + central + 28);
  EXPECT_EQ(load_u16le(archive.data() + central + 30), 28u);
  const std::uint8_t* extra = archive.data() + central + 46 + name_length;
  EXPECT_EQ(load_u16le(extra), 1u);
  EXPECT_EQ(load_u16le(extra + 2), 24u);
  EXPECT_EQ(load_u64le(extra + 4), 64u);   // uncompressed
  EXPECT_EQ(load_u64le(extra + 12), 64u);  // compressed
  EXPECT_EQ(load_u64le(extra + 20), 0u);   // local header offset
  const std::uint8_t* end = archive.data() + archive.size() - 22;
  EXPECT_EQ(load_u32le(end + 12), 0xFFFFFFFFu);
  EXPECT_EQ(load_u32le(end + 16), 0xFFFFFFFFu);
  // The first local header: a ZIP64 extra field (uncompressed size, compressed size 0 as
  // miniz writes it, offset) before the padding, and a 24-byte descriptor after the data.
  EXPECT_EQ(load_u16le(archive.data() + 30 + 8), 1u);
  EXPECT_EQ(load_u16le(archive.data() + 30 + 8 + 2), 24u);
  EXPECT_EQ(load_u64le(archive.data() + 30 + 8 + 4), 64u);
  EXPECT_EQ(load_u64le(archive.data() + 30 + 8 + 12), 0u);
  EXPECT_EQ(std::memcmp(archive.data() + 30 + 8 + 28, "FB", 2), 0);
  const ZipEntry& first = zip.entries()[0];
  EXPECT_EQ(first.data_offset, 128u);  // 30 + 8 + 28 + 4 = 70, padded to 128
  const std::uint8_t* descriptor = archive.data() + first.data_offset + 64;
  EXPECT_EQ(load_u32le(descriptor), 0x08074b50u);
  EXPECT_EQ(load_u64le(descriptor + 8), 64u);
  EXPECT_EQ(load_u64le(descriptor + 16), 64u);
  EXPECT_EQ(load_u32le(descriptor + 24), 0x04034b50u);  // the next local header
}

TEST(ZipWriterTest, Zip64ForLargeOffsetsOnly) {
  // Entries past byte 1000 get ZIP64 offsets; entries of 1000 bytes or more ZIP64 sizes.
  Buffer archive = write_samples({.zip64_threshold = 1000});
  expect_samples_read_back(archive);
  ZipReader zip = written_reader(archive);
  for (const ZipEntry& entry : zip.entries()) {
    SCOPED_TRACE(entry.name);
    std::size_t extra = load_u16le(archive.data() + entry.local_header_offset + 28);
    std::size_t expected = 0;
    if (entry.uncompressed_size >= 1000 || entry.compressed_size >= 1000) expected += 16;
    if (entry.local_header_offset >= 1000) expected += 8;
    if (expected != 0) expected += 4;
    std::size_t padding = load_u16le(archive.data() + entry.local_header_offset + 30 +
                                     entry.name.size() + expected + 2);
    EXPECT_EQ(extra, expected + 4 + padding);
  }
}

// --- Misuse and I/O --------------------------------------------------------------------

TEST(ZipWriterTest, RefusesBadNames) {
  ZipWriter writer = ZipWriter::to_memory();
  writer.add("m/a", buffer_of("x"));
  for (std::string_view name : {"", "/m/b", "m/dir/", "m/a"}) {
    SCOPED_TRACE(name);
    Error error = error_from([&] { writer.add(name, buffer_of("y")); });
    EXPECT_EQ(error.kind(), ErrorKind::kUsage);
  }
  EXPECT_THAT(error_from([&] { writer.add("m/a", buffer_of("y")); }).what(),
              HasSubstr("cannot add entry 'm/a': an entry of that name was already added"));
  // Refused names leave no trace: the archive holds the one entry.
  EXPECT_EQ(written_reader(writer.finish()).entries().size(), 1u);
}

TEST(ZipWriterTest, RefusesUseAfterFinish) {
  ZipWriter writer = ZipWriter::to_memory();
  writer.finish();
  EXPECT_TRUE(writer.finished());
  Error add = error_from([&] { writer.add("m/a", buffer_of("x")); });
  EXPECT_EQ(add.kind(), ErrorKind::kUsage);
  EXPECT_THAT(add.what(), HasSubstr("already finished"));
  EXPECT_EQ(error_from([&] { writer.finish(); }).kind(), ErrorKind::kUsage);
}

TEST(ZipWriterTest, WritesFiles) {
  ScratchDir dir;
  std::string path = dir.file("out.zip");
  ZipWriter writer = ZipWriter::to_file(path);
  for (const Sample& sample : samples()) writer.add(sample.name, sample.data, sample.compression);
  EXPECT_TRUE(writer.finish().empty());
  Bytes file = map_file(path);
  EXPECT_EQ(Buffer(file.data(), file.data() + file.size()), write_samples());
}

TEST(ZipWriterTest, RemovesUnfinishedFiles) {
  ScratchDir dir;
  std::string path = dir.file("out.zip");
  {
    ZipWriter writer = ZipWriter::to_file(path);
    writer.add("m/a", buffer_of("x"));
    EXPECT_TRUE(std::filesystem::exists(path));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ZipWriterTest, MovedWriterKeepsWriting) {
  ScratchDir dir;
  std::string path = dir.file("out.zip");
  ZipWriter first = ZipWriter::to_file(path);
  first.add("m/a", buffer_of("x"));
  ZipWriter second = std::move(first);
  second.add("m/b", buffer_of("y"));
  second.finish();
  EXPECT_EQ(ZipReader(map_file(path), path).entries().size(), 2u);
}

TEST(ZipWriterTest, ReportsIoErrorsWithThePath) {
  ScratchDir dir;
  std::string path = dir.file("missing/out.zip");
  Error error = error_from([&] { ZipWriter::to_file(path); });
  EXPECT_EQ(error.kind(), ErrorKind::kIo);
  EXPECT_THAT(error.what(), HasSubstr(path + ": cannot create: No such file or directory"));
}

TEST(ZipWriterTest, ReportsWriteErrors) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  ZipWriter writer = ZipWriter::to_file("/dev/full");
  Error error = error_from([&] { writer.add("m/a", incompressible(100)); });
  EXPECT_EQ(error.kind(), ErrorKind::kIo);
  EXPECT_THAT(error.what(), HasSubstr("/dev/full: cannot write: No space left on device"));
  Error again = error_from([&] { writer.add("m/b", buffer_of("x")); });
  EXPECT_EQ(again.kind(), ErrorKind::kUsage);
  EXPECT_THAT(again.what(), HasSubstr("an earlier write failed"));
  // The writer is dropped here; /dev/full is not a regular file and stays.
}

}  // namespace
}  // namespace symbolite::archive
