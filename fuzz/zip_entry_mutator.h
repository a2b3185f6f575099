// A structure-aware mutator for harnesses whose input is a zip archive: most mutations
// change the bytes of one entry (inflated, mutated by libFuzzer's own mutator, written back
// into a well-formed archive with the right sizes and CRC), so the fuzzer reaches the pickle
// and bytecode readers behind the zip layer instead of mostly breaking the zip itself. One
// mutation in four stays a plain byte mutation of the whole file, for the zip reader.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "symbolite/archive/zip_reader.h"
#include "symbolite/archive/zip_writer.h"
#include "symbolite/support/error.h"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace symbolite::fuzzing {

inline std::size_t mutate_zip_entry(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                    unsigned int seed) {
  std::minstd_rand random(seed);
  if (random() % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  try {
    archive::ZipReader zip(Bytes(nullptr, data, size), "fuzz.zip");
    const auto& entries = zip.entries();
    if (entries.empty()) return LLVMFuzzerMutate(data, size, max_size);
    const std::size_t chosen = random() % entries.size();
    auto writer = archive::ZipWriter::to_memory();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Bytes content = zip.read(entries[i]);
      std::vector<std::uint8_t> bytes(content.data(), content.data() + content.size());
      if (i == chosen) {
        // Room to grow: up to the whole budget of the file for this entry.
        std::size_t room = std::max<std::size_t>(bytes.size() * 2 + 64, 256);
        bytes.resize(std::min(room, max_size));
        std::size_t n = LLVMFuzzerMutate(bytes.data(), content.size(), bytes.size());
        bytes.resize(n);
      }
      writer.add(entries[i].name, bytes);
    }
    std::vector<std::uint8_t> out = writer.finish();
    if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::memcpy(data, out.data(), out.size());
    return out.size();
  } catch (const Error&) {
    return LLVMFuzzerMutate(data, size, max_size);  // not a zip we can rebuild: plain bytes
  }
}

}  // namespace symbolite::fuzzing
