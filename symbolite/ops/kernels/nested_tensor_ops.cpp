// The nested tensors of nn.TransformerEncoder's fast path. Given a padding mask in eval, PyTorch
// 1.13 turns the padded batch into a NestedTensor (`_nested_tensor_from_mask`), runs every
// layer on it (`_transformer_encoder_layer_fwd`, transformer_ops.cpp) and pads it back
// (`to_padded_tensor`). symbolite keeps a nested tensor padded, with the length of each
// sequence (Tensor::nested_lengths): a layer masks the keys past each length, so the
// sequences' own rows are what PyTorch computes, and padding back writes `padding` past them.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;

// PyTorch's checks of (t, mask), then each row's count of true values and whether every row is
// true up to its count and false after (left-aligned without gaps).
struct MaskRows {
  std::vector<std::int64_t> lengths;
  bool left_aligned = true;
};

MaskRows mask_rows(const Tensor& t, const Tensor& mask) {
  if (mask.dtype() != DType::kBool) {
    fail(fmt::format("Expected mask to be of ScalarType Bool, but got {} instead.",
                     tensor::scalar_type_name(mask.dtype())));
  }
  if (mask.dim() != 2) fail("Padding mask should be 2D");
  if (t.dim() != 3) fail("Input should be a 3D tensor, N * L * D");
  const std::int64_t n = t.sizes()[0], l = t.sizes()[1];
  if (mask.sizes()[0] != n || mask.sizes()[1] != l) fail("Mask size should match input size");
  const Tensor m = mask.contiguous();
  const bool* p = m.data<bool>();
  MaskRows rows;
  for (std::int64_t i = 0; i < n; ++i) {
    const bool* row = p + i * l;
    const auto count = static_cast<std::int64_t>(std::count(row, row + l, true));
    const auto first_false = static_cast<std::int64_t>(std::find(row, row + l, false) - row);
    rows.lengths.push_back(count);
    rows.left_aligned = rows.left_aligned && count == first_false;
  }
  return rows;
}

// _nested_tensor_from_mask_left_aligned(Tensor t, Tensor mask) -> bool
void from_mask_left_aligned(Stack& s) {
  IValue mask = pop(s), t = pop(s);
  s.emplace_back(mask_rows(t.to_tensor(), mask.to_tensor()).left_aligned);
}

// _nested_tensor_from_mask(Tensor t, Tensor mask, bool mask_check=True) -> Tensor: sequence i
// is the first (number of true values in mask row i) rows of t[i].
void from_mask(Stack& s) {
  const bool check = pop(s).to_bool();
  IValue mask = pop(s), t = pop(s);
  MaskRows rows = mask_rows(t.to_tensor(), mask.to_tensor());
  if (check && !rows.left_aligned) fail("Mask must be left-aligned without gaps");
  s.emplace_back(t.to_tensor().as_nested(std::move(rows.lengths)));
}

// to_padded_tensor(Tensor self, float padding, int[]? output_size=None) -> Tensor: the
// sequences stacked, each padded with `padding` to the longest (PyTorch's output size).
void to_padded_tensor(Stack& s) {
  IValue output_size = pop(s);
  const double padding = pop(s).to_double();
  IValue self = pop(s);
  const Tensor& t = self.to_tensor();
  if (t.nested_lengths() == nullptr) {
    throw Error(ErrorKind::kUnsupported,
                "aten::to_padded_tensor takes a nested tensor (only nn.TransformerEncoder's are "
                "supported)");
  }
  if (!output_size.is_none()) {
    throw Error(ErrorKind::kUnsupported, "aten::to_padded_tensor with an output_size");
  }
  const std::vector<std::int64_t>& lengths = *t.nested_lengths();
  const std::int64_t longest =
      lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  std::vector<std::int64_t> sizes = t.sizes();
  sizes[1] = longest;
  Tensor out = run_op("aten::full", {int_list_value(sizes), padding, scalar_type_code(t.dtype()),
                                     IValue(), IValue(), IValue()})
                   .to_tensor();
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const auto row = static_cast<std::int64_t>(i);
    auto rows_of = [&](const Tensor& x) {
      IValue sequence = run_op("aten::select.int", {x, std::int64_t{0}, row});
      return run_op("aten::slice.Tensor",
                    {sequence, std::int64_t{0}, std::int64_t{0}, lengths[i], std::int64_t{1}});
    };
    run_op("aten::copy_", {rows_of(out), rows_of(t), false});
  }
  s.emplace_back(std::move(out));
}

}  // namespace

void register_nested_tensor_ops(OperatorRegistry& r) {
  r.add({"aten::_nested_tensor_from_mask_left_aligned", 2, {}, from_mask_left_aligned});
  r.add({"aten::_nested_tensor_from_mask", 3, {IValue(true)}, from_mask});
  r.add({"aten::to_padded_tensor", 3, {IValue()}, to_padded_tensor});
}

}  // namespace symbolite::ops::nn
