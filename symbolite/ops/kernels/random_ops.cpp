// Random sampling: rand, randn, randint, randperm and their *_like forms, normal, uniform_,
// normal_, bernoulli and multinomial. symbolite's generator is not PyTorch's: the same seed
// gives different numbers, so models that sample at inference time (noise in a diffusion or
// VAE decoder, sampling a token) run with samples of the same distributions, not PyTorch's
// samples (README, "deliberately differs"). Shapes, dtypes and checks are PyTorch's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/broadcast.h"

namespace symbolite::ops {
namespace {

std::mt19937_64& generator() {
  thread_local std::mt19937_64 engine(0x5eed);
  return engine;
}

// aten::bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None)
void bernoulli_float_(Stack& s) {
  pop(s);  // generator: always the default one
  double p = pop(s).to_double();
  IValue self = pop(s);
  const auto& t = self.to_tensor();
  if (!(p >= 0 && p <= 1))
    fail("bernoulli_ expects p to be in [0, 1], but got p=" + std::to_string(p));
  if (t.dtype() != tensor::DType::kFloat32 || !t.is_contiguous()) {
    throw OpError("NotImplementedError",
                  "bernoulli_ is implemented for contiguous float32 tensors");
  }
  std::bernoulli_distribution coin(p);
  float* data = t.mutable_data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) data[i] = coin(generator()) ? 1.0f : 0.0f;
  s.push_back(std::move(self));
}

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// Uniform in [0, 1): 53 random bits as a double; float32 takes 24 so that it never rounds up
// to 1.
double uniform01() { return static_cast<double>(generator()() >> 11) * 0x1p-53; }
float uniform01f() { return static_cast<float>(generator()() >> 40) * 0x1p-24f; }

double standard_normal() {
  thread_local std::normal_distribution<double> normal;
  return normal(generator());
}

Ints checked_size(const IValue& size_v) {
  Ints size = int_list_arg(size_v);
  for (std::int64_t n : size) {
    if (n < 0) {
      fail(fmt::format("Trying to create tensor with negative dimension {}: {}", n,
                       tensor::format_sizes(size)));
    }
  }
  return size;
}

// Fills floating `t` (contiguous) with draw(): its values as doubles, float32 from
// uniform01f where `uniform` says.
template <typename Draw>
void fill_floating(Tensor& t, const char* kernel, Draw draw) {
  dispatch_floating(t.dtype(), kernel, [&](auto tag) {
    using T = decltype(tag);
    T* p = t.template mutable_data<T>();
    for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(draw());
  });
}

Tensor uniform_tensor(Ints size, DType dtype) {
  Tensor out = Tensor::uninitialized(std::move(size), dtype);
  if (dtype == DType::kFloat32) {
    float* p = out.mutable_data<float>();
    for (std::int64_t i = 0; i < out.numel(); ++i) p[i] = uniform01f();
  } else {
    fill_floating(out, "check_uniform_bounds", uniform01);
  }
  return out;
}

Tensor normal_tensor(Ints size, DType dtype) {
  Tensor out = Tensor::uninitialized(std::move(size), dtype);
  fill_floating(out, "normal_kernel_cpu", standard_normal);
  return out;
}

// rand / randn(size, *, dtype=None, layout, device, pin_memory)
template <bool kNormal>
void rand_size(Stack& s) {
  IValue* a = last(s, 5);
  Ints size = checked_size(a[0]);
  const DType dtype = dtype_arg(a[1]).value_or(DType::kFloat32);
  drop(s, 5);
  s.emplace_back(kNormal ? normal_tensor(std::move(size), dtype)
                         : uniform_tensor(std::move(size), dtype));
}

// rand_like / randn_like(self, *, dtype=None, layout, device, pin_memory, memory_format)
template <bool kNormal>
void rand_like(Stack& s) {
  IValue* a = last(s, 6);
  const Tensor self = a[0].to_tensor();
  const DType dtype = dtype_arg(a[1]).value_or(self.dtype());
  drop(s, 6);
  s.emplace_back(kNormal ? normal_tensor(self.sizes(), dtype)
                         : uniform_tensor(self.sizes(), dtype));
}

Tensor randint_tensor(std::int64_t low, std::int64_t high, Ints size, DType dtype) {
  if (low >= high) {
    fail(fmt::format("random_ expects 'from' to be less than 'to', but got from={} >= to={}", low,
                     high));
  }
  Tensor out = Tensor::uninitialized(std::move(size), dtype);
  std::uniform_int_distribution<std::int64_t> pick(low, high - 1);
  dispatch_all(dtype, "random_from_to", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<T>(pick(generator()));
  });
  return out;
}

