// The XNNPACK nodes against symbolite's reference kernels (themselves checked against PyTorch
// by the operator tests): the same delegate program, compiled with and without XNNPACK, gives
// the same outputs — for contiguous and channels-last inputs, groups, padding, broadcasting —
// and an input XNNPACK does not take falls back to the reference kernel, error text included.
#include <gtest/gtest.h>

#include <cmath>

#include "symbolite/backends/xnnpack/channels_last.h"
#include "symbolite/backends/xnnpack/xnnpack_nodes.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/runtime/delegate/delegate_backend.h"

namespace symbolite::backends {
namespace {

using mobile::DelegateProgram;
using mobile::DelegateValue;
using ops::IValue;
using tensor::Tensor;

Tensor random_tensor(std::vector<std::int64_t> sizes, std::uint32_t seed) {
  Tensor t = Tensor::empty(std::move(sizes), tensor::DType::kFloat32);
  float* p = t.mutable_data<float>();
  std::uint32_t state = seed * 2654435761u + 1;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    state = state * 1664525u + 1013904223u;
    p[i] = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
  }
  return t;
}

std::size_t constant(DelegateProgram& p, IValue v) {
  DelegateValue d;
  if (v.is(IValue::Kind::kInt)) {
    d.kind = DelegateValue::Kind::kInt;
    d.integer = v.to_int();
  } else if (v.is(IValue::Kind::kDouble)) {
    d.kind = DelegateValue::Kind::kFloat;
    d.number = v.to_double();
  } else if (v.is(IValue::Kind::kBool)) {
    d.kind = DelegateValue::Kind::kBool;
    d.integer = v.to_bool() ? 1 : 0;
  }
  return p.add_value(d);
}

std::size_t ints(DelegateProgram& p, std::vector<std::int64_t> values) {
  DelegateValue list;
  list.kind = DelegateValue::Kind::kList;
  for (auto v : values) list.items.push_back(constant(p, IValue(v)));
  return p.add_value(list);
}

std::size_t weight(DelegateProgram& p, std::int64_t index) {
  DelegateValue d;
  d.kind = DelegateValue::Kind::kWeight;
  d.integer = index;
  return p.add_value(d);
}

std::size_t none(DelegateProgram& p) { return p.add_value(DelegateValue{}); }

struct Case {
  DelegateProgram program;
  ops::IValueList weights;
  ops::IValueList inputs;
};

void expect_same(const Case& c, bool accelerated = true) {
  auto fast = runtime::compile_program(c.program, c.weights, make_xnnpack_node);
  auto reference = runtime::compile_program(c.program, c.weights);
  ASSERT_EQ(fast.accelerators.front() != nullptr, accelerated) << c.program.steps.front().op;
  auto got = runtime::run_program(fast, c.inputs);
  auto want = runtime::run_program(reference, c.inputs);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    Tensor g = got[i].to_tensor().contiguous();
    Tensor w = want[i].to_tensor().contiguous();
    ASSERT_EQ(g.sizes(), w.sizes());
    for (std::int64_t k = 0; k < w.numel(); ++k) {
      ASSERT_NEAR(g.data<float>()[k], w.data<float>()[k],
                  1e-4 + 1e-4 * std::abs(w.data<float>()[k]))
          << c.program.steps.front().op << " output " << i << " element " << k;
    }
  }
}

Case conv(std::int64_t groups, std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
          std::vector<std::int64_t> dilation, bool bias, Tensor input) {
  Case c;
  const std::int64_t in = input.sizes()[1];
  const std::int64_t out = 2 * groups;
  std::size_t x = c.program.add_input();
  std::size_t w = weight(c.program, 0);
  c.weights.emplace_back(random_tensor({out, in / groups, 3, 2}, 1));
  std::size_t b = none(c.program);
  if (bias) {
    b = weight(c.program, 1);
    c.weights.emplace_back(random_tensor({out}, 2));
  }
  std::size_t y =
      c.program.add_step(1, "aten::conv2d",
                         {x, w, b, ints(c.program, stride), ints(c.program, padding),
                          ints(c.program, dilation), constant(c.program, IValue(groups))},
                         1);
  c.program.outputs = {y};
  c.inputs = {IValue(std::move(input))};
  return c;
}

