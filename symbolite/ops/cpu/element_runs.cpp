#include "symbolite/ops/cpu/element_runs.h"

namespace symbolite::ops::cpu {

SYMBOLITE_ELEMENT_CLONES std::uint8_t or_bytes(const std::uint8_t* p, std::int64_t n) {
  std::uint8_t acc = 0;
  for (std::int64_t i = 0; i < n; ++i) acc |= p[i];
  return acc;
}

}  // namespace symbolite::ops::cpu
