// The operator table, like torch.profiler's key_averages(): per operator, how many calls,
// total and self time, average, and share of the total.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "symbolite/profiler/op_event.h"

namespace symbolite::profiler {

struct OpStats {
  std::string op;
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;
  std::int64_t self_ns = 0;  // operators do not nest, so self == total; kept for the schema
  double percent = 0;
};

enum class OpSort { kTotal, kCount, kName };

std::vector<OpStats> op_table(const std::vector<OpEvent>& events, OpSort sort = OpSort::kTotal);
std::string render_op_table(const std::vector<OpStats>& table);
nlohmann::json op_table_json(const std::vector<OpStats>& table);

}  // namespace symbolite::profiler
