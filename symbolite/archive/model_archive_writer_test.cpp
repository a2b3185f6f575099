#include "symbolite/archive/model_archive_writer.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::archive {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Buffer = std::vector<std::uint8_t>;

constexpr std::uint16_t kMethodDeflated = 8;

Buffer bytes_of(std::string_view text) { return Buffer(text.begin(), text.end()); }

Buffer buffer_of(const Bytes& bytes) { return Buffer(bytes.data(), bytes.data() + bytes.size()); }

ModelArchive archive_of(Buffer bytes) {
  return ModelArchive::from_bytes(Bytes::from_vector(std::move(bytes)), "written.ptl");
}

using symbolite::testing::error_from;

using symbolite::testing::ScratchDir;

// How a copy re-encodes each record.
enum class Copy {
  kVerbatim,   // copy_record: deflated bytes as they are
  kRecompress  // add_record with the original's compression: deflated again with zlib
};

// Copies every record of `from`, in order, keeping each one's compression.
void copy_records(const ModelArchive& from, Copy how, ModelArchiveWriter& writer) {
  for (const std::string& record : from.records()) {
    if (how == Copy::kVerbatim) {
      writer.copy_record(from, record);
    } else {
      const ZipEntry* entry = from.zip().find(fmt::format("{}/{}", from.record_folder(), record));
      writer.add_record(
          record, from.read_record(record).span(),
          entry->method == kMethodDeflated ? Compression::kDeflated : Compression::kStored);
    }
  }
}

Buffer copy_archive(const ModelArchive& from, Copy how, ZipWriterOptions options = {}) {
  ModelArchiveWriter writer(ZipWriter::to_memory(options), from.record_folder());
  copy_records(from, how, writer);
  return writer.finish();
}

// The written archive holds the same records, in the same order, with the same compression
// and the same contents, every one 64-byte aligned.
void expect_same_records(const ModelArchive& original, const Buffer& written) {
  ModelArchive copy = archive_of(written);
  EXPECT_EQ(copy.record_folder(), original.record_folder());
  ASSERT_EQ(copy.records(), original.records());
  for (const std::string& record : original.records()) {
    SCOPED_TRACE(record);
    const ZipEntry* from = original.zip().find(original.record_folder() + "/" + record);
    const ZipEntry* to = copy.zip().find(copy.record_folder() + "/" + record);
    EXPECT_EQ(to->method, from->method);
    EXPECT_EQ(to->crc32, from->crc32);
    EXPECT_EQ(to->data_offset % 64, 0u);
    EXPECT_EQ(buffer_of(copy.read_record(record)), buffer_of(original.read_record(record)));
  }
}

// --- Layout ----------------------------------------------------------------------------

TEST(ModelArchiveWriterTest, WritesRecordsUnderTheFolderThenTheVersion) {
  ModelArchiveWriter writer(ZipWriter::to_memory(), "model");
  EXPECT_EQ(writer.record_folder(), "model");
  writer.add_record("data.pkl", bytes_of("pickle"));
  writer.add_record("code/__torch__.py", bytes_of(std::string(300, 'x')), Compression::kDeflated);
  ModelArchive archive = archive_of(writer.finish());
  EXPECT_EQ(archive.record_folder(), "model");
  EXPECT_THAT(archive.records(), ElementsAre("data.pkl", "code/__torch__.py", "version"));
  EXPECT_EQ(archive.read_record("version").str(), "3\n");
  EXPECT_EQ(archive.read_record("code/__torch__.py").str(), std::string(300, 'x'));
  EXPECT_EQ(archive.zip().entries()[1].method, kMethodDeflated);
}

TEST(ModelArchiveWriterTest, VersionSixAndLaterGoesUnderDotData) {
  ModelArchiveWriter old_format(ZipWriter::to_memory(), "m");
  old_format.set_version(5);
  EXPECT_THAT(archive_of(old_format.finish()).records(), ElementsAre("version"));

  ModelArchiveWriter writer(ZipWriter::to_memory(), "m");
  writer.set_version(9);
  writer.add_record("data.pkl", bytes_of("p"));
  ModelArchive archive = archive_of(writer.finish());
  EXPECT_THAT(archive.records(), ElementsAre("data.pkl", ".data/version"));
  EXPECT_EQ(archive.read_record(".data/version").str(), "9\n");
}

TEST(ModelArchiveWriterTest, KeepsAVersionRecordTheCallerAdded) {
  for (std::string_view name : {"version", ".data/version"}) {
    SCOPED_TRACE(name);
    ModelArchiveWriter writer(ZipWriter::to_memory(), "m");
    writer.add_record(name, bytes_of("7\n"));
    writer.add_record("data.pkl", bytes_of("p"));
    ModelArchive archive = archive_of(writer.finish());
    EXPECT_THAT(archive.records(), ElementsAre(name, "data.pkl"));
  }
}

