// Statistics users compute over whole tensors: nansum and nanmean (NaNs left out), aminmax,
// and the covariance and correlation matrices (cov, corrcoef). Each checks what PyTorch 1.13
// checks, with its message, and composes the operators PyTorch's own composite runs, in the
// same order, so results are PyTorch's.
#include <cstdint>
#include <optional>
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

IValue int_one() { return IValue(std::int64_t{1}); }

// The dims argument of a reduction: None (every dimension) as the empty list.
IValue dims_or_all(const IValue& dim) { return dim.is_none() ? int_list_value({}) : dim; }

// nansum(self, dim, keepdim, dtype): the sum with NaNs counted as zero; integers sum as sum.
IValue nansum_impl(const IValue& self, const IValue& dim, const IValue& keepdim,
                   const IValue& dtype) {
  IValue x = self;
  if (is_floating(self.to_tensor().dtype())) {
    x = run_op("aten::masked_fill.Scalar",
               {self, run_op("aten::isnan", {self}), IValue(std::int64_t{0})});
  }
  return run_op("aten::sum.dim_IntList", {x, dims_or_all(dim), keepdim, dtype});
}

void nansum(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), self = pop(s);
  s.push_back(nansum_impl(self, dim, keepdim, dtype));
}

// nanmean: nansum divided by the count of non-NaN elements.
void nanmean(Stack& s) {
  IValue dtype = pop(s), keepdim = pop(s), dim = pop(s), self = pop(s);
  const DType type = self.to_tensor().dtype();
  if (!is_floating(type)) {
    fail(fmt::format("nanmean(): expected input to have floating point dtype but got {}",
                     tensor::scalar_type_name(type)));
  }
  IValue kept = run_op("aten::logical_not", {run_op("aten::isnan", {self})});
  IValue factor = run_op("aten::sum.dim_IntList", {kept, dims_or_all(dim), keepdim, IValue()});
  s.push_back(run_op("aten::div.Tensor", {nansum_impl(self, dim, keepdim, dtype), factor}));
}

// aminmax(self, *, dim, keepdim): (amin, amax) over dim, or over everything.
void aminmax(Stack& s) {
  IValue keepdim = pop(s), dim = pop(s), self = pop(s);
  const Tensor& t = self.to_tensor();
  IValue dims;
  if (dim.is_none()) {
    if (t.numel() == 0) {
      fail(
          "aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
          "identity.");
    }
    dims = int_list_value({});
  } else {
    const std::int64_t d = wrap_dim(dim.to_int(), t.dim());
    if (t.dim() > 0 && t.sizes()[static_cast<std::size_t>(d)] == 0) {
      throw OpError("IndexError",
                    fmt::format("aminmax: Expected reduction dim {} to have non-zero size.", d));
    }
    dims = int_list_value({d});
  }
  s.push_back(run_op("aten::amin", {self, dims, keepdim}));
  s.push_back(run_op("aten::amax", {self, dims, keepdim}));
}

// The checks on a weights argument of cov.
void check_weights(const Tensor& w, const char* name, std::int64_t observations, bool integral) {
  if (w.dim() > 1) {
    fail(fmt::format(
        "cov(): expected {} to have one or fewer dimensions but got {} with {} dimensions", name,
        name, w.dim()));
  }
  const bool ok =
      integral ? (!is_floating(w.dtype()) && w.dtype() != DType::kBool) : is_floating(w.dtype());
  if (!ok) {
    fail(fmt::format("cov(): expected {} to have {} dtype but got {} with {} dtype", name,
                     integral ? "integral" : "floating point", name,
                     tensor::scalar_type_name(w.dtype())));
  }
  if (w.numel() != observations) {
    fail(fmt::format(
        "cov(): expected {} to have the same numel as there are observations in the input but "
        "got {} != {}",
        name, w.numel(), observations));
  }
  if (observations != 0) {
    const Tensor lowest = run_op("aten::min", {IValue(w)}).to_tensor();
    if (element_as_double(to_dtype(lowest, DType::kFloat64), 0) < 0) {
      fail(fmt::format("cov(): {} cannot be negative", name));
    }
  }
}

bool is_true(const IValue& t) {
  return element_as_double(to_dtype(t.to_tensor(), DType::kFloat64), 0) != 0;
}

