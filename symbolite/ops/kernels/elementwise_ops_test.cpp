// Elementwise kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json), plus the
// in-place semantics the reference cases cannot show: writes through views, and
// copy-on-write for read-only (mapped) storages.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

using testing::arange;

TEST(ElementwiseOps, MatchPyTorch) { testing::run_op_cases("elementwise", 1e-5, 1e-6); }

// GELU on a dense grid of [-10, 10], both forms, contiguous and strided: within one ulp of
// PyTorch (2^-23 and 2^-52 relative), where a libm erf instead of PyTorch's float32 erf
// polynomial is off by thousands of ulps for negative x.
TEST(ElementwiseOps, GeluWithinAnUlpOfPyTorch) {
  testing::run_op_cases("gelu_f32", 0x1p-23, 0);
  testing::run_op_cases("gelu_f64", 0x1p-52, 0);
}

// The float32 kernels that compute as PyTorch's vectorized ones do (the same SLEEF functions
// in the same formulas, exact roundings, selections): PyTorch's bits on a dense grid with
// infinities and a NaN (make_op_refs.py, vector_kernel_bits).
TEST(ElementwiseOps, VectorKernelsGivePyTorchsBits) { testing::run_op_cases("vector_bits", 0, 0); }

TEST(ElementwiseOps, InPlaceWritesIntoSelfAndItsBase) {
  Tensor base = run_op("aten::view", {arange(6), IValue::list({2, 3})}).to_tensor();
  IValue row = run_op("aten::select.int", {base, 0, 1});
  IValue out = run_op("aten::add_.Scalar", {row, 10});
  EXPECT_EQ(out.to_tensor().storage().data(), base.storage().data());
  const float* p = base.data<float>();
  EXPECT_EQ(p[0], 0.0f);
  EXPECT_EQ(p[3], 13.0f);
  EXPECT_EQ(p[5], 15.0f);
}

// add_, sub_, mul_, div_ on a writable contiguous self compute into it in one pass
// (binary_kernel's `in_place`); every other case computes a result and copies it in. Both
// give PyTorch's values and errors.
TEST(ElementwiseOps, InPlaceArithmeticComputesIntoSelf) {
  IValue x(arange(4));  // 0 1 2 3
  const void* storage = x.to_tensor().storage().data();
  Tensor out = run_op("aten::add_.Tensor", {x, arange(4), 2}).to_tensor();  // x += 2 * x
  EXPECT_EQ(out.storage().data(), storage);
  EXPECT_EQ(x.to_tensor().data<float>()[3], 9.0f);
  run_op("aten::mul_.Tensor", {x, x});  // x *= x: self as the other operand
  EXPECT_EQ(x.to_tensor().data<float>()[3], 81.0f);
  run_op("aten::sub_.Scalar", {x, 1, 1});
  run_op("aten::div_.Tensor", {x, run_op("aten::view", {arange(1), IValue::list({1})})});
  EXPECT_EQ(x.to_tensor().data<float>()[1], 8.0f / 0.0f);  // 9 - 1 over the element 0
  EXPECT_EQ(x.to_tensor().storage().data(), storage);

  // One element with more dimensions than self broadcasts beyond it: PyTorch's error.
  Tensor one = run_op("aten::view", {arange(1), IValue::list({1, 1})}).to_tensor();
  try {
    run_op("aten::add_.Tensor", {IValue(arange(3)), one, 1});
    FAIL() << "no error";
  } catch (const OpError& e) {
    EXPECT_STREQ(e.what(), "output with shape [3] doesn't match the broadcast shape [1, 3]");
  }
  // Another view of self's memory, shifted: PyTorch's partial-overlap error, nothing written.
  IValue base(arange(4));
  IValue tail = run_op("aten::slice.Tensor", {base, 0, 1, 4, 1});
  IValue head = run_op("aten::slice.Tensor", {base, 0, 0, 3, 1});
  try {
    run_op("aten::add_.Tensor", {tail, head, 1});
    FAIL() << "no error";
  } catch (const OpError& e) {
    EXPECT_STREQ(e.what(),
                 "unsupported operation: some elements of the input tensor and the written-to "
                 "tensor refer to a single memory location. Please clone() the tensor before "
                 "performing the operation.");
  }
  EXPECT_EQ(base.to_tensor().data<float>()[3], 3.0f);
  // Disjoint views of one storage are fine.
  IValue first = run_op("aten::slice.Tensor", {base, 0, 0, 2, 1});
  IValue last = run_op("aten::slice.Tensor", {base, 0, 2, 4, 1});
  run_op("aten::mul_.Tensor", {last, first});
  EXPECT_EQ(base.to_tensor().data<float>()[3], 3.0f);
  EXPECT_EQ(base.to_tensor().data<float>()[2], 0.0f);
}

