#include "symbolite/profiler/op_table.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace symbolite::profiler {

std::vector<OpStats> op_table(const std::vector<OpEvent>& events, OpSort sort) {
  std::map<std::string_view, OpStats> by_op;
  std::int64_t total = 0;
  for (const auto& e : events) {
    auto& s = by_op[e.op];
    s.op = std::string(e.op);
    ++s.count;
    s.total_ns += e.end_ns - e.start_ns;
    s.self_ns += e.end_ns - e.start_ns;
    total += e.end_ns - e.start_ns;
  }
  std::vector<OpStats> out;
  for (auto& [op, s] : by_op) {
    s.percent = total > 0 ? 100.0 * static_cast<double>(s.total_ns) / static_cast<double>(total) : 0;
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [sort](const OpStats& a, const OpStats& b) {
    switch (sort) {
      case OpSort::kCount: return a.count > b.count;
      case OpSort::kName: return a.op < b.op;
      case OpSort::kTotal: break;
    }
    return a.total_ns > b.total_ns;
  });
  return out;
}

std::string render_op_table(const std::vector<OpStats>& table) {
  std::size_t width = 8;
  for (const auto& s : table) width = std::max(width, s.op.size());
  std::string out = fmt::format("{:<{}}  {:>7}  {:>12}  {:>12}  {:>12}  {:>7}\n", "operator",
                                width, "count", "total (us)", "self (us)", "avg (us)", "%");
  for (const auto& s : table) {
    out += fmt::format("{:<{}}  {:>7}  {:>12.1f}  {:>12.1f}  {:>12.2f}  {:>6.2f}%\n", s.op, width,
                       s.count, s.total_ns / 1e3, s.self_ns / 1e3,
                       s.count ? s.total_ns / 1e3 / static_cast<double>(s.count) : 0.0,
                       s.percent);
  }
  return out;
}

nlohmann::json op_table_json(const std::vector<OpStats>& table) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : table) {
    out.push_back({{"op", s.op}, {"count", s.count}, {"total_ns", s.total_ns},
                   {"self_ns", s.self_ns}, {"percent", s.percent}});
  }
  return out;
}

}  // namespace symbolite::profiler
