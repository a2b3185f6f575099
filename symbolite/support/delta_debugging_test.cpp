#include "symbolite/support/delta_debugging.h"

#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>

namespace symbolite {
namespace {

std::vector<std::size_t> range(std::size_t n) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

bool has(const std::vector<std::size_t>& v, std::size_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(DeltaDebugging, FindsTheOneItemAtFault) {
  auto r = delta_debug(range(100), [](const auto& s) { return has(s, 37); });
  EXPECT_EQ(r.items, std::vector<std::size_t>{37});
  EXPECT_TRUE(r.complete);
  EXPECT_LE(r.tests, 20u);  // about 2 log2(100)
}

TEST(DeltaDebugging, KeepsEveryItemAFailureNeeds) {
  auto r = delta_debug(range(64), [](const auto& s) { return has(s, 3) && has(s, 60); });
  EXPECT_EQ(r.items, (std::vector<std::size_t>{3, 60}));
}

TEST(DeltaDebugging, StopsAtTheTestBudget) {
  auto r = delta_debug(
      range(1000), [](const auto& s) { return has(s, 999); }, 3);
  EXPECT_FALSE(r.complete);
  EXPECT_TRUE(has(r.items, 999));
  EXPECT_EQ(r.tests, 3u);
}

}  // namespace
}  // namespace symbolite
