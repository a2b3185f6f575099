// Recurrent layers besides aten::lstm.input: aten::gru.input, rnn_tanh.input, rnn_relu.input
// (nn.GRU, nn.RNN: stacked, bidirectional, batch_first, with or without biases) and the cells
// gru_cell, lstm_cell, rnn_tanh_cell, rnn_relu_cell (nn.GRUCell, LSTMCell, RNNCell).
// Evaluation mode; float32 and float64. The gate formulas are PyTorch 1.13's (RNN.cpp):
//   rnn:  h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)
//   gru:  r, z = sigmoid(...), n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)),
//         h' = n + z * (h - n)
//   lstm: i, f, g, o; c' = f c + i g; h' = o tanh(c')
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/cpu/gemm.h"
#include "symbolite/ops/cpu/recurrent_gates.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

enum class Kind { kTanh, kRelu, kGru, kLstm };

std::int64_t gate_count(Kind k) { return k == Kind::kGru ? 3 : k == Kind::kLstm ? 4 : 1; }

struct Weights {
  Tensor w_ih, w_hh, b_ih, b_hh;  // biases undefined without them
  bool has_bias = false;
};

// out (B x G) = x (B x K) W^T (W: G x K, contiguous) + b
template <typename T>
void linear(const T* x, const Tensor& w, const Tensor& b, bool has_bias, std::int64_t batch,
            T* out) {
  linear_rows(batch, w.sizes()[0], w.sizes()[1], x, w.data<T>(), has_bias ? b.data<T>() : nullptr,
              out);
}

// One step for a batch: h (B x H) and, for lstm, c (B x H) updated in place.
template <typename T>
void step(Kind kind, const T* x, const Weights& w, std::int64_t batch, std::int64_t hidden, T* h,
          T* c) {
  const std::int64_t g = gate_count(kind) * hidden;
  std::vector<T> gi(static_cast<std::size_t>(batch * g)), gh(static_cast<std::size_t>(batch * g));
  linear<T>(x, w.w_ih, w.b_ih, w.has_bias, batch, gi.data());
  linear<T>(h, w.w_hh, w.b_hh, w.has_bias, batch, gh.data());
  for (std::int64_t b = 0; b < batch; ++b) {
    const T* a = gi.data() + b * g;
    T* r = gh.data() + b * g;
    T* hb = h + b * hidden;
    switch (kind) {
      case Kind::kTanh:
        tanh_gate(a, r, hb, hidden);
        break;
      case Kind::kRelu:
        for (std::int64_t j = 0; j < hidden; ++j) hb[j] = std::max(a[j] + r[j], T(0));
        break;
      case Kind::kGru:
        gru_gates(a, r, hb, hidden);
        break;
      case Kind::kLstm:
        lstm_gates(r, a, c + b * hidden, hb, hidden);
        break;
    }
  }
}

void check_float(const char* op, DType dtype) {
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) unsupported_float_dtype(op, dtype);
}

// Every state and weight (null: absent) in the input's dtype (PyTorch's mixed-dtype errors are not copied).
void check_same_dtype(const char* op, DType dtype, std::initializer_list<const Tensor*> ts) {
  for (const Tensor* t : ts) {
    if (t != nullptr && t->dtype() != dtype) {
      throw Error(
          ErrorKind::kUnsupported,
          fmt::format("{}: tensors of {} with an input of {} are not supported", op,
                      tensor::scalar_type_name(t->dtype()), tensor::scalar_type_name(dtype)));
    }
  }
}

// A fresh contiguous copy (the state updated in place).
Tensor copy_of(const Tensor& t) {
  Tensor c = t.contiguous();
  Tensor out = Tensor::uninitialized(c.sizes(), c.dtype());
  if (c.numel() != 0) {
    std::memcpy(out.storage().mutable_data(), c.raw_data(),
                static_cast<std::size_t>(c.numel()) * c.element_size());
  }
  return out;
}

// Dimensions 0 and 1 swapped, as a view.
Tensor swap01(const Tensor& t) {
  const Ints& sz = t.sizes();
  const Ints& st = t.strides();
  return Tensor::from_storage(t.storage(), t.dtype(), {sz[1], sz[0], sz[2]}, {st[1], st[0], st[2]},
                              t.storage_offset());
}

