#include "symbolite/ops/cpu/onednn_context.h"

#include <cstdlib>
#include <string_view>

#include "symbolite/support/error.h"

namespace symbolite::ops::onednn {

dnnl::engine& engine() {
  static dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
  return cpu;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

dnnl::reorder reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to));
}

bool is_jit(const char* impl_info) {
  const std::string_view impl(impl_info);
  return impl.find("ref") == std::string_view::npos && impl.find("gemm") == std::string_view::npos;
}

void* Scratch::get(std::size_t bytes) {
  if (bytes > size_) {
    size_ = (bytes + 63) / 64 * 64;
    data_.reset(static_cast<std::uint8_t*>(std::aligned_alloc(64, size_)));
    if (!data_) throw Error(ErrorKind::kLimit, "out of memory for a oneDNN primitive's scratch");
  }
  return data_.get();
}

void Scratch::Free::operator()(std::uint8_t* p) const { std::free(p); }

}  // namespace symbolite::ops::onednn
