// aten::embedding_bag.padding_idx (nn.EmbeddingBag, F.embedding_bag): sums, means or maxima
// of bags of weight rows, with PyTorch's four outputs (output, offset2bag, bag_size,
// max_indices) as its CPU kernel fills them in inference.
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;

constexpr std::int64_t kSum = 0, kMean = 1, kMax = 2;

std::vector<std::int64_t> int_values(const Tensor& raw, const char* what) {
  if (raw.dtype() != DType::kInt64 && raw.dtype() != DType::kInt32) {
    fail(
        fmt::format("Expected tensor for argument #1 '{}' to have one of the following scalar "
                    "types: Long, Int; but got {} instead (while checking arguments for "
                    "embedding_bag)",
                    what, tensor::scalar_type_name(raw.dtype())));
  }
  Tensor t = raw.contiguous();
  std::vector<std::int64_t> out(static_cast<std::size_t>(t.numel()));
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    out[static_cast<std::size_t>(i)] =
        t.dtype() == DType::kInt64 ? t.data<std::int64_t>()[i] : t.data<std::int32_t>()[i];
  }
  return out;
}

Tensor int_tensor(const std::vector<std::int64_t>& values, std::vector<std::int64_t> sizes,
                  DType dtype) {
  Tensor t = Tensor::uninitialized(std::move(sizes), dtype);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kInt64) {
      t.mutable_data<std::int64_t>()[i] = values[i];
    } else {
      t.mutable_data<std::int32_t>()[i] = static_cast<std::int32_t>(values[i]);
    }
  }
  return t;
}

template <typename T>
void bags(const Tensor& weight, const std::vector<std::int64_t>& idx,
          const std::vector<std::int64_t>& bag_of, std::int64_t num_bags, std::int64_t mode,
          const Tensor* psw, std::int64_t padding_idx, Tensor& out,
          std::vector<std::int64_t>& bag_size, std::vector<std::int64_t>& max_idx) {
  const std::int64_t dim = weight.sizes()[1];
  const T* w = weight.data<T>();
  T* o = out.mutable_data<T>();
  Tensor psw_c = psw != nullptr ? psw->contiguous() : Tensor();
  const T* ps = psw != nullptr ? psw_c.data<T>() : nullptr;
  std::vector<char> seen(static_cast<std::size_t>(num_bags), 0);
  for (std::size_t j = 0; j < idx.size(); ++j) {
    const std::int64_t row = idx[j];
    if (row == padding_idx) continue;
    const std::int64_t b = bag_of[j];
    T* dst = o + b * dim;
    const T* src = w + row * dim;
    if (mode == kMax) {
      std::int64_t* mi = max_idx.data() + b * dim;
      for (std::int64_t k = 0; k < dim; ++k) {
        if (!seen[static_cast<std::size_t>(b)] || src[k] > dst[k]) {
          dst[k] = src[k];
          mi[k] = row;
        }
      }
      seen[static_cast<std::size_t>(b)] = 1;
    } else {
      const T scale = ps != nullptr ? ps[j] : T(1);
      for (std::int64_t k = 0; k < dim; ++k) dst[k] += scale * src[k];
    }
  }
  if (mode == kMean) {
    for (std::int64_t b = 0; b < num_bags; ++b) {
      const std::int64_t n = bag_size[static_cast<std::size_t>(b)];
      if (n == 0) continue;
      for (std::int64_t k = 0; k < dim; ++k) o[b * dim + k] /= static_cast<T>(n);
    }
  }
}

// embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets,
//   bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights,
//   bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)
void embedding_bag(Stack& s) {
  IValue padding_arg = pop(s);
  const bool include_last_offset = pop(s).to_bool();
  IValue psw_arg = pop(s);
  drop(s, 1);  // sparse: gradients only
  const std::int64_t mode = pop(s).to_int();
  drop(s, 1);  // scale_grad_by_freq: gradients only
  IValue offsets_arg = pop(s);
  IValue indices_arg = pop(s);
  IValue weight_arg = pop(s);
  const Tensor& weight_raw = weight_arg.to_tensor();
  const Tensor& indices_raw = indices_arg.to_tensor();
  const Tensor& offsets_raw = offsets_arg.to_tensor();
  const Tensor* psw = optional_tensor(psw_arg);
  if (mode < kSum || mode > kMax) {
    throw Error(ErrorKind::kUnsupported, fmt::format("embedding_bag: unknown mode {}", mode));
  }
  if (weight_raw.dim() != 2) fail("'weight' must be 2-D");
  require_floating("aten::embedding_bag", "embedding_bag", weight_raw.dtype());
  const std::int64_t num_weights = weight_raw.sizes()[0];
  std::int64_t padding_idx = -1;
  if (!padding_arg.is_none()) {
    padding_idx = padding_arg.to_int();
    if (padding_idx < -num_weights || padding_idx >= num_weights) {
      fail(
          fmt::format("padding_idx must be within the number of embeddings, -{} through {}, "
                      "but got {}",
                      num_weights, num_weights - 1, padding_idx));
    }
    if (padding_idx < 0) padding_idx += num_weights;
  }
  if (indices_raw.dim() != 1) {
    throw Error(ErrorKind::kUnsupported, "embedding_bag: symbolite takes 1-D indices only");
  }
  if (offsets_raw.dim() != 1) fail("offsets has to be a 1D Tensor");
  if (psw != nullptr && mode != kSum) {
    fail("embedding_bag: per_sample_weights only supported with mode='sum'");
  }
  if (psw != nullptr) {
    if (psw->dtype() != weight_raw.dtype()) {
      fail(fmt::format(
          "embedding_bag: Expected per_sample_weights to have the same dtype as "
          "weight, got {} and {}",
          tensor::scalar_type_name(psw->dtype()), tensor::scalar_type_name(weight_raw.dtype())));
    }
    if (psw->dim() != 1 || psw->sizes()[0] != indices_raw.numel()) {
      fail(
          fmt::format("embedding_bag: per_sample_weights must be 1-D with as many elements as "
                      "indices ({}), got {}",
                      indices_raw.numel(), format_ints(psw->sizes())));
    }
  }
  const std::vector<std::int64_t> idx = int_values(indices_raw, "indices");
  const std::vector<std::int64_t> offsets = int_values(offsets_raw, "offsets");
  const bool any_long =
      indices_raw.dtype() == DType::kInt64 || offsets_raw.dtype() == DType::kInt64;
  const DType int_dtype = any_long ? DType::kInt64 : DType::kInt32;
  const std::int64_t n = static_cast<std::int64_t>(idx.size());
  const std::int64_t num_offsets = static_cast<std::int64_t>(offsets.size());
  if (num_offsets > 0) {
    if (offsets[0] != 0) {
      fail(
          fmt::format("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has "
                      "to start from position 0. However, got {}",
                      offsets[0]));
    }
    if (offsets.back() > n) {
      fail(
          fmt::format("offsets[-1] can not be greater than input's length {} but got "
                      "offsets[-1] of {}",
                      n, offsets.back()));
    }
  }
  for (std::int64_t i = 1; i < num_offsets; ++i) {
    if (offsets[static_cast<std::size_t>(i)] < offsets[static_cast<std::size_t>(i - 1)]) {
      throw Error(ErrorKind::kUnsupported, "embedding_bag: offsets must be non-decreasing");
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t row = idx[static_cast<std::size_t>(j)];
    if (row < 0 || row >= num_weights) {
      if (mode == kMax || padding_idx >= 0 || weight_raw.dtype() != DType::kFloat32) {
        fail(
            fmt::format("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx "
                        "to be {}",
                        row));
      }
      fail(
          fmt::format("[enforce fail at embedding_lookup_idx.cc:214] 0 <= idx && idx < "
                      "data_size. Index {} is out of bounds: {}, range 0 to {}",
                      j, row, num_weights));
    }
  }
  const std::int64_t num_bags =
      include_last_offset ? std::max<std::int64_t>(num_offsets - 1, 0) : num_offsets;
  // The bag of each index: the last bag starting at or before it.
  std::vector<std::int64_t> bag_of(static_cast<std::size_t>(n), 0);
  {
    std::int64_t b = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      while (b + 1 < num_offsets && offsets[static_cast<std::size_t>(b + 1)] <= j) ++b;
      bag_of[static_cast<std::size_t>(j)] = b;
    }
  }
  // bag_size: lengths for mean and max (less the padding entries), zeros for sum.
  std::vector<std::int64_t> bag_size(
      static_cast<std::size_t>(mode == kSum ? num_offsets : num_bags), 0);
  if (mode != kSum) {
    for (std::int64_t b = 0; b < num_bags; ++b) {
      const std::int64_t end = b + 1 < num_offsets ? offsets[static_cast<std::size_t>(b + 1)] : n;
      bag_size[static_cast<std::size_t>(b)] = end - offsets[static_cast<std::size_t>(b)];
    }
    if (padding_idx >= 0) {
      for (std::int64_t j = 0; j < n; ++j) {
        const auto u = static_cast<std::size_t>(j);
        if (idx[u] == padding_idx && bag_of[u] < num_bags) {
          --bag_size[static_cast<std::size_t>(bag_of[u])];
        }
      }
    }
  }
  const std::int64_t dim = weight_raw.sizes()[1];
  Tensor weight = weight_raw.contiguous();
  Tensor out = Tensor::empty({num_bags, dim}, weight.dtype());
  std::vector<std::int64_t> max_idx(static_cast<std::size_t>(mode == kMax ? num_bags * dim : 0), 0);
  if (weight.dtype() == DType::kFloat32) {
    bags<float>(weight, idx, bag_of, num_bags, mode, psw, padding_idx, out, bag_size, max_idx);
  } else {
    bags<double>(weight, idx, bag_of, num_bags, mode, psw, padding_idx, out, bag_size, max_idx);
  }
  // offset2bag: empty on PyTorch's fast float32 sum path (no padding_idx).
  const bool fast_sum = mode == kSum && padding_idx < 0 && weight.dtype() == DType::kFloat32;
  Tensor offset2bag = fast_sum ? Tensor::empty({0}, int_dtype) : int_tensor(bag_of, {n}, int_dtype);
  const auto bags_len = static_cast<std::int64_t>(bag_size.size());
  Tensor bag_size_t = int_tensor(bag_size, {bags_len}, int_dtype);
  // max_indices: the maxima's rows for max; a copy of bag_size otherwise (as PyTorch fills it)
  Tensor max_indices = mode == kMax ? int_tensor(max_idx, {num_bags, dim}, int_dtype)
                                    : int_tensor(bag_size, {bags_len}, int_dtype);
  s.emplace_back(std::move(out));
  s.emplace_back(std::move(offset2bag));
  s.emplace_back(std::move(bag_size_t));
  s.emplace_back(std::move(max_indices));
}

}  // namespace

void register_embedding_bag_ops(OperatorRegistry& r) {
  r.add({"aten::embedding_bag.padding_idx", 9, {}, embedding_bag});
}

}  // namespace symbolite::ops::nn
