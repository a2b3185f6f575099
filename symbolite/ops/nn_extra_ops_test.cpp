// The kernels of the sequence, convolution and pooling fixture models against PyTorch 1.13:
// every case of tests/fixtures/ops/nn_extra_cases.json (written by make_nn_extra_refs.py)
// runs the operator on the same arguments and must give all of PyTorch's outputs (rtol 1e-4,
// atol 1e-5; integer outputs exactly) or PyTorch's exact error class and message.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/ops/kernel_runner.h"
#include "symbolite/ops/op_error.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

const nlohmann::json& cases() {
  static const nlohmann::json all = [] {
    std::ifstream in(testing::fixture_path("ops/nn_extra_cases.json"));
    return nlohmann::json::parse(in)["cases"];
  }();
  return all;
}

DType dtype_named(const std::string& name) {
  if (name == "float32") return DType::kFloat32;
  if (name == "float64") return DType::kFloat64;
  if (name == "int64") return DType::kInt64;
  if (name == "uint8") return DType::kUInt8;
  if (name == "bool") return DType::kBool;
  throw std::runtime_error("unknown dtype " + name);
}

Tensor tensor_value(const nlohmann::json& a) {
  if (a.contains("tensor")) {
    return tensor::read_npy_file(testing::fixture_path("ops/" + a["tensor"].get<std::string>()));
  }
  return Tensor::empty(a["zeros"].get<std::vector<std::int64_t>>(),
                       dtype_named(a["dtype"].get<std::string>()));
}

IValue arg_value(const nlohmann::json& a) {
  if (a.is_boolean()) return IValue(a.get<bool>());
  if (a.is_number_integer()) return IValue(a.get<std::int64_t>());
  if (a.is_number_float()) return IValue(a.get<double>());
  if (a.is_array()) {
    IValueList items;
    for (const auto& v : a) items.emplace_back(v.get<std::int64_t>());
    return IValue::list(std::move(items));
  }
  if (a.contains("none")) return IValue();
  if (a.contains("float")) return IValue(std::stod(a["float"].get<std::string>()));
  if (a.contains("tensors")) {
    IValueList items;
    for (const auto& t : a["tensors"]) items.emplace_back(tensor_value(t));
    return IValue::list(std::move(items));
  }
  return IValue(tensor_value(a));
}

double element(const Tensor& t, std::int64_t i) {
  switch (t.dtype()) {
    case DType::kFloat32: return t.data<float>()[i];
    case DType::kFloat64: return t.data<double>()[i];
    case DType::kInt64: return static_cast<double>(t.data<std::int64_t>()[i]);
    default: throw std::runtime_error("unexpected output dtype");
  }
}

void expect_close(const Tensor& actual_raw, const Tensor& expected_raw) {
  ASSERT_EQ(actual_raw.sizes(), expected_raw.sizes());
  ASSERT_EQ(actual_raw.dtype(), expected_raw.dtype());
  Tensor actual = actual_raw.contiguous();
  Tensor expected = expected_raw.contiguous();
  int reported = 0;
  for (std::int64_t i = 0; i < actual.numel(); ++i) {
    double a = element(actual, i);
    double e = element(expected, i);
    bool ok = std::isnan(e)   ? std::isnan(a)
              : std::isinf(e) ? a == e
                              : std::abs(a - e) <= 1e-5 + 1e-4 * std::abs(e);
    if (!ok && reported++ < 5) ADD_FAILURE() << "element " << i << ": " << a << " vs " << e;
  }
}

class NnExtraOpsReference : public ::testing::TestWithParam<std::size_t> {};

