// HandleTable::site_of: a handle's first instruction, in handle order or not; and on every
// fixture PyTorch wrote, each handle leads back to an instruction that carries it.
#include "symbolite/debuginfo/handle_table_reader.h"

#include <gtest/gtest.h>

#include "symbolite/archive/model_archive.h"
#include "symbolite/debuginfo/model_debug_info.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::debuginfo {
namespace {

TEST(HandleTable, SiteOfIsTheFirstInstructionCarryingTheHandle) {
  // Handles out of order across and within functions, one handle on two instructions, and
  // instructions without a handle (-1).
  HandleTable table(8, {{"__torch__.M.helper", {9, kInvalidDebugHandle, 4, 9}},
                        {"__torch__.M.forward", {2, 4, kInvalidDebugHandle, 7}}});
  auto site = table.site_of(9);
  ASSERT_TRUE(site);
  EXPECT_EQ(site->function, "__torch__.M.helper");
  EXPECT_EQ(site->instruction, 0u);
  site = table.site_of(4);
  ASSERT_TRUE(site);
  EXPECT_EQ(site->function, "__torch__.M.helper");
  EXPECT_EQ(site->instruction, 2u);
  site = table.site_of(7);
  ASSERT_TRUE(site);
  EXPECT_EQ(site->function, "__torch__.M.forward");
  EXPECT_EQ(site->instruction, 3u);
  EXPECT_FALSE(table.site_of(kInvalidDebugHandle));
  EXPECT_FALSE(table.site_of(5));
  EXPECT_FALSE(table.site_of(100));
  EXPECT_FALSE(HandleTable().site_of(0));
}

TEST(HandleTable, EveryHandleOfEveryFixtureLeadsToItsFirstInstruction) {
  int checked = 0;
  for (const std::string& name : testing::fixture_files("models", ".ptl")) {
    SCOPED_TRACE(name);
    ModelDebugInfo info;
    try {
      info = ModelDebugInfo::load(
          archive::ModelArchive::open(testing::fixture_path("models/" + name)));
    } catch (const Error&) {
      continue;  // the fixtures that are broken on purpose
    }
    const HandleTable& table = info.handles;
    for (std::size_t f = 0; f < table.functions().size(); ++f) {
      const auto& handles = table.functions()[f].handles;
      for (std::size_t i = 0; i < handles.size(); ++i) {
        if (handles[i] == kInvalidDebugHandle) continue;
        auto site = table.site_of(handles[i]);
        ASSERT_TRUE(site) << handles[i];
        const FunctionHandles* fn = table.find(site->function);
        ASSERT_NE(fn, nullptr);
        EXPECT_EQ(fn->handles.at(site->instruction), handles[i]);
        // No earlier instruction of the same function carries it.
        if (site->function == table.functions()[f].function) {
          EXPECT_LE(site->instruction, i);
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace symbolite::debuginfo
