// `Tensor.tolist()` as PyTorch 1.13's lite interpreter runs it (the TO_LIST instruction,
// mobile/promoted_prim_ops.cpp `toList`): the tensor's values as lists nested `dim` deep, of
// the element type TorchScript's annotation gave (`List[List[float]]`: dim 2, float). The
// tensor must agree with the annotation; a mismatch is PyTorch's RuntimeError, same text.
#pragma once

#include <cstdint>

#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::runtime {

// The element-type codes the bytecode pushes (PyTorch's order).
enum class ToListElement : std::int64_t { kInt = 0, kFloat = 1, kBool = 2, kComplex = 3 };

// `t`'s values as nested lists (a bare int/float/bool for dim 0). int wants an int64 tensor,
// bool a bool tensor, float any floating tensor (read as double); complex never matches,
// symbolite has no complex tensors. Throws ops::OpError("RuntimeError", ...) as PyTorch does.
// Unlike PyTorch, float16/bfloat16 tensors are read too (PyTorch fails an internal assert).
ops::IValue tensor_to_list(const tensor::Tensor& t, std::int64_t dim, std::int64_t element_type);

}  // namespace symbolite::runtime
