// The window functions of signal processing: hann, hamming, bartlett, blackman and kaiser
// windows (symmetric, or periodic: one sample longer with the last dropped). Each is computed
// as PyTorch 1.13's TensorFactories.cpp does, operator by operator on a float arange, so the
// roundings are PyTorch's. The layout, device and pin_memory arguments are accepted and ignored
// (symbolite has strided CPU tensors only).
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/special_functions.h"
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

constexpr double kPi = std::numbers::pi;

// The dtype the window is made in (float32 by default), after window_function_checks.
DType window_dtype(const char* name, const IValue& dtype_v, std::int64_t length) {
  const DType dtype = dtype_arg(dtype_v).value_or(DType::kFloat32);
  if (!is_floating(dtype)) {
    fail(fmt::format(
        "{} expects floating point dtypes, got: TensorOptions(dtype={}, device=cpu (default), "
        "layout=Strided (default), requires_grad=false (default), pinned_memory=false "
        "(default), memory_format=(nullopt))",
        name, tensor::type_meta_name(dtype)));
  }
  if (length < 0) {
    fail(fmt::format("{} requires non-negative window_length, got window_length={}", name, length));
  }
  // The window's tensor must fit (a periodic one is computed one longer): refused here, before
  // length + 1 could overflow.
  const std::int64_t sizes[] = {length};
  tensor::checked_nbytes(sizes, dtype);
  return dtype;
}

IValue ones_window(DType dtype) {
  return run_op("aten::full", {int_list_value({1}), IValue(std::int64_t{1}), dtype_value(dtype),
                               IValue(), IValue(), IValue()});
}

IValue arange(std::int64_t n, DType dtype) {
  return run_op("aten::arange", {IValue(n), dtype_value(dtype), IValue(), IValue(), IValue()});
}

IValue mul(const IValue& t, double v) { return run_op("aten::mul.Scalar", {t, IValue(v)}); }

// The first `length` samples of a periodic window (a view, as PyTorch's narrow).
IValue finish(const IValue& window, bool periodic, std::int64_t length) {
  if (!periodic) return window;
  return run_op("aten::slice.Tensor", {window, IValue(std::int64_t{0}), IValue(std::int64_t{0}),
                                       IValue(length - 1), IValue(std::int64_t{1})});
}

// The empty and one-sample windows every function returns before computing.
std::optional<IValue> trivial(std::int64_t length, DType dtype) {
  if (length == 0) {
    return run_op("aten::zeros", {int_list_value({0}), dtype_value(dtype), {}, {}, {}});
  }
  if (length == 1) return ones_window(dtype);
  return std::nullopt;
}

// hamming_window: alpha - beta * cos(2 pi n / (N - 1)).
IValue hamming(const char* name, std::int64_t length, bool periodic, double alpha, double beta,
               const IValue& dtype_v) {
  const DType dtype = window_dtype(name, dtype_v, length);
  if (auto w = trivial(length, dtype)) return *w;
  if (periodic) ++length;
  IValue w = mul(arange(length, dtype), kPi * 2. / static_cast<double>(length - 1));
  w = mul(run_op("aten::cos", {w}), -beta);
  w = run_op("aten::add.Scalar", {w, IValue(alpha), IValue(std::int64_t{1})});
  return finish(w, periodic, length);
}

// Arguments: (window_length, [periodic, [alpha, [beta,]]] dtype, layout, device, pin_memory).
template <int kExtra>
void hamming_window(Stack& s) {
  constexpr int n = 5 + kExtra;
  IValue* a = last(s, n);
  const std::int64_t length = a[0].to_int();
  const bool periodic = kExtra >= 1 ? a[1].to_bool() : true;
  const double alpha = kExtra >= 2 ? a[2].to_double() : 0.54;
  const double beta = kExtra >= 3 ? a[3].to_double() : 0.46;
  const IValue dtype = a[1 + kExtra];
  drop(s, n);
  s.push_back(hamming("hamming_window", length, periodic, alpha, beta, dtype));
}

template <int kExtra>
void hann_window(Stack& s) {
  constexpr int n = 5 + kExtra;
  IValue* a = last(s, n);
  const std::int64_t length = a[0].to_int();
  const bool periodic = kExtra >= 1 ? a[1].to_bool() : true;
  const IValue dtype = a[1 + kExtra];
  drop(s, n);
  window_dtype("hann_window", dtype, length);
  s.push_back(hamming("hamming_window", length, periodic, 0.5, 0.5, dtype));
}