// An operand read across its contiguous dimension (a channels-last view times a per-channel
// scale, as ConvNeXt's layer scale): binary_kernel reorders its loops for it; every element
// is still x[n, c, h, w] * g[c].
TEST(ElementwiseOps, BroadcastOverAPermutedOperand) {
  Tensor base = run_op("aten::view", {arange(2 * 4 * 3 * 5), IValue::list({2, 4, 3, 5})})
                    .to_tensor();                                          // N H W C
  IValue x = run_op("aten::permute", {base, IValue::list({0, 3, 1, 2})});  // N C H W
  Tensor g = run_op("aten::view", {arange(5), IValue::list({5, 1, 1})}).to_tensor();
  for (const bool scale_first : {true, false}) {
    const Tensor r =
        (scale_first ? run_op("aten::mul.Tensor", {g, x}) : run_op("aten::sub.Tensor", {x, g, 1}))
            .to_tensor();
    ASSERT_EQ(r.sizes(), (std::vector<std::int64_t>{2, 5, 4, 3}));
    const Tensor flat = r.contiguous();
    for (std::int64_t n = 0; n < 2; ++n) {
      for (std::int64_t c = 0; c < 5; ++c) {
        for (std::int64_t h = 0; h < 4; ++h) {
          for (std::int64_t w = 0; w < 3; ++w) {
            const float v = static_cast<float>(((n * 4 + h) * 3 + w) * 5 + c);
            const float want = scale_first ? v * static_cast<float>(c) : v - static_cast<float>(c);
            ASSERT_EQ(flat.data<float>()[((n * 5 + c) * 4 + h) * 3 + w], want)
                << n << " " << c << " " << h << " " << w;
          }
        }
      }
    }
  }
}

// x * s with s one value per run of x (an SE block's x * scale[N, C, 1, 1]; a vector loop a
// run): every element is its own float product, for runs of every length around the vector
// widths, s on either side, through NaN, infinities, -0.0 and subnormals; s of more than one
// run per leading index (x [2, 3, 5] * s [2, 3, 1]) and the leading dimension alone too.
TEST(ElementwiseOps, MulByOneValueARunGivesEachElementsProduct) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(), -0.0f, 1e-40f, -3.5f};
  const auto filled = [&](const std::vector<std::int64_t>& shape, int salt) {
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    Tensor t = Tensor::empty(shape, DType::kFloat32);
    float* p = t.mutable_data<float>();
    for (std::int64_t i = 0; i < n; ++i) {
      p[i] = (i + salt) % 11 == 0 ? specials[(i + salt) / 11 % 5]
                                  : static_cast<float>((i * 7 + salt) % 23 - 11) * 0.37f;
    }
    return t;
  };
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> shapes = {
      {{2, 3, 5}, {2, 3, 1}},
      {{4, 6}, {4, 1}},
      {{1, 576, 7, 7}, {1, 576, 1, 1}},
      {{2, 3, 4, 5}, {2, 1, 1, 1}}};
  std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> all = shapes;
  for (std::int64_t cols : {1, 2, 15, 16, 17, 31, 32, 33, 48, 49, 64, 196}) {
    all.push_back({{3, 5, cols}, {3, 5, 1}});
  }
  for (const auto& [xs, ss] : all) {
    const Tensor x = filled(xs, 3);
    const Tensor s = filled(ss, 5);
    const std::int64_t runs = s.numel();
    const std::int64_t run = x.numel() / runs;
    for (const bool scale_first : {true, false}) {
      const Tensor r =
          (scale_first ? run_op("aten::mul.Tensor", {s, x}) : run_op("aten::mul.Tensor", {x, s}))
              .to_tensor();
      ASSERT_EQ(r.sizes(), xs);
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        const float want = x.data<float>()[i] * s.data<float>()[i / run];
        const float got = r.data<float>()[i];
        ASSERT_TRUE(std::memcmp(&got, &want, sizeof got) == 0 ||
                    (std::isnan(got) && std::isnan(want)))
            << "x" << ::testing::PrintToString(xs) << " element " << i << ": " << got
            << " != " << want;
      }
    }
  }
}

