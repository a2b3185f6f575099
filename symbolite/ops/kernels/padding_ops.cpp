// The padding operators traced models record (F.pad scripted is aten::pad): constant_pad_nd,
// reflection_pad1d/2d/3d and replication_pad1d/2d/3d, each aten::pad in its mode after the
// operator's own checks; and pad_sequence (nn.utils.rnn.pad_sequence), sequences of different
// lengths padded into one tensor.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

// constant_pad_nd(self, pad, value=0)
void constant_pad_nd(Stack& s) {
  IValue value = pop(s), pad = pop(s), self = pop(s);
  const Ints pads = int_list_arg(pad);
  const std::int64_t ndim = self.to_tensor().dim();
  if (pads.size() % 2 != 0) {
    fail(fmt::format("Length of pad must be even but instead it equals {}", pads.size()));
  }
  if (static_cast<std::int64_t>(pads.size() / 2) > ndim) {
    fail(
        fmt::format("Length of pad should be no more than twice the number of dimensions of the "
                    "input. Pad length is {}while the input has {}dimensions.",
                    pads.size(), ndim));
  }
  // The Scalar as it is: an int converts to the tensor's type as an int (-1 is a uint8's 255).
  s.push_back(run_op("aten::pad", {self, pad, IValue::string("constant"), value}));
}

// reflection_pad{N}d / replication_pad{N}d(self, padding): a batched or unbatched input of N
// spatial dimensions.
template <int kSpatial, bool kReflect>
void mode_pad(Stack& s) {
  IValue pad = pop(s), self = pop(s);
  const Ints pads = int_list_arg(pad);
  if (pads.size() != 2 * kSpatial)
    fail(fmt::format("padding size is expected to be {}", 2 * kSpatial));
  const Tensor& t = self.to_tensor();
  if (t.dim() != kSpatial + 1 && t.dim() != kSpatial + 2) {
    fail(
        fmt::format("Expected {}D or {}D (batch mode) tensor with possibly 0 batch size and other "
                    "non-zero dimensions for input, but got: {}",
                    kSpatial + 1, kSpatial + 2, tensor::format_sizes(t.sizes())));
  }
  s.push_back(run_op("aten::pad",
                     {self, pad, IValue::string(kReflect ? "reflect" : "replicate"), IValue()}));
}

// pad_sequence(sequences, batch_first=False, padding_value=0.0): [longest, n, ...] (or
// [n, longest, ...]) of the first sequence's dtype, each sequence copied in at its index.
void pad_sequence(Stack& s) {
  const double padding_value = pop(s).to_double();
  const bool batch_first = pop(s).to_bool();
  const std::vector<Tensor> sequences = tensor_list_arg(pop(s));
  if (sequences.empty()) fail("received an empty list of sequences");
  std::int64_t longest = 0;
  for (const Tensor& t : sequences) {
    if (t.dim() == 0) fail("Dimension specified as 0 but tensor has no dimensions");
    longest = std::max(longest, t.sizes()[0]);
  }
  const auto n = static_cast<std::int64_t>(sequences.size());
  Ints sizes = batch_first ? Ints{n, longest} : Ints{longest, n};
  sizes.insert(sizes.end(), sequences[0].sizes().begin() + 1, sequences[0].sizes().end());
  const IValue dtype = dtype_value(sequences[0].dtype());
  IValue out =
      run_op("aten::full", {int_list_value(sizes), IValue(padding_value), dtype, {}, {}, {}});
  const IValue zero(std::int64_t{0});
  for (std::int64_t i = 0; i < n; ++i) {
    const Tensor& seq = sequences[static_cast<std::size_t>(i)];
    const IValue length(seq.sizes()[0]);
    IValue place =
        batch_first ? run_op("aten::narrow", {run_op("aten::select.int", {out, zero, IValue(i)}),
                                              zero, zero, length})
                    : run_op("aten::select.int", {run_op("aten::narrow", {out, zero, zero, length}),
                                                  IValue(std::int64_t{1}), IValue(i)});
    run_op("aten::copy_", {place, IValue(seq), IValue(false)});
  }
  s.push_back(std::move(out));
}

}  // namespace

void register_padding_ops(OperatorRegistry& r) {
  r.add({"aten::constant_pad_nd", 3, {IValue(std::int64_t{0})}, constant_pad_nd});
  r.add({"aten::reflection_pad1d", 2, {}, mode_pad<1, true>});
  r.add({"aten::reflection_pad2d", 2, {}, mode_pad<2, true>});
  r.add({"aten::reflection_pad3d", 2, {}, mode_pad<3, true>});
  r.add({"aten::replication_pad1d", 2, {}, mode_pad<1, false>});
  r.add({"aten::replication_pad2d", 2, {}, mode_pad<2, false>});
  r.add({"aten::replication_pad3d", 2, {}, mode_pad<3, false>});
  r.add({"aten::pad_sequence", 3, {IValue(false), IValue(0.0)}, pad_sequence});
}

}  // namespace symbolite::ops
