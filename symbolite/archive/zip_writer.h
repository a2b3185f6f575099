// Writer for zip archives laid out the way PyTorch 1.13 writes them (caffe2's
// PyTorchStreamWriter over miniz), so that PyTorch loads what we write and a record copied
// from a PyTorch archive lands on the same bytes:
//
//   - every entry's data starts on a 64-byte boundary: the local header's extra field ends
//     with a field "FB" of 'Z' filler bytes;
//   - no timestamps (DOS date and time 0), UTF-8 flag set, data descriptor after the data;
//   - a ZIP64 end record and locator always; ZIP64 extra fields per entry once a size or
//     offset reaches 0xFFFFFFFF.
//
// docs/FORMATS.md ("The archive") lists every field. The output is a function of the
// entries added, in order: the same calls give the same bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace symbolite::archive {

enum class Compression {
  kStored,    // method 0; PyTorch's choice for pickles and tensor data
  kDeflated,  // method 8 (raw deflate); PyTorch's choice for code and debug pickles
};

struct ZipWriterOptions {
  // Sizes and offsets at or above this are written as ZIP64 (0xFFFFFFFF in the 32-bit field,
  // the value in a ZIP64 extra field). Only tests lower it, to take the ZIP64 path without
  // writing 4 GiB.
  std::uint64_t zip64_threshold = 0xFFFFFFFF;
};

class ZipWriter {
 public:
  // Creates or truncates `path`. A writer destroyed before finish() removes the file again,
  // so a failed write leaves no truncated archive behind. Throws Error(kIo) naming the path.
  static ZipWriter to_file(const std::string& path, ZipWriterOptions options = {});
  // Collects the archive in memory; finish() returns it.
  static ZipWriter to_memory(ZipWriterOptions options = {});

  ZipWriter(ZipWriter&&) noexcept;
  ZipWriter& operator=(ZipWriter&&) noexcept;
  ~ZipWriter();

  // Adds an entry. `name` is the full path inside the zip ("model/data.pkl"). As miniz does,
  // a kDeflated entry of at most 3 bytes is stored instead. Throws Error(kUsage) for an
  // empty, absolute, directory ("x/") or duplicate name, or after finish().
  void add(std::string_view name, std::span<const std::uint8_t> data,
           Compression compression = Compression::kStored);
  // Adds an entry whose data is already raw-deflated, e.g. copied from another archive:
  // `crc32` and `uncompressed_size` describe the inflated bytes and are trusted.
  void add_precompressed(std::string_view name, std::span<const std::uint8_t> compressed,
                         std::uint32_t crc32, std::uint64_t uncompressed_size);

  // Writes the central directory and end records and closes the output. Returns the archive
  // for a memory writer, nothing for a file writer. Afterwards every call throws kUsage.
  std::vector<std::uint8_t> finish();

  bool finished() const { return finished_; }
  // Bytes written so far: the offset the next entry's local header gets.
  std::uint64_t size() const { return offset_; }

 private:
  class Output;
  struct Entry;

  ZipWriter(std::unique_ptr<Output> output, ZipWriterOptions options);
  void check_open(std::string_view what) const;
  void check_name(std::string_view name) const;
  void write_entry(const Entry& entry, std::span<const std::uint8_t> payload);
  void write(std::span<const std::uint8_t> bytes);

  std::unique_ptr<Output> output_;
  ZipWriterOptions options_;
  std::uint64_t offset_ = 0;
  std::uint64_t count_ = 0;
  std::vector<std::uint8_t> central_;  // central directory headers, written by finish()
  std::unordered_set<std::string> names_;
  bool finished_ = false;
  bool broken_ = false;  // an output write failed: the archive is incomplete
};

}  // namespace symbolite::archive
