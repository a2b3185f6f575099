// Distinct values and their counts: torch.unique (aten::_unique2, _unique, unique_dim),
// unique_consecutive, bincount and histc. unique's values come sorted (what torch.unique
// returns by default), with the inverse (each element's position among them, shaped like the
// input) and the counts when asked for, empty tensors when not, as PyTorch's CPU kernels give.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

Tensor int64_vector(const Ints& v) {
  Tensor t = Tensor::uninitialized({static_cast<std::int64_t>(v.size())}, DType::kInt64);
  std::copy(v.begin(), v.end(), t.mutable_data<std::int64_t>());
  return t;
}

// Elements of flattened self grouped into runs of equal values, in the order `order` visits
// them: the run each element falls in, the first element of each run and its length.
struct Runs {
  Ints run_of;  // per element of self
  Ints first;   // per run: an element index
  Ints count;   // per run
};

template <typename T>
Runs runs(const T* v, const Ints& order) {
  Runs r;
  r.run_of.resize(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::int64_t i = order[k];
    if (k == 0 || !(v[i] == v[order[k - 1]])) {
      r.first.push_back(i);
      r.count.push_back(0);
    }
    ++r.count.back();
    r.run_of[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(r.first.size()) - 1;
  }
  return r;
}

// (values, inverse, counts) of flattened self: sorted (NaN last) or in the order of first
// appearance of runs of consecutive equal values (`consecutive`).
std::vector<IValue> unique_flat(const Tensor& self, bool consecutive, bool return_inverse,
                                bool return_counts) {
  const Tensor x = self.contiguous();
  const std::int64_t n = x.numel();
  std::vector<IValue> out;
  dispatch_all(x.dtype(), consecutive ? "unique_consecutive" : "unique", [&](auto tag) {
    using T = decltype(tag);
    const T* v = x.template data<T>();
    Ints order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    if (!consecutive) {
      std::stable_sort(order.begin(), order.end(), [v](std::int64_t a, std::int64_t b) {
        if constexpr (std::is_floating_point_v<T>) {
          if (std::isnan(v[a]) || std::isnan(v[b])) return !std::isnan(v[a]) && std::isnan(v[b]);
        }
        return v[a] < v[b];
      });
    }
    const Runs r = runs(v, order);
    Tensor values = Tensor::uninitialized({static_cast<std::int64_t>(r.first.size())}, x.dtype());
    T* dst = values.template mutable_data<T>();
    for (std::size_t k = 0; k < r.first.size(); ++k) dst[k] = v[r.first[k]];
    out.emplace_back(std::move(values));
    // PyTorch's bool kernel gives the inverse whether asked or not.
    if (return_inverse || x.dtype() == DType::kBool) {
      Tensor inverse = int64_vector(r.run_of);
      out.emplace_back(run_op("aten::reshape", {IValue(inverse), int_list_value(self.sizes())}));
    } else {
      out.emplace_back(Tensor::empty({0}, DType::kInt64));
    }
    out.emplace_back(return_counts ? int64_vector(r.count) : Tensor::empty({0}, DType::kInt64));
  });
  return out;
}

// _unique2(self, sorted=True, return_inverse=False, return_counts=False)
void unique2(Stack& s) {
  const bool counts = pop(s).to_bool(), inverse = pop(s).to_bool();
  pop(s);  // sorted: the values always come sorted
  const Tensor self = pop(s).to_tensor();
  for (IValue& v : unique_flat(self, false, inverse, counts)) s.push_back(std::move(v));
}

// _unique(self, sorted=True, return_inverse=False) -> (values, inverse)
void unique_old(Stack& s) {
  const bool inverse = pop(s).to_bool();
  pop(s);
  const Tensor self = pop(s).to_tensor();
  std::vector<IValue> out = unique_flat(self, false, inverse, false);
  s.push_back(out[0]);
  s.push_back(out[1]);
}

// unique_consecutive(self, return_inverse=False, return_counts=False, dim=None): with dim,
// runs of equal slices.
void unique_consecutive(Stack& s) {
  IValue dim = pop(s);
  const bool counts = pop(s).to_bool(), inverse = pop(s).to_bool();
  const Tensor self = pop(s).to_tensor();
  if (!dim.is_none() && self.dim() > 1) {
    throw OpError("NotImplementedError",
                  "unique_consecutive: symbolite takes dim only for 1-D tensors");
  }
  for (IValue& v : unique_flat(self, true, inverse, counts)) s.push_back(std::move(v));
}

// unique_dim(self, dim, sorted=True, return_inverse=False, return_counts=False): the distinct
// slices along dim, sorted lexicographically.
void unique_dim(Stack& s) {
  const bool counts = pop(s).to_bool();
  pop(s);  // return_inverse: computed anyway
  pop(s);  // sorted
  const std::int64_t dim_arg = pop(s).to_int();
  IValue self_v = pop(s);
  const Tensor& self = self_v.to_tensor();
  const std::int64_t dim = wrap_dim(dim_arg, self.dim());
  // Slices along dim as rows of a contiguous [size, rest] matrix.
  const Tensor moved = run_op("aten::movedim.int", {self_v, IValue(dim), IValue(std::int64_t{0})})
                           .to_tensor()
                           .contiguous();
  const std::int64_t size = self.dim() == 0 ? 1 : self.sizes()[static_cast<std::size_t>(dim)];
  const std::int64_t rest = size == 0 ? 0 : moved.numel() / size;
  Ints order(static_cast<std::size_t>(size));
  std::iota(order.begin(), order.end(), 0);
  Ints first, count, run_of(order.size());
  dispatch_all(self.dtype(), "unique_dim", [&](auto tag) {
    using T = decltype(tag);
    const T* v = moved.template data<T>();
    auto row_less = [&](std::int64_t a, std::int64_t b) {
      return std::lexicographical_compare(v + a * rest, v + (a + 1) * rest, v + b * rest,
                                          v + (b + 1) * rest);
    };
    std::stable_sort(order.begin(), order.end(), row_less);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::int64_t i = order[k];
      if (k == 0 || !std::equal(v + i * rest, v + (i + 1) * rest, v + order[k - 1] * rest)) {
        first.push_back(i);
        count.push_back(0);
      }
      ++count.back();
      run_of[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(first.size()) - 1;
    }
  });
  IValue rows = run_op("aten::index_select",
                       {IValue(moved), IValue(std::int64_t{0}), IValue(int64_vector(first))});
  s.push_back(run_op("aten::movedim.int", {rows, IValue(std::int64_t{0}), IValue(dim)}));
  s.emplace_back(int64_vector(run_of));  // PyTorch computes it whether asked or not
  s.emplace_back(counts ? int64_vector(count) : Tensor::empty({0}, DType::kInt64));
}

// bincount(self, weights=None, minlength=0): how often each non-negative int appears (the sum
// of its weights, as double unless the weights are float32).
void bincount(Stack& s) {
  const std::int64_t minlength = pop(s).to_int();
  IValue weights_v = pop(s);
  const Tensor self = pop(s).to_tensor();
  if (self.dim() != 1) fail("bincount only supports 1-d non-negative integral inputs.");
  if (is_floating(self.dtype()) || self.dtype() == DType::kBool) {
    fail(fmt::format("\"bincount_cpu\" not implemented for '{}'",
                     tensor::scalar_type_name(self.dtype())));
  }
  if (minlength < 0) fail("minlength should be >= 0");
  const Tensor x = to_dtype(self, DType::kInt64);
  const std::int64_t* v = x.data<std::int64_t>();
  std::int64_t largest = -1;
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    if (v[i] < 0) fail("bincount only supports 1-d non-negative integral inputs.");
    largest = std::max(largest, v[i]);
  }
  // A bin past the largest value (INT64_MAX has none: its size overflows below); counts no
  // tensor holds fail before the bins are made (int64 counts, or weights summed in double).
  const std::int64_t bins = std::max(
      minlength, largest == std::numeric_limits<std::int64_t>::max() ? largest : largest + 1);
  const std::int64_t bin_sizes[] = {bins};
  tensor::checked_nbytes(bin_sizes, weights_v.is_none() ? DType::kInt64 : DType::kFloat64);
  if (weights_v.is_none()) {
    Ints counts(static_cast<std::size_t>(bins), 0);
    for (std::int64_t i = 0; i < x.numel(); ++i) ++counts[static_cast<std::size_t>(v[i])];
    s.emplace_back(int64_vector(counts));
    return;
  }
  const Tensor& w = weights_v.to_tensor();
  if (w.dim() != 1 || w.numel() != x.numel()) {
    fail("weights should be 1-d and have the same length as input");
  }
  const DType dtype = w.dtype() == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64;
  const Tensor wd = to_dtype(w, DType::kFloat64);
  std::vector<double> sums(static_cast<std::size_t>(bins), 0.0);
  for (std::int64_t i = 0; i < x.numel(); ++i)
    sums[static_cast<std::size_t>(v[i])] += wd.data<double>()[i];
  Tensor out = Tensor::uninitialized({bins}, DType::kFloat64);
  std::copy(sums.begin(), sums.end(), out.mutable_data<double>());
  s.emplace_back(to_dtype(out, dtype));
}

