// Fuzzes the whole model loader: the input is a model archive, opened, decoded, converted to
// runtime values, operator-resolved and verified (LoadedModel::load_bytes). Only
// symbolite::Error may escape; nothing malformed may get past the verifier. Mutations mostly
// change one entry of the archive (zip_entry_mutator.h), so they reach the pickles.
#include <cstddef>
#include <cstdint>

#include "fuzz/zip_entry_mutator.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    symbolite::mobile::LoadedModel::load_bytes(symbolite::Bytes(nullptr, data, size), "fuzz.ptl");
  } catch (const symbolite::Error&) {
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return symbolite::fuzzing::mutate_zip_entry(data, size, max_size, seed);
}
