// Fuzzes the reader of JSON input files (runtime/input_files.h: values as files — dicts,
// $tuple, $dict, $tensor, $float), which takes whatever a user or a script writes. Only
// symbolite::Error may escape; $tensor paths point into a folder that does not exist, so no
// file is read.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "symbolite/runtime/input_files.h"
#include "symbolite/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace symbolite;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    ops::IValue v = runtime::parse_input_json(text, "/nonexistent-symbolite-fuzz/input.json");
    (void)v.repr();
  } catch (const Error&) {
  }
  return 0;
}
