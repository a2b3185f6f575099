#include "symbolite/runtime/cat_in_place.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <utility>

namespace symbolite::runtime {
namespace {

using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

std::int64_t elements(const Ints& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), std::int64_t{1}, std::multiplies<>());
}

Ints contiguous_strides(const Ints& sizes) {
  Ints strides(sizes.size(), 1);
  for (std::size_t i = sizes.size(); i > 1; --i) strides[i - 2] = strides[i - 1] * sizes[i - 1];
  return strides;
}

std::vector<PendingCat>::iterator find(std::vector<PendingCat>& pending, std::size_t cat_pc) {
  return std::find_if(pending.begin(), pending.end(),
                      [cat_pc](const PendingCat& p) { return p.cat_pc == cat_pc; });
}

// The items' shapes when they are contiguous parts of the cat's output along `dim`: the same
// dtype and rank, equal sizes but along `dim`, and every dimension before it of size 1.
std::shared_ptr<const mobile::CatShapes> tiling(const ops::IValueList& items, std::int64_t dim) {
  auto tiled = std::make_shared<mobile::CatShapes>();
  mobile::CatShapes& shapes = *tiled;
  for (const ops::IValue& item : items) {
    if (!item.is(ops::IValue::Kind::kTensor)) return nullptr;
    const Tensor& t = item.to_tensor();
    const auto rank = static_cast<std::int64_t>(t.dim());
    if (shapes.sizes.empty()) {
      if (rank == 0 || dim < -rank || dim >= rank) return nullptr;
      shapes.dim = dim < 0 ? dim + rank : dim;
      shapes.dtype = t.dtype();
    }
    const Ints& first = shapes.sizes.empty() ? t.sizes() : shapes.sizes.front();
    if (t.dtype() != shapes.dtype || t.sizes().size() != first.size()) return nullptr;
    for (std::size_t d = 0; d < first.size(); ++d) {
      const auto at = static_cast<std::int64_t>(d);
      if ((at < shapes.dim && t.sizes()[d] != 1) ||
          (at != shapes.dim && t.sizes()[d] != first[d])) {
        return nullptr;
      }
    }
    shapes.sizes.push_back(t.sizes());
  }
  return tiled;
}

}  // namespace

Tensor cat_part(std::vector<PendingCat>& pending, const mobile::CatInPlacePlan& plan,
                std::size_t item, const Ints& sizes, tensor::DType dtype) {
  const std::shared_ptr<const mobile::CatShapes> last = plan.last();
  auto own = [&] { return Tensor::uninitialized(sizes, dtype); };
  if (!last || last->sizes.size() != plan.count() || item >= last->sizes.size() ||
      last->sizes[item] != sizes || last->dtype != dtype) {
    return own();
  }
  auto at = find(pending, plan.cat_pc());
  if (at != pending.end() && at->handed[item]) {
    pending.erase(at);  // left by a run of the same code that never reached its cat
    at = pending.end();
  }
  if (at == pending.end()) {
    PendingCat p{plan.cat_pc(), {}, {}, last->sizes, std::vector<bool>(plan.count(), false)};
    const auto dim = static_cast<std::size_t>(last->dim);
    Ints total = sizes;
    total[dim] = 0;
    std::int64_t offset = 0;
    for (const Ints& part : last->sizes) {
      total[dim] += part[dim];
      p.offsets.push_back(offset);
      offset += elements(part);
    }
    p.buffer = Tensor::uninitialized(std::move(total), dtype);
    pending.push_back(std::move(p));
    at = pending.end() - 1;
  }
  at->handed[item] = true;
  const Tensor& buffer = at->buffer;
  return Tensor::from_storage(buffer.storage(), dtype, sizes, contiguous_strides(sizes),
                              buffer.storage_offset() + at->offsets[item]);
}

void run_cat_in_place(std::vector<PendingCat>& pending, const mobile::ResolvedOperator& op,
                      ops::Stack& stack) {
  mobile::CatInPlacePlan& plan = *op.cat_plan;
  const ops::IValue* args = ops::last(stack, 2);
  auto at = find(pending, plan.cat_pc());
  if (at != pending.end()) {
    PendingCat p = std::move(*at);
    pending.erase(at);
    // Every item its part of the buffer, as handed out.
    bool parts = args[0].is(ops::IValue::Kind::kList) &&
                 std::all_of(p.handed.begin(), p.handed.end(), [](bool h) { return h; });
    if (parts) {
      const ops::IValueList& items = args[0].to_list();
      parts = items.size() == p.sizes.size();
      const std::size_t element = p.buffer.element_size();
      for (std::size_t i = 0; parts && i < items.size(); ++i) {
        const Tensor* t = items[i].is(ops::IValue::Kind::kTensor) ? &items[i].to_tensor() : nullptr;
        parts =
            t != nullptr && t->sizes() == p.sizes[i] && t->is_contiguous() &&
            t->raw_data() == p.buffer.raw_data() + static_cast<std::size_t>(p.offsets[i]) * element;
      }
    }
    if (parts) {
      ops::drop(stack, 2);
      stack.emplace_back(std::move(p.buffer));
      return;
    }
  }
  std::shared_ptr<const mobile::CatShapes> shapes;
  if (args[0].is(ops::IValue::Kind::kList) && args[1].is(ops::IValue::Kind::kInt)) {
    shapes = tiling(args[0].to_list(), args[1].to_int());
  }
  op.def->kernel(stack);
  plan.remember(std::move(shapes));
}

}  // namespace symbolite::runtime
