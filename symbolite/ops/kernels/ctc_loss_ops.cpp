// aten::ctc_loss (nn.CTCLoss), both overloads: the lengths as tensors (.Tensor) or int lists
// (.IntList). The forward (alpha) recursion of Graves et al. 2006 in log space, as PyTorch
// 1.13's CPU kernel computes it, with its checks and messages; unbatched [T, C] log_probs
// count as a batch of one.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

constexpr std::string_view kChecking = " (while checking arguments for ctc_loss_cpu)";

// Where each batch entry's labels start in `targets` and how far apart they are: a
// [batch, max_length] matrix, or all targets concatenated in one vector.
struct TargetLayout {
  std::vector<std::int64_t> offsets;
  std::int64_t stride = 1;
  std::int64_t max_length = 0;
};

TargetLayout target_layout(const Tensor& targets, const std::vector<std::int64_t>& target_lengths,
                           std::int64_t batch) {
  TargetLayout l;
  l.offsets.resize(static_cast<std::size_t>(batch));
  for (std::int64_t b = 0; b < batch; ++b) {
    l.max_length = std::max(l.max_length, target_lengths[static_cast<std::size_t>(b)]);
  }
  if (targets.dim() == 1) {
    std::int64_t pos = 0;
    for (std::int64_t b = 0; b < batch; ++b) {
      l.offsets[static_cast<std::size_t>(b)] = pos;
      pos += target_lengths[static_cast<std::size_t>(b)];
    }
    if (targets.sizes()[0] != pos) {
      fail(
          fmt::format("Expected tensor to have size {} at dimension 0, but got size {} for "
                      "argument #2 'targets'{}",
                      pos, targets.sizes()[0], kChecking));
    }
    return l;
  }
  if (targets.sizes()[0] != batch) {
    fail(
        fmt::format("Expected tensor to have size {} at dimension 0, but got size {} for argument "
                    "#2 'targets'{}",
                    batch, targets.sizes()[0], kChecking));
  }
  if (targets.sizes()[1] < l.max_length) {
    fail(fmt::format(
        "Expected tensor to have size at least {} at dimension 1, but got size {} for argument #2 "
        "'targets'{}",
        l.max_length, targets.sizes()[1], kChecking));
  }
  l.stride = 1;
  for (std::int64_t b = 0; b < batch; ++b)
    l.offsets[static_cast<std::size_t>(b)] = b * targets.sizes()[1];
  return l;
}

// The negative log likelihood of each batch entry's target.
template <typename T>
Tensor ctc_forward(const Tensor& log_probs, const Tensor& targets,
                   const std::vector<std::int64_t>& input_lengths,
                   const std::vector<std::int64_t>& target_lengths, std::int64_t blank) {
  if (log_probs.dim() != 3) {
    fail(
        fmt::format("Expected 3-dimensional tensor, but got {}-dimensional tensor for argument #1 "
                    "'log_probs'{}",
                    log_probs.dim(), kChecking));
  }
  if (targets.dim() < 1 || targets.dim() > 2) {
    fail(fmt::format(
        "Expected 1 to 2 dimensions, but got {}-dimensional tensor for argument #2 'targets'{}",
        targets.dim(), kChecking));
  }
  const std::int64_t max_input = log_probs.sizes()[0], batch = log_probs.sizes()[1],
                     labels = log_probs.sizes()[2];
  if (blank < 0 || blank >= labels) fail("blank must be in label range");
  if (static_cast<std::int64_t>(input_lengths.size()) != batch)
    fail("input_lengths must be of size batch_size");
  if (static_cast<std::int64_t>(target_lengths.size()) != batch)
    fail("target_lengths must be of size batch_size");
  const TargetLayout layout = target_layout(targets, target_lengths, batch);
  for (std::int64_t length : input_lengths) {
    if (length > max_input) {
      fail(fmt::format("Expected input_lengths to have value at most {}, but got value {}{}",
                       max_input, length, kChecking));
    }
  }
  const Tensor lp_c = log_probs.contiguous();  // [T, B, C]
  const T* lp = lp_c.data<T>();
  const std::int64_t* tg = targets.data<std::int64_t>();  // contiguous int64
  constexpr T neginf = -std::numeric_limits<T>::infinity();
  Tensor nll = Tensor::uninitialized({batch}, log_probs.dtype());
  for (std::int64_t b = 0; b < batch; ++b) {
    const std::int64_t input_length = input_lengths[static_cast<std::size_t>(b)];
    const std::int64_t target_length = target_lengths[static_cast<std::size_t>(b)];
    const std::int64_t* label = tg + layout.offsets[static_cast<std::size_t>(b)];
    // PyTorch 1.13 reads outside its buffers for these instead of failing.
    if (input_length <= 0 || target_length < 0) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("ctc_loss: symbolite needs positive input lengths and non-negative "
                              "target lengths, got "
                              "{} and {}",
                              input_length, target_length));
    }
    for (std::int64_t i = 0; i < target_length; ++i) {
      if (label[i * layout.stride] < 0 || label[i * layout.stride] >= labels) {
        throw Error(ErrorKind::kUnsupported,
                    fmt::format("ctc_loss: target label {} is outside the {} classes",
                                label[i * layout.stride], labels));
      }
    }
    // The extended target: blanks around and between the labels.
    auto prime = [&](std::int64_t s) {
      return s % 2 == 0 ? blank : label[(s / 2) * layout.stride];
    };
    auto prob = [&](std::int64_t t, std::int64_t c) { return lp[(t * batch + b) * labels + c]; };
    const std::int64_t states = 2 * target_length + 1;
    std::vector<T> alpha(static_cast<std::size_t>(states), neginf), next(alpha.size());
    alpha[0] = prob(0, blank);
    if (target_length > 0) alpha[1] = prob(0, prime(1));
    for (std::int64_t t = 1; t < input_length; ++t) {
      for (std::int64_t s = 0; s < states; ++s) {
        const T la1 = alpha[static_cast<std::size_t>(s)];
        const T la2 = s > 0 ? alpha[static_cast<std::size_t>(s - 1)] : neginf;
        const T la3 =
            s > 1 && prime(s - 2) != prime(s) ? alpha[static_cast<std::size_t>(s - 2)] : neginf;
        T lamax = std::max({la1, la2, la3});
        if (lamax == neginf) lamax = 0;  // cannot do -inf - -inf
        next[static_cast<std::size_t>(s)] =
            std::log(std::exp(la1 - lamax) + std::exp(la2 - lamax) + std::exp(la3 - lamax)) +
            lamax + prob(t, prime(s));
      }
      std::swap(alpha, next);
    }
    T log_likelihood = alpha[0];  // an empty target has a single path
    if (target_length > 0) {
      const T l1 = alpha[static_cast<std::size_t>(2 * target_length)];
      const T l2 = alpha[static_cast<std::size_t>(2 * target_length - 1)];
      T m = std::max(l1, l2);
      if (m == neginf) m = 0;
      log_likelihood = std::log(std::exp(l1 - m) + std::exp(l2 - m)) + m;
    }
    nll.mutable_data<T>()[b] = -log_likelihood;
  }
  return nll;
}

