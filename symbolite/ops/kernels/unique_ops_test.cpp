// torch.unique (sorted, with inverse and counts; along a dim; consecutive runs), bincount and
// histc: against PyTorch 1.13 (tests/fixtures/ops/op_cases.json, family "unique"), values and
// PyTorch's error texts.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

TEST(UniqueOps, MatchPyTorch) { testing::run_op_cases("unique", 0, 0); }

using tensor::DType;
using tensor::Tensor;

Tensor tensor_of(const std::vector<double>& v, DType dtype) {
  Tensor t = Tensor::empty({static_cast<std::int64_t>(v.size())}, DType::kFloat64);
  std::copy(v.begin(), v.end(), t.mutable_data<double>());
  return to_dtype(t, dtype);
}

std::string histc_error(const Tensor& x, std::int64_t bins, double lo, double hi) {
  const Error e = testing::error_from([&] { run_op("aten::histc", {x, bins, lo, hi}); });
  EXPECT_EQ(e.kind(), ErrorKind::kModel);
  return e.message();
}

// histc's range must be finite, PyTorch 1.13's checks and texts in its order: a NaN or infinite
// min or max, or data range (min equal to max) holding NaN or an infinity; then min below max,
// then the dtype. Unchecked, an infinite range made inf / inf positions, converted undefined.
TEST(UniqueOps, HistcRangeMustBeFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = tensor_of({0, 1, 2}, DType::kFloat32);
  EXPECT_EQ(histc_error(x, 4, nan, 1), "torch.histc: range of [nan, 1] is not finite");
  EXPECT_EQ(histc_error(x, 4, -inf, inf), "torch.histc: range of [-inf, inf] is not finite");
  EXPECT_EQ(histc_error(x, 4, inf, 0), "torch.histc: range of [inf, 0] is not finite");
  EXPECT_EQ(histc_error(tensor_of({nan, 1, 2}, DType::kFloat32), 4, 0, 0),
            "torch.histc: range of [-nan, -nan] is not finite");
  EXPECT_EQ(histc_error(tensor_of({-inf, 1, 2}, DType::kFloat64), 4, 0, 0),
            "torch.histc: range of [-inf, 2] is not finite");
  EXPECT_EQ(histc_error(tensor_of({0, 1}, DType::kInt64), 4, nan, 1),
            "torch.histc: range of [nan, 1] is not finite");
  EXPECT_EQ(histc_error(x, 4, 2, 1), "torch.histc: max must be larger than min");
  EXPECT_EQ(histc_error(x, 0, 0, 1),
            "torch.histogram(): bins must be > 0, but got 0 for dimension 0");
}

// A finite range wider than the largest double: positions measured in halves, never inf / inf
// (which PyTorch converts to a bin undefined).
TEST(UniqueOps, HistcOfARangeWiderThanTheLargestDouble) {
  auto counts = [](const std::vector<double>& data, std::int64_t bins, double lo, double hi) {
    const Tensor h =
        run_op("aten::histc", {tensor_of(data, DType::kFloat64), bins, lo, hi}).to_tensor();
    return std::vector<double>(h.data<double>(), h.data<double>() + h.numel());
  };
  EXPECT_EQ(counts({-1e308, 0, 1e308}, 4, -1e308, 1e308), (std::vector<double>{1, 0, 1, 1}));
  const std::vector<double> wide = counts({0, 5e307, 1e308}, 1000, 0, 1e308);
  EXPECT_EQ(wide[0], 1);
  EXPECT_EQ(wide[500], 1);
  EXPECT_EQ(wide[999], 1);
}

// A minlength no memory holds fails before the bins are made, naming the counts it would
// have made: int64 counts, or weights summed in double.
TEST(UniqueOps, BincountBeyondMemoryNamesItsCounts) {
  const std::int64_t huge = std::int64_t{1} << 40;
  const Tensor x = tensor_of({0, 2}, DType::kInt64);
  const Error counts = testing::error_from([&] { run_op("aten::bincount", {x, IValue(), huge}); });
  EXPECT_EQ(counts.kind(), ErrorKind::kLimit);
  EXPECT_NE(counts.message().find("bytes for a Long tensor of sizes [1099511627776]"),
            std::string::npos)
      << counts.message();
  const Error sums = testing::error_from([&] {
    run_op("aten::bincount", {x, tensor_of({0.5, 1}, DType::kFloat32), huge});
  });
  EXPECT_NE(sums.message().find("bytes for a Double tensor"), std::string::npos) << sums.message();
}

}  // namespace
}  // namespace symbolite::ops
