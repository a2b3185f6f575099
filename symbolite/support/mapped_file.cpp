#include "symbolite/support/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite {
namespace {

// The live mappings, by the address of their Mapping (a Bytes' owner): release_mapped_pages
// acts only on bytes one of them owns. And what to call once one is gone (call_after_unmap).
class LiveMappings {
 public:
  void call_after_unmap(void (*f)()) {
    std::lock_guard lock(mutex_);
    after_unmap_.push_back(f);
  }
  void unmapped() {
    std::vector<void (*)()> calls;
    {
      std::lock_guard lock(mutex_);
      calls = after_unmap_;
    }
    for (auto* f : calls) f();
  }
  void add(const void* mapping) {
    std::lock_guard lock(mutex_);
    live_.insert(mapping);
  }
  void remove(const void* mapping) {
    std::lock_guard lock(mutex_);
    live_.erase(mapping);
  }
  bool contains(const void* mapping) {
    std::lock_guard lock(mutex_);
    return live_.contains(mapping);
  }

 private:
  std::mutex mutex_;
  std::unordered_set<const void*> live_;
  std::vector<void (*)()> after_unmap_;
};

LiveMappings& live_mappings() {
  static LiveMappings* live = new LiveMappings;  // never destroyed: mappings may outlive statics
  return *live;
}

struct Mapping {
  void* address = nullptr;
  std::size_t size = 0;
  Mapping() { live_mappings().add(this); }
  ~Mapping() {
    live_mappings().remove(this);
    if (address != nullptr) munmap(address, size);
    live_mappings().unmapped();
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
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

void call_after_unmap(void (*f)()) { live_mappings().call_after_unmap(f); }

void release_mapped_pages(const Bytes& bytes) {
  if (bytes.empty() || !live_mappings().contains(bytes.owner().get())) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(bytes.data());
  // Whole pages only: from the first page boundary at or after the start, up to the last
  // one at or before the end (pointer arithmetic on the bytes, not an integer cast back).
  const std::uintptr_t skip = (page - begin % page) % page;
  if (bytes.size() <= skip) return;
  const std::size_t length = (bytes.size() - skip) / page * page;
  // Advice only: a failure leaves the pages resident, which is all it can cost.
  if (length > 0) {
    auto* first = const_cast<std::uint8_t*>(bytes.data() + skip);
    ::madvise(first, length, MADV_DONTNEED);
  }
}

}  // namespace symbolite
