#include "symbolite/profiler/op_table.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "symbolite/profiler/units.h"

namespace symbolite::profiler {

std::string format_input_shapes(const std::vector<ValueMeta>& inputs) {
  std::vector<std::string> parts;
  parts.reserve(inputs.size());
  for (const auto& v : inputs) parts.push_back(fmt::format("[{}]", fmt::join(v.sizes, ", ")));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

std::string_view operator_name(std::string_view op) {
  if (op.find('+') != std::string_view::npos) return op;  // a fused operator's name, whole
  const auto ns = op.find("::");
  const auto dot = op.find('.', ns == std::string_view::npos ? 0 : ns + 2);
  return dot == std::string_view::npos ? op : op.substr(0, dot);
}

std::vector<OpStats> op_table(const std::vector<OpEvent>& events, OpTableOptions options) {
  std::map<std::pair<std::string_view, std::string>, OpStats> rows;
  std::int64_t total = 0;
  for (const auto& e : events) {
    std::string shapes = options.by_input_shapes ? format_input_shapes(e.inputs) : std::string();
    const std::string_view op = options.by_name ? operator_name(e.op) : e.op;
    auto& s = rows[{op, shapes}];
    if (s.count == 0) {
      s.op = std::string(op);
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
    s.percent =
        total > 0 ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(total) : 0;
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(),
                   [sort = options.sort](const OpStats& a, const OpStats& b) {
                     switch (sort) {
                       case OpSort::kCount:
                         return a.count > b.count;
                       case OpSort::kName:
                         return a.op < b.op;
                       case OpSort::kSelf:
                         return a.self_ns > b.self_ns;
                       case OpSort::kFlops:
                         return a.flops > b.flops;
                       case OpSort::kMemory:
                         return a.bytes_allocated > b.bytes_allocated;
                       case OpSort::kTotal:
                         break;
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
  // Operators do not nest, so self and total agree; both are shown, as torch.profiler does.
  std::string out = fmt::format("{:<{}}  {:>7}  {:>11}  {:>11}  {:>11}  {:>7}  {:>7}", "operator",
                                width, "count", "total", "self", "avg", "self %", "total %");
  if (flops) out += fmt::format("  {:>11}  {:>8}", "FLOPs", "GFLOP/s");
  if (memory) out += fmt::format("  {:>11}  {:>11}", "allocated", "net");
  if (shapes) out += "  input shapes";
  out += "\n";
  OpStats sum;
  std::int64_t sum_flops = -1;
  for (const auto& s : table) {
    const std::int64_t avg = s.count ? s.total_ns / static_cast<std::int64_t>(s.count) : 0;
    out += fmt::format("{:<{}}  {:>7}  {:>11}  {:>11}  {:>11}  {:>6.2f}%  {:>6.2f}%", s.op, width,
                       s.count, format_time(s.total_ns), format_time(s.self_ns), format_time(avg),
                       s.percent, s.percent);
    if (flops) {
      out += s.flops < 0 ? fmt::format("  {:>11}  {:>8}", "-", "-")
                         : fmt::format("  {:>11}  {:>8}", format_flops(s.flops),
                                       format_rate(s.flops, s.total_ns));
    }
    if (memory) {
      out += fmt::format("  {:>11}  {:>11}", format_bytes(s.bytes_allocated),
                         format_bytes(s.bytes_allocated - s.bytes_freed));
    }
    if (shapes) out += "  " + s.input_shapes;
    out += "\n";
    sum.count += s.count;
    sum.total_ns += s.total_ns;
    sum.self_ns += s.self_ns;
    if (s.flops >= 0) sum_flops = std::max<std::int64_t>(sum_flops, 0) + s.flops;
    sum.bytes_allocated += s.bytes_allocated;
    sum.bytes_freed += s.bytes_freed;
  }
  // The totals footer: what every row above adds up to.
  out +=
      fmt::format("{:<{}}  {:>7}  {:>11}  {:>11}  {:>11}  {:>6.2f}%  {:>6.2f}%", "total", width,
                  sum.count, format_time(sum.total_ns), format_time(sum.self_ns),
                  format_time(sum.count ? sum.total_ns / static_cast<std::int64_t>(sum.count) : 0),
                  table.empty() ? 0.0 : 100.0, table.empty() ? 0.0 : 100.0);
  if (flops) {
    out += sum_flops < 0 ? fmt::format("  {:>11}  {:>8}", "-", "-")
                         : fmt::format("  {:>11}  {:>8}", format_flops(sum_flops),
                                       format_rate(sum_flops, sum.total_ns));
  }
  if (memory) {
    out += fmt::format("  {:>11}  {:>11}", format_bytes(sum.bytes_allocated),
                       format_bytes(sum.bytes_allocated - sum.bytes_freed));
  }
  out += "\n";
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
    nlohmann::json row = {{"op", s.op},
                          {"count", s.count},
                          {"total_ns", s.total_ns},
                          {"self_ns", s.self_ns},
                          {"percent", s.percent}};
    if (!s.input_shapes.empty()) row["input_shapes"] = s.input_shapes;
    if (details & kDetailFlops)
      row["flops"] = s.flops < 0 ? nlohmann::json() : nlohmann::json(s.flops);
    if (details & kDetailMemory) {
      row["bytes_allocated"] = s.bytes_allocated;
      row["bytes_freed"] = s.bytes_freed;
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace symbolite::profiler
