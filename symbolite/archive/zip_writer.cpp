#include "symbolite/archive/zip_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "symbolite/archive/crc32.h"
#include "symbolite/archive/deflate.h"
#include "symbolite/archive/zip_format.h"
#include "symbolite/support/error.h"

namespace symbolite::archive {
namespace {

using zip::kCentralHeaderSignature;
using zip::kDescriptorSignature;
using zip::kEndSignature;
using zip::kLocalHeaderSignature;
using zip::kLocalHeaderSize;
using zip::kMethodDeflated;
using zip::kMethodStored;
using zip::kZip64EndSignature;
using zip::kZip64EndSize;
using zip::kZip64ExtraId;
using zip::kZip64LocatorSignature;
using zip::kZip64Marker16;
using zip::kZip64Marker32;

using Buffer = std::vector<std::uint8_t>;

constexpr std::uint16_t kDescriptorFlag = 1 << 3;  // sizes and CRC follow the data
constexpr std::uint16_t kUtf8Flag = 1 << 11;

// PyTorch's alignment of entry data (caffe2 kFieldAlignment) and its padding extra field:
// id "FB", then the padding length, then that many 'Z'.
constexpr std::uint64_t kAlignment = 64;
constexpr std::uint8_t kPaddingFiller = 'Z';

// miniz stores entries this small even when asked to compress them.
constexpr std::size_t kMaxStoredAnyway = 3;

void put_u16(Buffer& out, std::uint16_t value) {
  out.push_back(static_cast<std::uint8_t>(value));
  out.push_back(static_cast<std::uint8_t>(value >> 8));
}

void put_u32(Buffer& out, std::uint32_t value) {
  put_u16(out, static_cast<std::uint16_t>(value));
  put_u16(out, static_cast<std::uint16_t>(value >> 16));
}

void put_u64(Buffer& out, std::uint64_t value) {
  put_u32(out, static_cast<std::uint32_t>(value));
  put_u32(out, static_cast<std::uint32_t>(value >> 32));
}

void put_text(Buffer& out, std::string_view text) {
  out.insert(out.end(), text.begin(), text.end());
}

void patch_u16(Buffer& out, std::size_t at, std::uint16_t value) {
  out[at] = static_cast<std::uint8_t>(value);
  out[at + 1] = static_cast<std::uint8_t>(value >> 8);
}

}  // namespace

// Where the bytes go: a file written front to back, or a growing buffer.
class ZipWriter::Output {
 public:
  static std::unique_ptr<Output> file(const std::string& path) {
    auto output = std::unique_ptr<Output>(new Output(path));
    output->fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (output->fd_ < 0) output->fail("cannot create");
    struct stat st {};
    // Only a regular file is removed again if the writer gives up (never a device or pipe).
    output->regular_ = ::fstat(output->fd_, &st) == 0 && S_ISREG(st.st_mode);
    return output;
  }
  static std::unique_ptr<Output> memory() { return std::unique_ptr<Output>(new Output("")); }

  ~Output() {
    if (fd_ < 0) return;
    ::close(fd_);
    if (regular_) ::unlink(path_.c_str());
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  // The path for a file, empty for memory: what errors are prefixed with.
  const std::string& display_name() const { return path_; }

  void write(std::span<const std::uint8_t> bytes) {
    if (fd_ < 0) {
      memory_.insert(memory_.end(), bytes.begin(), bytes.end());
      return;
    }
    while (!bytes.empty()) {
      ssize_t written = ::write(fd_, bytes.data(), bytes.size());
      if (written < 0) {
        if (errno == EINTR) continue;
        fail("cannot write");
      }
      bytes = bytes.subspan(static_cast<std::size_t>(written));
    }
  }

  // Closes a file for good (it stays) or hands over the buffer.
  Buffer close() {
    if (fd_ < 0) return std::move(memory_);
    int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) {
      int err = errno;
      if (regular_) ::unlink(path_.c_str());
      errno = err;
      fail("cannot close");
    }
    return {};
  }

 private:
  explicit Output(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const char* what) const {
    throw Error(ErrorKind::kIo, fmt::format("{}: {}: {}", path_, what, std::strerror(errno)));
  }

