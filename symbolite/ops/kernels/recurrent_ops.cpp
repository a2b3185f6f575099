// Recurrent layers: aten::lstm.input (what nn.LSTM's forward calls), float32 and float64,
// stacked, bidirectional, with or without biases and projections (proj_size), evaluation
// mode. Follows PyTorch 1.13's CPU path (ATen/native/RNN.cpp): per layer and direction the
// input projection of every step is one linear over the whole sequence, then each step adds
// h @ W_hh^T + b_hh and applies the gates. Checks run in its order with its messages.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/gemm.h"
#include "symbolite/ops/cpu/recurrent_gates.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// One direction of one layer: W_ih (4H x in), W_hh (4H x P), b_ih, b_hh (4H), W_hr (P x H)
// where P is proj_size, or H without projections.
struct CellParams {
  Tensor w_ih, w_hh, w_hr;  // w_hr only with projections
  IValue b_ih, b_hh;        // None without biases
  bool projected = false;
};

// C (m x n) = A (m x k) * B^T + beta * C, where B is an n x k row-major matrix (a weight as
// nn.Linear stores it).
template <typename T>
void gemm_bt(std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b, T beta, T* c) {
  gemm(false, true, m, n, k, T(1), a, k, b, k, beta, c, n);
}

// The shape checks PyTorch's LSTMCell hits on its first step: `linear_hh(hx)` (through
// aten::linear, so its own messages), then `.add_(input_w)` and `forgetgate * cx`, both
// broadcasting. Returns linear_hh(hx) for that step.
Tensor first_step_checks(const Tensor& hx, const Tensor& cx, const CellParams& p,
                         std::int64_t batch, std::int64_t hidden) {
  Tensor hh = run_op("aten::linear", {hx, p.w_hh, p.b_hh}).to_tensor();
  if (hh.dim() != 2) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("aten::lstm: hidden state of size {} is not supported (expected "
                            "[layers, batch, hidden])",
                            format_ints(hx.sizes())));
  }
  std::int64_t hb = hh.sizes()[0];
  std::int64_t gates = hh.sizes()[1];
  if (hb != batch) {
    if (hb == 1) {
      fail(fmt::format("output with shape [1, {0}] doesn't match the broadcast shape [{1}, {0}]",
                       gates, batch));
    }
    if (batch != 1) {
      fail(
          fmt::format("The size of tensor a ({}) must match the size of tensor b ({}) at "
                      "non-singleton dimension 0",
                      hb, batch));
    }
    throw Error(ErrorKind::kUnsupported,
                fmt::format("aten::lstm: a batch of 1 against a hidden state batch of {} is not "
                            "supported",
                            hb));
  }
  if (cx.sizes() != Ints{batch, hidden} || cx.dtype() != hh.dtype()) {
    if (cx.dim() == 2 && cx.sizes()[1] == hidden && cx.sizes()[0] != batch && cx.sizes()[0] != 1) {
      fail(
          fmt::format("The size of tensor a ({}) must match the size of tensor b ({}) at "
                      "non-singleton dimension 0",
                      batch, cx.sizes()[0]));
    }
    throw Error(ErrorKind::kUnsupported,
                fmt::format("aten::lstm: cell state {}{} for hidden state {}{} is not supported",
                            tensor::scalar_type_name(cx.dtype()), format_ints(cx.sizes()),
                            tensor::scalar_type_name(hh.dtype()), format_ints(hh.sizes())));
  }
  return hh;
}

