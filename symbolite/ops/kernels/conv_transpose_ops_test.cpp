// Transposed convolutions large enough that the GEMM + col2im kernel takes its columns in
// several blocks of input rows (conv_transpose_ops.cpp, kColumnBytes), against the scatter
// definition summed in double: PyTorch's goldens (nn_extra_cases.json) cover the semantics on
// shapes that fit one block.
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/registry/kernel_runner.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;

// A float32 tensor of `sizes` with values in [-1, 1) from a fixed sequence.
Tensor sequence(const std::vector<std::int64_t>& sizes, std::uint32_t seed) {
  Tensor t = Tensor::empty(sizes, DType::kFloat32);
  float* p = t.mutable_data<float>();
  std::uint32_t state = seed;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    state = state * 1664525U + 1013904223U;
    p[i] = static_cast<float>(state >> 8) / static_cast<float>(1U << 23) - 1.0f;
  }
  return t;
}

struct Shape2d {
  std::int64_t n, cin, h, w, cout_g, kh, kw, sh, sw, ph, pw, oph, opw, groups, dh, dw;
};

// out[n, oc, ih * sh - ph + kh * dh, iw * sw - pw + kw * dw] += x[n, ic, ih, iw] *
// w[ic, oc % cout_g, kh, kw] over the input channels of oc's group, plus the bias.
std::vector<double> by_definition(const Shape2d& s, const Tensor& x, const Tensor& w,
                                  const Tensor& bias, std::int64_t oh, std::int64_t ow) {
  const std::int64_t cout = s.cout_g * s.groups, cin_g = s.cin / s.groups;
  std::vector<double> out(static_cast<std::size_t>(s.n * cout * oh * ow));
  const float* xd = x.data<float>();
  const float* wd = w.data<float>();
  const float* bd = bias.data<float>();
  for (std::int64_t n = 0; n < s.n; ++n) {
    for (std::int64_t oc = 0; oc < cout; ++oc) {
      for (std::int64_t i = 0; i < oh * ow; ++i) {
        out[static_cast<std::size_t>((n * cout + oc) * oh * ow + i)] = bd[oc];
      }
    }
    for (std::int64_t ic = 0; ic < s.cin; ++ic) {
      const std::int64_t g = ic / cin_g;
      for (std::int64_t o = 0; o < s.cout_g; ++o) {
        const std::int64_t oc = g * s.cout_g + o;
        for (std::int64_t ky = 0; ky < s.kh; ++ky) {
          for (std::int64_t kx = 0; kx < s.kw; ++kx) {
            const double wv = wd[((ic * s.cout_g + o) * s.kh + ky) * s.kw + kx];
            for (std::int64_t iy = 0; iy < s.h; ++iy) {
              const std::int64_t y = iy * s.sh - s.ph + ky * s.dh;
              if (y < 0 || y >= oh) continue;
              for (std::int64_t ix = 0; ix < s.w; ++ix) {
                const std::int64_t xo = ix * s.sw - s.pw + kx * s.dw;
                if (xo < 0 || xo >= ow) continue;
                out[static_cast<std::size_t>(((n * cout + oc) * oh + y) * ow + xo)] +=
                    wv * xd[((n * s.cin + ic) * s.h + iy) * s.w + ix];
              }
            }
          }
        }
      }
    }
  }
  return out;
}

TEST(ConvTransposeOps, ColumnsInBlocksOfRowsSumAsTheDefinition) {
  const std::vector<Shape2d> shapes = {
      // 128 outputs x 7 x 7 taps: 6272 rows of columns, 588 KiB an input row, blocks of 6 rows
      {1, 2, 40, 24, 128, 7, 7, 1, 1, 0, 0, 0, 0, 1, 1, 1},
      // A decoder's 4x4 stride-2 layer, two images, output padding, uneven padding: 2 blocks
      {2, 8, 36, 20, 96, 4, 4, 2, 2, 1, 2, 1, 0, 1, 1, 1},
      // Groups, dilation, stride 3, taps clipped at both edges: 2 blocks
      {1, 6, 50, 17, 120, 3, 5, 3, 2, 2, 3, 2, 1, 3, 1, 2},
  };
  for (const Shape2d& s : shapes) {
    SCOPED_TRACE(::testing::Message() << "cin " << s.cin << " h " << s.h << " w " << s.w);
    const Tensor x = sequence({s.n, s.cin, s.h, s.w}, 1);
    const Tensor w = sequence({s.cin, s.cout_g, s.kh, s.kw}, 2);
    const Tensor bias = sequence({s.cout_g * s.groups}, 3);
    const std::int64_t oh = (s.h - 1) * s.sh - 2 * s.ph + s.dh * (s.kh - 1) + s.oph + 1;
    const std::int64_t ow = (s.w - 1) * s.sw - 2 * s.pw + s.dw * (s.kw - 1) + s.opw + 1;
    // The columns of all input rows would not fit one block.
    ASSERT_GT(s.cout_g * s.kh * s.kw * s.h * s.w * 4, std::int64_t{4} << 20);
    const Tensor out = run_op("aten::conv_transpose2d.input",
                              {x, w, bias, ints({s.sh, s.sw}), ints({s.ph, s.pw}),
                               ints({s.oph, s.opw}), IValue(s.groups), ints({s.dh, s.dw})})
                           .to_tensor();
    ASSERT_EQ(out.sizes(), (std::vector<std::int64_t>{s.n, s.cout_g * s.groups, oh, ow}));
    const std::vector<double> want = by_definition(s, x, w, bias, oh, ow);
    const float* got = out.data<float>();
    std::int64_t far = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      // float32 sums of at most 98 products of numbers below 1.
      if (std::abs(got[i] - want[i]) > 1e-5 * (1.0 + std::abs(want[i]))) ++far;
    }
    EXPECT_EQ(far, 0);
  }
}

}  // namespace
}  // namespace symbolite::ops::nn
