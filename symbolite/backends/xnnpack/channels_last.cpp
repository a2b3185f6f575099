#include "symbolite/backends/xnnpack/channels_last.h"

namespace symbolite::backends {
namespace {

bool strides_match(const tensor::Tensor& t, const std::vector<std::int64_t>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (t.sizes()[i] != 1 && t.strides()[i] != expected[i]) return false;
  }
  return true;
}

}  // namespace

std::vector<std::int64_t> channels_last_strides(const std::vector<std::int64_t>& sizes) {
  const std::int64_t c = sizes[1], h = sizes[2], w = sizes[3];
  return {h * w * c, 1, w * c, c};
}

bool is_channels_last(const tensor::Tensor& t) {
  return t.dim() == 4 && strides_match(t, channels_last_strides(t.sizes()));
}

tensor::Tensor to_channels_last(const tensor::Tensor& t) {
  if (is_channels_last(t)) return t;
  const auto& s = t.sizes();
  const auto& st = t.strides();
  // The NHWC-ordered view of the same elements, made contiguous, is the channels-last copy.
  auto nhwc = tensor::Tensor::from_storage(t.storage(), t.dtype(), {s[0], s[2], s[3], s[1]},
                                           {st[0], st[2], st[3], st[1]}, t.storage_offset())
                  .contiguous();
  return tensor::Tensor::from_storage(nhwc.storage(), t.dtype(), s, channels_last_strides(s),
                                      nhwc.storage_offset());
}

tensor::Tensor empty_channels_last(const std::vector<std::int64_t>& sizes) {
  auto nhwc = tensor::Tensor::uninitialized({sizes[0], sizes[2], sizes[3], sizes[1]},
                                            tensor::DType::kFloat32);
  return tensor::Tensor::from_storage(nhwc.storage(), tensor::DType::kFloat32, sizes,
                                      channels_last_strides(sizes), 0);
}

bool is_dense(const tensor::Tensor& t) { return t.is_contiguous() || is_channels_last(t); }

tensor::Tensor empty_like_dense(const tensor::Tensor& t) {
  if (t.is_contiguous()) return tensor::Tensor::uninitialized(t.sizes(), tensor::DType::kFloat32);
  return empty_channels_last(t.sizes());
}

}  // namespace symbolite::backends