// Runs one direction of one layer over the sequence. `xw` is the input projection of every
// step, (T, B, 4H) contiguous; writes h_t into out[t, b, column + j] (row width out_width)
// and the final state into hy (B x P) and cy (B x H).
template <typename T>
void run_direction(const Tensor& xw, const Tensor& hx, const Tensor& cx, const CellParams& p,
                   bool reverse, T* out, std::int64_t out_width, std::int64_t column, T* hy,
                   T* cy) {
  std::int64_t steps = xw.sizes()[0];
  std::int64_t batch = xw.sizes()[1];
  std::int64_t hidden = p.w_hh.sizes()[0] / 4;
  std::int64_t proj = p.w_hh.sizes()[1];
  bool projected = p.projected;
  Tensor hh0 = first_step_checks(hx, cx, p, batch, hidden).contiguous();

  Tensor w_hh = p.w_hh.contiguous();
  Tensor w_hr = projected ? p.w_hr.contiguous() : Tensor();
  Tensor b_hh = p.b_hh.is_none() ? Tensor() : p.b_hh.to_tensor().contiguous();
  const T* bias = p.b_hh.is_none() ? nullptr : b_hh.data<T>();
  std::vector<T> gates(static_cast<std::size_t>(batch * 4 * hidden));
  std::vector<T> h_full(static_cast<std::size_t>(batch * hidden));  // before the projection
  std::vector<T> h(static_cast<std::size_t>(batch * proj));
  std::vector<T> c(static_cast<std::size_t>(batch * hidden));
  Tensor c0 = cx.contiguous();
  std::copy_n(c0.data<T>(), c.size(), c.begin());

  const T* x = xw.data<T>();
  std::int64_t g4 = 4 * hidden;
  for (std::int64_t step = 0; step < steps; ++step) {
    std::int64_t t = reverse ? steps - 1 - step : step;
    // gates = (b_hh + h @ W_hh^T) + x_t @ W_ih^T + b_ih, as linear_hh(hx).add_(input_w)
    if (step == 0) {
      std::copy_n(hh0.data<T>(), gates.size(), gates.begin());
    } else {
      linear_rows(batch, g4, proj, h.data(), w_hh.data<T>(), bias, gates.data());
    }
    const T* xt = x + t * batch * g4;
    for (std::int64_t b = 0; b < batch; ++b) {
      lstm_gates(gates.data() + b * g4, xt + b * g4, c.data() + b * hidden,
                 h_full.data() + b * hidden, hidden);
    }
    if (projected) {
      gemm_bt<T>(batch, proj, hidden, h_full.data(), w_hr.data<T>(), T(0), h.data());
    } else {
      std::copy(h_full.begin(), h_full.end(), h.begin());
    }
    for (std::int64_t b = 0; b < batch; ++b) {
      std::copy_n(h.data() + b * proj, proj, out + (t * batch + b) * out_width + column);
    }
  }
  std::copy(h.begin(), h.end(), hy);
  std::copy(c.begin(), c.end(), cy);
}

// A contiguous tensor's data under other sizes and strides (a view of the same storage).
Tensor restride(const Tensor& t, Ints sizes, Ints strides) {
  return Tensor::from_storage(t.storage(), t.dtype(), std::move(sizes), std::move(strides),
                              t.storage_offset());
}

// Slice `index` of dimension 0 of a tensor, as a contiguous tensor.
Tensor select0(const Tensor& t, std::int64_t index) {
  Ints sizes(t.sizes().begin() + 1, t.sizes().end());
  Ints strides(t.strides().begin() + 1, t.strides().end());
  return Tensor::from_storage(t.storage(), t.dtype(), std::move(sizes), std::move(strides),
                              t.storage_offset() + index * t.strides()[0])
      .contiguous();
}

struct LstmResult {
  Tensor output, hy, cy;
};