// randint(high, size, *, dtype=int64, ...) and randint.low(low, high, size, ...)
void randint(Stack& s) {
  IValue* a = last(s, 6);
  const std::int64_t high = a[0].to_int();
  Ints size = checked_size(a[1]);
  const DType dtype = dtype_arg(a[2]).value_or(DType::kInt64);
  drop(s, 6);
  s.emplace_back(randint_tensor(0, high, std::move(size), dtype));
}
void randint_low(Stack& s) {
  IValue* a = last(s, 7);
  const std::int64_t low = a[0].to_int(), high = a[1].to_int();
  Ints size = checked_size(a[2]);
  const DType dtype = dtype_arg(a[3]).value_or(DType::kInt64);
  drop(s, 7);
  s.emplace_back(randint_tensor(low, high, std::move(size), dtype));
}
// randint_like(self, high, *, dtype=None, ...) and .low_dtype(self, low, high, ...)
void randint_like(Stack& s) {
  IValue* a = last(s, 7);
  const Tensor self = a[0].to_tensor();
  const std::int64_t high = a[1].to_int();
  const DType dtype = dtype_arg(a[2]).value_or(self.dtype());
  drop(s, 7);
  s.emplace_back(randint_tensor(0, high, self.sizes(), dtype));
}
void randint_like_low(Stack& s) {
  IValue* a = last(s, 8);
  const Tensor self = a[0].to_tensor();
  const std::int64_t low = a[1].to_int(), high = a[2].to_int();
  const DType dtype = dtype_arg(a[3]).value_or(self.dtype());
  drop(s, 8);
  s.emplace_back(randint_tensor(low, high, self.sizes(), dtype));
}

// randperm(n, *, dtype=int64, ...): 0..n-1 shuffled.
void randperm(Stack& s) {
  IValue* a = last(s, 5);
  const std::int64_t n = a[0].to_int();
  const DType dtype = dtype_arg(a[1]).value_or(DType::kInt64);
  drop(s, 5);
  if (n < 0) fail(fmt::format("n must be non-negative, got{}", n));
  Tensor out = Tensor::uninitialized({n}, DType::kInt64);  // a count no memory holds fails here
  std::int64_t* order = out.mutable_data<std::int64_t>();
  std::iota(order, order + n, 0);
  std::shuffle(order, order + n, generator());
  s.emplace_back(dtype == DType::kInt64 ? out : to_dtype(out, dtype));
}

// normal(mean, std) with either or both tensors (broadcast): mean + std * N(0, 1).
Tensor normal_impl(const Tensor& mean, const Tensor& std) {
  const Tensor m = is_floating(mean.dtype()) ? mean : to_dtype(mean, DType::kFloat32);
  const DType dtype = ResultType().tensor(m).tensor(std).result();
  const Ints shape = tensor::broadcast_shapes(m.sizes(), std.sizes());
  Tensor noise = normal_tensor(shape, dtype);
  return dispatch_floating(dtype, "normal", [&](auto tag) -> Tensor {
    using T = decltype(tag);
    const Tensor sd = to_dtype(std, dtype);
    {
      const T* p = sd.template data<T>();
      for (std::int64_t i = 0; i < sd.numel(); ++i) {
        if (!(p[i] >= T(0))) fail("normal expects all elements of std >= 0.0");
      }
    }
    Tensor scaled = binary_kernel<T>(sd, noise, [](T a, T b) { return a * b; });
    return binary_kernel<T>(to_dtype(m, dtype), scaled, [](T a, T b) { return a + b; });
  });
}

