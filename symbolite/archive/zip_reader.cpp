#include "symbolite/archive/zip_reader.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "symbolite/archive/crc32.h"
#include "symbolite/archive/inflate.h"
#include "symbolite/archive/zip_format.h"
#include "symbolite/support/byte_cursor.h"
#include "symbolite/support/error.h"

namespace symbolite::archive {
namespace {

using zip::kCentralHeaderSignature;
using zip::kCentralHeaderSize;
using zip::kEndSignature;
using zip::kEndSize;
using zip::kLocalHeaderSignature;
using zip::kLocalHeaderSize;
using zip::kMethodDeflated;
using zip::kMethodStored;
using zip::kZip64EndSignature;
using zip::kZip64EndSize;
using zip::kZip64ExtraId;
using zip::kZip64LocatorSignature;
using zip::kZip64LocatorSize;
using zip::kZip64Marker16;
using zip::kZip64Marker32;

using Span = std::span<const std::uint8_t>;

constexpr std::uint64_t kMaxCommentSize = 0xFFFF;

// Traditional PKWARE encryption, strong encryption, and an encrypted central directory.
constexpr std::uint16_t kEncryptionFlags = (1 << 0) | (1 << 6) | (1 << 13);

template <typename... Args>
[[noreturn]] void fail(ErrorKind kind, std::uint64_t offset, fmt::format_string<Args...> format,
                       Args&&... args) {
  throw Error(kind,
              fmt::format("byte {}: {}", offset, fmt::format(format, std::forward<Args>(args)...)));
}

// True when [offset, offset + length) lies inside [0, size); written so it cannot overflow.
bool fits(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

std::string_view as_text(Span bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string_view method_name(std::uint16_t method) {
  switch (method) {
    case 1:
      return "shrink";
    case 6:
      return "implode";
    case 9:
      return "deflate64";
    case 12:
      return "bzip2";
    case 14:
      return "lzma";
    case 93:
      return "zstd";
    case 95:
      return "xz";
    case 98:
      return "ppmd";
    case 99:
      return "WinZip AES";
    default:
      return "unknown";
  }
}

// Adds the archive's name to errors escaping `body` (unless it has none).
template <typename Body>
decltype(auto) in_archive(const std::string& display_name, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (Error& e) {
    if (!display_name.empty()) e.add_context(display_name);
    throw;
  }
}

std::string entry_context(std::string_view name) { return fmt::format("archive entry '{}'", name); }

// Where the central directory is, from the end records.
struct Directory {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t count = 0;
  std::uint64_t limit = 0;  // the directory must end here: at the first end record
};

// Searches backwards for the end of central directory record. It is the last 22 bytes but
// for an archive comment of up to 64 KiB. A candidate whose comment length reaches exactly
// to the end of the file wins; failing that, one followed by stray bytes.
std::optional<std::uint64_t> find_end_record(Span file) {
  std::uint64_t last = file.size() - kEndSize;
  std::uint64_t first = last > kMaxCommentSize ? last - kMaxCommentSize : 0;
  std::optional<std::uint64_t> loose;
  for (std::uint64_t pos = last + 1; pos-- > first;) {
    const std::uint8_t* p = file.data() + pos;
    if (load_u32le(p) != kEndSignature) continue;
    std::uint64_t end = pos + kEndSize + load_u16le(p + 20);
    if (end == file.size()) return pos;
    if (!loose && end < file.size()) loose = pos;
  }
  return loose;
}

// Reads the ZIP64 end record that the locator at `locator_offset` points to.
Directory read_zip64_end(Span file, std::uint64_t locator_offset) {
  ByteCursor locator(file.subspan(locator_offset, kZip64LocatorSize), locator_offset,
                     "ZIP64 end of central directory locator");
  locator.skip(4);  // signature, already matched
  std::uint32_t record_disk = locator.u32();
  std::uint64_t record = locator.u64();
  std::uint32_t disks = locator.u32();
  if (record_disk != 0 || disks > 1) {
    fail(ErrorKind::kUnsupported, locator_offset,
         "archive spans {} disks; multi-disk archives are not supported", disks);
  }
  if (!fits(record, kZip64EndSize, locator_offset)) {
    fail(ErrorKind::kFormat, locator_offset,
         "ZIP64 end of central directory record at byte {} does not lie before its locator",
         record);
  }
  ByteCursor end(file.subspan(record, kZip64EndSize), record,
                 "ZIP64 end of central directory record");
  if (std::uint32_t signature = end.u32(); signature != kZip64EndSignature) {
    fail(ErrorKind::kFormat, record,
         "bad ZIP64 end of central directory signature 0x{:08x} (expected PK\\6\\6)", signature);
  }
  end.skip(12);  // record size, version made by, version needed
  std::uint32_t disk = end.u32();
  std::uint32_t directory_disk = end.u32();
  std::uint64_t count_on_disk = end.u64();
  Directory dir;
  dir.count = end.u64();
  dir.size = end.u64();
  dir.offset = end.u64();
  dir.limit = record;
  if (disk != 0 || directory_disk != 0 || count_on_disk != dir.count) {
    fail(ErrorKind::kUnsupported, record, "multi-disk archives are not supported");
  }
  return dir;
}

Directory find_directory(Span file, const ZipLimits& limits) {
  if (file.size() < kEndSize) {
    throw Error(ErrorKind::kFormat,
                fmt::format("not a zip archive: {} bytes is too short for the end of central "
                            "directory record (22 bytes)",
                            file.size()));
  }
  std::optional<std::uint64_t> found = find_end_record(file);
  if (!found) {
    throw Error(ErrorKind::kFormat,
                fmt::format("not a zip archive, or truncated: no end of central directory "
                            "record (PK\\5\\6) in the last {} bytes",
                            std::min<std::uint64_t>(file.size(), kEndSize + kMaxCommentSize)));
  }
  std::uint64_t eocd = *found;
  ByteCursor end(file.subspan(eocd, kEndSize), eocd, "end of central directory record");
  end.skip(4);  // signature, already matched
  std::uint16_t disk = end.u16();
  std::uint16_t directory_disk = end.u16();
  std::uint16_t count_on_disk = end.u16();
  Directory dir;
  dir.count = end.u16();
  dir.size = end.u32();
  dir.offset = end.u32();
  dir.limit = eocd;

  // A locator right before the end record means ZIP64: its record's 64-bit fields replace
  // the (then usually saturated) 16- and 32-bit ones. PyTorch always writes one.
  if (eocd >= kZip64LocatorSize &&
      load_u32le(file.data() + eocd - kZip64LocatorSize) == kZip64LocatorSignature) {
    dir = read_zip64_end(file, eocd - kZip64LocatorSize);
  } else if (disk != 0 || directory_disk != 0 || count_on_disk != dir.count) {
    fail(ErrorKind::kUnsupported, eocd, "multi-disk archives are not supported");
  }

  if (!fits(dir.offset, dir.size, file.size())) {
    fail(ErrorKind::kFormat, dir.limit,
         "central directory (offset {}, {} bytes) lies outside the file ({} bytes)", dir.offset,
         dir.size, file.size());
  }
  if (!fits(dir.offset, dir.size, dir.limit)) {
    fail(ErrorKind::kFormat, dir.limit,
         "central directory (offset {}, {} bytes) overlaps the end record at byte {}", dir.offset,
         dir.size, dir.limit);
  }
  if (dir.count > limits.max_entries) {
    fail(ErrorKind::kLimit, dir.limit, "archive has {} entries, more than the limit of {}",
         dir.count, limits.max_entries);
  }
  if (dir.count > dir.size / kCentralHeaderSize) {
    fail(ErrorKind::kFormat, dir.limit,
         "end record claims {} entries, but a {}-byte central directory holds at most {}",
         dir.count, dir.size, dir.size / kCentralHeaderSize);
  }
  return dir;
}

// Fills in 64-bit values from the ZIP64 extended information extra field, for each
// 32-bit field that holds the 0xFFFFFFFF marker. The field lists only those, in this order.
void apply_zip64_extra(ZipEntry& entry, Span extra, std::uint64_t extra_offset,
                       std::uint64_t header_offset, bool need_uncompressed, bool need_compressed,
                       bool need_offset, bool need_disk) {
  ByteCursor fields(extra, extra_offset, "extra field");
  while (fields.remaining() >= 4) {
    std::uint16_t id = fields.u16();
    std::uint16_t length = fields.u16();
    std::uint64_t data_offset = fields.offset();
    Span data = fields.take(length);
    if (id != kZip64ExtraId) continue;
    ByteCursor zip64(data, data_offset, "ZIP64 extra field");
    if (need_uncompressed) entry.uncompressed_size = zip64.u64();
    if (need_compressed) entry.compressed_size = zip64.u64();
    if (need_offset) entry.local_header_offset = zip64.u64();
    if (need_disk && zip64.u32() != 0) {
      fail(ErrorKind::kUnsupported, header_offset, "multi-disk archives are not supported");
    }
    return;
  }
  fail(ErrorKind::kFormat, header_offset,
       "sizes or offset hold the ZIP64 marker 0xFFFFFFFF, but there is no ZIP64 extra field");
}

// Reads one central directory header. `name_in_file` receives the name as a view of the
// file's bytes, for the index.
ZipEntry read_central_header(ByteCursor& directory, std::string_view& name_in_file) {
  std::uint64_t header_offset = directory.offset();
  if (std::uint32_t signature = directory.u32(); signature != kCentralHeaderSignature) {
    fail(ErrorKind::kFormat, header_offset,
         "bad central directory header signature 0x{:08x} (expected PK\\1\\2)", signature);
  }
  ZipEntry entry;
  directory.skip(4);  // version made by, version needed
  entry.flags = directory.u16();
  entry.method = directory.u16();
  directory.skip(4);  // modification time and date
  entry.crc32 = directory.u32();
  std::uint32_t compressed32 = directory.u32();
  std::uint32_t uncompressed32 = directory.u32();
  std::uint16_t name_length = directory.u16();
  std::uint16_t extra_length = directory.u16();
  std::uint16_t comment_length = directory.u16();
  std::uint16_t disk = directory.u16();
  directory.skip(6);  // internal and external attributes
  std::uint32_t offset32 = directory.u32();
  name_in_file = as_text(directory.take(name_length));
  entry.name = std::string(name_in_file);

  with_context(entry_context(entry.name), [&] {
    std::uint64_t extra_offset = directory.offset();
    Span extra = directory.take(extra_length);
    directory.skip(comment_length);
    entry.compressed_size = compressed32;
    entry.uncompressed_size = uncompressed32;
    entry.local_header_offset = offset32;
    bool need_uncompressed = uncompressed32 == kZip64Marker32;
    bool need_compressed = compressed32 == kZip64Marker32;
    bool need_offset = offset32 == kZip64Marker32;
    bool need_disk = disk == kZip64Marker16;
    if (need_uncompressed || need_compressed || need_offset || need_disk) {
      apply_zip64_extra(entry, extra, extra_offset, header_offset, need_uncompressed,
                        need_compressed, need_offset, need_disk);
    } else if (disk != 0) {
      fail(ErrorKind::kUnsupported, header_offset, "multi-disk archives are not supported");
    }
  });
  return entry;
}

// Size checks that need only the central directory.
void check_sizes(const ZipEntry& entry, const ZipLimits& limits) {
  if (entry.uncompressed_size > limits.max_entry_size) {
    fail(ErrorKind::kLimit, entry.local_header_offset,
         "entry is {} bytes uncompressed, more than the limit of {}", entry.uncompressed_size,
         limits.max_entry_size);
  }
  // Encrypted stored entries carry an encryption header; they are refused on read instead.
  if (entry.method == kMethodStored && (entry.flags & kEncryptionFlags) == 0 &&
      entry.compressed_size != entry.uncompressed_size) {
    fail(ErrorKind::kFormat, entry.local_header_offset,
         "stored entry has compressed size {} but uncompressed size {}", entry.compressed_size,
         entry.uncompressed_size);
  }
}

// Reads the entry's local header to find where its data starts: the local name and extra
// field lengths may differ from the central ones (PyTorch pads the local extra field so
// that data is 64-byte aligned).
void locate_data(Span file, ZipEntry& entry) {
  std::uint64_t offset = entry.local_header_offset;
  if (!fits(offset, kLocalHeaderSize, file.size())) {
    fail(ErrorKind::kFormat, offset, "local header lies outside the file ({} bytes)", file.size());
  }
  ByteCursor local(file.subspan(offset), offset, "local header");
  if (std::uint32_t signature = local.u32(); signature != kLocalHeaderSignature) {
    fail(ErrorKind::kFormat, offset, "bad local header signature 0x{:08x} (expected PK\\3\\4)",
         signature);
  }
  // Version, flags, method, time, date, CRC and sizes: the central directory's copies are
  // authoritative (with a data descriptor, these are zero anyway).
  local.skip(22);
  std::uint16_t name_length = local.u16();
  std::uint16_t extra_length = local.u16();
  std::string_view name = as_text(local.take(name_length));
  if (name != entry.name) {
    fail(ErrorKind::kFormat, offset, "local header names '{}', central directory names '{}'", name,
         entry.name);
  }
  local.skip(extra_length);
  entry.data_offset = local.offset();
  if (!fits(entry.data_offset, entry.compressed_size, file.size())) {
    fail(ErrorKind::kFormat, entry.data_offset,
         "entry data ({} bytes) runs past the end of the file ({} bytes)", entry.compressed_size,
         file.size());
  }
}

// Entries must not share bytes. No writer produces overlapping entries; hostile files use
// them to make a small file inflate many times over (non-recursive zip bombs, where many
// central entries reuse one compressed kernel) or to show different readers different
// contents. An entry spans its local header to the end of its data; the data descriptor
// after it is not counted (its size is recorded nowhere).
void check_no_overlap(const std::vector<ZipEntry>& entries, std::uint64_t directory_offset) {
  std::vector<const ZipEntry*> order;
  order.reserve(entries.size());
  for (const ZipEntry& entry : entries) order.push_back(&entry);
  std::sort(order.begin(), order.end(), [](const ZipEntry* a, const ZipEntry* b) {
    return a->local_header_offset < b->local_header_offset;
  });
  // locate_data checked that every entry's data lies in the file, so these cannot overflow.
  auto end_of = [](const ZipEntry* e) { return e->data_offset + e->compressed_size; };
  for (std::size_t i = 1; i < order.size(); ++i) {
    const ZipEntry* a = order[i - 1];
    const ZipEntry* b = order[i];
    if (end_of(a) > b->local_header_offset) {
      fail(ErrorKind::kFormat, b->local_header_offset,
           "entries '{}' (bytes [{}, {})) and '{}' (bytes [{}, {})) overlap", a->name,
           a->local_header_offset, end_of(a), b->name, b->local_header_offset, end_of(b));
    }
  }
  // Entries stored before the central directory must end before it.
  for (const ZipEntry* e : order) {
    if (e->local_header_offset < directory_offset && end_of(e) > directory_offset) {
      fail(ErrorKind::kFormat, e->local_header_offset,
           "entry '{}' (bytes [{}, {})) overlaps the central directory at byte {}", e->name,
           e->local_header_offset, end_of(e), directory_offset);
    }
  }
}

}  // namespace

ZipReader::ZipReader(Bytes file, std::string display_name, ZipLimits limits)
    : file_(std::move(file)), display_name_(std::move(display_name)), limits_(limits) {
  in_archive(display_name_, [&] {
    Span bytes = file_.span();
    Directory dir = find_directory(bytes, limits_);
    ByteCursor directory(bytes.subspan(dir.offset, dir.size), dir.offset, "central directory");
    entries_.reserve(dir.count);
    std::uint64_t total_size = 0;
    for (std::uint64_t i = 0; i < dir.count; ++i) {
      std::uint64_t header_offset = directory.offset();
      std::string_view name_in_file;
      ZipEntry entry = read_central_header(directory, name_in_file);
      with_context(entry_context(entry.name), [&] {
        check_sizes(entry, limits_);
        if (entry.uncompressed_size > limits_.max_total_size - total_size) {
          fail(ErrorKind::kLimit, header_offset,
               "entries total more than the limit of {} bytes uncompressed",
               limits_.max_total_size);
        }
        total_size += entry.uncompressed_size;
        if (!index_.emplace(name_in_file, entries_.size()).second) {
          fail(ErrorKind::kFormat, header_offset, "duplicate entry name");
        }
        locate_data(bytes, entry);
      });
      entries_.push_back(std::move(entry));
    }
    check_no_overlap(entries_, dir.offset);
  });
}

const ZipEntry* ZipReader::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &entries_[it->second];
}

Bytes ZipReader::read(const ZipEntry& entry) const {
  return in_archive(display_name_, [&] {
    return with_context(entry_context(entry.name), [&] {
      if ((entry.flags & kEncryptionFlags) != 0) {
        fail(ErrorKind::kUnsupported, entry.local_header_offset,
             "entry is encrypted; encrypted archives are not supported");
      }
      if (entry.method != kMethodStored && entry.method != kMethodDeflated) {
        fail(ErrorKind::kUnsupported, entry.local_header_offset,
             "compression method {} ({}) is not supported, only stored (0) and deflated (8)",
             entry.method, method_name(entry.method));
      }
      // The entry may not come from this reader's parse, so check again.
      check_sizes(entry, limits_);
      if (!fits(entry.data_offset, entry.compressed_size, file_.size())) {
        fail(ErrorKind::kFormat, entry.data_offset,
             "entry data ({} bytes) runs past the end of the file ({} bytes)",
             entry.compressed_size, file_.size());
      }
      Bytes data = entry.method == kMethodStored
                       ? file_.slice(entry.data_offset, entry.compressed_size)
                       : inflate_raw(file_.span().subspan(entry.data_offset, entry.compressed_size),
                                     entry.uncompressed_size, entry.data_offset);
      std::uint32_t crc = crc32(data.span());
      if (crc != entry.crc32) {
        fail(ErrorKind::kFormat, entry.data_offset,
             "CRC-32 mismatch (expected 0x{:08x}, got 0x{:08x})", entry.crc32, crc);
      }
      return data;
    });
  });
}

Bytes ZipReader::read_raw(const ZipEntry& entry) const {
  return in_archive(display_name_, [&] {
    return with_context(entry_context(entry.name), [&] {
      if (!fits(entry.data_offset, entry.compressed_size, file_.size())) {
        fail(ErrorKind::kFormat, entry.data_offset,
             "entry data ({} bytes) runs past the end of the file ({} bytes)",
             entry.compressed_size, file_.size());
      }
      return file_.slice(entry.data_offset, entry.compressed_size);
    });
  });
}

}  // namespace symbolite::archive
