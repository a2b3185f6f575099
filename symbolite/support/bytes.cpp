#include "symbolite/support/bytes.h"

#include "symbolite/support/error.h"

namespace symbolite {

Bytes Bytes::from_vector(std::vector<std::uint8_t> buffer) {
  auto owned = std::make_shared<const std::vector<std::uint8_t>>(std::move(buffer));
  const std::uint8_t* data = owned->data();
  std::size_t size = owned->size();
  return Bytes(std::move(owned), data, size);
}

Bytes Bytes::copy_of(std::string_view text) {
  return from_vector(std::vector<std::uint8_t>(text.begin(), text.end()));
}

Bytes Bytes::slice(std::size_t offset, std::size_t length) const {
  if (offset > size_ || length > size_ - offset) {
    throw Error(ErrorKind::kInternal, "Bytes::slice out of range");
  }
  return Bytes(owner_, data_ + offset, length);
}

}  // namespace symbolite
