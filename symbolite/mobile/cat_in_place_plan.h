// What a chained cat's convolutions and the cat share (batch_norm_folding.h, CatChain): the
// shapes its items had the last time the cat ran, from which the first convolution to run sizes
// the buffer all of them write their outputs into and the cat returns whole
// (runtime/cat_in_place.h). Runs of the model on several threads share it, hence the lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "symbolite/tensor/dtype.h"

namespace symbolite::mobile {

// The items' shapes and dtype at the cat's last run, when they are contiguous parts of its
// output (every dimension before the cat's of size 1, all others equal).
struct CatShapes {
  std::vector<std::vector<std::int64_t>> sizes;
  std::int64_t dim = 0;  // the cat's dim, counted from the front
  tensor::DType dtype = tensor::DType::kFloat32;
};

class CatInPlacePlan {
 public:
  CatInPlacePlan(std::size_t cat_pc, std::size_t count) : cat_pc_(cat_pc), count_(count) {}

  std::size_t cat_pc() const { return cat_pc_; }
  std::size_t count() const { return count_; }  // items in the cat's list

  // Shared, not copied: every chained convolution asks, every run.
  std::shared_ptr<const CatShapes> last() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_;
  }
  void remember(std::shared_ptr<const CatShapes> shapes) {
    std::lock_guard<std::mutex> lock(mutex_);
    last_ = std::move(shapes);
  }

 private:
  std::size_t cat_pc_;
  std::size_t count_;
  mutable std::mutex mutex_;
  std::shared_ptr<const CatShapes> last_;  // null: nothing to go by
};

}  // namespace symbolite::mobile
