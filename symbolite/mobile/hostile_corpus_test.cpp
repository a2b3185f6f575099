// Replays the hostile corpus (tests/hostile/, written by make_hostile.py): every file must be
// refused with the error kind and message its manifest entry names, promptly, and without
// anything but symbolite::Error escaping.
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/archive/zip_reader.h"
#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile {
namespace {

using ::testing::HasSubstr;

std::string hostile_path(const std::string& name) {
  return symbolite::testing::source_path("tests/hostile/" + name);
}

nlohmann::json manifest() {
  std::ifstream in(hostile_path("expected.json"));
  return nlohmann::json::parse(in);
}

// The manifest's short kind names.
std::string kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kFormat:
      return "format";
    case ErrorKind::kModel:
      return "model";
    case ErrorKind::kUnsupported:
      return "unsupported";
    case ErrorKind::kNotFound:
      return "not_found";
    case ErrorKind::kUsage:
      return "usage";
    case ErrorKind::kLimit:
      return "limit";
    case ErrorKind::kIo:
      return "io";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "?";
}

// Opens `path` the way the manifest says, going as far as a user of that reader would.
void open_as(const std::string& path, const nlohmann::json& entry) {
  const std::string how = entry.at("open").get<std::string>();
  if (how == "model") {
    ModelInfo model = ModelInfo::load(path);
    auto symbolicator = model.symbolicator();
    for (auto handle : model.debug.table.handles()) symbolicator.symbolicate(handle);
  } else if (how == "runtime") {
    // Loading for running: decode every function, resolve its operators, verify its code;
    // then what a failure or a profile reads: each function's debug handles.
    LoadedModel model = LoadedModel::load(path);
    for (const auto& [name, fn] : model.functions) fn.debug_handles();
  } else if (how == "sidecar") {
    auto sidecar = debuginfo::SidecarReader::open(path);
    debuginfo::Symbolicator symbolicator(sidecar);
    for (auto handle : sidecar->handles()) symbolicator.symbolicate(handle);
  } else if (how == "zip") {
    archive::ZipLimits limits;
    limits.max_entry_size = entry.at("max_entry_size").get<std::uint64_t>();
    archive::ZipReader zip(map_file(path), path, limits);
    for (const auto& e : zip.entries()) zip.read(e);
  } else {
    FAIL() << "unknown way to open: " << how;
  }
}

TEST(HostileCorpusTest, ManifestCoversTheCorpus) {
  nlohmann::json cases = manifest();
  EXPECT_GE(cases.size(), 60u);
  for (const auto& [name, entry] : cases.items()) {
    EXPECT_TRUE(std::ifstream(hostile_path(name)).good()) << name;
  }
}

TEST(HostileCorpusTest, EveryFileIsRefusedAsExpected) {
  nlohmann::json cases = manifest();
  for (const auto& [name, entry] : cases.items()) {
    SCOPED_TRACE(name);
    const std::string path = hostile_path(name);
    const std::string kind = entry.at("kind").get<std::string>();
    const std::string message = entry.at("message").get<std::string>();
    bool threw = false;
    try {
      open_as(path, entry);
    } catch (const Error& e) {
      threw = true;
      EXPECT_EQ(kind_name(e.kind()), kind) << e.what();
      EXPECT_THAT(e.what(), HasSubstr(message));
      // The message names the file it came from.
      EXPECT_THAT(e.what(), HasSubstr(name));
    }
    EXPECT_TRUE(threw) << "opened without an error";
  }
}

}  // namespace
}  // namespace symbolite::mobile
