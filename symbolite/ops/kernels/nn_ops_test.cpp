// The nn kernels against PyTorch 1.13: every case of tests/fixtures/ops/nn_cases.json (written
// by make_nn_refs.py) runs the operator on the same arguments and must give PyTorch's output
// with its dtype (float32 or float64 alike within rtol 1e-4, atol 1e-5) or PyTorch's exact
// error class and message.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/nn_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using testing::expect_unsupported;

SYMBOLITE_NN_REFERENCE_SUITE(NnOpsReference, "nn_cases.json");

Tensor iota(std::vector<std::int64_t> sizes) {
  Tensor t = Tensor::empty(std::move(sizes), DType::kFloat32);
  float* p = t.mutable_data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = std::sin(static_cast<float>(i) * 0.37f);
  return t;
}

// [N, C, H, W] data stored as [N, H, W, C] (channels last): a non-contiguous view.
Tensor channels_last_copy(const Tensor& x) {
  const auto& s = x.sizes();
  Tensor nhwc = Tensor::empty({s[0], s[2], s[3], s[1]}, DType::kFloat32);
  const float* src = x.data<float>();
  float* dst = nhwc.mutable_data<float>();
  for (std::int64_t n = 0; n < s[0]; ++n)
    for (std::int64_t c = 0; c < s[1]; ++c)
      for (std::int64_t h = 0; h < s[2]; ++h)
        for (std::int64_t w = 0; w < s[3]; ++w)
          dst[((n * s[2] + h) * s[3] + w) * s[1] + c] = src[((n * s[1] + c) * s[2] + h) * s[3] + w];
  return Tensor::from_storage(nhwc.storage(), DType::kFloat32, s,
                              {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]}, 0);
}

IValue ints(std::initializer_list<std::int64_t> values) {
  IValueList items;
  for (auto v : values) items.emplace_back(v);
  return IValue::list(std::move(items));
}

TEST(NnOps, StridedInputsGiveTheSameResults) {
  Tensor x = iota({2, 4, 7, 7});
  Tensor strided = channels_last_copy(x);
  ASSERT_FALSE(strided.is_contiguous());
  Tensor w = iota({4, 1, 3, 3});
  auto conv = [&](const Tensor& in) {
    return run_op("aten::conv2d", {in, w, IValue(), ints({1, 1}), ints({1, 1}), ints({1, 1}), 4});
  };
  testing::nn_expect_close(conv(strided).to_tensor(), conv(x).to_tensor());
  auto pool = [](const Tensor& in) {
    return run_op("aten::max_pool2d", {in, ints({3, 3}), ints({2, 2})});
  };
  testing::nn_expect_close(pool(strided).to_tensor(), pool(x).to_tensor());
  auto bn = [](const Tensor& in) {
    Tensor mean = iota({4});
    Tensor var = Tensor::empty({4}, DType::kFloat32);
    for (int i = 0; i < 4; ++i) var.mutable_data<float>()[i] = 1.0f + static_cast<float>(i);
    return run_op("aten::batch_norm", {in, IValue(), IValue(), mean, var, false, 0.1, 1e-5, true});
  };
  testing::nn_expect_close(bn(strided).to_tensor(), bn(x).to_tensor());
}