  std::string path_;
  int fd_ = -1;
  bool regular_ = false;
  Buffer memory_;
};

struct ZipWriter::Entry {
  std::string_view name;
  std::uint16_t method = kMethodStored;
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
};

ZipWriter ZipWriter::to_file(const std::string& path, ZipWriterOptions options) {
  return ZipWriter(Output::file(path), options);
}

ZipWriter ZipWriter::to_memory(ZipWriterOptions options) {
  return ZipWriter(Output::memory(), options);
}

ZipWriter::ZipWriter(std::unique_ptr<Output> output, ZipWriterOptions options)
    : output_(std::move(output)), options_(options) {}

ZipWriter::ZipWriter(ZipWriter&&) noexcept = default;
ZipWriter& ZipWriter::operator=(ZipWriter&&) noexcept = default;
ZipWriter::~ZipWriter() = default;

void ZipWriter::add(std::string_view name, std::span<const std::uint8_t> data,
                    Compression compression) {
  check_open("add an entry");
  check_name(name);
  Entry entry{name, kMethodStored, crc32(data), data.size(), data.size()};
  if (compression == Compression::kDeflated && data.size() > kMaxStoredAnyway) {
    Buffer compressed = deflate_raw(data);
    entry.method = kMethodDeflated;
    entry.compressed_size = compressed.size();
    write_entry(entry, compressed);
  } else {
    write_entry(entry, data);
  }
}

void ZipWriter::add_precompressed(std::string_view name, std::span<const std::uint8_t> compressed,
                                  std::uint32_t crc32, std::uint64_t uncompressed_size) {
  check_open("add an entry");
  check_name(name);
  write_entry({name, kMethodDeflated, crc32, compressed.size(), uncompressed_size}, compressed);
}

void ZipWriter::check_open(std::string_view what) const {
  const char* why = finished_ ? "the archive is already finished"
                    : broken_ ? "an earlier write failed"
                              : nullptr;
  if (why == nullptr) return;
  Error error(ErrorKind::kUsage, fmt::format("cannot {}: {}", what, why));
  if (!output_->display_name().empty()) error.add_context(output_->display_name());
  throw error;
}

void ZipWriter::check_name(std::string_view name) const {
  const char* why = nullptr;
  if (name.empty()) {
    why = "the name is empty";
  } else if (name.size() > 0xFFFF) {
    why = "the name is longer than 65535 bytes";
  } else if (name.front() == '/') {
    why = "the name is absolute";
  } else if (name.back() == '/') {
    why = "directory entries are not written";
  } else if (names_.contains(std::string(name))) {
    why = "an entry of that name was already added";
  }
  if (why == nullptr) return;
  Error error(ErrorKind::kUsage, fmt::format("cannot add entry '{}': {}", name, why));
  if (!output_->display_name().empty()) error.add_context(output_->display_name());
  throw error;
}

void ZipWriter::write(std::span<const std::uint8_t> bytes) {
  try {
    output_->write(bytes);
  } catch (...) {
    broken_ = true;
    throw;
  }
  offset_ += bytes.size();
}

// Lays the entry out as miniz's mz_zip_writer_add_mem_ex_v2 does with PyTorch's arguments.
void ZipWriter::write_entry(const Entry& entry, std::span<const std::uint8_t> payload) {
  const std::uint64_t threshold = options_.zip64_threshold;
  const std::uint64_t header_offset = offset_;
  const bool zip64_sizes =
      entry.uncompressed_size >= threshold || entry.compressed_size >= threshold;
  const bool zip64_offset = header_offset >= threshold;
  const bool zip64 = zip64_sizes || zip64_offset;
  // An empty entry has no data descriptor (miniz sets the flag only when there is data).
  const bool has_data = !payload.empty();
  const std::uint16_t flags = kUtf8Flag | (has_data ? kDescriptorFlag : 0);
  const std::uint16_t version_needed = entry.method == kMethodStored ? 0 : 20;
  const auto name_length = static_cast<std::uint16_t>(entry.name.size());
  const auto zip64_length =
      static_cast<std::uint16_t>(zip64 ? 4 + (zip64_sizes ? 16 : 0) + (zip64_offset ? 8 : 0) : 0);
  // The ZIP64 extended information field: only the values that need it, in this order.
  auto put_zip64_extra = [&](Buffer& out, std::uint64_t compressed_size) {
    put_u16(out, kZip64ExtraId);
    put_u16(out, static_cast<std::uint16_t>(zip64_length - 4));
    if (zip64_sizes) {
      put_u64(out, entry.uncompressed_size);
      put_u64(out, compressed_size);
    }
    if (zip64_offset) put_u64(out, header_offset);
  };

  // Local header. CRC and sizes follow in the data descriptor, so they are 0 here.
  Buffer local;
  put_u32(local, kLocalHeaderSignature);
  put_u16(local, version_needed);
  put_u16(local, flags);
  put_u16(local, entry.method);
  put_u16(local, 0);  // time: PyTorch writes no timestamps
  put_u16(local, 0);  // date
  put_u32(local, 0);  // CRC-32
  put_u32(local, 0);  // compressed size
  put_u32(local, 0);  // uncompressed size
  put_u16(local, name_length);
  put_u16(local, 0);  // extra field length, patched below
  put_text(local, entry.name);
  // miniz writes the local header before compressing, so its compressed size is 0 here.
  if (zip64) put_zip64_extra(local, 0);
  std::uint64_t data_offset = header_offset + local.size() + 4;
  auto padding = static_cast<std::uint16_t>((kAlignment - data_offset % kAlignment) % kAlignment);
  put_text(local, "FB");
  put_u16(local, padding);
  local.insert(local.end(), padding, kPaddingFiller);
  patch_u16(local, 28, static_cast<std::uint16_t>(local.size() - kLocalHeaderSize - name_length));

  Buffer descriptor;
  if (has_data) {
    put_u32(descriptor, kDescriptorSignature);
    put_u32(descriptor, entry.crc32);
    // 64-bit sizes whenever the entry has a ZIP64 extra field, even for an offset alone.
    if (zip64) {
      put_u64(descriptor, entry.compressed_size);
      put_u64(descriptor, entry.uncompressed_size);
    } else {
      put_u32(descriptor, static_cast<std::uint32_t>(entry.compressed_size));
      put_u32(descriptor, static_cast<std::uint32_t>(entry.uncompressed_size));
    }
  }

  // Central header: no padding field, the ZIP64 extra field only when a value needs it.
  // miniz writes min(compressed size, 0xFFFFFFFF) even when it puts the compressed size in
  // the extra field; readers take the extra field's values only for fields holding the
  // marker, in order, so both sizes get the marker here (the same bytes for stored entries).
  Buffer central;
  put_u32(central, kCentralHeaderSignature);
  put_u16(central, 0);  // version made by: miniz leaves it 0
  put_u16(central, version_needed);
  put_u16(central, flags);
  put_u16(central, entry.method);
  put_u16(central, 0);  // time
  put_u16(central, 0);  // date
  put_u32(central, entry.crc32);
  put_u32(central,
          zip64_sizes ? kZip64Marker32 : static_cast<std::uint32_t>(entry.compressed_size));
  put_u32(central,
          zip64_sizes ? kZip64Marker32 : static_cast<std::uint32_t>(entry.uncompressed_size));
  put_u16(central, name_length);
  put_u16(central, zip64_length);
  put_u16(central, 0);  // comment length
  put_u16(central, 0);  // disk number
  put_u16(central, 0);  // internal attributes
  put_u32(central, 0);  // external attributes
  put_u32(central, zip64_offset ? kZip64Marker32 : static_cast<std::uint32_t>(header_offset));
  put_text(central, entry.name);
  if (zip64) put_zip64_extra(central, entry.compressed_size);

  write(local);
  write(payload);
  write(descriptor);
  central_.insert(central_.end(), central.begin(), central.end());
  names_.emplace(entry.name);
  ++count_;
}

std::vector<std::uint8_t> ZipWriter::finish() {
  check_open("finish");
  const std::uint64_t threshold = options_.zip64_threshold;
  const std::uint64_t directory_offset = offset_;
  const std::uint64_t directory_size = central_.size();
  write(central_);
  central_ = {};
  const std::uint64_t zip64_end_offset = offset_;

  Buffer end;
  // ZIP64 end of central directory record: PyTorch always writes one.
  put_u32(end, kZip64EndSignature);
  put_u64(end, kZip64EndSize - 12);  // size of the rest of the record
  put_u16(end, 0x031E);              // version made by: 3.0, Unix (miniz's constant)
  put_u16(end, 45);                  // version needed: 4.5, ZIP64
  put_u32(end, 0);                   // this disk
  put_u32(end, 0);                   // disk with the central directory
  put_u64(end, count_);              // entries on this disk
  put_u64(end, count_);              // entries in total
  put_u64(end, directory_size);
  put_u64(end, directory_offset);
  // ZIP64 end of central directory locator.
  put_u32(end, kZip64LocatorSignature);
  put_u32(end, 0);  // disk with the ZIP64 end record
  put_u64(end, zip64_end_offset);
  put_u32(end, 1);  // total disks
  // End of central directory record: values that do not fit hold the marker.
  auto count16 = static_cast<std::uint16_t>(std::min<std::uint64_t>(count_, kZip64Marker16));
  put_u32(end, kEndSignature);
  put_u16(end, 0);  // this disk
  put_u16(end, 0);  // disk with the central directory
  put_u16(end, count16);
  put_u16(end, count16);
  put_u32(end, directory_size >= threshold ? kZip64Marker32
                                           : static_cast<std::uint32_t>(directory_size));
  put_u32(end, directory_offset >= threshold ? kZip64Marker32
                                             : static_cast<std::uint32_t>(directory_offset));
  put_u16(end, 0);  // comment length
  write(end);

  try {
    Buffer bytes = output_->close();
    finished_ = true;
    return bytes;
  } catch (...) {
    broken_ = true;
    throw;
  }
}

}  // namespace symbolite::archive
