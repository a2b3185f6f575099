// `Memo`: the unpickler's memo table (PUT/GET/MEMOIZE), bounded by UnpicklerLimits.
//
// Writers number memo entries 0, 1, 2, ..., so keys are kept in a vector while they come
// in order; any other key goes to a hash map, so a hostile PUT of key 2^32-1 costs one
// entry, not a 4-billion-slot vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "symbolite/pickle/value.h"

namespace symbolite::pickle {

class Memo {
 public:
  Memo(std::size_t max_entries, std::size_t max_key)
      : max_entries_(max_entries), max_key_(max_key) {}

  // Stores (or replaces) `value` under `key`. Error(kLimit) past the limits.
  void put(std::uint64_t key, Value value);
  // The value stored under `key`, or nullptr if it was never stored.
  const Value* get(std::uint64_t key) const;
  // Number of keys stored; MEMOIZE uses it as the next key.
  std::size_t size() const { return size_; }

 private:
  std::size_t max_entries_;
  std::size_t max_key_;
  std::vector<std::optional<Value>> dense_;  // keys [0, dense_.size())
  std::unordered_map<std::uint64_t, Value> sparse_;
  std::size_t size_ = 0;
};

}  // namespace symbolite::pickle
