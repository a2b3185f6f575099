// Sorting and what is read from sorted lines: sort, argsort, kthvalue, median and nanmedian,
// searchsorted and bucketize. sort and argsort along one dimension, as PyTorch 1.13's CPU
// kernel sorts: each line's
// (value, index) pairs with std::sort (std::stable_sort when `stable` is true) and its
// comparators, NaN greater than every number (last ascending, first descending). The same
// libstdc++ algorithm on the same comparisons puts equal values in PyTorch's order, stable
// or not.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

template <typename T>
struct Ascending {
  bool operator()(const std::pair<T, std::int64_t>& a, const std::pair<T, std::int64_t>& b) const {
    return (!is_nan_element(a.first) && is_nan_element(b.first)) || (a.first < b.first);
  }
};
template <typename T>
struct Descending {
  bool operator()(const std::pair<T, std::int64_t>& a, const std::pair<T, std::int64_t>& b) const {
    return (is_nan_element(a.first) && !is_nan_element(b.first)) || (a.first > b.first);
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

// The k-th smallest (1-based) of each line along dim, with its index: from the line sorted
// stably (NaN last), so of equal values the first index is the one reported.
template <typename Pick>
std::pair<Tensor, Tensor> select_along(const Tensor& self, std::int64_t dim_arg, bool keepdim,
                                       Pick pick) {
  const std::int64_t dim = wrap_dim(dim_arg, self.dim());
  auto [values, indices] = sort_impl(self, dim, false, true);
  const std::int64_t size = self.dim() == 0 ? 1 : self.sizes()[static_cast<std::size_t>(dim)];
  const std::int64_t k = pick(values, dim, size);
  IValue v = run_op("aten::select.int", {IValue(values), IValue(dim), IValue(k)});
  IValue i = run_op("aten::select.int", {IValue(indices), IValue(dim), IValue(k)});
  if (keepdim && self.dim() > 0) {
    v = run_op("aten::unsqueeze", {v, IValue(dim)});
    i = run_op("aten::unsqueeze", {i, IValue(dim)});
  }
  return {v.to_tensor().contiguous(), i.to_tensor().contiguous()};
}

// kthvalue(self, k, dim=-1, keepdim=False) -> (values, indices)
void kthvalue(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), k_v = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  const std::int64_t k = k_v.to_int();
  auto [v, i] = select_along(t, dim.to_int(), keepdim.to_bool(),
                             [k](const Tensor&, std::int64_t d, std::int64_t size) {
                               if (k < 1 || k > size) {
                                 fail(
                                     fmt::format("kthvalue(): selected number k out of range for "
                                                 "dimension {}",
                                                 d));
                               }
                               return k - 1;
                             });
  s.emplace_back(std::move(v));
  s.emplace_back(std::move(i));
}

// median.dim / nanmedian.dim(self, dim, keepdim=False): the lower median of each line and its
// index. median: a line holding NaN gives NaN (NaNs sort last: the first NaN); nanmedian: the
// lower median of the line's other values (a line of NaNs only: NaN).
template <bool kIgnoreNan>
void median_dim(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.numel() == 0) fail("median() input tensor cannot be empty");
  const std::int64_t d = wrap_dim(dim.to_int(), t.dim());
  auto [values, indices] = sort_impl(t, d, false, true);
  const std::int64_t size = t.dim() == 0 ? 1 : t.sizes()[static_cast<std::size_t>(d)];
  const Tensor nan = run_op("aten::isnan", {IValue(values)}).to_tensor();
  const Tensor count =
      run_op("aten::sum.dim_IntList", {IValue(nan), int_list_value({d}), IValue(true)}).to_tensor();
  // Per line, the NaNs' count n: median reads position size - n (the first NaN) when n > 0,
  // nanmedian (size - n - 1) / 2 (the last position when every value is NaN); else both
  // (size - 1) / 2.
  const Tensor valid = run_op("aten::rsub.Scalar", {IValue(count), IValue(size)}).to_tensor();
  Tensor position;
  if (kIgnoreNan) {
    position = run_op("aten::floor_divide.Scalar",
                      {run_op("aten::sub.Scalar", {IValue(valid), IValue(std::int64_t{1})}),
                       IValue(std::int64_t{2})})
                   .to_tensor();
    position = run_op("aten::clamp", {IValue(position), IValue(std::int64_t{0}), IValue(size - 1)})
                   .to_tensor();
    const Tensor all_nan =
        run_op("aten::eq.Scalar", {IValue(valid), IValue(std::int64_t{0})}).to_tensor();
    position = run_op("aten::where.self",
                      {IValue(all_nan), IValue(scalar_tensor(IValue(size - 1), DType::kInt64)),
                       IValue(position)})
                   .to_tensor();
  } else {
    const Tensor has_nan =
        run_op("aten::gt.Scalar", {IValue(count), IValue(std::int64_t{0})}).to_tensor();
    position =
        run_op("aten::where.self", {IValue(has_nan), IValue(valid),
                                    IValue(scalar_tensor(IValue((size - 1) / 2), DType::kInt64))})
            .to_tensor();
  }
  IValue v = run_op("aten::gather", {IValue(values), IValue(d), IValue(position)});
  IValue i = run_op("aten::gather", {IValue(indices), IValue(d), IValue(position)});
  if (!keepdim.to_bool() && t.dim() > 0) {
    v = run_op("aten::squeeze.dim", {v, IValue(d)});
    i = run_op("aten::squeeze.dim", {i, IValue(d)});
  }
  s.push_back(v);
  s.push_back(i);
}