Tensor ctc_loss_impl(const IValue& log_probs_arg, const Tensor& targets_raw,
                     const std::vector<std::int64_t>& input_lengths,
                     const std::vector<std::int64_t>& target_lengths, std::int64_t blank,
                     std::int64_t reduction, bool zero_infinity) {
  const bool batched = log_probs_arg.to_tensor().dim() == 3;
  const Tensor log_probs = batched ? log_probs_arg.to_tensor()
                                   : run_op("aten::unsqueeze", {log_probs_arg, 1}).to_tensor();
  const Tensor targets = to_dtype(targets_raw, DType::kInt64);  // PyTorch converts them too
  return dispatch_floating(log_probs.dtype(), "ctc_loss_cpu", [&](auto tag) {
    using T = decltype(tag);
    Tensor res = ctc_forward<T>(log_probs, targets, input_lengths, target_lengths, blank);
    T* r = res.mutable_data<T>();
    const std::int64_t batch = res.numel();
    if (zero_infinity) {
      for (std::int64_t b = 0; b < batch; ++b) {
        if (r[b] == std::numeric_limits<T>::infinity()) r[b] = 0;
      }
    }
    if (reduction == 1 || reduction == 2) {
      // The mean divides each loss by its target length (at least 1) first.
      T total = 0;
      for (std::int64_t b = 0; b < batch; ++b) {
        total += reduction == 1 ? r[b] / static_cast<T>(std::max<std::int64_t>(
                                             target_lengths[static_cast<std::size_t>(b)], 1))
                                : r[b];
      }
      Tensor out = Tensor::uninitialized({}, res.dtype());
      out.mutable_data<T>()[0] = reduction == 1 ? total / static_cast<T>(batch) : total;
      return out;
    }
    return batched ? res : nn::view_as(res, {});
  });
}

// Lengths given as a tensor: any integer dtype, read as int64.
std::vector<std::int64_t> lengths_arg(const Tensor& lengths, const char* name) {
  if (!is_integral(lengths.dtype())) fail(fmt::format("{} must be integral", name));
  const Tensor l = to_dtype(lengths, DType::kInt64);
  const std::int64_t* p = l.data<std::int64_t>();
  return {p, p + l.numel()};
}

// ctc_loss.Tensor(Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths,
// int blank=0, int reduction=Mean, bool zero_infinity=False)
void ctc_loss_tensor(Stack& s) {
  const bool zero_infinity = pop(s).to_bool();
  const std::int64_t reduction = pop(s).to_int();
  const std::int64_t blank = pop(s).to_int();
  IValue target_lengths = pop(s), input_lengths = pop(s), targets = pop(s), log_probs = pop(s);
  const auto il = lengths_arg(input_lengths.to_tensor(), "input_lengths");
  const auto tl = lengths_arg(target_lengths.to_tensor(), "target_lengths");
  s.emplace_back(
      ctc_loss_impl(log_probs, targets.to_tensor(), il, tl, blank, reduction, zero_infinity));
}

// ctc_loss.IntList(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths,
// int blank=0, int reduction=Mean, bool zero_infinity=False)
void ctc_loss_int_list(Stack& s) {
  const bool zero_infinity = pop(s).to_bool();
  const std::int64_t reduction = pop(s).to_int();
  const std::int64_t blank = pop(s).to_int();
  IValue target_lengths = pop(s), input_lengths = pop(s), targets = pop(s), log_probs = pop(s);
  s.emplace_back(ctc_loss_impl(log_probs, targets.to_tensor(), int_list_arg(input_lengths),
                               int_list_arg(target_lengths), blank, reduction, zero_infinity));
}

}  // namespace

void register_ctc_loss_ops(OperatorRegistry& r) {
  const IValue defaults_blank(std::int64_t{0}), mean(std::int64_t{1}), no(false);
  r.add({"aten::ctc_loss.Tensor", 7, {defaults_blank, mean, no}, ctc_loss_tensor});
  r.add({"aten::ctc_loss.IntList", 7, {defaults_blank, mean, no}, ctc_loss_int_list});
}

}  // namespace symbolite::ops
