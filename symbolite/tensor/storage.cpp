#include "symbolite/tensor/storage.h"

#include <cstring>
#include <memory>

#include "symbolite/support/error.h"
#include "symbolite/tensor/buffer_pool.h"

namespace symbolite::tensor {
Storage Storage::allocate(std::size_t nbytes) {
  Storage storage = allocate_uninitialized(nbytes);
  std::memset(storage.writable_, 0, nbytes);
  return storage;
}

Storage Storage::allocate_uninitialized(std::size_t nbytes) {
  std::shared_ptr<std::uint8_t> owner = acquire_buffer(nbytes);
  std::uint8_t* raw = owner.get();
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
