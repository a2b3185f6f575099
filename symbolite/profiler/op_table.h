// The operator table, like torch.profiler's key_averages(): per operator (and, on request,
// per distinct input shapes, like group_by_input_shape=True), how many calls, total and self
// time, average, share of the total, and the FLOPs and tensor memory the events carry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "symbolite/profiler/op_event.h"

namespace symbolite::profiler {

struct OpStats {
  std::string op;
  std::string input_shapes;  // "[[1, 3, 224, 224], [64, 3, 7, 7], [], ...]" when grouped by shapes
  std::uint64_t count = 0;
  std::int64_t total_ns = 0;
  std::int64_t self_ns = 0;  // operators do not nest, so self == total; kept for the schema
  double percent = 0;
  std::int64_t flops = -1;  // summed over calls with a formula; -1 when none had one
  std::int64_t bytes_allocated = 0;
  std::int64_t bytes_freed = 0;
};

enum class OpSort { kTotal, kSelf, kCount, kName, kFlops, kMemory };
// "total", "self", "count", "name", "flops", "memory"; nullopt for anything else.
std::optional<OpSort> op_sort_from_name(std::string_view name);

struct OpTableOptions {
  OpSort sort = OpSort::kTotal;
  bool by_input_shapes = false;  // one row per operator and input shapes
  // One row per operator name without its overload ("aten::add" for "aten::add.Tensor" and
  // "aten::add.Scalar"), as torch.profiler names operators, so the tables can be joined.
  bool by_name = false;
};

// "aten::add" for "aten::add.Tensor"; names without an overload, and fused operators' names
// ("aten::conv2d+aten::relu_"), unchanged.
std::string_view operator_name(std::string_view op);

std::vector<OpStats> op_table(const std::vector<OpEvent>& events, OpTableOptions options = {});
// `details` (EventDetail bits the events were recorded with) picks the columns shown; each
// figure in its own unit (units.h); a totals row at the end.
std::string render_op_table(const std::vector<OpStats>& table, std::uint32_t details = 0);
nlohmann::json op_table_json(const std::vector<OpStats>& table, std::uint32_t details = 0);

// "[[1, 3, 224, 224], [64, 3, 7, 7], [], []]": tensors by sizes, other values as [], as
// torch.profiler prints input shapes.
std::string format_input_shapes(const std::vector<ValueMeta>& inputs);

}  // namespace symbolite::profiler