// median(self) / nanmedian(self): the lower median of every element (NaN if any, for median;
// of the non-NaN elements, for nanmedian).
template <bool kIgnoreNan>
void median_all(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  IValue flat = run_op("aten::reshape", {self, int_list_value({t.numel()})});
  auto [values, indices] = sort_impl(flat.to_tensor(), 0, false, true);
  (void)indices;
  const std::int64_t n = t.numel();
  const Tensor nan = run_op("aten::isnan", {IValue(values)}).to_tensor().contiguous();
  std::int64_t nans = 0;
  for (std::int64_t i = 0; i < n; ++i) nans += nan.data<bool>()[i] ? 1 : 0;
  if (n == 0) {
    s.emplace_back(scalar_tensor(IValue(std::nan("")), t.dtype()));
    return;
  }
  std::int64_t at = (n - 1) / 2;
  if (nans > 0) at = kIgnoreNan ? (nans == n ? n - 1 : (n - nans - 1) / 2) : n - nans;
  s.push_back(run_op("aten::select.int", {IValue(values), IValue(std::int64_t{0}), IValue(at)}));
}

// searchsorted(sorted_sequence, self, *, out_int32, right, side, sorter) and
// bucketize(self, boundaries, *, out_int32, right): for each value, the index of the first
// boundary >= it (> it with right), in its own row of an N-D sorted sequence.
Tensor search_sorted(const Tensor& boundaries, const Tensor& values, bool out_int32, bool right) {
  const bool one_row = boundaries.dim() == 1;
  if (!one_row) {
    const Ints lead(boundaries.sizes().begin(), boundaries.sizes().end() - 1);
    const Ints vlead(values.sizes().begin(), values.sizes().end() - (values.dim() > 0 ? 1 : 0));
    if (lead != vlead) {
      fail(fmt::format(
          "torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
          "N-1 dimensions of boundaries tensor and input value tensor must match, but "
          "we got boundaries tensor {} and input value tensor {}",
          tensor::format_sizes(boundaries.sizes()), tensor::format_sizes(values.sizes())));
    }
  }
  const tensor::DType common = ResultType().tensor(boundaries).tensor(values).result();
  const Tensor b = to_dtype(boundaries, tensor::DType::kFloat64);
  const Tensor v = to_dtype(values, tensor::DType::kFloat64);
  (void)common;
  Tensor out = Tensor::uninitialized(values.sizes(), DType::kInt64);
  const std::int64_t len = boundaries.dim() == 0 ? 1 : boundaries.sizes().back();
  const std::int64_t per_row = one_row || values.dim() == 0 ? v.numel() : values.sizes().back();
  const double* pb = b.data<double>();
  const double* pv = v.data<double>();
  std::int64_t* po = out.mutable_data<std::int64_t>();
  for (std::int64_t i = 0; i < v.numel(); ++i) {
    const double* row = pb + (one_row ? 0 : (i / std::max<std::int64_t>(per_row, 1)) * len);
    const double x = pv[i];
    // NaN sorts last, as in the sort.
    auto less = [](double a, double c) { return (!std::isnan(a) && std::isnan(c)) || a < c; };
    const double* at = right ? std::upper_bound(row, row + len, x, less)
                             : std::lower_bound(row, row + len, x, less);
    po[i] = at - row;
  }
  return out_int32 ? to_dtype(out, DType::kInt32) : out;
}

