#include "symbolite/profiler/units.h"

#include <gtest/gtest.h>

namespace symbolite::profiler {
namespace {

TEST(Units, TimesScaleToTheirUnit) {
  EXPECT_EQ(format_time(0), "0 ns");
  EXPECT_EQ(format_time(812), "812 ns");
  EXPECT_EQ(format_time(12'340), "12.34 us");
  EXPECT_EQ(format_time(1'234'567), "1.235 ms");
  EXPECT_EQ(format_time(345'600'000), "345.6 ms");
  EXPECT_EQ(format_time(2'500'000'000), "2.500 s");
}

TEST(Units, FlopsAndBytes) {
  EXPECT_EQ(format_flops(48), "48 FLOP");
  EXPECT_EQ(format_flops(3'200'000), "3.200 MFLOP");
  EXPECT_EQ(format_bytes(0), "0 B");  // never "-0.0"
  EXPECT_EQ(format_bytes(-40), "-40 B");
  EXPECT_EQ(format_bytes(1536), "1.500 KiB");
  EXPECT_EQ(format_bytes(-3 * 1024 * 1024), "-3.000 MiB");
  EXPECT_EQ(format_rate(48, 0), "-");
  EXPECT_EQ(format_rate(3'000, 1'000), "3.00");
}

}  // namespace
}  // namespace symbolite::profiler