const Tensor* bias_ih(const Weights& w) { return w.has_bias ? &w.b_ih : nullptr; }
const Tensor* bias_hh(const Weights& w) { return w.has_bias ? &w.b_hh : nullptr; }

Tensor contiguous_or_empty(const IValue& v) {
  return v.is_none() ? Tensor() : v.to_tensor().contiguous();
}

// The shape checks of PyTorch's cells (check_rnn_cell_forward_input / _hidden).
void check_cell(const Tensor& input, const Tensor& hx, const Tensor& w_ih, const Tensor& w_hh,
                int label, bool check_input) {
  if (check_input && input.sizes()[1] != w_ih.sizes()[1]) {
    fail(fmt::format("input has inconsistent input_size: got {} expected {}", input.sizes()[1],
                     w_ih.sizes()[1]));
  }
  if (input.sizes()[0] != hx.sizes()[0]) {
    fail(fmt::format("Input batch size {} doesn't match hidden{} batch size {}", input.sizes()[0],
                     label, hx.sizes()[0]));
  }
  if (hx.sizes()[1] != w_hh.sizes()[1]) {
    fail(fmt::format("hidden{} has inconsistent hidden_size: got {}, expected {}", label,
                     hx.sizes()[1], w_hh.sizes()[1]));
  }
}

// gru_cell / rnn_*_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None,
//                       Tensor? b_hh=None) -> Tensor
template <Kind K>
void cell(Stack& s) {
  const char* op = K == Kind::kGru    ? "aten::gru_cell"
                   : K == Kind::kTanh ? "aten::rnn_tanh_cell"
                                      : "aten::rnn_relu_cell";
  IValue* a = last(s, 6);
  const Tensor& input = a[0].to_tensor();
  const Tensor& hx_raw = a[1].to_tensor();
  Weights w{a[2].to_tensor().contiguous(), a[3].to_tensor().contiguous(), contiguous_or_empty(a[4]),
            contiguous_or_empty(a[5]), !a[4].is_none()};
  if (a[4].is_none() != a[5].is_none()) {
    throw Error(ErrorKind::kUnsupported, fmt::format("{}: one bias without the other", op));
  }
  if (input.dim() != 2 || hx_raw.dim() != 2 || w.w_ih.dim() != 2 || w.w_hh.dim() != 2) {
    throw Error(ErrorKind::kUnsupported, fmt::format("{}: 2-d input and hidden state only", op));
  }
  check_cell(input, hx_raw, w.w_ih, w.w_hh, 0, true);
  check_float(op, input.dtype());
  const std::int64_t hidden = w.w_hh.sizes()[1];
  if (w.w_hh.sizes()[0] != gate_count(K) * hidden || w.w_ih.sizes()[0] != gate_count(K) * hidden) {
    throw Error(ErrorKind::kUnsupported, fmt::format("{}: inconsistent weight sizes", op));
  }
  check_same_dtype(op, input.dtype(), {&hx_raw, &w.w_ih, &w.w_hh, bias_ih(w), bias_hh(w)});
  Tensor x = input.contiguous();
  Tensor h = copy_of(hx_raw);
  const std::int64_t batch = x.sizes()[0];
  if (x.dtype() == DType::kFloat64) {
    step<double>(K, x.data<double>(), w, batch, hidden, h.mutable_data<double>(), nullptr);
  } else {
    step<float>(K, x.data<float>(), w, batch, hidden, h.mutable_data<float>(), nullptr);
  }
  drop(s, 6);
  s.emplace_back(std::move(h));
}

// lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None,
//           Tensor? b_hh=None) -> (Tensor, Tensor)
void lstm_cell(Stack& s) {
  IValue* a = last(s, 6);
  const Tensor& input = a[0].to_tensor();
  std::vector<Tensor> hx = tensor_list_arg(a[1]);
  if (hx.size() != 2) fail(fmt::format("lstm_cell: Expected two hidden states, got {}", hx.size()));
  Weights w{a[2].to_tensor().contiguous(), a[3].to_tensor().contiguous(), contiguous_or_empty(a[4]),
            contiguous_or_empty(a[5]), !a[4].is_none()};
  if (a[4].is_none() != a[5].is_none()) {
    throw Error(ErrorKind::kUnsupported, "aten::lstm_cell: one bias without the other");
  }
  if (input.dim() != 2 || hx[0].dim() != 2 || hx[1].dim() != 2) {
    throw Error(ErrorKind::kUnsupported, "aten::lstm_cell: 2-d input and hidden states only");
  }
  check_cell(input, hx[0], w.w_ih, w.w_hh, 0, true);
  check_cell(input, hx[1], w.w_ih, w.w_hh, 0, false);  // PyTorch labels both hidden0
  check_float("aten::lstm_cell", input.dtype());
  check_same_dtype("aten::lstm_cell", input.dtype(),
                   {hx.data(), &hx[1], &w.w_ih, &w.w_hh, bias_ih(w), bias_hh(w)});
  const std::int64_t hidden = w.w_hh.sizes()[1];
  if (w.w_hh.sizes()[0] != 4 * hidden || w.w_ih.sizes()[0] != 4 * hidden) {
    throw Error(ErrorKind::kUnsupported, "aten::lstm_cell: inconsistent weight sizes");
  }
  Tensor x = input.contiguous();
  Tensor h = copy_of(hx[0]);
  Tensor c = copy_of(hx[1]);
  const std::int64_t batch = x.sizes()[0];
  if (x.dtype() == DType::kFloat64) {
    step<double>(Kind::kLstm, x.data<double>(), w, batch, hidden, h.mutable_data<double>(),
                 c.mutable_data<double>());
  } else {
    step<float>(Kind::kLstm, x.data<float>(), w, batch, hidden, h.mutable_data<float>(),
                c.mutable_data<float>());
  }
  drop(s, 6);
  s.emplace_back(std::move(h));
  s.emplace_back(std::move(c));
}

