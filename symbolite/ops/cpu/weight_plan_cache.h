// What a kernel derives once from read-only weight bytes and keeps — a oneDNN primitive and
// the weights reordered into its layout (onednn_conv.h, onednn_matmul.h) — keyed by the
// bytes' address and the shape it was made for. A plan is only ever handed out for the bytes
// it was made from: entries are checked against the bytes' owner (a later file mapped at the
// same address is never mistaken for the earlier one), and a file's plans are dropped when it
// is unmapped (support/mapped_file.h call_after_unmap).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "symbolite/support/bytes.h"
#include "symbolite/support/mapped_file.h"

namespace symbolite::ops {

template <typename Plan>
class WeightPlanCache {
 public:
  // Plans kept at most: past it, all are made again.
  static constexpr std::size_t kMaxPlans = 4096;
  // The shape a plan was made for, unused fields zero: a fixed array, so a lookup (every call
  // of the kernel) allocates nothing.
  using Shape = std::array<std::int64_t, 18>;

  // The plan for `weight` and `shape`, made by `build` (under the cache's lock) when there is
  // none; a null plan ("not on this path") is remembered too.
  std::shared_ptr<const Plan> get(const Bytes& weight, const Shape& shape,
                                  const std::function<std::shared_ptr<const Plan>()>& build) {
    Key key{weight.data(), shape};
    std::lock_guard lock(mutex_);
    auto it = plans_.find(key);
    // Compared by owner, without taking a reference: a temporary last reference would unmap
    // a file here, under the lock, and call drop_stale() into it.
    if (it != plans_.end() && !it->second.owner.expired() &&
        !it->second.owner.owner_before(weight.owner()) &&
        !weight.owner().owner_before(it->second.owner)) {
      return it->second.plan;
    }
    erase_stale();  // the entry at this address, if any, belonged to bytes now gone
    if (plans_.size() >= kMaxPlans) plans_.clear();
    std::shared_ptr<const Plan> plan = build();
    plans_[key] = {weight.owner(), plan};
    return plan;
  }

  // Drops the plans whose weights' bytes are gone.
  void drop_stale() {
    std::lock_guard lock(mutex_);
    erase_stale();
  }

  // Plans kept now (not counting remembered nulls).
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return static_cast<std::size_t>(std::count_if(
        plans_.begin(), plans_.end(), [](const auto& entry) { return entry.second.plan; }));
  }

 private:
  struct Key {
    const void* weight;
    Shape shape;
    bool operator==(const Key& o) const { return weight == o.weight && shape == o.shape; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = std::hash<const void*>()(k.weight);
      for (std::int64_t v : k.shape) h = h * 1000003u ^ std::hash<std::int64_t>()(v);
      return h;
    }
  };
  struct Entry {
    std::weak_ptr<const void> owner;
    std::shared_ptr<const Plan> plan;
  };

  void erase_stale() {
    std::erase_if(plans_, [](const auto& entry) { return entry.second.owner.expired(); });
  }

  std::mutex mutex_;
  std::unordered_map<Key, Entry, KeyHash> plans_;
};

// The process's cache of `Plan`s, emptied of a file's plans when it is unmapped. Never
// destroyed: a file may be unmapped during static destruction.
template <typename Plan>
WeightPlanCache<Plan>& weight_plans() {
  static WeightPlanCache<Plan>* plans = [] {
    auto* made = new WeightPlanCache<Plan>;
    call_after_unmap([] { weight_plans<Plan>().drop_stale(); });
    return made;
  }();
  return *plans;
}

}  // namespace symbolite::ops