// bartlett_window: 2n / (N - 1) rising, then 2 - 2n / (N - 1) from the middle on.
template <int kExtra>
void bartlett_window(Stack& s) {
  constexpr int n = 5 + kExtra;
  IValue* a = last(s, n);
  std::int64_t length = a[0].to_int();
  const bool periodic = kExtra >= 1 ? a[1].to_bool() : true;
  const DType dtype = window_dtype("bartlett_window", a[1 + kExtra], length);
  drop(s, n);
  if (auto w = trivial(length, dtype)) {
    s.push_back(*w);
    return;
  }
  if (periodic) ++length;
  IValue w = mul(arange(length, dtype), 2. / static_cast<double>(length - 1));
  const std::int64_t first_half = ((length - 1) >> 1) + 1;
  IValue head = run_op("aten::slice.Tensor", {w, IValue(std::int64_t{0}), IValue(std::int64_t{0}),
                                              IValue(first_half), IValue(std::int64_t{1})});
  IValue tail = run_op("aten::slice.Tensor", {w, IValue(std::int64_t{0}), IValue(first_half),
                                              IValue(length), IValue(std::int64_t{1})});
  tail = run_op("aten::add.Scalar",
                {mul(tail, -1.0), IValue(std::int64_t{2}), IValue(std::int64_t{1})});
  w = run_op("aten::cat", {IValue::list({head, tail}), IValue(std::int64_t{0})});
  s.push_back(finish(w, periodic, length));
}

// blackman_window: 0.08 cos(4 pi n / (N - 1)) - 0.5 cos(2 pi n / (N - 1)) + 0.42.
template <int kExtra>
void blackman_window(Stack& s) {
  constexpr int n = 5 + kExtra;
  IValue* a = last(s, n);
  std::int64_t length = a[0].to_int();
  const bool periodic = kExtra >= 1 ? a[1].to_bool() : true;
  const DType dtype = window_dtype("blackman_window", a[1 + kExtra], length);
  drop(s, n);
  if (auto w = trivial(length, dtype)) {
    s.push_back(*w);
    return;
  }
  if (periodic) ++length;
  const IValue w = mul(arange(length, dtype), kPi / static_cast<double>(length - 1));
  const IValue four = mul(run_op("aten::cos", {mul(w, 4.0)}), 0.08);
  const IValue two = mul(run_op("aten::cos", {mul(w, 2.0)}), 0.5);
  IValue out = run_op("aten::sub.Tensor", {four, two, IValue(std::int64_t{1})});
  out = run_op("aten::add.Scalar", {out, IValue(0.42), IValue(std::int64_t{1})});
  s.push_back(finish(out, periodic, length));
}

// kaiser_window: I0(beta sqrt(1 - ((n - alpha) / alpha)^2)) / I0(beta), alpha = (N - 1) / 2,
// element by element in the window's dtype (PyTorch's kaiser_window kernel).
template <int kExtra>
void kaiser_window(Stack& s) {
  constexpr int n = 5 + kExtra;
  IValue* a = last(s, n);
  std::int64_t length = a[0].to_int();
  const bool periodic = kExtra >= 1 ? a[1].to_bool() : true;
  const double beta = kExtra >= 2 ? a[2].to_double() : 12.0;
  const DType dtype = window_dtype("kaiser_window", a[1 + kExtra], length);
  drop(s, n);
  if (auto w = trivial(length, dtype)) {
    s.push_back(*w);
    return;
  }
  if (periodic) ++length;
  Tensor out = Tensor::uninitialized({length}, dtype);
  dispatch_floating(dtype, "kaiser_window_cpu", [&](auto tag) {
    using T = decltype(tag);
    const auto alpha = static_cast<T>(static_cast<double>(length - 1) / 2.0);
    const auto b = static_cast<T>(beta);
    T* o = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < length; ++i) {
      const T x = std::pow((static_cast<T>(i) - alpha) / alpha, static_cast<T>(2.0));
      o[i] = special::i0<T>(b * std::sqrt(std::abs(1 - x))) / special::i0<T>(b);
    }
  });
  s.push_back(finish(IValue(std::move(out)), periodic, length));
}

}  // namespace

void register_window_ops(OperatorRegistry& r) {
  const IValue none;
  const std::vector<IValue> options{none, none, none, none};
  r.add({"aten::hann_window", 5, options, hann_window<0>});
  r.add({"aten::hann_window.periodic", 6, options, hann_window<1>});
  r.add({"aten::hamming_window", 5, options, hamming_window<0>});
  r.add({"aten::hamming_window.periodic", 6, options, hamming_window<1>});
  r.add({"aten::hamming_window.periodic_alpha", 7, options, hamming_window<2>});
  r.add({"aten::hamming_window.periodic_alpha_beta", 8, options, hamming_window<3>});
  r.add({"aten::bartlett_window", 5, options, bartlett_window<0>});
  r.add({"aten::bartlett_window.periodic", 6, options, bartlett_window<1>});
  r.add({"aten::blackman_window", 5, options, blackman_window<0>});
  r.add({"aten::blackman_window.periodic", 6, options, blackman_window<1>});
  r.add({"aten::kaiser_window", 5, options, kaiser_window<0>});
  r.add({"aten::kaiser_window.periodic", 6, options, kaiser_window<1>});
  r.add({"aten::kaiser_window.beta", 7, options, kaiser_window<2>});
}

}  // namespace symbolite::ops