TEST(XnnpackNodes, Conv2dMatchesTheReference) {
  expect_same(conv(1, {1, 1}, {0, 0}, {1, 1}, true, random_tensor({2, 3, 9, 8}, 3)));
  expect_same(conv(1, {2, 1}, {1, 2}, {2, 1}, false, random_tensor({1, 4, 11, 7}, 4)));
  expect_same(conv(4, {1, 2}, {1, 1}, {1, 1}, true, random_tensor({1, 4, 6, 6}, 5)));  // depthwise
  expect_same(
      conv(2, {1, 1}, {0, 1}, {1, 1}, true, to_channels_last(random_tensor({1, 6, 5, 5}, 6))));
}

TEST(XnnpackNodes, Conv2dWithAWrongChannelCountFailsAsTheReferenceSays) {
  Case c = conv(1, {1, 1}, {0, 0}, {1, 1}, true, random_tensor({1, 3, 8, 8}, 7));
  auto fast = runtime::compile_program(c.program, c.weights, make_xnnpack_node);
  auto reference = runtime::compile_program(c.program, c.weights);
  ops::IValueList wrong = {IValue(random_tensor({1, 5, 8, 8}, 8))};
  std::string fast_error, reference_error;
  try {
    runtime::run_program(fast, wrong);
  } catch (const runtime::DelegateFailure& e) {
    fast_error = e.message();
    EXPECT_EQ(e.handle(), 1);
  }
  try {
    runtime::run_program(reference, wrong);
  } catch (const runtime::DelegateFailure& e) {
    reference_error = e.message();
  }
  EXPECT_FALSE(fast_error.empty());
  EXPECT_EQ(fast_error, reference_error);
}

TEST(XnnpackNodes, LinearMatchesTheReference) {
  Case c;
  std::size_t x = c.program.add_input();
  std::size_t w = weight(c.program, 0);
  std::size_t b = weight(c.program, 1);
  c.weights = {IValue(random_tensor({5, 7}, 9)), IValue(random_tensor({5}, 10))};
  c.program.outputs = {c.program.add_step(1, "aten::linear", {x, w, b}, 1)};
  c.inputs = {IValue(random_tensor({3, 2, 7}, 11))};
  expect_same(c);
}

Case unary(const char* op, Tensor input, std::vector<double> extra = {}) {
  Case c;
  std::size_t x = c.program.add_input();
  std::vector<std::size_t> args = {x};
  for (double v : extra) args.push_back(constant(c.program, IValue(v)));
  c.program.outputs = {c.program.add_step(1, op, args, 1)};
  c.inputs = {IValue(std::move(input))};
  return c;
}

TEST(XnnpackNodes, ActivationsMatchTheReference) {
  for (const char* op : {"aten::relu", "aten::hardswish", "aten::sigmoid"}) {
    expect_same(unary(op, random_tensor({2, 3, 4, 5}, 12)));
    expect_same(unary(op, to_channels_last(random_tensor({2, 3, 4, 5}, 13))));
  }
  expect_same(unary("aten::hardtanh", random_tensor({17}, 14), {-0.5, 0.25}));
}

TEST(XnnpackNodes, InPlaceActivationWritesIntoItsInput) {
  Tensor x = random_tensor({4, 4}, 15);
  Case c = unary("aten::relu_", x);
  auto fast = runtime::compile_program(c.program, c.weights, make_xnnpack_node);
  ASSERT_NE(fast.accelerators.front(), nullptr);
  auto out = runtime::run_program(fast, c.inputs);
  EXPECT_EQ(out[0].to_tensor().raw_data(), x.raw_data());
  for (std::int64_t i = 0; i < x.numel(); ++i) EXPECT_GE(x.data<float>()[i], 0.0f);
}

Case binary(const char* op, Tensor a, Tensor b) {
  Case c;
  std::size_t x = c.program.add_input();
  std::size_t y = c.program.add_input();
  std::vector<std::size_t> args = {x, y};
  if (std::string(op).find("add") != std::string::npos ||
      std::string(op).find("sub") != std::string::npos) {
    args.push_back(constant(c.program, IValue(std::int64_t{1})));
  }
  c.program.outputs = {c.program.add_step(1, op, args, 1)};
  c.inputs = {IValue(std::move(a)), IValue(std::move(b))};
  return c;
}

