// Reader for zip archives as PyTorch writes them (`.pt`, `.ptl`): stored and deflated
// entries, ZIP64 sizes and offsets, CRC-32 checked on every read. Stored entries are
// returned as views into the file's bytes (zero-copy); deflated ones are inflated with zlib.
//
// The zip bytes are untrusted: every offset and size is bounds-checked, and a failure throws
// Error naming the archive, the entry and the byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbolite/support/bytes.h"

namespace symbolite::archive {

struct ZipEntry {
  std::string name;
  std::uint16_t method = 0;  // 0 = stored, 8 = deflated; anything else is refused on read
  std::uint16_t flags = 0;   // general purpose bit flags; encrypted entries are refused on read
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint64_t local_header_offset = 0;
  std::uint64_t data_offset = 0;  // where the entry's (compressed) bytes start in the file
};

// Safety limits against hostile archives (zip bombs, absurd entry counts).
struct ZipLimits {
  std::size_t max_entries = 1u << 20;
  std::uint64_t max_entry_size = std::uint64_t{4} << 30;   // uncompressed, per entry
  std::uint64_t max_total_size = std::uint64_t{64} << 30;  // uncompressed, all entries
};

class ZipReader {
 public:
  // Parses the central directory of `file`. `display_name` (usually the path) prefixes every
  // error. The reader shares ownership of `file`, so views it returns stay valid.
  ZipReader(Bytes file, std::string display_name, ZipLimits limits = {});

  const std::string& display_name() const { return display_name_; }
  const std::vector<ZipEntry>& entries() const { return entries_; }
  // nullptr when absent.
  const ZipEntry* find(std::string_view name) const;

  // The entry's uncompressed bytes, CRC-checked. Stored entries are views into the file.
  Bytes read(const ZipEntry& entry) const;
  // The entry's bytes as the file holds them (still deflated for deflated entries), a view
  // into the file: bounds-checked, not CRC-checked. For copying entries without
  // recompressing them.
  Bytes read_raw(const ZipEntry& entry) const;

 private:
  Bytes file_;
  std::string display_name_;
  ZipLimits limits_;
  std::vector<ZipEntry> entries_;
  // Keys view the names inside the central directory bytes, which `file_` keeps alive; so
  // copies and moves of the reader keep a valid index.
  std::unordered_map<std::string_view, std::size_t> index_;
};

}  // namespace symbolite::archive
