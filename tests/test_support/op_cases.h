// Runs the PyTorch reference cases of tests/fixtures/ops/op_cases.json (written by
// tests/fixtures/ops/make_op_refs.py) for one kernel family: each case calls the operator on
// the same arguments and must give PyTorch's outputs (dtype, shape, values within tolerance)
// or PyTorch's exact error class and message.
#pragma once

#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::testing {

// float32 [0, 1, ..., n - 1], for the tests the reference cases cannot express.
inline tensor::Tensor arange(std::int64_t n) {
  tensor::Tensor t = tensor::Tensor::empty({n}, tensor::DType::kFloat32);
  float* p = t.mutable_data<float>();
  for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i);
  return t;
}

inline const nlohmann::json& op_cases() {
  static const nlohmann::json all = [] {
    std::ifstream in(fixture_path("ops/op_cases.json"));
    return nlohmann::json::parse(in)["cases"];
  }();
  return all;
}

// A fixture tensor, copied into an owned (writable) storage as runtime tensors are.
inline tensor::Tensor load_op_tensor(const std::string& rel) {
  tensor::Tensor file = tensor::read_npy_file(fixture_path("ops/" + rel));
  tensor::Tensor t = tensor::Tensor::empty(file.sizes(), file.dtype());
  ops::copy_into(t, file);
  return t;
}

inline ops::IValue op_case_arg(const nlohmann::json& a) {
  using ops::IValue;
  if (a.is_boolean()) return IValue(a.get<bool>());
  if (a.is_number_integer()) return IValue(a.get<std::int64_t>());
  if (a.is_number_float()) return IValue(a.get<double>());
  if (a.contains("ints")) {
    ops::IValueList items;
    for (const auto& v : a["ints"]) items.emplace_back(v.get<std::int64_t>());
    return IValue::list(std::move(items));
  }
  if (a.contains("floats")) {
    ops::IValueList items;
    for (const auto& v : a["floats"]) {
      items.emplace_back(v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>());
    }
    return IValue::list(std::move(items));
  }
  if (a.contains("tensors")) {
    ops::IValueList items;
    for (const auto& v : a["tensors"]) items.push_back(op_case_arg(v));
    return IValue::list(std::move(items));
  }
  if (a.contains("none")) return IValue();
  if (a.contains("list") || a.contains("tuple")) {  // Python values, nested
    ops::IValueList items;
    for (const auto& v : a.contains("list") ? a["list"] : a["tuple"])
      items.push_back(op_case_arg(v));
    return a.contains("list") ? IValue::list(std::move(items)) : IValue::tuple(std::move(items));
  }
  if (a.contains("dict")) {  // [[key, value], ...] in insertion order
    auto d = std::make_shared<ops::Dict>();
    for (const auto& kv : a["dict"]) d->items.emplace_back(op_case_arg(kv[0]), op_case_arg(kv[1]));
    return IValue::dict(std::move(d));
  }
  if (a.contains("float")) return IValue(std::stod(a["float"].get<std::string>()));
  if (a.contains("str")) return IValue::string(a["str"].get<std::string>());
  if (a.contains("scalar_type")) {
    static const std::map<std::string, std::int64_t> codes = {
        {"uint8", 0},   {"int8", 1},    {"int32", 3}, {"int64", 4},    {"float16", 5},
        {"float32", 6}, {"float64", 7}, {"bool", 11}, {"bfloat16", 15}};
    return IValue(codes.at(a["scalar_type"].get<std::string>()));
  }
  if (a.contains("memory_format")) {  // c10::MemoryFormat codes
    static const std::map<std::string, std::int64_t> codes = {
        {"contiguous", 0}, {"preserve", 1}, {"channels_last", 2}};
    return IValue(codes.at(a["memory_format"].get<std::string>()));
  }
  tensor::Tensor t = load_op_tensor(a["tensor"].get<std::string>());
  if (!a.contains("view")) return IValue(t);
  const auto& v = a["view"];
  std::string kind = v[0].get<std::string>();
  if (kind == "t") return ops::run_op("aten::t", {t});
  if (kind == "permute") {
    return ops::run_op("aten::permute", {t, op_case_arg({{"ints", v[1]}})});
  }
  if (kind == "step") {
    return ops::run_op("aten::slice.Tensor",
                       {t, v[1].get<std::int64_t>(), IValue(), IValue(), v[2].get<std::int64_t>()});
  }
  if (kind == "expand") {  // stride 0 where the size grows
    auto sizes = v[1].get<std::vector<std::int64_t>>();
    std::vector<std::int64_t> strides(sizes.size(), 0);
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if (t.sizes()[d] == sizes[d]) strides[d] = t.strides()[d];
    }
    return IValue(tensor::Tensor::from_storage(t.storage(), t.dtype(), sizes, strides, 0));
  }
  throw std::runtime_error("unknown view " + kind);
}

