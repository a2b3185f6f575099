#include "symbolite/archive/inflate.h"

#define ZLIB_CONST
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::archive {
namespace {

// Start small and double: a hostile header may declare gigabytes for a few input bytes, so
// the declared size is only a ceiling, never an up-front allocation.
constexpr std::uint64_t kInitialOutput = 64 * 1024;

class Inflater {
 public:
  Inflater() {
    if (inflateInit2(&stream_, -MAX_WBITS) != Z_OK) {
      throw Error(ErrorKind::kInternal, "zlib inflateInit2 failed");
    }
  }
  ~Inflater() { inflateEnd(&stream_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  z_stream& stream() { return stream_; }

 private:
  z_stream stream_{};
};

template <typename... Args>
[[noreturn]] void fail(std::uint64_t offset, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(ErrorKind::kFormat,
              fmt::format("byte {}: {}", offset, fmt::format(format, std::forward<Args>(args)...)));
}

}  // namespace

Bytes inflate_raw(std::span<const std::uint8_t> compressed, std::uint64_t expected_size,
                  std::uint64_t base) {
  Inflater inflater;
  z_stream& s = inflater.stream();
  std::uint64_t initial = std::max<std::uint64_t>(kInitialOutput, compressed.size() * 4);
  std::vector<std::uint8_t> out(std::min(expected_size, initial));
  std::size_t fed = 0;         // input bytes handed to zlib so far
  std::uint64_t produced = 0;  // output bytes written so far
  std::uint8_t probe = 0;      // catches output beyond expected_size

  for (;;) {
    // zlib counts in 32-bit uInt, so large inputs and outputs go through in chunks.
    if (s.avail_in == 0 && fed < compressed.size()) {
      std::size_t chunk = std::min<std::size_t>(compressed.size() - fed, UINT_MAX);
      s.next_in = compressed.data() + fed;
      s.avail_in = static_cast<uInt>(chunk);
      fed += chunk;
    }
    bool probing = produced == expected_size;
    if (probing) {
      s.next_out = &probe;
      s.avail_out = 1;
    } else {
      if (produced == out.size()) {
        out.resize(std::min<std::uint64_t>(expected_size, out.size() * 2));
      }
      s.next_out = out.data() + produced;
      s.avail_out = static_cast<uInt>(std::min<std::uint64_t>(out.size() - produced, UINT_MAX));
    }
    uInt room = s.avail_out;
    int rc = inflate(&s, Z_NO_FLUSH);
    if (probing && s.avail_out == 0) {
      fail(base + s.total_in, "deflate stream inflates to more than the declared {} bytes",
           expected_size);
    }
    if (!probing) produced += room - s.avail_out;

    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && s.avail_in == 0 && fed == compressed.size()) {
      fail(base + s.total_in, "deflate stream is truncated after {} of {} declared bytes", produced,
           expected_size);
    }
    if (rc == Z_MEM_ERROR) {
      throw Error(ErrorKind::kLimit, "out of memory while inflating");
    }
    fail(base + s.total_in, "corrupt deflate stream ({})", s.msg != nullptr ? s.msg : "zlib error");
  }

  if (produced != expected_size) {
    fail(base + s.total_in, "deflate stream inflates to {} bytes, but {} are declared", produced,
         expected_size);
  }
  out.resize(produced);
  return Bytes::from_vector(std::move(out));
}

}  // namespace symbolite::archive