// histc(self, bins=100, min=0, max=0): counts in `bins` equal bins over [min, max] (the data's
// range when they are equal), values outside ignored, the top edge in the last bin. PyTorch's
// checks in its order: bins, a finite range, min below max, the dtype.
void histc(Stack& s) {
  IValue max_v = pop(s), min_v = pop(s);
  const std::int64_t bins = pop(s).to_int();
  const Tensor self = pop(s).to_tensor();
  if (bins <= 0) {
    fail(fmt::format("torch.histogram(): bins must be > 0, but got {} for dimension 0", bins));
  }
  const Tensor x = to_dtype(self, DType::kFloat64);
  const double* v = x.data<double>();
  double lo = min_v.to_double(), hi = max_v.to_double();
  if (lo == hi && x.numel() > 0) {
    if (std::any_of(v, v + x.numel(), [](double e) { return std::isnan(e); })) {
      // PyTorch's vectorized minimum and maximum give NaN as all-ones bits, printed -nan.
      lo = hi = -std::numeric_limits<double>::quiet_NaN();
    } else {
      lo = *std::min_element(v, v + x.numel());
      hi = *std::max_element(v, v + x.numel());
    }
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    fail(fmt::format("torch.histc: range of [{:g}, {:g}] is not finite", lo, hi));
  }
  if (lo > hi) fail("torch.histc: max must be larger than min");
  if (!is_floating(self.dtype())) {
    fail(fmt::format("\"histogram_cpu\" not implemented for '{}'",
                     tensor::scalar_type_name(self.dtype())));
  }
  const std::int64_t bin_count[] = {bins};  // the histogram must fit before it is counted
  tensor::checked_nbytes(bin_count, DType::kFloat64);
  std::vector<double> counts(static_cast<std::size_t>(bins), 0.0);
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    if (!(v[i] >= lo && v[i] <= hi)) continue;
    double at = (v[i] - lo) * static_cast<double>(bins) / (hi - lo);
    // Past the largest double (a range wider than it, or many bins on a wide one) the position
    // is inf or inf / inf: it is measured in halves then, and never converted past the last bin.
    if (!std::isfinite(at)) {
      at = (v[i] / 2 - lo / 2) / (hi / 2 - lo / 2) * static_cast<double>(bins);
    }
    const std::int64_t b =
        at < static_cast<double>(bins) ? static_cast<std::int64_t>(at) : bins - 1;
    counts[static_cast<std::size_t>(b)] += 1;
  }
  Tensor out = Tensor::uninitialized({bins}, DType::kFloat64);
  std::copy(counts.begin(), counts.end(), out.mutable_data<double>());
  s.emplace_back(to_dtype(out, self.dtype()));
}

}  // namespace

void register_unique_ops(OperatorRegistry& r) {
  const IValue yes(true), no(false), none;
  r.add({"aten::_unique2", 4, {yes, no, no}, unique2});
  r.add({"aten::_unique", 3, {yes, no}, unique_old});
  r.add({"aten::unique_consecutive", 4, {no, no, none}, unique_consecutive});
  r.add({"aten::unique_dim", 5, {yes, no, no}, unique_dim});
  r.add({"aten::bincount", 3, {none, IValue(std::int64_t{0})}, bincount});
  r.add({"aten::histc",
         4,
         {IValue(std::int64_t{100}), IValue(std::int64_t{0}), IValue(std::int64_t{0})},
         histc});
}

}  // namespace symbolite::ops