// An out-of-place arithmetic op writes its result over an operand nothing else refers to (as
// the interpreter hands over a value at its last use) when that operand has the result's shape
// and dtype; an operand still referred to elsewhere keeps its values.
TEST(ElementwiseOps, OutOfPlaceArithmeticWritesOverASpareOperand) {
  const Tensor scale = run_op("aten::view", {arange(2), IValue::list({2, 1})}).to_tensor();
  const auto run_moved = [](const char* op, std::vector<IValue> args) {
    Stack s;
    for (IValue& v : args) s.push_back(std::move(v));  // the stack's the only reference
    default_registry().find(op)->kernel(s);
    return s.back().to_tensor();
  };
  const auto grid = [] {  // [2, 3]: 0 1 2 / 3 4 5
    return run_op("aten::view", {arange(6), IValue::list({2, 3})}).to_tensor().copy();
  };
  // scale * x, x spare: over x. Each element is its own product.
  Tensor x = grid();
  const void* x_bytes = x.storage().data();
  std::vector<IValue> args{IValue(scale), IValue(std::move(x))};
  Tensor out = run_moved("aten::mul.Tensor", std::move(args));
  EXPECT_EQ(out.storage().data(), x_bytes);
  EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(out.data<float>()[1], 0.0f);
  EXPECT_EQ(out.data<float>()[5], 5.0f);
  // x - 1.5 (a Scalar), x spare: over x.
  Tensor y = grid();
  const void* y_bytes = y.storage().data();
  out = run_moved("aten::sub.Scalar", [&] {
    std::vector<IValue> v;
    v.emplace_back(std::move(y));
    v.emplace_back(1.5);
    v.emplace_back(1);
    return v;
  }());
  EXPECT_EQ(out.storage().data(), y_bytes);
  EXPECT_EQ(out.data<float>()[4], 2.5f);
  // A spare operand smaller than the result (broadcast) or of another dtype is not written.
  Tensor small = scale.copy();
  const void* small_bytes = small.storage().data();
  out = run_moved("aten::add.Tensor", [&] {
    std::vector<IValue> v;
    v.emplace_back(std::move(small));
    v.emplace_back(grid());
    v.emplace_back(1);
    return v;
  }());
  EXPECT_NE(out.storage().data(), small_bytes);
  EXPECT_EQ(out.data<float>()[5], 6.0f);  // 1 + 5
  // An out-of-place activation on a spare float32 input computes over it, as its in-place
  // form does, with the same values.
  for (const char* op : {"aten::relu", "aten::sigmoid", "aten::hardswish", "aten::gelu"}) {
    Tensor z = grid();
    const void* z_bytes = z.storage().data();
    const Tensor want =  // z held by the caller: a new result
        std::string_view(op) == "aten::gelu" ? run_op(op, {z, IValue::string("tanh")}).to_tensor()
                                             : run_op(op, {z}).to_tensor();
    ASSERT_NE(want.storage().data(), z_bytes) << op;
    std::vector<IValue> args;
    args.emplace_back(std::move(z));
    if (std::string_view(op) == "aten::gelu") args.push_back(IValue::string("tanh"));
    out = run_moved(op, std::move(args));
    EXPECT_EQ(out.storage().data(), z_bytes) << op;
    for (int i = 0; i < 6; ++i) EXPECT_EQ(out.data<float>()[i], want.data<float>()[i]) << op;
  }
  // Held by the caller too: a new result, the operand unchanged.
  const Tensor held = grid();
  out = run_op("aten::div.Tensor", {held, scale}).to_tensor();
  EXPECT_NE(out.storage().data(), held.storage().data());
  EXPECT_EQ(held.data<float>()[4], 4.0f);
  EXPECT_EQ(out.data<float>()[4], 4.0f);  // 4 / 1
}

TEST(ElementwiseOps, InPlaceReturnsTheSameValue) {
  IValue self(arange(3));
  Stack s{self};
  default_registry().find("aten::relu_")->kernel(s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(&s[0].to_tensor(), &self.to_tensor());
}

TEST(ElementwiseOps, InPlaceOnReadOnlyStorageCopies) {
  std::vector<std::uint8_t> bytes(3 * sizeof(float));
  float init[3] = {-1.0f, 2.0f, -3.0f};
  std::memcpy(bytes.data(), init, sizeof init);
  auto owner = std::make_shared<std::vector<std::uint8_t>>(bytes);
  Bytes view(owner, owner->data(), owner->size());
  Tensor param = Tensor::from_storage(tensor::Storage::view(view), DType::kFloat32, {3}, {1}, 0);
  Tensor out = run_op("aten::relu_", {param}).to_tensor();
  EXPECT_NE(out.storage().data(), param.storage().data());
  EXPECT_EQ(out.data<float>()[0], 0.0f);
  EXPECT_EQ(out.data<float>()[1], 2.0f);
  EXPECT_EQ(param.data<float>()[0], -1.0f);  // the mapped bytes are untouched
}

TEST(ElementwiseOps, DefaultsApply) {
  Tensor out = run_op("aten::hardtanh", {arange(4)}).to_tensor();
  EXPECT_EQ(out.data<float>()[3], 1.0f);
  out = run_op("aten::add.Tensor", {arange(2), arange(2)}).to_tensor();
  EXPECT_EQ(out.data<float>()[1], 2.0f);
}

}  // namespace
}  // namespace symbolite::ops
