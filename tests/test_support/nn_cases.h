// Runs the PyTorch reference cases of the nn kernel families: tests/fixtures/ops/
// nn_cases.json (make_nn_refs.py) and nn_extra_cases.json (make_nn_extra_refs.py), which
// share one format. Each case calls the operator on the same arguments and must give all of
// PyTorch's outputs (rtol 1e-4, atol 1e-5; integers exactly, NaN and infinities as they are)
// or PyTorch's exact error class and message.
#pragma once

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::testing {

// The cases of tests/fixtures/ops/<file>, parsed once.
inline const nlohmann::json& nn_cases(const std::string& file) {
  static std::map<std::string, nlohmann::json> loaded;
  auto it = loaded.find(file);
  if (it == loaded.end()) {
    std::ifstream in(fixture_path("ops/" + file));
    it = loaded.emplace(file, nlohmann::json::parse(in)["cases"]).first;
  }
  return it->second;
}

inline std::vector<std::size_t> nn_case_indices(const std::string& file) {
  std::vector<std::size_t> out(nn_cases(file).size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  return out;
}

inline tensor::DType nn_dtype_named(const std::string& name) {
  using tensor::DType;
  static const std::map<std::string, DType> dtypes = {
      {"float32", DType::kFloat32}, {"float64", DType::kFloat64}, {"int64", DType::kInt64},
      {"int32", DType::kInt32},     {"int16", DType::kInt16},     {"uint8", DType::kUInt8},
      {"bool", DType::kBool}};
  auto it = dtypes.find(name);
  if (it == dtypes.end()) throw std::runtime_error("unknown dtype " + name);
  return it->second;
}

// {"tensor": "nn/x.npy"} a tensor from a file; {"zeros": [shape], "dtype": ...} a zero tensor.
inline tensor::Tensor nn_case_tensor(const nlohmann::json& a) {
  if (a.contains("tensor"))
    return tensor::read_npy_file(fixture_path("ops/" + a["tensor"].get<std::string>()));
  return tensor::Tensor::empty(a["zeros"].get<std::vector<std::int64_t>>(),
                               nn_dtype_named(a["dtype"].get<std::string>()));
}

inline ops::IValue nn_case_arg(const nlohmann::json& a) {
  using ops::IValue;
  if (a.is_boolean()) return IValue(a.get<bool>());
  if (a.is_number_integer()) return IValue(a.get<std::int64_t>());
  if (a.is_number_float()) return IValue(a.get<double>());
  if (a.is_array()) {
    ops::IValueList items;
    for (const auto& v : a) items.emplace_back(v.get<std::int64_t>());
    return IValue::list(std::move(items));
  }
  if (a.contains("none")) return IValue();
  if (a.contains("str")) return IValue::string(a["str"].get<std::string>());
  if (a.contains("float")) return IValue(std::stod(a["float"].get<std::string>()));  // inf, nan
  if (a.contains("scalar_type")) return IValue(std::int64_t{a["scalar_type"] == "float32" ? 6 : 7});
  if (a.contains("floats")) {
    ops::IValueList items;
    for (const auto& v : a["floats"]) items.emplace_back(v.get<double>());
    return IValue::list(std::move(items));
  }
  if (a.contains("tensors")) {
    ops::IValueList items;
    for (const auto& t : a["tensors"]) items.emplace_back(nn_case_tensor(t));
    return IValue::list(std::move(items));
  }
  if (a.contains("tensor") || a.contains("zeros")) return IValue(nn_case_tensor(a));
  throw std::runtime_error("unknown argument " + a.dump());
}

inline double nn_element(const tensor::Tensor& t, std::int64_t i) {
  return ops::element_as_double(t, i);
}

inline void nn_expect_close(const tensor::Tensor& actual_raw, const tensor::Tensor& expected_raw) {
  ASSERT_EQ(actual_raw.sizes(), expected_raw.sizes());
  ASSERT_EQ(actual_raw.dtype(), expected_raw.dtype());
  tensor::Tensor actual = actual_raw.contiguous();
  tensor::Tensor expected = expected_raw.contiguous();
  int reported = 0;
  for (std::int64_t i = 0; i < actual.numel(); ++i) {
    double a = nn_element(actual, i);
    double e = nn_element(expected, i);
    bool ok = std::isnan(e)   ? std::isnan(a)
              : std::isinf(e) ? a == e
                              : std::abs(a - e) <= 1e-5 + 1e-4 * std::abs(e);
    if (!ok && reported++ < 5) ADD_FAILURE() << "element " << i << ": " << a << " vs " << e;
  }
}

// One case: "output" (one tensor) or "outputs" (several), else "error_class" + "error".
inline void run_nn_case(const nlohmann::json& c) {
  SCOPED_TRACE(c["name"].get<std::string>());
  std::vector<ops::IValue> args;
  for (const auto& a : c["args"]) args.push_back(nn_case_arg(a));
  std::string op = c["op"].get<std::string>();
  if (c.contains("output") || c.contains("outputs")) {
    std::vector<std::string> files;  // empty: PyTorch returned None (an undefined tensor)
    if (c.contains("output")) {
      files.push_back(c["output"]);
    } else {
      for (const auto& f : c["outputs"]) files.push_back(f.is_null() ? "" : f.get<std::string>());
    }
    // A list result (meshgrid, unbind) counts as its elements, as the generators save them.
    std::vector<ops::IValue> outs;
    for (ops::IValue& v : ops::run_op_multi(op, std::move(args))) {
      if (v.is(ops::IValue::Kind::kList)) {
        for (const ops::IValue& item : v.to_list()) outs.push_back(item);
      } else {
        outs.push_back(std::move(v));
      }
    }
    ASSERT_EQ(outs.size(), files.size());
    for (std::size_t k = 0; k < outs.size(); ++k) {
      SCOPED_TRACE("output " + std::to_string(k));
      if (files[k].empty()) {
        EXPECT_TRUE(outs[k].is_none());
        continue;
      }
      nn_expect_close(outs[k].to_tensor(), tensor::read_npy_file(fixture_path("ops/" + files[k])));
    }
    return;
  }
  try {
    ops::run_op(op, std::move(args));
    ADD_FAILURE() << "expected " << c["error"];
  } catch (const ops::OpError& e) {
    EXPECT_EQ(e.python_class(), c["error_class"].get<std::string>());
    EXPECT_EQ(e.message(), c["error"].get<std::string>());
  } catch (const Error& e) {
    // A model error from below the kernels (broadcasting) reaches Python as a RuntimeError,
    // as op_cases.h counts it.
    EXPECT_EQ(e.kind() == ErrorKind::kModel ? "RuntimeError" : std::string(to_string(e.kind())),
              c["error_class"].get<std::string>());
    EXPECT_EQ(e.message(), c["error"].get<std::string>());
  }
}

// `op` on `args` refuses with Error(kUnsupported) — something symbolite does not do, not a
// PyTorch error — whose message contains `needle`.
inline void expect_unsupported(std::string_view op, std::vector<ops::IValue> args,
                               std::string_view needle = "") {
  try {
    ops::run_op(op, std::move(args));
    ADD_FAILURE() << op << " should fail";
  } catch (const ops::OpError& e) {
    ADD_FAILURE() << "expected an unsupported error, got " << e.message();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported) << e.message();
    EXPECT_NE(e.message().find(needle), std::string::npos) << e.message();
  }
}

}  // namespace symbolite::testing

// A parameterized suite `Suite.MatchesPyTorch/<case name>` over every case of `file`.
#define SYMBOLITE_NN_REFERENCE_SUITE(Suite, file)                                           \
  class Suite : public ::testing::TestWithParam<std::size_t> {};                            \
  TEST_P(Suite, MatchesPyTorch) {                                                           \
    ::symbolite::testing::run_nn_case(::symbolite::testing::nn_cases(file)[GetParam()]);    \
  }                                                                                         \
  INSTANTIATE_TEST_SUITE_P(                                                                 \
      , Suite, ::testing::ValuesIn(::symbolite::testing::nn_case_indices(file)),            \
      [](const ::testing::TestParamInfo<std::size_t>& info) {                               \
        return ::symbolite::testing::nn_cases(file)[info.param]["name"].get<std::string>(); \
      })
