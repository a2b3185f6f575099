#include "symbolite/debuginfo/crash_log.h"

#include <gtest/gtest.h>

namespace symbolite::debuginfo {
namespace {

using Handles = std::vector<DebugHandle>;

TEST(CrashLog, FindsPyTorchsNotFoundMessage) {
  // The exact text PyTorch 1.13's lite interpreter prints for a model without debug info.
  auto m = find_handle_mentions(
      "RuntimeError: The size of tensor a (2) must match the size of tensor b (3)\n"
      "Debug info for handle(s): debug_handles:{7}, was not found.\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].handles, Handles{7});
  EXPECT_EQ(m[0].line, 2u);
}

TEST(CrashLog, FindsHandleSetsAndSingleHandles) {
  auto m = find_handle_mentions(
      "a debug_handles:{12, 13} b\nDEBUG HANDLE 5\nx debug_handle: 99 debug handle=-1 end");
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].handles, (Handles{12, 13}));
  EXPECT_EQ(m[1].handles, Handles{5});
  EXPECT_EQ(m[1].line, 2u);
  EXPECT_EQ(m[2].handles, Handles{99});
  EXPECT_EQ(m[3].handles, Handles{-1});
  EXPECT_EQ(m[3].line, 3u);
}

TEST(CrashLog, IgnoresLookalikes) {
  EXPECT_TRUE(find_handle_mentions("debug handles are great; debug_handles:{1,; debug handle x; "
                                   "debugger; debug_handles:{}; debug_handles:{3")
                  .empty());
  EXPECT_TRUE(find_handle_mentions("").empty());
  EXPECT_TRUE(find_handle_mentions("debug").empty());
  EXPECT_TRUE(find_handle_mentions("debug_handle").empty());
}

TEST(CrashLog, OutOfRangeNumberIsSkipped) {
  auto m = find_handle_mentions("debug handle 99999999999999999999999 then debug handle 4");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].handles, Handles{4});
}

TEST(CrashLog, OutOfRangeNumberInASetKeepsItsNeighbours) {
  auto m = find_handle_mentions("debug_handles:{5, 99999999999999999999, 28}");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].handles, (Handles{5, 28}));
  EXPECT_EQ(m[0].skipped, 1u);
  auto all_bad = find_handle_mentions("debug_handles:{-99999999999999999999}");
  ASSERT_EQ(all_bad.size(), 1u);
  EXPECT_TRUE(all_bad[0].handles.empty());
  EXPECT_EQ(all_bad[0].skipped, 1u);
}

}  // namespace
}  // namespace symbolite::debuginfo