void normal_tensor_float(Stack& s) {
  pop(s);  // generator
  IValue std = pop(s), mean = pop(s);
  if (std.to_double() < 0)
    fail(fmt::format("normal expects std >= 0.0, but found std {}", std.to_double()));
  s.emplace_back(normal_impl(mean.to_tensor(), scalar_tensor(std, DType::kFloat64)));
}
void normal_float_tensor(Stack& s) {
  pop(s);
  IValue std = pop(s), mean = pop(s);
  s.emplace_back(normal_impl(scalar_tensor(mean, std.to_tensor().dtype()), std.to_tensor()));
}
void normal_tensor_tensor(Stack& s) {
  pop(s);
  IValue std = pop(s), mean = pop(s);
  s.emplace_back(normal_impl(mean.to_tensor(), std.to_tensor()));
}
// normal.float_float(mean, std, size, *, generator, dtype, layout, device, pin_memory)
void normal_float_float(Stack& s) {
  IValue* a = last(s, 8);
  const double mean = a[0].to_double(), std = a[1].to_double();
  Ints size = checked_size(a[2]);
  const DType dtype = dtype_arg(a[4]).value_or(DType::kFloat32);
  drop(s, 8);
  if (std < 0) fail(fmt::format("normal expects std >= 0.0, but found std {}", std));
  Tensor out = Tensor::uninitialized(std::move(size), dtype);
  fill_floating(out, "normal_kernel_cpu", [&] { return mean + std * standard_normal(); });
  s.emplace_back(std::move(out));
}

// normal_(self, mean=0, std=1) / uniform_(self, from=0, to=1): into self.
void normal_(Stack& s) {
  pop(s);
  const double std = pop(s).to_double(), mean = pop(s).to_double();
  IValue self = pop(s);
  if (std < 0) fail(fmt::format("normal expects std >= 0.0, but found std {}", std));
  Tensor out = Tensor::uninitialized(self.to_tensor().sizes(), self.to_tensor().dtype());
  fill_floating(out, "normal_kernel_cpu", [&] { return mean + std * standard_normal(); });
  push_in_place(s, self, out);
}
void uniform_(Stack& s) {
  pop(s);
  const double to = pop(s).to_double(), from = pop(s).to_double();
  IValue self = pop(s);
  if (from > to) {
    fail(fmt::format("uniform_ expects to return a [from, to) range, but found from={} > to={}",
                     from, to));
  }
  Tensor out = Tensor::uninitialized(self.to_tensor().sizes(), self.to_tensor().dtype());
  fill_floating(out, "check_uniform_bounds", [&] { return from + (to - from) * uniform01(); });
  push_in_place(s, self, out);
}

// exponential_(self, lambd=1) (gumbel_softmax draws through it), geometric_(self, p),
// log_normal_(self, mean=1, std=2), cauchy_(self, median=0, sigma=1): into self, by inverting
// each distribution's CDF at a uniform draw. 1 - u is in (0, 1], so the logarithms are finite.
void exponential_(Stack& s) {
  pop(s);
  const double lambda = pop(s).to_double();
  IValue self = pop(s);
  if (!(lambda >= 0.0)) {
    fail(fmt::format("exponential_ expects lambda >= 0.0, but found lambda={}", lambda));
  }
  Tensor out = Tensor::uninitialized(self.to_tensor().sizes(), self.to_tensor().dtype());
  // lambda 0: infinitely long waits, as PyTorch gives.
  fill_floating(out, "exponential_cpu",
                [&] { return lambda == 0.0 ? HUGE_VAL : -std::log1p(-uniform01()) / lambda; });
  push_in_place(s, self, out);
}
void geometric_(Stack& s) {
  pop(s);
  const double p = pop(s).to_double();
  IValue self = pop(s);
  if (!(p > 0.0 && p < 1.0)) {
    fail(fmt::format("geometric_ expects p to be in (0, 1), but got p={}", p));
  }
  Tensor out = Tensor::uninitialized(self.to_tensor().sizes(), self.to_tensor().dtype());
  // Trials up to the first success: any numeric dtype.
  dispatch_numeric(out.dtype(), "geometric_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* q = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < out.numel(); ++i) {
      // Saturated for integers: a small p draws counts past the dtype (PyTorch's cast of them
      // is undefined).
      q[i] = convert<T>(std::ceil(std::log1p(-uniform01()) / std::log1p(-p)));
    }
  });
  push_in_place(s, self, out);
}
void log_normal_(Stack& s) {
  pop(s);
  const double std = pop(s).to_double(), mean = pop(s).to_double();
  IValue self = pop(s);
  if (!(std > 0.0)) fail(fmt::format("log_normal_ expects std > 0.0, but found std={}", std));
  Tensor out = Tensor::uninitialized(self.to_tensor().sizes(), self.to_tensor().dtype());
  fill_floating(out, "log_normal_cpu", [&] { return std::exp(mean + std * standard_normal()); });
  push_in_place(s, self, out);
}
void cauchy_(Stack& s) {
  pop(s);
  const double sigma = pop(s).to_double(), median = pop(s).to_double();
  IValue self = pop(s);
  Tensor out = Tensor::uninitialized(self.to_tensor().sizes(), self.to_tensor().dtype());
  fill_floating(out, "cauchy_cpu",
                [&] { return median + sigma * std::tan(M_PI * (uniform01() - 0.5)); });
  push_in_place(s, self, out);
}

