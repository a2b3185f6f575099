#include "symbolite/archive/model_archive.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::archive {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string archive_path(std::string_view name) {
  return symbolite::testing::fixture_path("archive/" + std::string(name));
}

using symbolite::testing::error_from;

TEST(ModelArchiveTest, OpensMobileArchive) {
  std::string path = archive_path("mobile.ptl");
  ModelArchive archive = ModelArchive::open(path);
  EXPECT_EQ(archive.display_name(), path);
  EXPECT_EQ(archive.record_folder(), "mobile");
  EXPECT_THAT(
      archive.records(),
      ElementsAre("data/0", "data/1", "data.pkl", "code/__torch__.py",
                  "code/__torch__.py.debug_pkl", "code/__torch__/torch/nn/modules/linear.py",
                  "code/__torch__/torch/nn/modules/linear.py.debug_pkl", "constants.pkl",
                  "bytecode.pkl", "mobile_debug_handles.pkl", "delegated_backends.debug_pkl",
                  "callstack_debug_map.pkl", "version"));
  EXPECT_TRUE(archive.has_record("bytecode.pkl"));
  EXPECT_FALSE(archive.has_record("mobile/bytecode.pkl"));
  EXPECT_EQ(archive.record_size("data.pkl"), 401u);
  EXPECT_EQ(archive.record_size("missing"), std::nullopt);
  EXPECT_EQ(archive.read_record("version").str(), "3\n");
  EXPECT_THAT(std::string(archive.read_record("code/__torch__.py").str()),
              StartsWith("class Outer(Module):"));
}

TEST(ModelArchiveTest, OpensScriptArchive) {
  ModelArchive archive = ModelArchive::open(archive_path("script.pt"));
  EXPECT_EQ(archive.record_folder(), "script");
  EXPECT_EQ(archive.records().size(), 9u);
  EXPECT_FALSE(archive.has_record("bytecode.pkl"));
  EXPECT_FALSE(archive.try_read_record("bytecode.pkl").has_value());
  std::optional<Bytes> data = archive.try_read_record("data.pkl");
  ASSERT_TRUE(data.has_value());
  EXPECT_EQ(data->size(), 401u);
  EXPECT_EQ(data->str().substr(0, 2), "\x80\x02");
}

TEST(ModelArchiveTest, RecordFolderMayHaveAnyName) {
  ModelArchive odd = ModelArchive::open(archive_path("python_zipfile.zip"));
  EXPECT_EQ(odd.record_folder(), "any folder-1.0");
  // The directory entry "code/" is not a record.
  EXPECT_THAT(odd.records(), ElementsAre("version", "empty", "code/model.py", "big.txt"));
  EXPECT_EQ(odd.read_record("empty").size(), 0u);
  EXPECT_EQ(odd.read_record("big.txt").size(), 198000u);

  ModelArchive zip64 = ModelArchive::open(archive_path("zip64.zip"));
  EXPECT_EQ(zip64.record_folder(), "z64");
  EXPECT_EQ(zip64.read_record("version").str(), "3\n");
}

TEST(ModelArchiveTest, FromBytesUsesTheDisplayName) {
  Bytes file = map_file(archive_path("mobile.ptl"));
  ModelArchive archive = ModelArchive::from_bytes(file, "in-memory model");
  EXPECT_EQ(archive.display_name(), "in-memory model");
  EXPECT_EQ(archive.zip().entries().size(), 13u);
}

TEST(ModelArchiveTest, MissingRecordIsNotFound) {
  ModelArchive archive = ModelArchive::from_bytes(map_file(archive_path("script.pt")), "m.pt");
  Error e = error_from([&] { archive.read_record("bytecode.pkl"); });
  EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
  EXPECT_EQ(std::string(e.what()),
            "m.pt: no record 'bytecode.pkl' in the archive (entry 'script/bytecode.pkl')");
}

TEST(ModelArchiveTest, ReadErrorsNameTheEntryAndArchive) {
  Bytes pristine = map_file(archive_path("mobile.ptl"));
  std::vector<std::uint8_t> buffer(pristine.data(), pristine.data() + pristine.size());
  buffer[320 + 10] ^= 0x40;  // inside data.pkl, which starts at byte 320
  ModelArchive archive =
      ModelArchive::from_bytes(Bytes::from_vector(std::move(buffer)), "model.ptl");
  Error e = error_from([&] { archive.read_record("data.pkl"); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), StartsWith("model.ptl: archive entry 'mobile/data.pkl': byte 320: "
                                   "CRC-32 mismatch (expected 0x71b3d8c6, got 0x"));
  EXPECT_THAT(e.context(), ElementsAre("archive entry 'mobile/data.pkl'", "model.ptl"));
}

TEST(ModelArchiveTest, RejectsMixedTopFolders) {
  std::string path = archive_path("mixed_folders.zip");
  Error e = error_from([&] { ModelArchive::open(path); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_EQ(std::string(e.what()),
            path +
                ": byte 45: entry 'second/data.pkl' lies outside the record folder 'first' "
                "(all entries must share one top-level folder)");
}

TEST(ModelArchiveTest, RejectsEntryWithoutFolder) {
  Error e = error_from([&] { ModelArchive::open(archive_path("no_folder.zip")); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), HasSubstr("entry 'data.pkl' is not inside a top-level record folder"));
}

TEST(ModelArchiveTest, RejectsEmptyArchive) {
  // An end of central directory record and nothing else.
  std::string empty("PK\5\6", 4);
  empty.append(18, '\0');
  Error e = error_from([&] { ModelArchive::from_bytes(Bytes::copy_of(empty), "empty.zip"); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), StartsWith("empty.zip: archive has no entries"));
}

TEST(ModelArchiveTest, OpenMissingFileIsNotFound) {
  Error e = error_from([&] { ModelArchive::open("/nonexistent/model.ptl"); });
  EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
  EXPECT_THAT(e.what(), HasSubstr("/nonexistent/model.ptl"));
}

TEST(ModelArchiveTest, OpensBadFileNamingIt) {
  std::string path = archive_path("make_archives.py");
  Error e = error_from([&] { ModelArchive::open(path); });
  EXPECT_EQ(e.kind(), ErrorKind::kFormat);
  EXPECT_THAT(e.what(), StartsWith(path + ": not a zip archive"));
}

// The shared model fixtures (tests/fixtures/models/) when they exist: every record reads.
TEST(ModelArchiveTest, ReadsEveryRecordOfModelFixtures) {
  std::filesystem::path folder = symbolite::testing::fixture_path("models");
  if (!std::filesystem::is_directory(folder)) GTEST_SKIP() << "no " << folder;
  int archives = 0;
  for (const auto& file : std::filesystem::directory_iterator(folder)) {
    std::string extension = file.path().extension().string();
    if (extension != ".pt" && extension != ".ptl") continue;
    SCOPED_TRACE(file.path().string());
    ModelArchive archive = ModelArchive::open(file.path().string());
    EXPECT_TRUE(archive.has_record("data.pkl"));
    // PyTorch writes ".data/version" from file format 6 on (encoder.ptl: aten::gelu is 10).
    EXPECT_TRUE(archive.has_record("version") || archive.has_record(".data/version"));
    for (const std::string& record : archive.records()) {
      EXPECT_EQ(archive.read_record(record).size(), archive.record_size(record));
    }
    ++archives;
  }
  if (archives == 0) GTEST_SKIP() << "no model archives in " << folder;
}

}  // namespace
}  // namespace symbolite::archive
