// Random pooling geometries for the plane kernels' tests (ops/cpu/max_pool_plane_test.cpp,
// avg_pool_plane_test.cpp): windows of 1-5 each way, row strides 1-3, column strides 1 and 2,
// padding up to half the window, planes up to 30 x 70, and now and then the ceil-mode column
// whose window starts in the right padding.
#pragma once

#include <random>

#include "symbolite/ops/cpu/pool_plane.h"

namespace symbolite::testing {

inline ops::PoolPlane draw_pool_plane(std::mt19937& random) {
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(random);
  };
  for (;;) {
    ops::PoolPlane p{};
    p.kh = draw(1, 5);
    p.kw = draw(1, 5);
    p.sh = draw(1, 3);
    p.sw = draw(1, 2);
    p.ph = draw(0, p.kh / 2);
    p.pw = draw(0, p.kw / 2);
    p.h = draw(1, 30);
    p.w = draw(1, 70);
    if (p.h + 2 * p.ph < p.kh || p.w + 2 * p.pw < p.kw) continue;
    p.oh = (p.h + 2 * p.ph - p.kh) / p.sh + 1;
    p.ow = (p.w + 2 * p.pw - p.kw) / p.sw + 1;
    // ceil mode: one more column if its window starts inside the input or left padding.
    if (draw(0, 1) == 1 && (p.ow * p.sw - p.pw) < p.w && (p.w + 2 * p.pw - p.kw) % p.sw != 0) {
      ++p.ow;
    }
    return p;
  }
}

}  // namespace symbolite::testing