// manual_seed(seed): this thread's generator restarts from `seed` (the numbers differ from
// PyTorch's generator's, as every draw here does).
void manual_seed(Stack& s) { generator().seed(static_cast<std::uint64_t>(pop(s).to_int())); }

// The largest integer `dtype` holds exactly, random_'s default upper end: 2^mantissa for
// floating dtypes, the type's maximum for integers, 1 for bool.
std::int64_t random_upper(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return std::int64_t{1} << 24;
    case DType::kFloat64:
      return std::int64_t{1} << 53;
    case DType::kBool:
      return 1;
    default:
      return dispatch_all(dtype, "random_", [](auto tag) {
        return static_cast<std::int64_t>(std::numeric_limits<decltype(tag)>::max());
      });
  }
}

// Integers uniform in [from, to] into self's dtype.
void fill_integers(Stack& s, const IValue& self, std::int64_t from, std::int64_t to) {
  Tensor out = Tensor::uninitialized(self.to_tensor().sizes(), self.to_tensor().dtype());
  std::uniform_int_distribution<std::int64_t> pick(from, to);
  dispatch_all(out.dtype(), "random_", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<T>(pick(generator()));
  });
  push_in_place(s, self, out);
}

// random_(self): [0, random_upper]; random_.to(self, to): [0, to); random_.from(self, from,
// to): [from, to), to None meaning random_upper.
void random_(Stack& s) {
  pop(s);
  IValue self = pop(s);
  fill_integers(s, self, 0, random_upper(self.to_tensor().dtype()));
}
void random_to(Stack& s) {
  pop(s);
  const std::int64_t to = pop(s).to_int();
  IValue self = pop(s);
  if (to <= 0) {
    fail(fmt::format("random_ expects 'from' to be less than 'to', but got from=0 >= to={}", to));
  }
  fill_integers(s, self, 0, to - 1);
}
void random_from(Stack& s) {
  pop(s);
  const IValue to_v = pop(s);
  const std::int64_t from = pop(s).to_int();
  IValue self = pop(s);
  if (to_v.is_none()) {
    fill_integers(s, self, from, random_upper(self.to_tensor().dtype()));
    return;
  }
  const std::int64_t to = to_v.to_int();
  if (from >= to) {
    fail(fmt::format("random_ expects 'from' to be less than 'to', but got from={} >= to={}", from,
                     to));
  }
  fill_integers(s, self, from, to - 1);
}

// poisson(rates, generator=None): a Poisson draw for each rate, in the rates' dtype.
void poisson(Stack& s) {
  pop(s);
  const Tensor rates = pop(s).to_tensor().contiguous();
  Tensor out = Tensor::uninitialized(rates.sizes(), rates.dtype());
  dispatch_floating(rates.dtype(), "poisson_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* r = rates.template data<T>();
    T* p = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < out.numel(); ++i) {
      if (!(r[i] >= 0)) fail("invalid Poisson rate, expected rate to be non-negative");
      // libstdc++ draws until a count fits int64, so never for a rate near 2^63 or beyond
      // (PyTorch's cast of its count is undefined there: x86 gives INT64_MIN).
      if (!(r[i] <= T(0x1p62))) {
        throw Error(ErrorKind::kUnsupported,
                    fmt::format("aten::poisson: symbolite draws from rates up to 2^62, got {}",
                                static_cast<double>(r[i])));
      }
      p[i] = r[i] == 0 ? T(0)
                       : static_cast<T>(std::poisson_distribution<std::int64_t>(
                             static_cast<double>(r[i]))(generator()));
    }
  });
  s.emplace_back(std::move(out));
}

