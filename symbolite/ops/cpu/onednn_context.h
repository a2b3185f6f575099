// What every oneDNN primitive symbolite runs needs (onednn_conv.cpp, onednn_matmul.cpp): the
// CPU engine, a stream per thread, reorders between layouts, and per-thread scratch memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include <dnnl.hpp>

namespace symbolite::ops::onednn {

dnnl::engine& engine();
// Streams are used by one thread at a time: one per thread.
dnnl::stream& stream();
dnnl::reorder reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

// Whether oneDNN found a JIT kernel: its reference loops ("ref:any") and its own im2col
// ("gemm:jit") are slower than symbolite's own paths (a grouped convolution's band of rows on
// reference loops took 30x as long).
bool is_jit(const char* impl_info);

// Scratch memory kept between calls (a thread_local per use), so a run allocates nothing
// after the first; 64-byte aligned for oneDNN.
class Scratch {
 public:
  void* get(std::size_t bytes);

 private:
  struct Free {
    void operator()(std::uint8_t* p) const;
  };
  std::unique_ptr<std::uint8_t, Free> data_;
  std::size_t size_ = 0;
};

}  // namespace symbolite::ops::onednn