// Element i of `t` (row-major) as double; `t` contiguous.
inline double op_element(const tensor::Tensor& t, std::int64_t i) {
  return ops::element_as_double(t, i);
}

inline void expect_tensor_matches(const tensor::Tensor& actual0, const std::string& rel,
                                  double rtol, double atol) {
  tensor::Tensor expected = tensor::read_npy_file(fixture_path("ops/" + rel));
  ASSERT_EQ(tensor::scalar_type_name(actual0.dtype()), tensor::scalar_type_name(expected.dtype()));
  ASSERT_EQ(tensor::format_sizes(actual0.sizes()), tensor::format_sizes(expected.sizes()));
  tensor::Tensor actual = actual0.contiguous();
  // Integer and bool results must be exact; floating ones within tolerance.
  bool exact = !ops::is_floating(expected.dtype());
  int reported = 0;
  for (std::int64_t i = 0; i < expected.numel(); ++i) {
    double a = op_element(actual, i), e = op_element(expected, i);
    bool ok = (std::isnan(a) && std::isnan(e)) || a == e ||
              (!exact && std::fabs(a - e) <= atol + rtol * std::fabs(e));
    if (!ok && reported++ < 5) ADD_FAILURE() << "element " << i << ": " << a << " vs " << e;
  }
}

// A Python value result ({"value": ...} outputs and "after" states) against its encoding
// (op_case_arg's): same kind, exact values (floats bit for bit but NaN), element by element.
inline void expect_value_matches(const ops::IValue& got, const nlohmann::json& want) {
  using K = ops::IValue::Kind;
  if (want.is_boolean()) {
    ASSERT_TRUE(got.is(K::kBool)) << got.repr();
    EXPECT_EQ(got.to_bool(), want.get<bool>());
  } else if (want.is_number_integer()) {
    ASSERT_TRUE(got.is(K::kInt)) << got.repr();
    EXPECT_EQ(got.to_int(), want.get<std::int64_t>());
  } else if (want.is_number_float() || want.contains("float")) {
    ASSERT_TRUE(got.is(K::kDouble)) << got.repr();
    double w =
        want.is_number_float() ? want.get<double>() : std::stod(want["float"].get<std::string>());
    double g = got.to_double();
    EXPECT_TRUE(g == w || (std::isnan(g) && std::isnan(w))) << g << " vs " << w;
    if (!std::isnan(w)) {  // "nan" has no sign
      EXPECT_EQ(std::signbit(g), std::signbit(w)) << g << " vs " << w;
    }
  } else if (want.contains("str")) {
    ASSERT_TRUE(got.is(K::kString)) << got.repr();
    EXPECT_EQ(got.to_string(), want["str"].get<std::string>());
  } else if (want.contains("none")) {
    EXPECT_TRUE(got.is_none()) << got.repr();
  } else if (want.contains("list") || want.contains("tuple")) {
    const bool list = want.contains("list");
    ASSERT_TRUE(got.is(list ? K::kList : K::kTuple)) << got.repr();
    const auto& items = list ? got.to_list() : got.to_tuple();
    const auto& w = list ? want["list"] : want["tuple"];
    ASSERT_EQ(items.size(), w.size()) << got.repr();
    for (std::size_t i = 0; i < items.size(); ++i) expect_value_matches(items[i], w[i]);
  } else if (want.contains("dict")) {
    ASSERT_TRUE(got.is(K::kDict)) << got.repr();
    const auto& items = got.to_dict().items;
    ASSERT_EQ(items.size(), want["dict"].size()) << got.repr();
    for (std::size_t i = 0; i < items.size(); ++i) {
      expect_value_matches(items[i].first, want["dict"][i][0]);
      expect_value_matches(items[i].second, want["dict"][i][1]);
    }
  } else {
    FAIL() << "unknown value encoding " << want.dump();
  }
}

