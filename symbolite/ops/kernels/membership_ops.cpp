// Element tests: isin (is each element among the test elements; Tensor and Scalar forms,
// inverted on request) and isreal (every element of a real tensor is real). As PyTorch 1.13:
// both sides promoted to their common dtype and compared by ==, so NaN is never found.
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

void check_isin_dtype(DType dtype) {
  if (dtype == DType::kBool || dtype == DType::kBFloat16) {
    fail(fmt::format("Unsupported input type encountered for isin(): {}",
                     tensor::scalar_type_name(dtype)));
  }
}

IValue as_dtype(const IValue& t, DType dtype) {
  return run_op("aten::to.dtype", {t, dtype_value(dtype), IValue(false), IValue(false), IValue()});
}

// isin(elements, test_elements, *, assume_unique, invert): a bool tensor of elements' shape.
void isin_tensor_tensor(Stack& s) {
  IValue invert = pop(s), assume_unique = pop(s), tests = pop(s), elements = pop(s);
  const Tensor& e = elements.to_tensor();
  const Tensor& t = tests.to_tensor();
  check_isin_dtype(e.dtype());
  check_isin_dtype(t.dtype());
  const DType common = ResultType().tensor(e).tensor(t).result();
  IValue column = run_op("aten::reshape", {as_dtype(elements, common), int_list_value({-1, 1})});
  IValue row = run_op("aten::reshape", {as_dtype(tests, common), int_list_value({1, -1})});
  IValue found = run_op("aten::any.dim", {run_op("aten::eq.Tensor", {column, row}),
                                          IValue(std::int64_t{1}), IValue(false)});
  if (invert.to_bool()) found = run_op("aten::logical_not", {found});
  s.push_back(run_op("aten::reshape", {found, int_list_value(e.sizes())}));
}

// isin(elements, test_element): elements == (or, inverted, !=) the number.
void isin_tensor_scalar(Stack& s) {
  IValue invert = pop(s), assume_unique = pop(s), test = pop(s), elements = pop(s);
  check_isin_dtype(elements.to_tensor().dtype());
  if ((test.kind() == IValue::Kind::kBool)) check_isin_dtype(DType::kBool);
  s.push_back(run_op(invert.to_bool() ? "aten::ne.Scalar" : "aten::eq.Scalar", {elements, test}));
}

// isin(element, test_elements): whether the number is among the tensor's elements (0-dim).
void isin_scalar_tensor(Stack& s) {
  IValue invert = pop(s), assume_unique = pop(s), tests = pop(s), element = pop(s);
  if ((element.kind() == IValue::Kind::kBool)) check_isin_dtype(DType::kBool);
  check_isin_dtype(tests.to_tensor().dtype());
  IValue found = run_op("aten::any", {run_op("aten::eq.Scalar", {tests, element})});
  if (invert.to_bool()) found = run_op("aten::logical_not", {found});
  s.push_back(found);
}

// isreal(self): true everywhere for a real tensor.
void isreal(Stack& s) {
  IValue self = pop(s);
  s.push_back(
      run_op("aten::full_like", {self, IValue(true), dtype_value(DType::kBool), {}, {}, {}, {}}));
}

}  // namespace

void register_membership_ops(OperatorRegistry& r) {
  const IValue no(false);
  r.add({"aten::isin.Tensor_Tensor", 4, {no, no}, isin_tensor_tensor});
  r.add({"aten::isin.Tensor_Scalar", 4, {no, no}, isin_tensor_scalar});
  r.add({"aten::isin.Scalar_Tensor", 4, {no, no}, isin_scalar_tensor});
  r.add({"aten::isreal", 1, {}, isreal});
}

}  // namespace symbolite::ops
