// Floating-point operation counts per operator, from the shapes of its inputs and outputs.
//
// The formulas are PyTorch's (torch/csrc/profiler/util.cpp, `computeFlops`) for the
// operators it counts — conv2d, mm, addmm, bmm, baddbmm, add, mul — with one multiply-add
// counted as 2 FLOPs, and the same idea carried to the ones it leaves at 0 that models run
// through the lite interpreter: conv1d / conv3d, linear, matmul, sub, div. Two deliberate
// differences: elementwise operators count their output's elements (PyTorch counts the
// first input's, which undercounts `scale * x` when scale broadcasts), and convolutions are
// counted from their output shape, so a call whose trailing arguments the bytecode left to
// their defaults is counted too (PyTorch 1.13's profiler gives such calls 0, with a warning).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "symbolite/profiler/op_event.h"

namespace symbolite::profiler {

// FLOPs of one call of `op` ("aten::conv2d", overload optional), or -1 when the operator has
// no formula or the shapes do not fit it.
std::int64_t estimate_flops(std::string_view op, std::span<const ValueMeta> inputs,
                            std::span<const ValueMeta> outputs);

}  // namespace symbolite::profiler
