// PyTorch 1.13's operator upgraders for the lite interpreter. Some operators changed meaning
// over operator versions (the archive's `version` record): in a file older than the change,
// PyTorch's loader replaces each call to such an operator by a call to its upgrader, a
// function with the old meaning (integer `/` truncating before version 4, gelu without
// `approximate` before 10, linspace/logspace's optional `steps` before 8/9). symbolite does
// the same at load with a native kernel per upgrader, so old files compute what PyTorch
// computes for them.
//
// The table is PyTorch 1.13's mobile table (torch/csrc/jit/mobile/upgrader_mobile.cpp,
// getOperatorVersionMapForMobile), not the TorchScript one: aten::full's upgrader (full_0_4)
// exists for full TorchScript only, so the lite interpreter keeps today's torch.full in old
// files, and so does symbolite.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "symbolite/ops/registry/operator_registry.h"

namespace symbolite::mobile {

// caffe2::serialize::kProducedFileFormatVersion in PyTorch 1.13: its loader looks for
// upgraders only in files whose operator version is below it.
inline constexpr std::uint64_t kProducedOperatorVersion = 10;

struct OperatorUpgrader {
  std::string_view operator_name;  // "aten::div.Tensor"
  std::uint64_t min_version = 0;   // the operator versions it applies to, inclusive
  std::uint64_t max_version = 0;
  // PyTorch's name ("div_Tensor_0_3") and the native kernel with the old meaning. num_args is
  // the upgrader's own argument count: PyTorch's upgrader takes exactly that many values off
  // the stack, whatever number the call site recorded.
  ops::OperatorDef def;
  // The operators the kernel calls: without them in the registry the upgrader is missing.
  std::span<const std::string_view> calls;
};

// Every upgrader, in PyTorch's table order.
std::span<const OperatorUpgrader> operator_upgraders();

// The upgrader PyTorch 1.13 puts in place of `operator_name` ("aten::div.Tensor") in a file of
// `operator_version`, or null when the operator is used as it is.
const OperatorUpgrader* find_upgrader(std::string_view operator_name,
                                      std::uint64_t operator_version);

}  // namespace symbolite::mobile
