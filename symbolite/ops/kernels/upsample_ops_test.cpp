// Output sizes from scale factors (upsample_ops.cpp): a model file's scale_factor can be NaN,
// infinite or huge, and PyTorch 1.13 casts input size times scale to int64 unchecked.
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/error_from.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// Each mode's operator with scale factors [scale, 1, ...] on an input of 4s.
std::vector<IValue> args_for(const std::string& op, double scale) {
  const int spatial = op.find("1d") != std::string::npos   ? 1
                      : op.find("3d") != std::string::npos ? 3
                                                           : 2;
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(spatial) + 2, 4);
  sizes[0] = sizes[1] = 1;
  IValueList scales(static_cast<std::size_t>(spatial), IValue(1.0));
  scales[0] = IValue(scale);
  std::vector<IValue> args{Tensor::empty(sizes, DType::kFloat32), IValue()};
  const bool nearest = op.find("nearest") != std::string::npos;
  if (!nearest) args.emplace_back(false);  // align_corners
  args.push_back(IValue::list(std::move(scales)));
  return args;
}

const std::vector<std::string> kOps = {
    "aten::upsample_nearest1d.vec",      "aten::upsample_nearest2d.vec",
    "aten::upsample_nearest3d.vec",      "aten::_upsample_nearest_exact2d.vec",
    "aten::upsample_linear1d.vec",       "aten::upsample_bilinear2d.vec",
    "aten::upsample_trilinear3d.vec",    "aten::upsample_bicubic2d.vec",
    "aten::_upsample_bilinear2d_aa.vec", "aten::_upsample_bicubic2d_aa.vec"};

// No int64 output size: an error naming the operator and the scale, where PyTorch's cast is
// undefined (x86 gives INT64_MIN, then "cannot be represented as a SymInt").
TEST(UpsampleOps, ScaleWithoutAnInt64OutputSizeFails) {
  const double inf = std::numeric_limits<double>::infinity();
  for (const std::string& op : kOps) {
    for (double scale :
         {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 1e300, -1e300, 3e18}) {
      SCOPED_TRACE(op + " scale " + std::to_string(scale));
      const Error e = testing::error_from([&] { run_op(op, args_for(op, scale)); });
      EXPECT_EQ(e.kind(), ErrorKind::kModel);
      EXPECT_EQ(e.message().rfind(op + ": input size 4 times scale factor ", 0), 0u) << e.message();
      EXPECT_NE(e.message().find(", not an output size"), std::string::npos) << e.message();
    }
  }
  EXPECT_EQ(
      testing::error_from([&] {
        run_op("aten::upsample_nearest2d.vec",
               args_for("aten::upsample_nearest2d.vec", std::numeric_limits<double>::quiet_NaN()));
      }).message(),
      "aten::upsample_nearest2d.vec: input size 4 times scale factor nan is nan, not an "
      "output size");
}

// Sizes int64 holds go on to PyTorch's own checks and results.
TEST(UpsampleOps, ScaleWithAnInt64OutputSizeResamples) {
  for (const std::string& op : kOps) {
    SCOPED_TRACE(op);
    EXPECT_EQ(run_op(op, args_for(op, 2.0)).to_tensor().sizes()[2], 8);
    const Error e = testing::error_from([&] { run_op(op, args_for(op, -1.0)); });
    EXPECT_EQ(e.message().rfind("Input and output sizes should be greater than 0", 0), 0u)
        << e.message();
  }
}

// No element (a batch or channel count of 0): the empty output at once, without the taps of a
// spatial size near 2^63 (which a tensor with no elements may have).
TEST(UpsampleOps, NoElementsGiveTheEmptyOutput) {
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max() - 1;
  const Tensor input = Tensor::empty({1, 0, huge, 1}, DType::kFloat32);
  const IValue scales = IValue::list({IValue(1.0 / 1024), IValue(1.0)});
  const Tensor out = run_op("aten::upsample_nearest2d.vec", {input, IValue(), scales}).to_tensor();
  EXPECT_EQ(out.sizes(),
            (std::vector<std::int64_t>{1, 0, std::int64_t{1} << 53, 1}));  // 2^63 / 2^10
}

// An output larger than the machine's memory is refused before the taps (which grow with it)
// are built: PyTorch's "can't allocate memory", with the sizes, not a process the allocator
// kills or aborts (mimalloc reserves huge blocks without committing them).
TEST(UpsampleOps, OutputsBeyondTheMachinesMemoryFailBeforeTheTaps) {
  for (const std::string& op : kOps) {
    SCOPED_TRACE(op);
    std::vector<IValue> args = args_for(op, 1.0);
    const std::size_t spatial = args[0].to_tensor().sizes().size() - 2;
    // 2^40 to 2^42 elements: terabytes, and every dimension of int64-sized taps alone larger
    // than any memory.
    const std::int64_t side = std::int64_t{1} << (spatial == 1 ? 40 : spatial == 2 ? 20 : 14);
    args[1] = int_list_value(std::vector<std::int64_t>(spatial, side));
    args.back() = IValue();  // no scale factors
    const Error e = testing::error_from([&] { run_op(op, args); });
    EXPECT_EQ(e.kind(), ErrorKind::kLimit);
    EXPECT_EQ(e.message().rfind("can't allocate memory: you tried to allocate ", 0), 0u)
        << e.message();
    EXPECT_NE(e.message().find("more than this machine's memory and swap"), std::string::npos);
  }
}

}  // namespace
}  // namespace symbolite::ops
