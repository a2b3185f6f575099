// `split_model`: the stripped model keeps what a runtime needs and nothing to symbolicate
// with; the sidecar symbolicates every handle as the full model does; both carry one id.
#include "symbolite/mobile/model_split.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::mobile {
namespace {

namespace fs = std::filesystem;
using symbolite::testing::fixture_path;

class ModelSplit : public ::testing::Test {
 protected:
  std::string path(const char* name) const { return scratch_.file(name); }
  symbolite::testing::ScratchDir scratch_;
  const fs::path& dir_ = scratch_.path();
};

TEST_F(ModelSplit, StrippedModelAndSidecarTogetherLoseNothing) {
  std::string full = fixture_path("models/nested.ptl");
  auto result = split_model(full, path("s.ptl"), path("s.symdbg"));

  auto original = ModelInfo::load(full);
  auto stripped = ModelInfo::load(path("s.ptl"));
  EXPECT_EQ(result.model_id, compute_model_id(original.archive));
  EXPECT_EQ(compute_model_id(stripped.archive), result.model_id);
  EXPECT_EQ(stripped.archive.read_record(kModelIdRecord).str(), to_hex(result.model_id) + "\n");

  // What a runtime needs stays, byte for byte; debug records are gone.
  for (const auto& record : original.archive.records()) {
    if (is_debug_only_record(record)) {
      EXPECT_FALSE(stripped.archive.has_record(record)) << record;
    } else {
      ASSERT_TRUE(stripped.archive.has_record(record)) << record;
      EXPECT_EQ(stripped.archive.read_record(record).str(),
                original.archive.read_record(record).str())
          << record;
    }
  }
  EXPECT_FALSE(stripped.debug.has_callstack_map);
  EXPECT_TRUE(stripped.debug.has_handle_table);
  EXPECT_LT(result.stripped_size, result.model_size);

  auto sidecar = debuginfo::SidecarReader::open(path("s.symdbg"));
  EXPECT_EQ(sidecar->model_id(), result.model_id);
  debuginfo::Symbolicator from_sidecar(sidecar);
  auto from_model = original.symbolicator();
  for (auto h : original.debug.table.handles()) {
    EXPECT_EQ(from_sidecar.symbolicate(h).traceback, from_model.symbolicate(h).traceback) << h;
    EXPECT_EQ(from_sidecar.symbolicate(h).module_hierarchy,
              from_model.symbolicate(h).module_hierarchy)
        << h;
  }
  // The stripped model alone explains that its debug info lives elsewhere.
  auto alone = stripped.symbolicator().symbolicate(original.debug.table.handles().front());
  EXPECT_EQ(alone.status, debuginfo::SymbolicationStatus::kNotFound);
}

TEST_F(ModelSplit, ModelWithoutDebugInfoIsRefusedAndWritesNothing) {
  try {
    split_model(fixture_path("models/nested_nodebug.ptl"), path("s.ptl"), path("s.symdbg"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    EXPECT_NE(std::string(e.what()).find("no debug information to split"), std::string::npos);
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(ModelSplit, UnwritableOutputFailsAndLeavesNoPartialFiles) {
  EXPECT_THROW(
      split_model(fixture_path("models/nested.ptl"), path("s.ptl"), path("missing-dir/s.symdbg")),
      Error);
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(ModelSplit, SplittingIsDeterministic) {
  split_model(fixture_path("models/nested.ptl"), path("a.ptl"), path("a.symdbg"));
  split_model(fixture_path("models/nested.ptl"), path("b.ptl"), path("b.symdbg"));
  EXPECT_EQ(map_file(path("a.symdbg")).str(), map_file(path("b.symdbg")).str());
  EXPECT_EQ(map_file(path("a.ptl")).str(), map_file(path("b.ptl")).str());
}

}  // namespace
}  // namespace symbolite::mobile