// binomial(count, prob, generator=None): successes in count trials of probability prob,
// both broadcast, in count's dtype.
void binomial(Stack& s) {
  pop(s);
  const Tensor prob = pop(s).to_tensor();
  const Tensor count = pop(s).to_tensor();
  const std::vector<std::int64_t> shape = tensor::broadcast_shapes(count.sizes(), prob.sizes());
  const auto as_doubles = [&shape](const Tensor& t) {
    return to_dtype(
        run_op("aten::expand", {IValue(t), int_list_value(shape), IValue(false)}).to_tensor(),
        DType::kFloat64);
  };
  const Tensor n = as_doubles(count), q = as_doubles(prob);
  Tensor draws = Tensor::uninitialized(shape, DType::kFloat64);
  const double* np = n.data<double>();
  const double* qp = q.data<double>();
  double* d = draws.mutable_data<double>();
  for (std::int64_t i = 0; i < draws.numel(); ++i) {
    // A NaN count or probability draws NaN (PyTorch's sampler does for a NaN probability and
    // never returns for a NaN count); a count int64 cannot hold has no int64 trials.
    if (std::isnan(np[i]) || std::isnan(qp[i])) {
      d[i] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    if (!(np[i] < 0x1p63)) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("aten::binomial: symbolite draws fewer than 2^63 trials, got a "
                              "count of {}",
                              np[i]));
    }
    const std::int64_t trials = np[i] >= 1 ? static_cast<std::int64_t>(np[i]) : 0;
    d[i] = trials == 0 ? 0.0
                       : static_cast<double>(std::binomial_distribution<std::int64_t>(
                             trials, std::clamp(qp[i], 0.0, 1.0))(generator()));
  }
  s.emplace_back(to_dtype(draws, count.dtype()));
}

