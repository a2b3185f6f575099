// Fuzzes the .npy reader of `symbolite run --input x.npy`: any bytes must either read as a
// tensor whose every element can be touched, or throw symbolite::Error.
#include <cstddef>
#include <cstdint>

#include "symbolite/support/bytes.h"
#include "symbolite/support/error.h"
#include "symbolite/tensor/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // No owner: the input outlives this call, and nothing keeps the tensor past it.
  symbolite::Bytes bytes(nullptr, data, size);
  try {
    auto tensor = symbolite::tensor::read_npy(bytes);
    auto copy = symbolite::tensor::write_npy(tensor);  // reads every element
    auto again = symbolite::tensor::read_npy(symbolite::Bytes::from_vector(std::move(copy)));
    if (again.sizes() != tensor.sizes() || again.dtype() != tensor.dtype()) __builtin_trap();
  } catch (const symbolite::Error&) {
  }
  return 0;
}