LstmResult lstm_impl(const Tensor& input, const std::vector<Tensor>& hx,
                     const std::vector<Tensor>& params, bool has_biases, std::int64_t num_layers,
                     double dropout, bool train, bool bidirectional, bool batch_first) {
  if (hx.size() != 2) fail("lstm expects two hidden states");
  // Cells of different sizes mean projections (hx[0].size(2) != hx[1].size(2)).
  auto size2 = [](const Tensor& t) {
    return t.sizes()[static_cast<std::size_t>(wrap_dim(2, t.dim()))];
  };
  bool projected = size2(hx[0]) != size2(hx[1]);
  std::size_t per_cell = (has_biases ? 4 : 2) + (projected ? 1 : 0);
  if (params.size() % per_cell != 0) fail("got an incorrect number of RNN parameters");
  std::vector<CellParams> cells;
  for (std::size_t i = 0; i < params.size(); i += per_cell) {
    CellParams c;
    c.w_ih = params[i];
    c.w_hh = params[i + 1];
    if (has_biases) {
      c.b_ih = IValue(params[i + 2]);
      c.b_hh = IValue(params[i + 3]);
    }
    if (projected) c.w_hr = params[i + per_cell - 1];
    c.projected = projected;
    cells.push_back(std::move(c));
  }
  std::int64_t dirs = bidirectional ? 2 : 1;
  std::int64_t states = hx[0].sizes()[0];
  auto count = static_cast<std::int64_t>(cells.size());
  if (bidirectional && (states % 2 != 0 || count % 2 != 0)) {
    fail("Odd number of params or hiddens given to a bidirectional RNN");
  }
  if (states / dirs != num_layers) fail("Expected more hidden states in stacked_rnn");
  if (count / dirs != num_layers) fail("Expected more weights in stacked_rnn");
  if (hx[1].sizes()[0] != states) {
    fail(fmt::format("lstm: hx[1] holds {} states but hx[0] holds {}", hx[1].sizes()[0], states));
  }
  if (num_layers <= 0) {
    throw Error(ErrorKind::kUnsupported, "aten::lstm: num_layers must be positive");
  }
  if (input.dim() != 3) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("aten::lstm: a {}-d input is not supported (expected 3-d: sequence, "
                            "batch, features)",
                            input.dim()));
  }
  if (train && dropout > 0 && num_layers > 1) {
    throw Error(ErrorKind::kUnsupported,
                "aten::lstm with dropout in training mode is not supported (random)");
  }
  for (const auto& c : cells) {
    for (const Tensor* w : {&c.w_hh, &c.w_hr}) {
      if (w == &c.w_hr && !projected) continue;
      if (w->dim() != 2) {
        throw Error(ErrorKind::kUnsupported,
                    fmt::format("aten::lstm: weights must be matrices, got one of size {}",
                                format_ints(w->sizes())));
      }
    }
    if (c.w_hh.sizes()[0] % 4 != 0 || (projected && c.w_hr.sizes()[1] * 4 != c.w_hh.sizes()[0])) {
      throw Error(ErrorKind::kUnsupported, "aten::lstm: inconsistent weight sizes");
    }
  }

  // (T, B, F) view of a batch-first (B, T, F) input.
  Tensor layer_input = batch_first
                           ? restride(input, {input.sizes()[1], input.sizes()[0], input.sizes()[2]},
                                      {input.strides()[1], input.strides()[0], input.strides()[2]})
                           : input;
  std::int64_t steps = layer_input.sizes()[0];
  std::int64_t batch = layer_input.sizes()[1];
  Tensor hy_all, cy_all;
  Tensor output;
  for (std::int64_t layer = 0; layer < num_layers; ++layer) {
    Tensor layer_output;
    bool allocated = false;
    for (std::int64_t d = 0; d < dirs; ++d) {
      std::size_t cell = static_cast<std::size_t>(layer * dirs + d);
      const CellParams& p = cells[cell];
      Tensor xw = run_op("aten::linear", {layer_input, p.w_ih, p.b_ih}).to_tensor().contiguous();
      if (steps == 0) fail("Expected sequence length to be larger than 0 in RNN");
      DType dtype = xw.dtype();
      if (dtype != DType::kFloat32 && dtype != DType::kFloat64)
        unsupported_dtype("aten::lstm", dtype);
      std::int64_t hidden = p.w_hh.sizes()[0] / 4;
      std::int64_t proj = p.w_hh.sizes()[1];
      if (xw.sizes()[2] != 4 * hidden) {
        throw Error(
            ErrorKind::kUnsupported,
            fmt::format("aten::lstm: input weights of size {} for hidden weights of size {}",
                        format_ints(p.w_ih.sizes()), format_ints(p.w_hh.sizes())));
      }
      if (!allocated) {
        layer_output = Tensor::uninitialized({steps, batch, dirs * proj}, dtype);
        allocated = true;
      }
      if (layer == 0 && d == 0) {
        hy_all = Tensor::uninitialized({states, batch, proj}, dtype);
        cy_all = Tensor::uninitialized({states, batch, hidden}, dtype);
      }
      if (layer_output.dtype() != dtype || layer_output.sizes()[2] != dirs * proj ||
          hy_all.sizes()[2] != proj || cy_all.sizes()[2] != hidden) {
        throw Error(ErrorKind::kUnsupported, "aten::lstm: layers of different sizes");
      }
      Tensor h0 = select0(hx[0], static_cast<std::int64_t>(cell));
      Tensor c0 = select0(hx[1], static_cast<std::int64_t>(cell));
      dispatch_floating(dtype, "lstm", [&](auto tag) {
        using T = decltype(tag);
        run_direction<T>(
            xw, h0, c0, p, d == 1, layer_output.mutable_data<T>(), dirs * proj, d * proj,
            hy_all.mutable_data<T>() + static_cast<std::int64_t>(cell) * batch * proj,
            cy_all.mutable_data<T>() + static_cast<std::int64_t>(cell) * batch * hidden);
      });
    }
    layer_input = layer_output;
    output = layer_output;
  }
  if (batch_first) {
    const Ints& s = output.sizes();
    const Ints& st = output.strides();
    output = restride(output, {s[1], s[0], s[2]}, {st[1], st[0], st[2]});
  }
  return {output, hy_all, cy_all};
}

// aten::lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases,
//                  int num_layers, float dropout, bool train, bool bidirectional,
//                  bool batch_first) -> (Tensor, Tensor, Tensor)
void lstm(Stack& s) {
  IValue* a = last(s, 9);
  LstmResult r =
      lstm_impl(a[0].to_tensor(), tensor_list_arg(a[1]), tensor_list_arg(a[2]), a[3].to_bool(),
                a[4].to_int(), a[5].to_double(), a[6].to_bool(), a[7].to_bool(), a[8].to_bool());
  drop(s, 9);
  s.emplace_back(std::move(r.output));
  s.emplace_back(std::move(r.hy));
  s.emplace_back(std::move(r.cy));
}

}  // namespace

void register_recurrent_ops(OperatorRegistry& r) { r.add({"aten::lstm.input", 9, {}, lstm}); }

}  // namespace symbolite::ops::nn
