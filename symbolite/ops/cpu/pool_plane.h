// The geometry of pooling one plane, shared by the plane kernels (max_pool_plane.h,
// avg_pool_plane.h): input h x w, output oh x ow, window kh x kw at strides sh, sw with padding
// ph, pw (no dilation).
#pragma once

#include <cstdint>

namespace symbolite::ops {

struct PoolPlane {
  std::int64_t h, w, oh, ow, kh, kw, sh, sw, ph, pw;
};

}  // namespace symbolite::ops