// Runs `op` on `args`; a vararg operator (PyTorch's `...` schemas, called by OPN) also
// gets the argument count, as the interpreter pushes it.
inline std::vector<ops::IValue> run_case_op(const std::string& op, std::vector<ops::IValue> args,
                                            bool vararg) {
  if (!vararg) return ops::run_op_multi(op, std::move(args));
  const ops::OperatorDef* def = ops::default_registry().find(op);
  if (def == nullptr) throw std::runtime_error("no operator " + op);
  ops::Stack stack = std::move(args);
  stack.emplace_back(static_cast<std::int64_t>(stack.size()));
  def->kernel(stack);
  return stack;
}

inline void run_op_cases(const std::string& family, double rtol, double atol) {
  int ran = 0;
  for (const auto& c : op_cases()) {
    if (c["family"] != family) continue;
    ++ran;
    SCOPED_TRACE(c["name"].get<std::string>() + " (" + c["op"].get<std::string>() + ")");
    std::vector<ops::IValue> args;
    for (const auto& a : c["args"]) args.push_back(op_case_arg(a));
    std::string op = c["op"].get<std::string>();
    const bool vararg = c.contains("vararg");
    if (c.contains("error")) {
      std::string cls = "none", message;
      try {
        run_case_op(op, args, vararg);
      } catch (const ops::OpError& e) {
        cls = e.python_class();
        message = e.message();
      } catch (const Error& e) {
        cls = e.kind() == ErrorKind::kModel ? "RuntimeError" : std::string(to_string(e.kind()));
        message = e.message();
      }
      EXPECT_EQ(cls, c["error_class"].get<std::string>());
      // The reference holds the first line of PyTorch's message.
      EXPECT_EQ(message.substr(0, message.find('\n')), c["error"].get<std::string>());
      continue;
    }
    std::vector<ops::IValue> outs;
    try {
      outs = run_case_op(op, args, vararg);  // args still alias the lists and dicts it mutates
    } catch (const Error& e) {
      ADD_FAILURE() << "threw " << e.what();
      continue;
    }
    const auto& expected = c["outputs"];
    ASSERT_EQ(outs.size(), expected.size());
    for (std::size_t k = 0; k < outs.size(); ++k) {
      const auto& e = expected[k];
      if (e.contains("int")) {
        ASSERT_TRUE(outs[k].is(ops::IValue::Kind::kInt));
        EXPECT_EQ(outs[k].to_int(), e["int"].get<std::int64_t>());
      } else if (e.contains("bool")) {
        ASSERT_TRUE(outs[k].is(ops::IValue::Kind::kBool));
        EXPECT_EQ(outs[k].to_bool(), e["bool"].get<bool>());
      } else if (e.contains("float")) {
        ASSERT_TRUE(outs[k].is(ops::IValue::Kind::kDouble));
        double want = e["float"].is_string() ? std::stod(e["float"].get<std::string>())
                                             : e["float"].get<double>();
        double got = outs[k].to_double();
        EXPECT_TRUE(got == want || (std::isnan(got) && std::isnan(want))) << got << " vs " << want;
        EXPECT_EQ(std::signbit(got), std::signbit(want));
      } else if (e.contains("value")) {
        expect_value_matches(outs[k], e["value"]);
      } else if (e.contains("tensors")) {
        const auto& items = outs[k].to_list();
        ASSERT_EQ(items.size(), e["tensors"].size());
        for (std::size_t j = 0; j < items.size(); ++j) {
          expect_tensor_matches(items[j].to_tensor(), e["tensors"][j].get<std::string>(), rtol,
                                atol);
        }
      } else {
        expect_tensor_matches(outs[k].to_tensor(), e["tensor"].get<std::string>(), rtol, atol);
      }
    }
    // In-place list and dict methods: the first argument as PyTorch left it.
    if (c.contains("after")) expect_value_matches(args[0], c["after"]);
  }
  EXPECT_GT(ran, 0) << "no cases for family " << family;
}

}  // namespace symbolite::testing
