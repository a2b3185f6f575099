// Figures in the profiler's text tables, each scaled to its own unit so small and large
// values both read well (torch.profiler's tables do the same): "812 ns", "12.34 us",
// "1.234 ms"; "3.2 MFLOP"; "1.5 KiB", "-2.0 MiB". Never "-0.0".
#pragma once

#include <cstdint>
#include <string>

namespace symbolite::profiler {

std::string format_time(std::int64_t ns);
std::string format_flops(std::int64_t flops);
std::string format_bytes(std::int64_t bytes);
// FLOPs over nanoseconds as GFLOP/s, "-" when there is no time.
std::string format_rate(std::int64_t flops, std::int64_t ns);

}  // namespace symbolite::profiler
