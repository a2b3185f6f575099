#include "symbolite/tensor/storage.h"

#include <cstring>
#include <memory>
#include <new>

#include "symbolite/support/error.h"

namespace symbolite::tensor {
namespace {

constexpr std::align_val_t kAlignment{64};

struct AlignedDelete {
  void operator()(std::uint8_t* p) const { ::operator delete(p, kAlignment); }
};

}  // namespace

Storage Storage::allocate(std::size_t nbytes) {
  // operator new(0, align) still gives a unique pointer, so an empty storage is writable too.
  auto* raw = static_cast<std::uint8_t*>(::operator new(nbytes, kAlignment));
  std::shared_ptr<std::uint8_t> owner(raw, AlignedDelete{});
  std::memset(raw, 0, nbytes);
  Storage storage;
  storage.bytes_ = Bytes(std::move(owner), raw, nbytes);
  storage.writable_ = raw;
  return storage;
}

Storage Storage::view(Bytes bytes) {
  Storage storage;
  storage.bytes_ = std::move(bytes);
  return storage;
}

std::uint8_t* Storage::mutable_data() const {
  if (writable_ == nullptr && !bytes_.empty()) {
    throw Error(ErrorKind::kUsage, "storage is a read-only view; copy it before writing");
  }
  return writable_;
}

bool Storage::is_aligned(DType dtype) const {
  return reinterpret_cast<std::uintptr_t>(data()) % element_size(dtype) == 0;
}

}  // namespace symbolite::tensor