IValue cov_impl(const IValue& self, std::int64_t correction, const IValue& fweights,
                const IValue& aweights) {
  const Tensor& t = self.to_tensor();
  if (t.dim() > 2) {
    fail(fmt::format(
        "cov(): expected input to have two or fewer dimensions but got an input with {} "
        "dimensions",
        t.dim()));
  }
  if (t.dtype() == DType::kBool) fail("cov(): bool dtype is not supported for input");
  IValue in = t.dim() < 2 ? run_op("aten::view", {self, int_list_value({1, -1})}) : self;
  const std::int64_t observations = in.to_tensor().sizes()[1];
  IValue w;
  if (!fweights.is_none()) {
    check_weights(fweights.to_tensor(), "fweights", observations, true);
    w = fweights;
  }
  if (!aweights.is_none()) {
    check_weights(aweights.to_tensor(), "aweights", observations, false);
    w = w.is_none() ? aweights : run_op("aten::mul.Tensor", {w, aweights});
  }
  const IValue w_sum =
      !w.is_none()
          ? run_op("aten::sum", {w, IValue()})
          : run_op(
                "aten::full",
                {int_list_value({}), IValue(observations), dtype_value(DType::kInt64), {}, {}, {}});
  if (!w.is_none() && !is_true(run_op("aten::ne.Scalar", {w_sum, IValue(std::int64_t{0})}))) {
    fail("cov(): weights sum to zero, can't be normalized");
  }
  const IValue weighted = w.is_none() ? in : run_op("aten::mul.Tensor", {in, w});
  const IValue avg = run_op(
      "aten::div.Tensor",
      {run_op("aten::sum.dim_IntList", {weighted, int_list_value({1}), IValue(false), IValue()}),
       w_sum});
  IValue norm_factor;
  if (!w.is_none() && !aweights.is_none() && correction != 0) {
    IValue wa = run_op("aten::sum", {run_op("aten::mul.Tensor", {w, aweights}), IValue()});
    wa = run_op("aten::div.Tensor", {run_op("aten::mul.Scalar", {wa, IValue(correction)}), w_sum});
    norm_factor = run_op("aten::sub.Tensor", {w_sum, wa, int_one()});
  } else {
    norm_factor = run_op("aten::sub.Scalar", {w_sum, IValue(correction), int_one()});
  }
  if (is_true(run_op("aten::le.Scalar", {norm_factor, IValue(std::int64_t{0})}))) {
    norm_factor = run_op("aten::zeros_like", {norm_factor, {}, {}, {}, {}, {}});
  }
  in = run_op("aten::sub.Tensor", {in, run_op("aten::unsqueeze", {avg, int_one()}), int_one()});
  const IValue right = w.is_none() ? in : run_op("aten::mul.Tensor", {in, w});
  const IValue c = run_op("aten::mm", {in, run_op("aten::t", {right})});
  return run_op("aten::squeeze", {run_op("aten::true_divide.Tensor", {c, norm_factor})});
}

void cov(Stack& s) {
  IValue aweights = pop(s), fweights = pop(s), correction = pop(s), self = pop(s);
  s.push_back(cov_impl(self, correction.to_int(), fweights, aweights));
}

// corrcoef(self): cov divided by the standard deviations on both sides, clipped to [-1, 1].
void corrcoef(Stack& s) {
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.dim() > 2) {
    fail(fmt::format(
        "corrcoef(): expected input to have two or fewer dimensions but got an input with {} "
        "dimensions",
        t.dim()));
  }
  IValue c = cov_impl(self, 1, IValue(), IValue());
  if (c.to_tensor().dim() == 0) {
    s.push_back(run_op("aten::div.Tensor", {c, c}));
    return;
  }
  const IValue stddev = run_op(
      "aten::sqrt",
      {run_op("aten::diagonal", {c, IValue(std::int64_t{0}), IValue(std::int64_t{0}), int_one()})});
  c = run_op("aten::div.Tensor", {c, run_op("aten::view", {stddev, int_list_value({-1, 1})})});
  c = run_op("aten::div.Tensor", {c, run_op("aten::view", {stddev, int_list_value({1, -1})})});
  s.push_back(run_op("aten::clip", {c, IValue(std::int64_t{-1}), int_one()}));
}

}  // namespace

void register_nan_statistics_ops(OperatorRegistry& r) {
  const IValue none;
  r.add({"aten::nansum", 4, {none, IValue(false), none}, nansum});
  r.add({"aten::nanmean", 4, {none, IValue(false), none}, nanmean});
  r.add({"aten::aminmax", 3, {none, IValue(false)}, aminmax});
  r.add({"aten::cov", 4, {IValue(std::int64_t{1}), none, none}, cov});
  r.add({"aten::corrcoef", 1, {}, corrcoef});
}

}  // namespace symbolite::ops