TEST_P(NnExtraOpsReference, MatchesPyTorch) {
  const auto& c = cases()[GetParam()];
  SCOPED_TRACE(c["name"].get<std::string>());
  std::vector<IValue> args;
  for (const auto& a : c["args"]) args.push_back(arg_value(a));
  std::string op = c["op"].get<std::string>();
  if (c.contains("outputs")) {
    std::vector<IValue> outs = run_op_multi(op, std::move(args));
    ASSERT_EQ(outs.size(), c["outputs"].size());
    for (std::size_t k = 0; k < outs.size(); ++k) {
      SCOPED_TRACE("output " + std::to_string(k));
      Tensor expected = tensor::read_npy_file(
          testing::fixture_path("ops/" + c["outputs"][k].get<std::string>()));
      expect_close(outs[k].to_tensor(), expected);
    }
  } else {
    try {
      run_op(op, std::move(args));
      ADD_FAILURE() << "expected " << c["error"];
    } catch (const OpError& e) {
      EXPECT_EQ(e.python_class(), c["error_class"].get<std::string>());
      EXPECT_EQ(e.message(), c["error"].get<std::string>());
    }
  }
}

std::vector<std::size_t> case_indices() {
  std::vector<std::size_t> out(cases().size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

INSTANTIATE_TEST_SUITE_P(, NnExtraOpsReference, ::testing::ValuesIn(case_indices()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return cases()[info.param]["name"].get<std::string>();
                         });

void expect_unsupported(std::string_view op, std::vector<IValue> args) {
  try {
    run_op(op, std::move(args));
    ADD_FAILURE() << op << " should fail";
  } catch (const OpError& e) {
    ADD_FAILURE() << "expected an unsupported error, got " << e.message();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported) << e.message();
  }
}

IValue tensors(std::vector<Tensor> ts) {
  IValueList items(ts.begin(), ts.end());
  return IValue::list(std::move(items));
}

TEST(NnExtraOps, LstmRefusesWhatItDoesNotImplement) {
  auto zeros = [](std::vector<std::int64_t> s) { return Tensor::empty(std::move(s), DType::kFloat32); };
  IValue params = tensors({zeros({24, 5}), zeros({24, 6}), zeros({24}), zeros({24})});
  IValue hx = tensors({zeros({1, 2, 6}), zeros({1, 2, 6})});
  // 2-d input (PyTorch broadcasts it oddly), training dropout (random), a batch of one
  // against a larger hidden batch (broadcasts in PyTorch).
  expect_unsupported("aten::lstm.input", {zeros({3, 5}), hx, params, true, 1, 0.0, false, false, false});
  IValue params2 = tensors({zeros({24, 5}), zeros({24, 6}), zeros({24}), zeros({24}),
                            zeros({24, 6}), zeros({24, 6}), zeros({24}), zeros({24})});
  IValue hx2 = tensors({zeros({2, 2, 6}), zeros({2, 2, 6})});
  expect_unsupported("aten::lstm.input",
                     {zeros({3, 2, 5}), hx2, params2, true, 2, 0.5, true, false, false});
  expect_unsupported("aten::lstm.input", {zeros({3, 1, 5}), hx, params, true, 1, 0.0, false, false, false});
}

TEST(NnExtraOps, MaskedFillRefusesOtherMaskTypes) {
  Tensor x = Tensor::empty({3}, DType::kFloat32);
  expect_unsupported("aten::masked_fill.Scalar", {x, Tensor::empty({3}, DType::kFloat32), 1.0});
}

TEST(NnExtraOps, ListOps) {
  auto ints = [](std::vector<std::int64_t> v) {
    IValueList items(v.begin(), v.end());
    return IValue::list(std::move(items));
  };
  EXPECT_TRUE(run_op("aten::ne.int_list", {ints({2, 3}), ints({2, 4})}).to_bool());
  EXPECT_FALSE(run_op("aten::ne.int_list", {ints({2, 3}), ints({2, 3})}).to_bool());
  EXPECT_FALSE(run_op("aten::eq.int_list", {ints({2}), ints({2, 3})}).to_bool());
  IValue original = ints({1, 2});
  IValue copy = run_op("aten::list.t", {original});
  EXPECT_NE(copy.identity(), original.identity());
  EXPECT_EQ(copy.to_list().size(), 2u);
  auto unpacked = run_op_multi("prim::TupleUnpack", {IValue::tuple({IValue(1), IValue(2.5)})});
  ASSERT_EQ(unpacked.size(), 2u);
  EXPECT_EQ(unpacked[0].to_int(), 1);
  EXPECT_EQ(unpacked[1].to_double(), 2.5);
}

}  // namespace
}  // namespace symbolite::ops