bool right_of(const IValue& right, const IValue& side) {
  if (!side.is_none()) {
    const std::string& s = side.to_string();
    if (s != "left" && s != "right") {
      fail(fmt::format("torch.searchsorted(): side can only be 'left' or 'right' but got {}", s));
    }
    if (s == "left" && right.to_bool()) {
      fail(
          "torch.searchsorted(): side and right can't be set to opposites, got side of left while "
          "right was True");
    }
    return s == "right";
  }
  return right.to_bool();
}

void searchsorted_tensor(Stack& s) {
  IValue sorter = pop(s), side = pop(s), right = pop(s), out_int32 = pop(s), self = pop(s),
         sorted = pop(s);
  if (!sorter.is_none()) {
    throw OpError("NotImplementedError",
                  "torch.searchsorted(): sorter is not supported by symbolite");
  }
  s.emplace_back(search_sorted(sorted.to_tensor(), self.to_tensor(), out_int32.to_bool(),
                               right_of(right, side)));
}
void searchsorted_scalar(Stack& s) {
  IValue sorter = pop(s), side = pop(s), right = pop(s), out_int32 = pop(s), self = pop(s),
         sorted = pop(s);
  if (!sorter.is_none()) {
    throw OpError("NotImplementedError",
                  "torch.searchsorted(): sorter is not supported by symbolite");
  }
  const Tensor& b = sorted.to_tensor();
  if (b.dim() != 1) {
    fail(
        fmt::format("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                    "dimension is 1, but we got boundaries tensor dim({}) and input value's dim(0) "
                    "numel(1)",
                    b.dim()));
  }
  s.emplace_back(
      search_sorted(b, scalar_tensor(self, b.dtype()), out_int32.to_bool(), right_of(right, side)));
}
void bucketize(Stack& s) {
  IValue right = pop(s), out_int32 = pop(s), boundaries = pop(s), self = pop(s);
  const Tensor& b = boundaries.to_tensor();
  if (b.dim() != 1) {
    fail(fmt::format("boundaries tensor must be 1 dimension, but got dim({})", b.dim()));
  }
  const Tensor values =
      self.is(IValue::Kind::kTensor) ? self.to_tensor() : scalar_tensor(self, b.dtype());
  s.emplace_back(search_sorted(b, values, out_int32.to_bool(), right.to_bool()));
}

}  // namespace

void register_sort_ops(OperatorRegistry& r) {
  const IValue last(std::int64_t{-1}), no(false);
  r.add({"aten::sort", 3, {last, no}, sort});
  r.add({"aten::sort.stable", 4, {last, no}, sort_stable});
  r.add({"aten::argsort", 3, {last, no}, argsort});
  r.add({"aten::argsort.stable", 4, {last, no}, argsort_stable});
  r.add({"aten::kthvalue", 4, {last, no}, kthvalue});
  r.add({"aten::median", 1, {}, median_all<false>});
  r.add({"aten::nanmedian", 1, {}, median_all<true>});
  r.add({"aten::median.dim", 3, {no}, median_dim<false>});
  r.add({"aten::nanmedian.dim", 3, {no}, median_dim<true>});
  const IValue none;
  r.add({"aten::searchsorted.Tensor", 6, {no, no, none, none}, searchsorted_tensor});
  r.add({"aten::searchsorted.Scalar", 6, {no, no, none, none}, searchsorted_scalar});
  r.add({"aten::bucketize.Tensor", 4, {no, no}, bucketize});
  r.add({"aten::bucketize.Scalar", 4, {no, no}, bucketize});
}

}  // namespace symbolite::ops