TEST(ModelArchiveWriterTest, RefusesBadFoldersAndRecords) {
  EXPECT_EQ(error_from([] { ModelArchiveWriter(ZipWriter::to_memory(), ""); }).kind(),
            ErrorKind::kUsage);
  EXPECT_EQ(error_from([] { ModelArchiveWriter(ZipWriter::to_memory(), "a/b"); }).kind(),
            ErrorKind::kUsage);
  ModelArchiveWriter writer(ZipWriter::to_memory(), "m");
  writer.add_record("data.pkl", bytes_of("p"));
  for (std::string_view record : {"", "/abs", "data.pkl", "code/"}) {
    SCOPED_TRACE(record);
    EXPECT_EQ(error_from([&] { writer.add_record(record, bytes_of("x")); }).kind(),
              ErrorKind::kUsage);
  }
  writer.finish();
  EXPECT_EQ(error_from([&] { writer.add_record("late", bytes_of("x")); }).kind(),
            ErrorKind::kUsage);
  EXPECT_EQ(error_from([&] { writer.finish(); }).kind(), ErrorKind::kUsage);
}

TEST(ModelArchiveWriterTest, CopyingAMissingRecordNamesIt) {
  ModelArchive from = ModelArchive::open(symbolite::testing::fixture_path("models/nested.ptl"));
  ModelArchiveWriter writer(ZipWriter::to_memory(), "nested");
  Error error = error_from([&] { writer.copy_record(from, "nope.pkl"); });
  EXPECT_EQ(error.kind(), ErrorKind::kNotFound);
  EXPECT_THAT(error.what(), HasSubstr("no record 'nope.pkl'"));
}

TEST(ModelArchiveWriterTest, RecordFolderForPathsLikePyTorch) {
  EXPECT_EQ(record_folder_for("out/model.ptl"), "model");
  EXPECT_EQ(record_folder_for("model.tar.pt"), "model.tar");
  EXPECT_EQ(record_folder_for("dir.d/model"), "model");
  EXPECT_EQ(record_folder_for("C:\\models\\m.pt"), "m");
  EXPECT_EQ(error_from([] { record_folder_for("out/.ptl"); }).kind(), ErrorKind::kUsage);
  EXPECT_EQ(error_from([] { record_folder_for("out/"); }).kind(), ErrorKind::kUsage);
}

// --- Against PyTorch's own archives ----------------------------------------------------

// Archives PyTorch 1.13 wrote itself (not rewritten with Python's zipfile).
const char* const kPyTorchArchives[] = {
    "models/nested.ptl",         "models/nested.pt",         "models/nested_legacy.ptl",
    "models/nested_nodebug.ptl", "models/tag_minus_one.ptl", "models/tag_minus_one_frame.ptl",
    "archive/mobile.ptl",        "archive/script.pt",
};

TEST(ModelArchiveWriterTest, CopiesPyTorchArchivesByteForByte) {
  for (const char* fixture : kPyTorchArchives) {
    SCOPED_TRACE(fixture);
    std::string path = symbolite::testing::fixture_path(fixture);
    ModelArchive original = ModelArchive::open(path);
    Buffer written = copy_archive(original, Copy::kVerbatim);
    EXPECT_EQ(written, buffer_of(map_file(path)));
  }
}

TEST(ModelArchiveWriterTest, PyTorchCompressionMatchesPyTorchArchives) {
  for (const char* fixture : kPyTorchArchives) {
    ModelArchive archive = ModelArchive::open(symbolite::testing::fixture_path(fixture));
    for (const std::string& record : archive.records()) {
      SCOPED_TRACE(fmt::format("{}: {}", fixture, record));
      const ZipEntry* entry = archive.zip().find(archive.record_folder() + "/" + record);
      EXPECT_EQ(pytorch_compression(record, entry->uncompressed_size),
                entry->method == kMethodDeflated ? Compression::kDeflated : Compression::kStored);
    }
  }
  EXPECT_EQ(pytorch_compression("code/__torch__.py", 200), Compression::kStored);
  EXPECT_EQ(pytorch_compression("code/__torch__.py", 201), Compression::kDeflated);
  EXPECT_EQ(pytorch_compression("delegated_backends.debug_pkl", 201), Compression::kDeflated);
  EXPECT_EQ(pytorch_compression("bytecode.pkl", 5000), Compression::kStored);
  EXPECT_EQ(pytorch_compression("data/0", 5000), Compression::kStored);
}

