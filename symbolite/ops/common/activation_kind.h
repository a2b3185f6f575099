// The activations a kernel can apply to its own output as it writes it (ops/common/activation.h
// says which operators they stand for). An enum alone: the instruction-set translation units
// of vector_math.h include it (vector_math_isa.h says why they include nothing with code).
#pragma once

namespace symbolite::ops {

// kRelu6: hardtanh(x, 0, 6).
enum class Activation { kRelu, kRelu6, kHardswish, kHardsigmoid, kSilu };

}  // namespace symbolite::ops