// bernoulli(self) (self holds the probabilities) and bernoulli.p(self, p): 0s and 1s of
// self's dtype.
Tensor bernoulli_impl(const Tensor& shape_of, const Tensor& p) {
  const Tensor probs = to_dtype(p, DType::kFloat64);
  const double* q = probs.data<double>();
  for (std::int64_t i = 0; i < probs.numel(); ++i) {
    if (!(q[i] >= 0 && q[i] <= 1))
      fail("Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
  }
  Tensor out = Tensor::uninitialized(shape_of.sizes(), shape_of.dtype());
  const bool one = probs.numel() == 1;
  if (!one && probs.numel() != out.numel()) fail("bernoulli: p must have the shape of self");
  dispatch_all(out.dtype(), "bernoulli", [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.template mutable_data<T>();
    for (std::int64_t i = 0; i < out.numel(); ++i) {
      dst[i] = static_cast<T>(uniform01() < q[one ? 0 : i] ? 1 : 0);
    }
  });
  return out;
}

void bernoulli(Stack& s) {
  pop(s);
  const Tensor self = pop(s).to_tensor();
  s.emplace_back(bernoulli_impl(self, self));
}
void bernoulli_p(Stack& s) {
  pop(s);
  IValue p = pop(s);
  const Tensor self = pop(s).to_tensor();
  s.emplace_back(bernoulli_impl(self, scalar_tensor(p, DType::kFloat64)));
}

// multinomial(self, num_samples, replacement=False): per row of weights (1-D or 2-D), indices
// drawn in proportion to them; without replacement each index at most once.
void multinomial(Stack& s) {
  pop(s);
  const bool replacement = pop(s).to_bool();
  const std::int64_t samples = pop(s).to_int();
  const Tensor self = pop(s).to_tensor();
  if (self.dim() != 1 && self.dim() != 2) fail("prob_dist must be 1 or 2 dim");
  if (!is_floating(self.dtype())) {
    fail(fmt::format("multinomial only supports floating-point dtypes for input, got: {}",
                     tensor::scalar_type_name(self.dtype())));
  }
  if (samples <= 0) fail("cannot sample n_sample <= 0 samples");
  const std::int64_t categories = self.sizes().back();
  if (!replacement && samples > categories) {
    fail("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  }
  const std::int64_t rows = self.dim() == 1 ? 1 : self.sizes()[0];
  const Tensor w = to_dtype(self, DType::kFloat64);
  const double* weights = w.data<double>();
  Ints out_sizes = self.dim() == 1 ? Ints{samples} : Ints{rows, samples};
  Tensor out = Tensor::uninitialized(out_sizes, DType::kInt64);
  std::int64_t* dst = out.mutable_data<std::int64_t>();
  for (std::int64_t r = 0; r < rows; ++r) {
    std::vector<double> row(weights + r * categories, weights + (r + 1) * categories);
    for (double v : row) {
      if (!(v >= 0) || std::isinf(v))
        fail("probability tensor contains either `inf`, `nan` or element < 0");
    }
    if (std::accumulate(row.begin(), row.end(), 0.0) <= 0) {
      fail("invalid multinomial distribution (sum of probabilities <= 0)");
    }
    for (std::int64_t k = 0; k < samples; ++k) {
      std::discrete_distribution<std::int64_t> pick(row.begin(), row.end());
      const std::int64_t at = pick(generator());
      dst[r * samples + k] = at;
      if (!replacement) row[static_cast<std::size_t>(at)] = 0;
    }
  }
  s.emplace_back(std::move(out));
}

}  // namespace

void register_random_ops(OperatorRegistry& r) {
  const IValue none, no(false), long_code(std::int64_t{4});
  r.add({"aten::bernoulli_.float", 3, {IValue(0.5), IValue()}, bernoulli_float_});
  r.add({"aten::rand", 5, {none, none, none, none}, rand_size<false>});
  r.add({"aten::randn", 5, {none, none, none, none}, rand_size<true>});
  r.add({"aten::rand_like", 6, {none, none, none, none, none}, rand_like<false>});
  r.add({"aten::randn_like", 6, {none, none, none, none, none}, rand_like<true>});
  r.add({"aten::randint", 6, {long_code, none, none, none}, randint});
  r.add({"aten::randint.low", 7, {long_code, none, none, none}, randint_low});
  r.add({"aten::randint_like", 7, {none, none, none, none, none}, randint_like});
  r.add({"aten::randint_like.low_dtype", 8, {none, none, none, none, none}, randint_like_low});
  r.add({"aten::randperm", 5, {long_code, none, none, none}, randperm});
  r.add({"aten::normal.Tensor_float", 3, {IValue(1.0), none}, normal_tensor_float});
  r.add({"aten::normal.float_Tensor", 3, {none}, normal_float_tensor});
  r.add({"aten::normal.Tensor_Tensor", 3, {none}, normal_tensor_tensor});
  r.add({"aten::normal.float_float", 8, {none, none, none, none, none}, normal_float_float});
  r.add({"aten::normal_", 4, {IValue(0.0), IValue(1.0), none}, normal_});
  r.add({"aten::uniform_", 4, {IValue(0.0), IValue(1.0), none}, uniform_});
  r.add({"aten::exponential_", 3, {IValue(1.0), none}, exponential_});
  r.add({"aten::geometric_", 3, {none}, geometric_});
  r.add({"aten::log_normal_", 4, {IValue(1.0), IValue(2.0), none}, log_normal_});
  r.add({"aten::cauchy_", 4, {IValue(0.0), IValue(1.0), none}, cauchy_});
  r.add({"aten::manual_seed", 1, {}, manual_seed});
  r.add({"aten::random_", 2, {none}, random_});
  r.add({"aten::random_.to", 3, {none}, random_to});
  r.add({"aten::random_.from", 4, {none}, random_from});
  r.add({"aten::poisson", 2, {none}, poisson});
  r.add({"aten::binomial", 3, {none}, binomial});
  r.add({"aten::bernoulli", 2, {none}, bernoulli});
  r.add({"aten::bernoulli.p", 3, {none}, bernoulli_p});
  r.add({"aten::multinomial", 4, {no, none}, multinomial});
}

}  // namespace symbolite::ops
