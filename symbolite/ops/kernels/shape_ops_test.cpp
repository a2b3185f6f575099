// Shape kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json).
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

TEST(ShapeOps, TracedModelOperatorsMatchPyTorch) { testing::run_op_cases("traced", 0, 0); }

TEST(ShapeOps, MatchPyTorch) { testing::run_op_cases("shape", 1e-5, 1e-6); }

// linspace and logspace: PyTorch's values bit for bit (float32, float64 and integers).
TEST(ShapeOps, RangesMatchPyTorchExactly) { testing::run_op_cases("range", 0, 0); }

TEST(ShapeOps, ViewsShareStorageAndCopiesDoNot) {
  Tensor x = run_op("aten::zeros", {IValue::list({3, 4})}).to_tensor();
  for (const char* op : {"aten::t", "aten::contiguous"}) {
    EXPECT_EQ(run_op(op, {x}).to_tensor().storage().data(), x.storage().data()) << op;
  }
  EXPECT_EQ(run_op("aten::view", {x, IValue::list({12})}).to_tensor().storage().data(),
            x.storage().data());
  EXPECT_EQ(run_op("aten::select.int", {x, 1, 2}).to_tensor().storage_offset(), 2);
  Tensor xt = run_op("aten::t", {x}).to_tensor();
  // reshape copies when no view exists; contiguous copies a transposed tensor
  EXPECT_NE(run_op("aten::reshape", {xt, IValue::list({12})}).to_tensor().storage().data(),
            x.storage().data());
  EXPECT_NE(run_op("aten::contiguous", {xt}).to_tensor().storage().data(), x.storage().data());
  auto chunks = run_op("aten::chunk", {x, 2, 1}).to_list();
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1].to_tensor().storage_offset(), 2);
  auto parts = run_op("aten::split.sizes", {x, IValue::list({1, 3}), 1}).to_list();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].to_tensor().storage().data(), x.storage().data());
  EXPECT_EQ(parts[1].to_tensor().storage_offset(), 1);
  Tensor row = run_op("aten::select.int", {x, 0, 1}).to_tensor();
  Tensor expanded = run_op("aten::expand", {row, IValue::list({2, 4})}).to_tensor();
  EXPECT_EQ(expanded.storage().data(), x.storage().data());
  EXPECT_EQ(expanded.storage_offset(), 4);
  EXPECT_EQ(expanded.strides(), (std::vector<std::int64_t>{0, 1}));
}

// PyTorch's in-place shape changes restride the tensor object: every value holding it sees
// the new shape, a view taken before keeps its own, and the data is shared.
TEST(ShapeOps, InPlaceShapeChangesReachEveryHolder) {
  IValue x(run_op("aten::zeros", {IValue::list({2, 3})}).to_tensor());
  IValue alias = x;  // NOLINT(performance-unnecessary-copy-initialization): `y = x` in a model
  IValue before = run_op("aten::view", {x, IValue::list({6})});
  Stack s{x, IValue(0)};
  default_registry().find("aten::unsqueeze_")->kernel(s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(&s[0].to_tensor(), &x.to_tensor());
  EXPECT_EQ(alias.to_tensor().sizes(), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(before.to_tensor().sizes(), (std::vector<std::int64_t>{6}));
  EXPECT_EQ(alias.to_tensor().storage().data(), before.to_tensor().storage().data());
  run_op("aten::squeeze_.dim", {x, 0});
  EXPECT_EQ(alias.to_tensor().sizes(), (std::vector<std::int64_t>{2, 3}));
  run_op("aten::unsqueeze_", {x, -1});
  run_op("aten::squeeze_", {alias});
  EXPECT_EQ(x.to_tensor().sizes(), (std::vector<std::int64_t>{2, 3}));
}

constexpr double kTwoTo63 = 9223372036854775808.0;
const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::string message_of(const char* op, std::vector<IValue> args) {
  const Error e = testing::error_from([&] { run_op(op, std::move(args)); });
  EXPECT_EQ(e.kind(), ErrorKind::kModel) << op;
  return e.message();
}

// int(tensor) of a float: Tensor.item<int64_t>(), c10's checked conversion in PyTorch, which
// refuses NaN, the infinities and floats outside int64 (2^63 too, which c10's own bound lets
// through to an undefined cast).
TEST(ShapeOps, IntOfAFloatTensorOutsideInt64Fails) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64}) {
    for (double v : {kNan, kInf, -kInf, 3e38, kTwoTo63}) {
      Tensor t = Tensor::empty({}, dtype);
      if (dtype == DType::kFloat32) {
        *t.mutable_data<float>() = static_cast<float>(v);
      } else {
        *t.mutable_data<double>() = v;
      }
      EXPECT_EQ(message_of("aten::Int.Tensor", {t}),
                "value cannot be converted to type int64_t without overflow")
          << v;
    }
  }
  Tensor t = Tensor::empty({}, DType::kFloat64);
  *t.mutable_data<double>() = -2.9;
  EXPECT_EQ(run_op("aten::Int.Tensor", {t}).to_int(), -2);
  *t.mutable_data<double>() = -kTwoTo63;
  EXPECT_EQ(run_op("aten::Int.Tensor", {t}).to_int(), std::numeric_limits<std::int64_t>::min());
}

// arange to an integer dtype converts start, end and step to int64 with c10's check, as
// PyTorch's Scalar::to does: NaN, 1e300 and 2^63 fail. A size of 2^63 and an int range wider
// than int64 fail too, where PyTorch's checks let them through to an undefined cast and to
// wrapping arithmetic.
TEST(ShapeOps, ArangeRefusesWhatHasNoInt64Size) {
  const IValue int64 = dtype_value(DType::kInt64);
  const std::string overflow = "value cannot be converted to type int64_t without overflow";
  for (auto [start, end, step] : std::vector<std::array<double, 3>>{{kNan, 5, 1},
                                                                    {0, kNan, 1},
                                                                    {0, 5, kNan},
                                                                    {0, 1e300, 1},
                                                                    {0, 5, 1e300},
                                                                    {0, kTwoTo63, 1}}) {
    EXPECT_EQ(message_of("aten::arange.start_step", {start, end, step, int64}), overflow)
        << start << " " << end << " " << step;
  }
  const std::string no_size = "invalid size, possible overflow?";
  EXPECT_EQ(message_of("aten::arange.start_step", {0.0, kTwoTo63, 1.0}), no_size);
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  const std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(message_of("aten::arange.start_step", {lowest, highest, std::int64_t{1}}), no_size);
  EXPECT_EQ(message_of("aten::arange.start_step", {highest, lowest, std::int64_t{-1}}), no_size);
  EXPECT_EQ(message_of("aten::arange.start_step",
                       {lowest, highest, std::int64_t{1}, dtype_value(DType::kInt32)}),
            no_size);
}

// The size of an integer arange: from the int64 ends for int64, from the float ends for the
// narrower integers, as PyTorch 1.13 takes them (0.5 to 3.7 is three int64s, four int32s).
TEST(ShapeOps, ArangeSizesNarrowIntegersFromTheFloatEnds) {
  auto values = [](DType dtype) {
    const Tensor t =
        to_dtype(run_op("aten::arange.start_step", {0.5, 3.7, 1.0, dtype_value(dtype)}).to_tensor(),
                 DType::kInt64);
    const std::int64_t* p = t.data<std::int64_t>();
    return std::vector<std::int64_t>(p, p + t.numel());
  };
  EXPECT_EQ(values(DType::kInt64), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(values(DType::kInt32), (std::vector<std::int64_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace symbolite::ops
