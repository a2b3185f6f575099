// eager_debug's schema checks: symbolite's kernels pass them on every run fixture (lowered_run_test
// runs them all through eager_debug), and test-only kernels that break their schema — a wrong
// dtype for an in-place result, an input changed behind the schema's back, a result of the
// wrong kind — are each caught with the rule and the argument named.
#include <gtest/gtest.h>

#include "symbolite/backends/debugging/schema_checks.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/ops/schema/schema_table.h"

namespace symbolite::backends {
namespace {

using ops::IValue;
using tensor::Tensor;

Tensor filled(float value) {
  Tensor t = Tensor::empty({2, 2}, tensor::DType::kFloat32);
  for (int i = 0; i < 4; ++i) t.mutable_data<float>()[i] = value;
  return t;
}

// relu_ that writes a new float64 tensor instead of its input.
void relu_in_place_wrong_dtype(ops::Stack& stack) {
  ops::pop(stack);
  stack.emplace_back(Tensor::empty({2, 2}, tensor::DType::kFloat64));
}

// relu that changes its input.
void relu_that_writes_its_input(ops::Stack& stack) {
  Tensor x = ops::pop(stack).to_tensor();
  x.mutable_data<float>()[0] = 0.0f;
  stack.emplace_back(filled(0.0f));
}

// relu that returns an int.
void relu_returning_an_int(ops::Stack& stack) {
  ops::pop(stack);
  stack.emplace_back(std::int64_t{3});
}

// A correct relu_.
void relu_in_place(ops::Stack& stack) {
  Tensor x = stack.back().to_tensor();
  for (int i = 0; i < 4; ++i) x.mutable_data<float>()[i] = std::max(0.0f, x.data<float>()[i]);
}

std::optional<std::string> check(const char* op, ops::Kernel kernel) {
  const ops::FunctionSchema* schema = ops::find_schema(op);
  EXPECT_NE(schema, nullptr);
  ops::Stack stack{IValue(filled(-1.0f))};
  return run_and_check(*schema, kernel, stack);
}

TEST(SchemaChecks, CatchAnInPlaceResultOfTheWrongDtype) {
  auto violation = check("aten::relu_", relu_in_place_wrong_dtype);
  ASSERT_TRUE(violation.has_value());
  EXPECT_NE(violation->find(
                "returned a torch.float64 tensor of sizes [2, 2] instead of its argument 'self'"),
            std::string::npos)
      << *violation;
}

TEST(SchemaChecks, CatchAnInputChangedBehindTheSchemasBack) {
  auto violation = check("aten::relu", relu_that_writes_its_input);
  ASSERT_TRUE(violation.has_value());
  EXPECT_NE(violation->find("aten::relu changed its argument 'self'"), std::string::npos)
      << *violation;
}

TEST(SchemaChecks, CatchAResultOfTheWrongKind) {
  auto violation = check("aten::relu", relu_returning_an_int);
  ASSERT_TRUE(violation.has_value());
  EXPECT_NE(violation->find("returned a int as result 0; its schema returns Tensor"),
            std::string::npos)
      << *violation;
}

TEST(SchemaChecks, PassACorrectInPlaceKernel) {
  EXPECT_FALSE(check("aten::relu_", relu_in_place).has_value());
}

}  // namespace
}  // namespace symbolite::backends
