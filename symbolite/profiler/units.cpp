#include "symbolite/profiler/units.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace symbolite::profiler {
namespace {

// `value` in the largest of `units` (each `step` times the previous) that keeps it at 1 or
// more, with three significant figures after the first unit.
std::string scaled(double value, const char* const* units, int count, double step) {
  int unit = 0;
  double magnitude = std::fabs(value);
  while (unit + 1 < count && magnitude >= step) {
    value /= step;
    magnitude /= step;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} {}", value, units[0]);
  const int decimals = magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3;
  return fmt::format("{:.{}f} {}", value, decimals, units[unit]);
}

}  // namespace

std::string format_time(std::int64_t ns) {
  static const char* const kUnits[] = {"ns", "us", "ms", "s"};
  return scaled(static_cast<double>(ns), kUnits, 4, 1000);
}

std::string format_flops(std::int64_t flops) {
  static const char* const kUnits[] = {"FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP"};
  return scaled(static_cast<double>(flops), kUnits, 5, 1000);
}

std::string format_bytes(std::int64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  return scaled(static_cast<double>(bytes), kUnits, 5, 1024);
}

std::string format_rate(std::int64_t flops, std::int64_t ns) {
  if (ns <= 0) return "-";
  return fmt::format("{:.2f}",
                     static_cast<double>(flops) / static_cast<double>(ns));  // FLOP/ns = GFLOP/s
}

}  // namespace symbolite::profiler