// gru.input / rnn_tanh.input / rnn_relu.input(Tensor input, Tensor hx, Tensor[] params,
//   bool has_biases, int num_layers, float dropout, bool train, bool bidirectional,
//   bool batch_first) -> (Tensor, Tensor)
template <Kind K>
void sequence(Stack& s) {
  const char* op = K == Kind::kGru    ? "aten::gru"
                   : K == Kind::kTanh ? "aten::rnn_tanh"
                                      : "aten::rnn_relu";
  IValue* a = last(s, 9);
  const Tensor& input_raw = a[0].to_tensor();
  const Tensor& hx_raw = a[1].to_tensor();
  std::vector<Tensor> params = tensor_list_arg(a[2]);
  const bool has_biases = a[3].to_bool();
  const std::int64_t num_layers = a[4].to_int();
  const double dropout = a[5].to_double();
  const bool train = a[6].to_bool();
  const bool bidirectional = a[7].to_bool();
  const bool batch_first = a[8].to_bool();
  const std::size_t per_cell = has_biases ? 4 : 2;
  if (params.size() % per_cell != 0) fail("got an incorrect number of RNN parameters");
  const std::int64_t dirs = bidirectional ? 2 : 1;
  const auto cells = static_cast<std::int64_t>(params.size() / per_cell);
  if (hx_raw.dim() != 3) {
    throw Error(ErrorKind::kUnsupported, fmt::format("{}: hidden state must be 3-d", op));
  }
  const std::int64_t states = hx_raw.sizes()[0];
  if (bidirectional && (states % 2 != 0 || cells % 2 != 0)) {
    fail("Odd number of params or hiddens given to a bidirectional RNN");
  }
  if (states / dirs != num_layers) fail("Expected more hidden states in stacked_rnn");
  if (cells / dirs != num_layers) fail("Expected more weights in stacked_rnn");
  if (num_layers <= 0) throw Error(ErrorKind::kUnsupported, fmt::format("{}: no layers", op));
  if (input_raw.dim() != 3) {
    throw Error(ErrorKind::kUnsupported, fmt::format("{}: 3-d input only", op));
  }
  if (train && dropout > 0 && num_layers > 1) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("{} with dropout in training mode is not supported (random)", op));
  }
  check_float(op, input_raw.dtype());
  // (T, B, F) contiguous
  Tensor input = input_raw.contiguous();
  if (batch_first) input = swap01(input).contiguous();
  const std::int64_t steps = input.sizes()[0], batch = input.sizes()[1];
  if (steps == 0) fail("Expected sequence length to be larger than 0 in RNN");
  const std::int64_t hidden = hx_raw.sizes()[2];
  if (hx_raw.sizes()[1] != batch) {
    fail(fmt::format("Expected hidden size ({}, {}, {}), got {}", states, batch, hidden,
                     format_ints(hx_raw.sizes())));
  }
  Tensor hx = hx_raw.contiguous();
  check_same_dtype(op, input.dtype(), {&hx});
  Tensor hy = Tensor::uninitialized({states, batch, hidden}, input.dtype());
  Tensor layer_input = input;
  for (std::int64_t layer = 0; layer < num_layers; ++layer) {
    const std::int64_t features = layer_input.sizes()[2];
    Tensor layer_output = Tensor::uninitialized({steps, batch, dirs * hidden}, input.dtype());
    for (std::int64_t d = 0; d < dirs; ++d) {
      const std::int64_t ci = layer * dirs + d;
      const std::size_t base = static_cast<std::size_t>(ci) * per_cell;
      Weights w{params[base].contiguous(), params[base + 1].contiguous(),
                has_biases ? params[base + 2].contiguous() : Tensor(),
                has_biases ? params[base + 3].contiguous() : Tensor(), has_biases};
      if (w.w_ih.dim() != 2 || w.w_hh.dim() != 2 || w.w_ih.sizes()[1] != features ||
          w.w_hh.sizes()[1] != hidden || w.w_ih.sizes()[0] != gate_count(K) * hidden ||
          w.w_hh.sizes()[0] != gate_count(K) * hidden) {
        if (w.w_ih.dim() == 2 && w.w_ih.sizes()[1] != features) {
          fail(fmt::format("mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
                           steps * batch, features, w.w_ih.sizes()[1], w.w_ih.sizes()[0]));
        }
        throw Error(ErrorKind::kUnsupported, fmt::format("{}: inconsistent weight sizes", op));
      }
      check_same_dtype(op, input.dtype(), {&w.w_ih, &w.w_hh, bias_ih(w), bias_hh(w)});
      auto run = [&](auto tag) {
        using T = decltype(tag);
        std::vector<T> h(static_cast<std::size_t>(batch * hidden));
        std::copy_n(hx.data<T>() + ci * batch * hidden, h.size(), h.begin());
        const T* x = layer_input.data<T>();
        T* out = layer_output.mutable_data<T>();
        for (std::int64_t k = 0; k < steps; ++k) {
          const std::int64_t t = d == 1 ? steps - 1 - k : k;
          step<T>(K, x + t * batch * features, w, batch, hidden, h.data(), nullptr);
          for (std::int64_t b = 0; b < batch; ++b) {
            std::copy_n(h.data() + b * hidden, hidden,
                        out + (t * batch + b) * dirs * hidden + d * hidden);
          }
        }
        std::copy(h.begin(), h.end(), hy.mutable_data<T>() + ci * batch * hidden);
      };
      if (input.dtype() == DType::kFloat64)
        run(double{});
      else
        run(float{});
    }
    layer_input = layer_output;
  }
  Tensor output = layer_input;
  if (batch_first) output = swap01(output);
  drop(s, 9);
  s.emplace_back(std::move(output));
  s.emplace_back(std::move(hy));
}

}  // namespace

void register_rnn_gru_ops(OperatorRegistry& r) {
  r.add({"aten::gru.input", 9, {}, sequence<Kind::kGru>});
  r.add({"aten::rnn_tanh.input", 9, {}, sequence<Kind::kTanh>});
  r.add({"aten::rnn_relu.input", 9, {}, sequence<Kind::kRelu>});
  r.add({"aten::gru_cell", 6, {IValue(), IValue()}, cell<Kind::kGru>});
  r.add({"aten::rnn_tanh_cell", 6, {IValue(), IValue()}, cell<Kind::kTanh>});
  r.add({"aten::rnn_relu_cell", 6, {IValue(), IValue()}, cell<Kind::kRelu>});
  r.add({"aten::lstm_cell", 6, {IValue(), IValue()}, lstm_cell});
}

}  // namespace symbolite::ops::nn
