// The geometry of pooling one plane, shared by the plane kernels (max_pool_plane.h,
// avg_pool_plane.h): input h x w, output oh x ow, window kh x kw at strides sh, sw with padding
// ph, pw (no dilation).
#pragma once

#include <cstdint>

namespace symbolite::ops {

struct PoolPlane {
  std::int64_t h, w, oh, ow, kh, kw, sh, sw, ph, pw;
};

// The plane kernels' vectors hold 16 floats (AVX-512); rows are padded to whole vectors.
inline constexpr std::int64_t kPlaneLanes = 16;
constexpr std::int64_t round_up_to_lanes(std::int64_t n) {
  return (n + kPlaneLanes - 1) / kPlaneLanes * kPlaneLanes;
}

}  // namespace symbolite::ops
