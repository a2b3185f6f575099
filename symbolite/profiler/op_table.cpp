#include "symbolite/profiler/op_table.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace symbolite::profiler {

std::string format_input_shapes(const std::vector<ValueMeta>& inputs) {
  std::vector<std::string> parts;
  parts.reserve(inputs.size());
  for (const auto& v : inputs) parts.push_back(fmt::format("[{}]", fmt::join(v.sizes, ", ")));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

std::vector<OpStats> op_table(const std::vector<OpEvent>& events, OpTableOptions options) {
  std::map<std::pair<std::string_view, std::string>, OpStats> rows;
  std::int64_t total = 0;
  for (const auto& e : events) {
    std::string shapes = options.by_input_shapes ? format_input_shapes(e.inputs) : std::string();
    auto& s = rows[{e.op, shapes}];
    if (s.count == 0) {
      s.op = std::string(e.op);
      s.input_shapes = std::move(shapes);
    }
    ++s.count;
    s.total_ns += e.end_ns - e.start_ns;
    s.self_ns += e.end_ns - e.start_ns;
    if (e.flops >= 0) s.flops = std::max<std::int64_t>(s.flops, 0) + e.flops;
    s.bytes_allocated += e.bytes_allocated;
    s.bytes_freed += e.bytes_freed;
    total += e.end_ns - e.start_ns;
  }
  std::vector<OpStats> out;
  for (auto& [key, s] : rows) {
    s.percent = total > 0 ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(total) : 0;
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [sort = options.sort](const OpStats& a, const OpStats& b) {
    switch (sort) {
      case OpSort::kCount: return a.count > b.count;
      case OpSort::kName: return a.op < b.op;
      case OpSort::kSelf: return a.self_ns > b.self_ns;
      case OpSort::kFlops: return a.flops > b.flops;
      case OpSort::kMemory: return a.bytes_allocated > b.bytes_allocated;
      case OpSort::kTotal: break;
    }
    return a.total_ns > b.total_ns;
  });
  return out;
}

std::string render_op_table(const std::vector<OpStats>& table, std::uint32_t details) {
  const bool flops = details & kDetailFlops;
  const bool memory = details & kDetailMemory;
  const bool shapes = !table.empty() && !table.front().input_shapes.empty();
  std::size_t width = 8;
  for (const auto& s : table) width = std::max(width, s.op.size());
  std::string out = fmt::format("{:<{}}  {:>7}  {:>12}  {:>12}  {:>12}  {:>7}", "operator",
                                width, "count", "total (us)", "self (us)", "avg (us)", "%");
  if (flops) out += fmt::format("  {:>12}  {:>9}", "MFLOPs", "GFLOP/s");
  if (memory) out += fmt::format("  {:>12}  {:>12}", "alloc (KiB)", "net (KiB)");
  if (shapes) out += "  input shapes";
  out += "\n";
  for (const auto& s : table) {
    out += fmt::format("{:<{}}  {:>7}  {:>12.1f}  {:>12.1f}  {:>12.2f}  {:>6.2f}%", s.op, width,
                       s.count, s.total_ns / 1e3, s.self_ns / 1e3,
                       s.count ? s.total_ns / 1e3 / static_cast<double>(s.count) : 0.0,
                       s.percent);
    if (flops) {
      if (s.flops < 0) {
        out += fmt::format("  {:>12}  {:>9}", "-", "-");
      } else {
        out += fmt::format("  {:>12.3f}  {:>9.2f}", s.flops / 1e6,
                           s.total_ns > 0 ? static_cast<double>(s.flops) / static_cast<double>(s.total_ns) : 0.0);
      }
    }
    if (memory) {
      out += fmt::format("  {:>12.1f}  {:>12.1f}", s.bytes_allocated / 1024.0,
                         (s.bytes_allocated - s.bytes_freed) / 1024.0);
    }
    if (shapes) out += "  " + s.input_shapes;
    out += "\n";
  }
  return out;
}

std::optional<OpSort> op_sort_from_name(std::string_view name) {
  static constexpr std::pair<std::string_view, OpSort> kNames[] = {
      {"total", OpSort::kTotal}, {"self", OpSort::kSelf},   {"count", OpSort::kCount},
      {"name", OpSort::kName},   {"flops", OpSort::kFlops}, {"memory", OpSort::kMemory}};
  for (const auto& [key, sort] : kNames) {
    if (key == name) return sort;
  }
  return std::nullopt;
}

nlohmann::json op_table_json(const std::vector<OpStats>& table, std::uint32_t details) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : table) {
    nlohmann::json row = {{"op", s.op}, {"count", s.count}, {"total_ns", s.total_ns},
                          {"self_ns", s.self_ns}, {"percent", s.percent}};
    if (!s.input_shapes.empty()) row["input_shapes"] = s.input_shapes;
    if (details & kDetailFlops) row["flops"] = s.flops < 0 ? nlohmann::json() : nlohmann::json(s.flops);
    if (details & kDetailMemory) {
      row["bytes_allocated"] = s.bytes_allocated;
      row["bytes_freed"] = s.bytes_freed;
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace symbolite::profiler
