// libFuzzer harness for the archive layer: parses the input as a model archive (falling back
// to a bare zip when it is not one) and reads every entry. symbolite::Error is the expected
// way to fail; any other exception, crash or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "symbolite/archive/model_archive.h"
#include "symbolite/archive/zip_reader.h"
#include "symbolite/support/bytes.h"
#include "symbolite/support/error.h"

namespace {

using symbolite::Bytes;
using symbolite::Error;
using symbolite::archive::ModelArchive;
using symbolite::archive::ZipEntry;
using symbolite::archive::ZipLimits;
using symbolite::archive::ZipReader;

// Small limits keep a declared-huge entry from hitting libFuzzer's malloc limit; the reader
// must refuse such entries cleanly, which is part of what is fuzzed.
constexpr ZipLimits kLimits{.max_entries = 4096,
                            .max_entry_size = std::uint64_t{16} << 20,
                            .max_total_size = std::uint64_t{64} << 20};

void read_all(const ZipReader& zip) {
  for (const ZipEntry& entry : zip.entries()) {
    try {
      Bytes data = zip.read(entry);
      if (data.size() != entry.uncompressed_size) __builtin_trap();
    } catch (const Error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A non-owning view: stored entries must stay inside the input buffer.
  Bytes file(std::shared_ptr<const void>(), data, size);
  try {
    ModelArchive archive = ModelArchive::from_bytes(file, "fuzz.zip", kLimits);
    for (const std::string& record : archive.records()) {
      try {
        archive.read_record(record);
      } catch (const Error&) {
      }
    }
  } catch (const Error&) {
  }
  try {
    read_all(ZipReader(file, "fuzz.zip", kLimits));
  } catch (const Error&) {
  }
  return 0;
}
