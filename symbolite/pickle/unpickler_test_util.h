// Helpers shared by the unpickler tests: fixture loading and hand-written pickle bytes.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/pickle/unpickler.h"
#include "symbolite/support/bytes.h"
#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::pickle::test {

// tests/fixtures/pickle/<name>, whole.
inline Bytes read_pickle_fixture(std::string_view name) {
  std::string path = symbolite::testing::fixture_path("pickle/" + std::string(name));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(in)), {});
  return Bytes::from_vector(std::move(data));
}

inline Value parse(std::string_view pickle, const UnpickleOptions& options = {}) {
  return unpickle(Bytes::copy_of(pickle), options);
}

// The Error that unpickling `pickle` throws; fails the calling test if none is thrown.
inline Error parse_error(std::string_view pickle, const UnpickleOptions& options = {}) {
  try {
    parse(pickle, options);
  } catch (const Error& e) {
    return e;
  }
  throw std::runtime_error("expected an Error, but the pickle parsed");
}

// Little-endian encodings for hand-written opcodes' arguments.
inline std::string le(std::uint64_t value, int width) {
  std::string out;
  for (int i = 0; i < width; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}
inline std::string le32(std::uint32_t value) { return le(value, 4); }
inline std::string le64(std::uint64_t value) { return le(value, 8); }

// BINUNICODE of `text`.
inline std::string binunicode(std::string_view text) {
  return "X" + le32(static_cast<std::uint32_t>(text.size())) + std::string(text);
}

}  // namespace symbolite::pickle::test
