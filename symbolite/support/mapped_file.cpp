#include "symbolite/support/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite {
namespace {

struct Mapping {
  void* address = nullptr;
  std::size_t size = 0;
  ~Mapping() {
    if (address != nullptr) munmap(address, size);
  }
};

[[noreturn]] void fail_errno(const std::string& path, const char* what) {
  int err = errno;
  ErrorKind kind = err == ENOENT ? ErrorKind::kNotFound : ErrorKind::kIo;
  throw Error(kind, fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

}  // namespace

Bytes map_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_errno(path, "cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    fail_errno(path, "cannot stat");
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorKind::kIo, fmt::format("{}: is a directory, not a file", path));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return read_file(path);
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<std::size_t>(st.st_size);
  if (mapping->size == 0) {
    ::close(fd);
    return Bytes(mapping, nullptr, 0);
  }
  void* address = ::mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (address == MAP_FAILED) fail_errno(path, "cannot map");
  mapping->address = address;
  const auto* data = static_cast<const std::uint8_t*>(address);
  return Bytes(std::move(mapping), data, static_cast<std::size_t>(st.st_size));
}

Bytes read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_errno(path, "cannot open");
  std::vector<std::uint8_t> buffer;
  std::size_t used = 0;
  for (;;) {
    if (buffer.size() - used < 65536) {
      buffer.resize(std::min(std::max<std::size_t>(2 * buffer.size(), 1 << 20), kMaxStreamBytes + 65536));
    }
    ssize_t n = ::read(fd, buffer.data() + used, buffer.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      errno = err;
      fail_errno(path, "cannot read");
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
    if (used > kMaxStreamBytes) {
      ::close(fd);
      throw Error(ErrorKind::kLimit, fmt::format("{}: a stream (not a regular file) of more than {} MiB; "
                                                 "save it to a file first", path, kMaxStreamBytes >> 20));
    }
  }
  ::close(fd);
  buffer.resize(used);
  return Bytes::from_vector(std::move(buffer));
}

}  // namespace symbolite