TEST(XnnpackNodes, BroadcastingBinariesMatchTheReference) {
  for (const char* op :
       {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor", "aten::div.Tensor"}) {
    expect_same(binary(op, random_tensor({2, 3, 4}, 16), random_tensor({3, 1}, 17)));
    expect_same(binary(op, to_channels_last(random_tensor({2, 3, 4, 5}, 18)),
                       random_tensor({3, 1, 1}, 19)));
    expect_same(binary(op, to_channels_last(random_tensor({1, 3, 4, 5}, 20)),
                       to_channels_last(random_tensor({1, 3, 4, 5}, 21))));
    expect_same(binary(op, to_channels_last(random_tensor({1, 3, 4, 5}, 22)),
                       random_tensor({1, 3, 4, 5}, 23)));
  }
}

TEST(XnnpackNodes, PoolsMatchTheReference) {
  {
    Case c;
    std::size_t x = c.program.add_input();
    c.program.outputs = {c.program.add_step(
        1, "aten::max_pool2d",
        {x, ints(c.program, {3, 3}), ints(c.program, {2, 2}), ints(c.program, {1, 1}),
         ints(c.program, {1, 1}), constant(c.program, IValue(false))},
        1)};
    c.inputs = {IValue(random_tensor({2, 3, 9, 10}, 24))};
    expect_same(c);
  }
  {
    Case c;
    std::size_t x = c.program.add_input();
    c.program.outputs = {
        c.program.add_step(1, "aten::adaptive_avg_pool2d", {x, ints(c.program, {1, 1})}, 1)};
    c.inputs = {IValue(to_channels_last(random_tensor({2, 5, 7, 3}, 25)))};
    expect_same(c);
  }
  {
    Case c;
    std::size_t x = c.program.add_input();
    c.program.outputs = {c.program.add_step(
        1, "aten::avg_pool2d", {x, ints(c.program, {2, 2}), ints(c.program, {2, 2})}, 1)};
    c.inputs = {IValue(random_tensor({1, 4, 8, 6}, 26))};
    expect_same(c);
  }
}

TEST(XnnpackNodes, CeilModeMaxPoolMatchesTheReference) {
  for (std::int64_t side : {9, 10, 13}) {
    Case c;
    std::size_t x = c.program.add_input();
    c.program.outputs = {c.program.add_step(
        1, "aten::max_pool2d",
        {x, ints(c.program, {3, 3}), ints(c.program, {2, 2}), ints(c.program, {0, 0}),
         ints(c.program, {1, 1}), constant(c.program, IValue(true))},
        1)};
    c.inputs = {IValue(to_channels_last(random_tensor({1, 3, side, side + 1}, 40)))};
    expect_same(c);
  }
}

TEST(XnnpackNodes, ChannelConcatenationMatchesTheReference) {
  Case c;
  std::size_t x = c.program.add_input();
  std::size_t y = c.program.add_input();
  DelegateValue list;
  list.kind = DelegateValue::Kind::kList;
  list.items = {x, y};
  std::size_t both = c.program.add_value(list);
  c.program.outputs = {
      c.program.add_step(1, "aten::cat", {both, constant(c.program, IValue(std::int64_t{1}))}, 1)};
  c.inputs = {IValue(to_channels_last(random_tensor({2, 3, 4, 5}, 41))),
              IValue(to_channels_last(random_tensor({2, 2, 4, 5}, 42)))};
  expect_same(c);
}

TEST(XnnpackNodes, BatchNormMatchesTheReference) {
  for (bool channels_last : {false, true}) {
    Case c;
    std::size_t x = c.program.add_input();
    std::vector<std::size_t> args = {x};
    for (std::int64_t i = 0; i < 4; ++i) args.push_back(weight(c.program, i));
    Tensor var = random_tensor({3}, 27);
    for (std::int64_t i = 0; i < 3; ++i)
      var.mutable_data<float>()[i] = std::abs(var.data<float>()[i]) + 0.1f;
    c.weights = {IValue(random_tensor({3}, 28)), IValue(random_tensor({3}, 29)),
                 IValue(random_tensor({3}, 30)), IValue(var)};
    args.push_back(constant(c.program, IValue(false)));
    args.push_back(constant(c.program, IValue(0.1)));
    args.push_back(constant(c.program, IValue(1e-5)));
    args.push_back(constant(c.program, IValue(true)));
    c.program.outputs = {c.program.add_step(1, "aten::batch_norm", args, 1)};
    Tensor input = random_tensor({2, 3, 4, 5}, 31);
    c.inputs = {IValue(channels_last ? to_channels_last(input) : input)};
    expect_same(c);
  }
}

TEST(XnnpackNodes, OperatorsWithoutAnXnnpackNodeRunTheReference) {
  // Given channels-last input, the reference kernel gets it contiguous.
  expect_same(unary("aten::tanh", to_channels_last(random_tensor({1, 3, 4, 4}, 32))));
}

}  // namespace
}  // namespace symbolite::backends
