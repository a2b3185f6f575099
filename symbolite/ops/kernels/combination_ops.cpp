// Index combinations of 1-D tensors: cartesian_prod (every tuple, one element from each) and
// combinations (r elements in increasing positions, or non-decreasing with replacement), rows
// in lexicographic order of the positions, as PyTorch's meshgrid-and-mask composition gives
// them. combinations walks the tuples directly instead of building PyTorch's n^r grid.
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

void check_vector(const Tensor& t) {
  if (t.dim() != 1) {
    fail(fmt::format("Expect a 1D vector, but got shape {}", tensor::format_sizes(t.sizes())));
  }
}

// cartesian_prod(tensors): one tensor is itself; else meshgrid "ij", each flattened, stacked
// as columns.
void cartesian_prod(Stack& s) {
  IValue list = pop(s);
  const std::vector<Tensor> tensors = tensor_list_arg(list);
  for (const Tensor& t : tensors) check_vector(t);
  if (tensors.size() == 1) {
    s.emplace_back(tensors[0]);
    return;
  }
  const IValue grids = run_op("aten::meshgrid.indexing", {list, IValue::string("ij")});
  IValueList columns;
  for (const IValue& grid : grids.to_list()) {
    columns.push_back(run_op("aten::flatten.using_ints",
                             {grid, IValue(std::int64_t{0}), IValue(std::int64_t{-1})}));
  }
  s.push_back(run_op("aten::stack", {IValue::list(std::move(columns)), IValue(std::int64_t{1})}));
}

// combinations(self, r=2, with_replacement=False): rows of r elements of self.
void combinations(Stack& s) {
  const bool with_replacement = pop(s).to_bool();
  const std::int64_t r = pop(s).to_int();
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  check_vector(t);
  if (r < 0) fail(fmt::format("Expect a non-negative number, but got {}", r));
  if (r == 0) {
    s.emplace_back(Tensor::empty({0}, t.dtype()));
    return;
  }
  const std::int64_t n = t.sizes()[0];
  // Positions in lexicographic order: the last one moves fastest.
  Ints positions, tuple(static_cast<std::size_t>(r), 0);
  if (!with_replacement) {
    for (std::int64_t k = 0; k < r; ++k) tuple[static_cast<std::size_t>(k)] = k;
  }
  const auto valid = [&] { return n > 0 && tuple.back() < n; };
  std::int64_t rows = 0;
  while (valid()) {
    positions.insert(positions.end(), tuple.begin(), tuple.end());
    ++rows;
    // The rightmost position that can still move, then the ones after it just above it.
    std::int64_t k = r - 1;
    while (k >= 0) {
      const std::int64_t limit = with_replacement ? n - 1 : n - (r - k);
      if (tuple[static_cast<std::size_t>(k)] < limit) break;
      --k;
    }
    if (k < 0) break;
    ++tuple[static_cast<std::size_t>(k)];
    for (std::int64_t j = k + 1; j < r; ++j) {
      tuple[static_cast<std::size_t>(j)] =
          tuple[static_cast<std::size_t>(j - 1)] + (with_replacement ? 0 : 1);
    }
  }
  Tensor index =
      Tensor::uninitialized({static_cast<std::int64_t>(positions.size())}, DType::kInt64);
  std::copy(positions.begin(), positions.end(), index.mutable_data<std::int64_t>());
  IValue picked = run_op("aten::index_select", {self, IValue(std::int64_t{0}), IValue(index)});
  s.push_back(run_op("aten::reshape", {picked, int_list_value({rows, r})}));
}

}  // namespace

void register_combination_ops(OperatorRegistry& r) {
  r.add({"aten::cartesian_prod", 1, {}, cartesian_prod});
  r.add({"aten::combinations", 3, {IValue(std::int64_t{2}), IValue(false)}, combinations});
}

}  // namespace symbolite::ops
