// Fuzzes the sidecar reader: open the input as a .symdbg and symbolicate every handle it
// lists, plus misses. Only symbolite::Error may escape.
#include <cstddef>
#include <cstdint>

#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/support/error.h"

using namespace symbolite;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    auto sidecar = debuginfo::SidecarReader::from_bytes(Bytes(nullptr, data, size), "fuzz.symdbg");
    debuginfo::Symbolicator symbolicator(sidecar);
    std::size_t n = 0;
    for (auto handle : sidecar->handles()) {
      symbolicator.symbolicate(handle);
      if (++n == 4096) break;  // bound the work per input
    }
    symbolicator.symbolicate(-1);
  } catch (const Error&) {
  }
  return 0;
}