TEST(ModelArchiveWriterTest, WritesTheVersionRecordAsPyTorchDoes) {
  // PyTorch writes the version record last, when it closes the archive; so does finish()
  // when the caller leaves it out.
  for (const char* fixture : kPyTorchArchives) {
    SCOPED_TRACE(fixture);
    std::string path = symbolite::testing::fixture_path(fixture);
    ModelArchive original = ModelArchive::open(path);
    ASSERT_EQ(original.records().back(), "version");
    ModelArchiveWriter writer(ZipWriter::to_memory(), original.record_folder());
    for (const std::string& record : original.records()) {
      if (record != "version") writer.copy_record(original, record);
    }
    writer.set_version(std::stoull(std::string(original.read_record("version").str())));
    EXPECT_EQ(writer.finish(), buffer_of(map_file(path)));
  }
}

TEST(ModelArchiveWriterTest, RecompressedCopyKeepsRecordsAndStoredBytes) {
  std::string path = symbolite::testing::fixture_path("models/nested.ptl");
  ModelArchive original = ModelArchive::open(path);
  Buffer written = copy_archive(original, Copy::kRecompress);
  expect_same_records(original, written);
  // Stored records sit where PyTorch put them until the first deflated one, whose zlib
  // stream differs in length from miniz's.
  ModelArchive copy = archive_of(written);
  for (std::size_t i = 0; i < original.zip().entries().size(); ++i) {
    const ZipEntry& entry = original.zip().entries()[i];
    EXPECT_EQ(copy.zip().entries()[i].local_header_offset, entry.local_header_offset);
    if (entry.method == kMethodDeflated) break;
  }
}

TEST(ModelArchiveWriterTest, Zip64CopyKeepsRecords) {
  ModelArchive original = ModelArchive::open(symbolite::testing::fixture_path("models/nested.ptl"));
  expect_same_records(original, copy_archive(original, Copy::kVerbatim, {.zip64_threshold = 0}));
}

// --- Interop: Python's zipfile and PyTorch load what we write --------------------------

constexpr const char* kSystemPython = "/usr/bin/python3";

bool have_torch() {
  static const bool found =
      std::system(fmt::format("{} -c 'import torch' > /dev/null 2>&1", kSystemPython).c_str()) == 0;
  return found;
}

// Runs the checker on `written`; returns (exit code, everything it printed).
std::pair<int, std::string> run_checker(const std::string& written, const std::string& original,
                                        const std::string& golden, bool zip_only) {
  std::string command =
      fmt::format("{} {} {} {} {}{} 2>&1", kSystemPython,
                  symbolite::testing::source_path("tests/interop/check_written_archive.py"),
                  written, original, golden, zip_only ? " --zip-only" : "");
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string output;
  char chunk[4096];
  while (std::size_t n = std::fread(chunk, 1, sizeof chunk, pipe)) output.append(chunk, n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(ModelArchiveWriterTest, PyTorchLoadsAndRunsWhatWeWrite) {
  if (!have_torch()) GTEST_SKIP() << kSystemPython << " has no torch";
  std::string original_path = symbolite::testing::fixture_path("models/nested.ptl");
  std::string golden = symbolite::testing::fixture_path("goldens/nested.json");
  ModelArchive original = ModelArchive::open(original_path);
  ScratchDir dir;
  struct Variant {
    const char* name;
    Copy how;
    ZipWriterOptions options;
    // miniz (PyTorch's reader) checks that a record's 32-bit offset plus its size fits in the
    // file unless the size holds the ZIP64 marker. A ZIP64 offset holds the marker
    // 0xFFFFFFFF, so an offset-only ZIP64 entry passes only in a file past 4 GiB, as real
    // ones are: with the lowered threshold, only Python's zipfile can check that layout.
    bool zip_only;
  };
  for (const Variant& variant :
       {Variant{"recompressed", Copy::kRecompress, {}, false},
        Variant{"zip64", Copy::kRecompress, {.zip64_threshold = 0}, false},
        Variant{"zip64_offsets", Copy::kVerbatim, {.zip64_threshold = 4096}, true}}) {
    SCOPED_TRACE(variant.name);
    // The record folder stays "nested" whatever the file is called, as in the original.
    std::string path = dir.file(fmt::format("{}.ptl", variant.name));
    ModelArchiveWriter writer(ZipWriter::to_file(path, variant.options), original.record_folder());
    copy_records(original, variant.how, writer);
    writer.finish();
    auto [code, output] = run_checker(path, original_path, golden, variant.zip_only);
    EXPECT_EQ(code, 0) << output;
    EXPECT_THAT(output, HasSubstr("OK")) << output;
  }
}

}  // namespace
}  // namespace symbolite::archive