// A larger grouped convolution through the im2col path against a direct loop.
TEST(NnOps, GroupedConvolutionMatchesDirectLoop) {
  Tensor x = iota({1, 6, 13, 11});
  Tensor w = iota({4, 3, 3, 2});
  Tensor out = run_op("aten::conv2d", {x, w, IValue(), ints({2, 1}), ints({1, 0}), ints({1, 2}), 2})
                   .to_tensor();
  ASSERT_EQ(out.sizes(), (std::vector<std::int64_t>{1, 4, 7, 9}));
  const float* xp = x.data<float>();
  const float* wp = w.data<float>();
  for (std::int64_t o = 0; o < 4; ++o) {
    for (std::int64_t oh = 0; oh < 7; ++oh) {
      for (std::int64_t ow = 0; ow < 9; ++ow) {
        double sum = 0;
        for (std::int64_t c = 0; c < 3; ++c) {
          for (std::int64_t i = 0; i < 3; ++i) {
            for (std::int64_t j = 0; j < 2; ++j) {
              std::int64_t ih = oh * 2 - 1 + i;
              std::int64_t iw = ow + j * 2;
              if (ih < 0 || ih >= 13 || iw >= 11) continue;
              std::int64_t ic = (o / 2) * 3 + c;
              sum += xp[(ic * 13 + ih) * 11 + iw] * wp[((o * 3 + c) * 3 + i) * 2 + j];
            }
          }
        }
        EXPECT_NEAR(out.data<float>()[(o * 7 + oh) * 9 + ow], sum, 1e-4);
      }
    }
  }
}

TEST(NnOps, DropoutInEvalModeReturnsItsInput) {
  Tensor x = iota({2, 3});
  Tensor out = run_op("aten::dropout", {x, 0.5, false}).to_tensor();
  EXPECT_EQ(out.raw_data(), x.raw_data());
  Tensor out2 = run_op("aten::dropout_", {x, 0.5, false}).to_tensor();
  EXPECT_EQ(out2.raw_data(), x.raw_data());
}

TEST(NnOps, TrainingModeIsUnsupported) {
  Tensor x = iota({2, 3});
  expect_unsupported("aten::dropout", {x, 0.5, true}, "training mode");
  expect_unsupported("aten::dropout_", {x, 0.5, true}, "training mode");
  Tensor ones = Tensor::empty({3}, DType::kFloat32);
  expect_unsupported("aten::batch_norm", {x, IValue(), IValue(), ones, ones, true, 0.1, 1e-5, true},
                     "training mode");
  // Without running statistics, training mode is a pure function: the batch's own statistics
  // (nn_extra_cases.json: batch_norm_batch_stats*). instance_norm with running statistics
  // and use_input_stats would update them.
  Tensor x3 = iota({2, 3, 4});
  expect_unsupported("aten::instance_norm",
                     {x3, IValue(), IValue(), ones, ones, true, 0.1, 1e-5, true}, "training mode");
}

// float32 and float64 run; float16 is refused with symbolite's own error, as are integer
// averages and integer transposed convolutions (which PyTorch computes).
TEST(NnOps, OtherDtypesAreUnsupported) {
  Tensor x = Tensor::empty({1, 2, 4, 4}, DType::kFloat16);
  Tensor w = Tensor::empty({2, 2, 3, 3}, DType::kFloat16);
  expect_unsupported("aten::conv2d", {x, w}, "float32 and float64 only, got Half");
  expect_unsupported("aten::max_pool2d", {x, ints({2, 2})}, "float32 and float64 only, got Half");
  Tensor ones = Tensor::empty({2}, DType::kFloat16);
  expect_unsupported("aten::batch_norm",
                     {x, IValue(), IValue(), ones, ones, false, 0.1, 1e-5, true},
                     "float32 and float64 only, got Half");
  Tensor longs = Tensor::empty({1, 2, 4, 4}, DType::kInt64);
  expect_unsupported("aten::avg_pool2d", {longs, ints({2, 2})},
                     "float32 and float64 only, got Long");
  expect_unsupported("aten::adaptive_avg_pool2d", {longs, ints({1, 1})},
                     "float32 and float64 only, got Long");
  Tensor tw = Tensor::empty({2, 2, 3, 3}, DType::kInt64);
  expect_unsupported("aten::_convolution",
                     {longs, tw, IValue(), ints({1, 1}), ints({0, 0}), ints({1, 1}), true,
                      ints({0, 0}), 1, false, false, true, true},
                     "float32 and float64 only, got Long");
}

}  // namespace
}  // namespace symbolite::ops
