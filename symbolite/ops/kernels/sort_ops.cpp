// sort and argsort along one dimension, as PyTorch 1.13's CPU kernel sorts: each line's
// (value, index) pairs with std::sort (std::stable_sort when `stable` is true) and its
// comparators, NaN greater than every number (last ascending, first descending). The same
// libstdc++ algorithm on the same comparisons puts equal values in PyTorch's order, stable
// or not.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

template <typename T>
struct Ascending {
  bool operator()(const std::pair<T, std::int64_t>& a, const std::pair<T, std::int64_t>& b) const {
    return (!is_nan(a.first) && is_nan(b.first)) || (a.first < b.first);
  }
};
template <typename T>
struct Descending {
  bool operator()(const std::pair<T, std::int64_t>& a, const std::pair<T, std::int64_t>& b) const {
    return (is_nan(a.first) && !is_nan(b.first)) || (a.first > b.first);
  }
};

// (values, indices) of self sorted along dim.
std::pair<Tensor, Tensor> sort_impl(const Tensor& self, std::int64_t dim_arg, bool descending,
                                    bool stable) {
  const std::int64_t dim = wrap_dim(dim_arg, self.dim());
  const Tensor x = self.contiguous();
  Tensor values = Tensor::uninitialized(x.sizes(), x.dtype());
  Tensor indices = Tensor::uninitialized(x.sizes(), DType::kInt64);
  std::int64_t outer = 1, size = 1, inner = 1;
  for (std::int64_t d = 0; d < x.dim(); ++d) {
    const std::int64_t n = x.sizes()[static_cast<std::size_t>(d)];
    if (d < dim) outer *= n;
    if (d == dim) size = n;
    if (d > dim) inner *= n;
  }
  if (x.numel() == 0) return {values, indices};
  dispatch_all(x.dtype(), "sort", [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.template data<T>();
    T* val = values.template mutable_data<T>();
    std::int64_t* idx = indices.mutable_data<std::int64_t>();
    std::vector<std::pair<T, std::int64_t>> line(static_cast<std::size_t>(size));
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int64_t first = o * size * inner + i;
        for (std::int64_t k = 0; k < size; ++k) {
          line[static_cast<std::size_t>(k)] = {in[first + k * inner], k};
        }
        if (descending && stable) {
          std::stable_sort(line.begin(), line.end(), Descending<T>{});
        } else if (descending) {
          std::sort(line.begin(), line.end(), Descending<T>{});
        } else if (stable) {
          std::stable_sort(line.begin(), line.end(), Ascending<T>{});
        } else {
          std::sort(line.begin(), line.end(), Ascending<T>{});
        }
        for (std::int64_t k = 0; k < size; ++k) {
          val[first + k * inner] = line[static_cast<std::size_t>(k)].first;
          idx[first + k * inner] = line[static_cast<std::size_t>(k)].second;
        }
      }
    }
  });
  return {values, indices};
}

// sort(self, dim=-1, descending=False) -> (values, indices)
void sort(Stack& s) {
  IValue descending = pop(s), dim = pop(s), self = pop(s);
  auto [values, indices] = sort_impl(self.to_tensor(), dim.to_int(), descending.to_bool(), false);
  s.emplace_back(std::move(values));
  s.emplace_back(std::move(indices));
}

// sort.stable(self, *, stable, dim=-1, descending=False): stable None counts as false.
void sort_stable(Stack& s) {
  IValue descending = pop(s), dim = pop(s), stable = pop(s), self = pop(s);
  auto [values, indices] = sort_impl(self.to_tensor(), dim.to_int(), descending.to_bool(),
                                     !stable.is_none() && stable.to_bool());
  s.emplace_back(std::move(values));
  s.emplace_back(std::move(indices));
}

void argsort(Stack& s) {
  IValue descending = pop(s), dim = pop(s), self = pop(s);
  s.emplace_back(sort_impl(self.to_tensor(), dim.to_int(), descending.to_bool(), false).second);
}

void argsort_stable(Stack& s) {
  IValue descending = pop(s), dim = pop(s), stable = pop(s), self = pop(s);
  s.emplace_back(
      sort_impl(self.to_tensor(), dim.to_int(), descending.to_bool(), stable.to_bool()).second);
}

}  // namespace

void register_sort_ops(OperatorRegistry& r) {
  const IValue last(std::int64_t{-1}), no(false);
  r.add({"aten::sort", 3, {last, no}, sort});
  r.add({"aten::sort.stable", 4, {last, no}, sort_stable});
  r.add({"aten::argsort", 3, {last, no}, argsort});
  r.add({"aten::argsort.stable", 4, {last, no}, argsort_stable});
}

}  // namespace symbolite::ops
