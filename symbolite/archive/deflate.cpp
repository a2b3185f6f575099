#include "symbolite/archive/deflate.h"

#define ZLIB_CONST
#include <zlib.h>

#include <algorithm>
#include <climits>

#include "symbolite/support/error.h"

namespace symbolite::archive {
namespace {

class Deflater {
 public:
  Deflater() {
    if (deflateInit2(&stream_, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
      throw Error(ErrorKind::kInternal, "zlib deflateInit2 failed");
    }
  }
  ~Deflater() { deflateEnd(&stream_); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  z_stream& stream() { return stream_; }

 private:
  z_stream stream_{};
};

}  // namespace

std::vector<std::uint8_t> deflate_raw(std::span<const std::uint8_t> data) {
  Deflater deflater;
  z_stream& s = deflater.stream();
  // The bound is exact enough that the loop below grows the buffer only if zlib surprises.
  std::vector<std::uint8_t> out(deflateBound(&s, static_cast<uLong>(data.size())));
  std::size_t fed = 0;         // input bytes handed to zlib so far
  std::uint64_t produced = 0;  // output bytes written so far
  for (;;) {
    // zlib counts in 32-bit uInt, so large inputs and outputs go through in chunks.
    if (s.avail_in == 0 && fed < data.size()) {
      std::size_t chunk = std::min<std::size_t>(data.size() - fed, UINT_MAX);
      s.next_in = data.data() + fed;
      s.avail_in = static_cast<uInt>(chunk);
      fed += chunk;
    }
    if (produced == out.size()) out.resize(out.size() + out.size() / 2 + 64);
    s.next_out = out.data() + produced;
    s.avail_out = static_cast<uInt>(std::min<std::uint64_t>(out.size() - produced, UINT_MAX));
    uInt room = s.avail_out;
    int rc = deflate(&s, fed == data.size() && s.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
    produced += room - s.avail_out;
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw Error(ErrorKind::kInternal, "zlib deflate failed");
    }
  }
  out.resize(produced);
  return out;
}

}  // namespace symbolite::archive
