// Kernels that split their work across threads (support/parallel_for.h) give the same bits
// at every thread count: each output element is computed by one thread, in the same order,
// whatever the split. Shapes are large enough for every split path to be taken: GEMM by rows
// and by columns, im2col (by image and by blocks of rows), depthwise planes, pooling planes, batch-norm planes, elementwise
// ranges and broadcast rows, the vector-math functions.
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

Tensor wave(std::vector<std::int64_t> sizes, float phase) {
  Tensor t = Tensor::empty(std::move(sizes), DType::kFloat32);
  float* p = t.mutable_data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i)
    p[i] = std::sin(static_cast<float>(i) * 0.37f + phase);
  return t;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = a.contiguous();
  Tensor y = b.contiguous();
  return x.sizes() == y.sizes() && x.dtype() == y.dtype() &&
         std::memcmp(x.data<float>(), y.data<float>(),
                     static_cast<std::size_t>(x.numel()) * sizeof(float)) == 0;
}

struct Case {
  std::string name;
  std::function<Tensor()> run;
};

std::vector<Case> cases() {
  const Tensor x = wave({2, 32, 40, 40}, 0.1f);
  auto conv = [](Tensor in, Tensor w, IValue b, std::int64_t stride, std::int64_t pad,
                 std::int64_t groups) {
    return run_op("aten::conv2d", {in, w, std::move(b), IValue::list({stride, stride}),
                                   IValue::list({pad, pad}), IValue::list({1, 1}), groups})
        .to_tensor();
  };
  return {
      {"conv3x3",
       [=] {
         return conv(x, wave({48, 32, 3, 3}, 0.2f), wave({48}, 0.3f), 1, 1, 1);
       }},
      {"conv3x3_stride2",
       [=] {
         return conv(x, wave({16, 32, 3, 3}, 0.4f), IValue(), 2, 1, 1);
       }},
      {"conv1x1",
       [=] {
         return conv(x, wave({64, 32, 1, 1}, 0.5f), wave({64}, 0.6f), 1, 0, 1);
       }},
      {"depthwise",
       [=] {
         return conv(x, wave({32, 1, 3, 3}, 0.7f), wave({32}, 0.8f), 1, 1, 32);
       }},
      {"linear_rows",
       [] {
         return run_op("aten::linear", {wave({300, 256}, 0.9f), wave({40, 256}, 1.0f), IValue()})
             .to_tensor();
       }},
      {"linear_columns",
       [] {
         return run_op("aten::linear", {wave({8, 512}, 1.1f), wave({700, 512}, 1.2f), IValue()})
             .to_tensor();
       }},
      {"max_pool2d",
       [=] {
         return run_op("aten::max_pool2d", {x, IValue::list({3, 3}), IValue::list({2, 2}),
                                            IValue::list({1, 1}), IValue::list({1, 1}), false})
             .to_tensor();
       }},
      {"avg_pool2d",
       [=] {
         return run_op("aten::avg_pool2d", {x, IValue::list({2, 2}), IValue::list({2, 2}),
                                            IValue::list({0, 0}), false, true, IValue()})
             .to_tensor();
       }},
      {"adaptive_avg_pool2d",
       [=] {
         return run_op("aten::adaptive_avg_pool2d", {x, IValue::list({3, 3})}).to_tensor();
       }},
      // Few inputs per output (a stem): blocks of output rows on the threads whole.
      {"conv_stem",
       [=] {
         return conv(wave({1, 3, 224, 224}, 2.4f), wave({16, 3, 3, 3}, 2.5f), wave({16}, 2.6f), 2,
                     1, 1);
       }},
      // Depthwise over fewer 16-channel blocks than threads: bands of output rows too.
      {"depthwise_few_channels_stride2",
       [=] {
         return conv(wave({1, 16, 112, 112}, 2.7f), wave({16, 1, 3, 3}, 2.8f), wave({16}, 2.9f), 2,
                     1, 16);
       }},
      {"depthwise_few_channels_5x5",
       [=] {
         return conv(wave({1, 8, 40, 40}, 3.0f), wave({8, 1, 5, 5}, 3.1f), IValue(), 1, 2, 8);
       }},
      {"batch_norm",
       [=] {
         return run_op("aten::batch_norm",
                       {x, wave({32}, 1.3f), wave({32}, 1.4f), wave({32}, 1.5f),
                        run_op("aten::abs", {wave({32}, 1.6f)}), false, 0.1, 1e-5, false})
             .to_tensor();
       }},
      {"add",
       [=] {
         return run_op("aten::add.Tensor", {x, wave({2, 32, 40, 40}, 1.7f)}).to_tensor();
       }},
      {"mul_broadcast",
       [=] {
         return run_op("aten::mul.Tensor", {x, wave({1, 32, 1, 1}, 1.8f)}).to_tensor();
       }},
      // Broadcasts split by rows of their inner dimension, a share starting mid-tensor.
      {"mul_broadcast_rows",
       [=] {
         return run_op("aten::mul.Tensor", {wave({4, 32, 40, 40}, 2.0f), wave({1, 32, 1, 1}, 2.1f)})
             .to_tensor();
       }},
      {"add_broadcast_columns",
       [=] {
         return run_op("aten::add.Tensor", {wave({4, 32, 40, 40}, 2.2f), wave({40, 1}, 2.3f)})
             .to_tensor();
       }},
      {"relu", [=] { return run_op("aten::relu", {x}).to_tensor(); }},
      {"relu_",
       [=] {
         return run_op("aten::relu_", {run_op("aten::clone", {x, IValue()})}).to_tensor();
       }},
      {"hardsigmoid_",
       [=] {
         return run_op("aten::hardsigmoid_", {run_op("aten::clone", {x, IValue()})}).to_tensor();
       }},
      {"sigmoid", [=] { return run_op("aten::sigmoid", {x}).to_tensor(); }},
      {"hardswish", [=] { return run_op("aten::hardswish", {x}).to_tensor(); }},
      {"silu", [=] { return run_op("aten::silu", {x}).to_tensor(); }},
      {"tanh", [=] { return run_op("aten::tanh", {x}).to_tensor(); }},
  };
}

TEST(ThreadCount, KernelsGiveTheSameBitsAtEveryThreadCount) {
  const int previous = intra_op_threads();
  for (const auto& c : cases()) {
    set_intra_op_threads(1);
    const Tensor one = c.run();
    for (int threads : {2, 3, 4, 7}) {
      set_intra_op_threads(threads);
      EXPECT_TRUE(same_bits(c.run(), one)) << c.name << " at " << threads << " threads";
    }
  }
  set_intra_op_threads(previous);
}

}  // namespace
}  // namespace symbolite::ops
