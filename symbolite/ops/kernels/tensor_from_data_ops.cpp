// torch.tensor in TorchScript: aten::tensor of a (nested) list of numbers, and of one int,
// float or bool. The shape follows the nesting (every sublist of one level the same length),
// the dtype the elements (float: the default float32; int: int64; bool: bool) unless one is
// asked for, as PyTorch's tensor() builds it.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// The shape of nested lists, from the first element of each level.
std::vector<std::int64_t> nesting(const IValue& data) {
  std::vector<std::int64_t> sizes;
  const IValue* level = &data;
  while (level->is(IValue::Kind::kList)) {
    const IValueList& items = level->to_list();
    sizes.push_back(static_cast<std::int64_t>(items.size()));
    if (items.empty()) break;
    level = &items.front();
  }
  return sizes;
}

DType element_dtype(const IValue& v) {
  if (v.is(IValue::Kind::kDouble)) return DType::kFloat32;
  if (v.is(IValue::Kind::kBool)) return DType::kBool;
  if (v.is(IValue::Kind::kInt)) return DType::kInt64;
  fail(fmt::format("tensor(): expected a number, a bool or a list of them, got {}", v.str()));
}

// Appends the numbers of `v` (at nesting depth `depth`) in row-major order, checking every
// list of a level has the level's length.
void flatten(const IValue& v, const std::vector<std::int64_t>& sizes, std::size_t depth,
             std::vector<IValue>& out) {
  if (depth == sizes.size()) {
    if (v.is(IValue::Kind::kList)) fail("Expected a sequence of numbers, got a nested list");
    out.push_back(v);
    return;
  }
  if (!v.is(IValue::Kind::kList)) {
    fail(fmt::format("Expected sequence of length {} at dim {} (got a number)", sizes[depth],
                     depth));
  }
  const IValueList& items = v.to_list();
  if (static_cast<std::int64_t>(items.size()) != sizes[depth]) {
    fail(fmt::format("Expected sequence of length {} at dim {} (got {})", sizes[depth], depth,
                     items.size()));
  }
  for (const IValue& item : items) flatten(item, sizes, depth + 1, out);
}

Tensor from_data(const IValue& data, const IValue& dtype_v) {
  const std::vector<std::int64_t> sizes = nesting(data);
  std::vector<IValue> values;
  flatten(data, sizes, 0, values);
  DType inferred = DType::kFloat32;  // an empty list: the default dtype
  if (!values.empty()) inferred = element_dtype(values.front());
  const DType dtype = dtype_arg(dtype_v).value_or(inferred);
  Tensor out = Tensor::uninitialized(sizes, dtype);
  dispatch_all(dtype, "tensor", [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.template mutable_data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) dst[i] = scalar_as<T>(values[i]);
  });
  return out;
}

// tensor(t[] data, *, dtype=None, device=None, requires_grad=False) and the one-number forms.
void tensor_op(Stack& s) {
  IValue requires_grad = pop(s), device = pop(s), dtype = pop(s), data = pop(s);
  (void)requires_grad;
  (void)device;  // CPU only
  s.emplace_back(from_data(data, dtype));
}

}  // namespace

void register_tensor_from_data_ops(OperatorRegistry& r) {
  const IValue none, no(false);
  for (const char* name :
       {"aten::tensor", "aten::tensor.float", "aten::tensor.int", "aten::tensor.bool"}) {
    r.add({name, 4, {none, none, no}, tensor_op});
  }
}

}  // namespace symbolite::ops
