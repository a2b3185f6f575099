#include "symbolite/support/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// Refuses what is not a regular file by name, before opening it: opening a FIFO without a
// writer would block, and a device like /dev/zero never ends.
void require_regular_file(const std::string& path, const struct stat& st) {
  if (S_ISDIR(st.st_mode))
    throw Error(ErrorKind::kIo, fmt::format("{}: is a directory, not a file", path));
  if (!S_ISREG(st.st_mode)) {
    throw Error(ErrorKind::kIo, fmt::format("{}: is not a regular file (a device, FIFO or socket); "
                                            "save it to a file first",
                                            path));
  }
}

}  // namespace

Bytes map_file(const std::string& path, MapPrefetch prefetch) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail_errno(path, "cannot open");
  require_regular_file(path, st);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail_errno(path, "cannot open");
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    fail_errno(path, "cannot stat");
  }
  if (!S_ISREG(st.st_mode)) ::close(fd);
  require_regular_file(path, st);  // replaced between stat and open
  auto mapping = std::make_shared<Mapping>();
  mapping->size = static_cast<std::size_t>(st.st_size);
  if (mapping->size == 0) {
    ::close(fd);
    return Bytes(mapping, nullptr, 0);
  }
  const int flags = MAP_PRIVATE | (prefetch == MapPrefetch::kWhole ? MAP_POPULATE : 0);
  void* address = ::mmap(nullptr, mapping->size, PROT_READ, flags, fd, 0);
  ::close(fd);
  if (address == MAP_FAILED) fail_errno(path, "cannot map");
  mapping->address = address;
  const auto* data = static_cast<const std::uint8_t*>(address);
  return Bytes(std::move(mapping), data, static_cast<std::size_t>(st.st_size));
}

}  // namespace symbolite
