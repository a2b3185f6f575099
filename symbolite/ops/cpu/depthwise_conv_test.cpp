// The two depthwise kernels (channels interleaved in vector lanes, depthwise_interleaved.h;
// plane by plane, grouped_by_plane.h) on every float32 depthwise case of
// tests/fixtures/ops/nn_cases.json (make_nn_refs.py: 3x3 to 7x7, strides, dilation, channel
// multipliers, planes from 7 to 45 wide, channel counts that leave a partial block): each
// within tolerance of PyTorch 1.13's output, and both the same bits in optimized builds, since
// depthwise_conv.cpp picks between them by speed alone.
#include "symbolite/ops/cpu/depthwise_conv.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/cpu/depthwise_interleaved.h"
#include "symbolite/ops/cpu/grouped_by_plane.h"
#include "tests/test_support/nn_cases.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;

std::vector<std::int64_t> pair_arg(const nlohmann::json& args, std::size_t i, std::int64_t dflt) {
  if (args.size() <= i) return {dflt, dflt};
  auto v = args[i].get<std::vector<std::int64_t>>();
  return v.size() == 1 ? std::vector<std::int64_t>{v[0], v[0]} : v;
}

TEST(DepthwiseConv, BothKernelsGivePyTorchsResultsInTheSameBits) {
  int checked = 0;
  for (const auto& c : testing::nn_cases("nn_cases.json")) {
    const std::string name = c["name"];
    if (c["op"] != "aten::conv2d" || name.find("depthwise") == std::string::npos ||
        !c.contains("output")) {
      continue;
    }
    SCOPED_TRACE(name);
    const auto& args = c["args"];
    const Tensor x = testing::nn_case_tensor(args[0]).contiguous();
    const Tensor wt = testing::nn_case_tensor(args[1]).contiguous();
    if (x.dtype() != tensor::DType::kFloat32 || x.dim() != 4) continue;
    const bool has_bias = args.size() > 2 && !args[2].contains("none");
    const Tensor bias = has_bias ? testing::nn_case_tensor(args[2]).contiguous() : Tensor();
    const auto stride = pair_arg(args, 3, 1), pad = pair_arg(args, 4, 0),
               dilation = pair_arg(args, 5, 1);
    const std::int64_t groups = args.size() > 6 ? args[6].get<std::int64_t>() : 1;
    ASSERT_EQ(groups, x.sizes()[1]);
    ConvGeometry g{x.sizes()[0],
                   x.sizes()[1],
                   x.sizes()[2],
                   x.sizes()[3],
                   wt.sizes()[0],
                   1,
                   wt.sizes()[2],
                   wt.sizes()[3],
                   0,
                   0,
                   stride[0],
                   stride[1],
                   pad[0],
                   pad[1],
                   dilation[0],
                   dilation[1],
                   groups};
    g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
    g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
    Tensor interleaved = Tensor::empty({g.n, g.o, g.oh, g.ow}, tensor::DType::kFloat32);
    Tensor by_plane = Tensor::empty({g.n, g.o, g.oh, g.ow}, tensor::DType::kFloat32);
    const float* b = has_bias ? bias.data<float>() : nullptr;
    depthwise_conv2d_interleaved(x.data<float>(), wt.data<float>(), b,
                                 interleaved.mutable_data<float>(), g, nullptr);
    grouped_conv2d_by_plane(x.data<float>(), wt.data<float>(), b, by_plane.mutable_data<float>(), g,
                            nullptr);
    const Tensor want =
        tensor::read_npy_file(testing::fixture_path("ops/" + c["output"].get<std::string>()));
    testing::nn_expect_close(interleaved, want);
    testing::nn_expect_close(by_plane, want);
#ifdef __OPTIMIZE__
    // The interleaved kernel's `a += w * x` becomes an FMA only when GCC optimizes (it
    // contracts in an optimization pass); unoptimized (the sanitizer build), it rounds the
    // product first, and only the tolerance above holds.
    EXPECT_EQ(std::memcmp(interleaved.raw_data(), by_plane.raw_data(), by_plane.nbytes()), 0);
#endif
    ++checked;
  }
  EXPECT_GE(checked, 9);
}

}  // namespace
}  // namespace symbolite::ops::nn
