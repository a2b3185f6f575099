#include "symbolite/pickle/memo.h"

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::pickle {

void Memo::put(std::uint64_t key, Value value) {
  if (key > max_key_) {
    throw Error(ErrorKind::kLimit,
                fmt::format("memo key {} exceeds the limit of {}", key, max_key_));
  }
  if (key < dense_.size() && dense_[key]) {
    *dense_[key] = std::move(value);
    return;
  }
  auto sparse = sparse_.find(key);
  if (sparse != sparse_.end()) {
    sparse->second = std::move(value);
    return;
  }
  if (size_ >= max_entries_) {
    throw Error(ErrorKind::kLimit, fmt::format("memo holds more than {} entries", max_entries_));
  }
  ++size_;
  if (key < dense_.size()) {
    dense_[key] = std::move(value);
  } else if (key == dense_.size()) {
    dense_.emplace_back(std::move(value));
  } else {
    sparse_.emplace(key, std::move(value));
  }
}

const Value* Memo::get(std::uint64_t key) const {
  if (key < dense_.size()) return dense_[key] ? &*dense_[key] : nullptr;
  auto sparse = sparse_.find(key);
  return sparse == sparse_.end() ? nullptr : &sparse->second;
}

}  // namespace symbolite::pickle
