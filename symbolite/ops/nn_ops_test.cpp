// The nn kernels against PyTorch 1.13: every case of tests/fixtures/ops/nn_cases.json (written
// by make_nn_refs.py) runs the operator on the same arguments and must give PyTorch's output
// with its dtype (float32 or float64 alike within rtol 1e-4, atol 1e-5) or PyTorch's exact
// error class and message.
#include <cmath>
#include <cstring>
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
    std::ifstream in(testing::fixture_path("ops/nn_cases.json"));
    return nlohmann::json::parse(in)["cases"];
  }();
  return all;
}

DType dtype_named(const std::string& name) {
  if (name == "float32") return DType::kFloat32;
  if (name == "float64") return DType::kFloat64;
  if (name == "int64") return DType::kInt64;
  if (name == "int32") return DType::kInt32;
  if (name == "int16") return DType::kInt16;
  if (name == "uint8") return DType::kUInt8;
  if (name == "bool") return DType::kBool;
  throw std::runtime_error("unknown dtype " + name);
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
  if (a.contains("tensor")) {
    return IValue(tensor::read_npy_file(testing::fixture_path("ops/" + a["tensor"].get<std::string>())));
  }
  if (a.contains("zeros")) {
    return IValue(Tensor::empty(a["zeros"].get<std::vector<std::int64_t>>(),
                                dtype_named(a["dtype"].get<std::string>())));
  }
  if (a.contains("none")) return IValue();
  if (a.contains("str")) return IValue::string(a["str"].get<std::string>());
  if (a.contains("scalar_type")) {
    return IValue(std::int64_t{a["scalar_type"] == "float32" ? 6 : 7});
  }
  throw std::runtime_error("unknown argument " + a.dump());
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
    bool ok = std::isnan(e) ? std::isnan(a) : std::abs(a - e) <= 1e-5 + 1e-4 * std::abs(e);
    if (!ok && reported++ < 5) ADD_FAILURE() << "element " << i << ": " << a << " vs " << e;
  }
}

class NnOpsReference : public ::testing::TestWithParam<std::size_t> {};

TEST_P(NnOpsReference, MatchesPyTorch) {
  const auto& c = cases()[GetParam()];
  SCOPED_TRACE(c["name"].get<std::string>());
  std::vector<IValue> args;
  for (const auto& a : c["args"]) args.push_back(arg_value(a));
  std::string op = c["op"].get<std::string>();
  if (c.contains("output")) {
    IValue out = run_op(op, std::move(args));
    Tensor expected =
        tensor::read_npy_file(testing::fixture_path("ops/" + c["output"].get<std::string>()));
    expect_close(out.to_tensor(), expected);
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

INSTANTIATE_TEST_SUITE_P(, NnOpsReference, ::testing::ValuesIn(case_indices()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return cases()[info.param]["name"].get<std::string>();
                         });

Tensor iota(std::vector<std::int64_t> sizes) {
  Tensor t = Tensor::empty(std::move(sizes), DType::kFloat32);
  float* p = t.mutable_data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = std::sin(static_cast<float>(i) * 0.37f);
  return t;
}

// [N, C, H, W] data stored as [N, H, W, C] (channels last): a non-contiguous view.
Tensor channels_last_copy(const Tensor& x) {
  const auto& s = x.sizes();
  Tensor nhwc = Tensor::empty({s[0], s[2], s[3], s[1]}, DType::kFloat32);
  const float* src = x.data<float>();
  float* dst = nhwc.mutable_data<float>();
  for (std::int64_t n = 0; n < s[0]; ++n)
    for (std::int64_t c = 0; c < s[1]; ++c)
      for (std::int64_t h = 0; h < s[2]; ++h)
        for (std::int64_t w = 0; w < s[3]; ++w)
          dst[((n * s[2] + h) * s[3] + w) * s[1] + c] = src[((n * s[1] + c) * s[2] + h) * s[3] + w];
  return Tensor::from_storage(nhwc.storage(), DType::kFloat32, s,
                              {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]}, 0);
}

IValue ints(std::initializer_list<std::int64_t> values) {
  IValueList items;
  for (auto v : values) items.emplace_back(v);
  return IValue::list(std::move(items));
}

TEST(NnOps, StridedInputsGiveTheSameResults) {
  Tensor x = iota({2, 4, 7, 7});
  Tensor strided = channels_last_copy(x);
  ASSERT_FALSE(strided.is_contiguous());
  Tensor w = iota({4, 1, 3, 3});
  auto conv = [&](const Tensor& in) {
    return run_op("aten::conv2d", {in, w, IValue(), ints({1, 1}), ints({1, 1}), ints({1, 1}), 4});
  };
  expect_close(conv(strided).to_tensor(), conv(x).to_tensor());
  auto pool = [](const Tensor& in) { return run_op("aten::max_pool2d", {in, ints({3, 3}), ints({2, 2})}); };
  expect_close(pool(strided).to_tensor(), pool(x).to_tensor());
  auto bn = [](const Tensor& in) {
    Tensor mean = iota({4});
    Tensor var = Tensor::empty({4}, DType::kFloat32);
    for (int i = 0; i < 4; ++i) var.mutable_data<float>()[i] = 1.0f + static_cast<float>(i);
    return run_op("aten::batch_norm", {in, IValue(), IValue(), mean, var, false, 0.1, 1e-5, true});
  };
  expect_close(bn(strided).to_tensor(), bn(x).to_tensor());
}

// A larger grouped convolution through the im2col path against a direct loop.
TEST(NnOps, GroupedConvolutionMatchesDirectLoop) {
  Tensor x = iota({1, 6, 13, 11});
  Tensor w = iota({4, 3, 3, 2});
  Tensor out = run_op("aten::conv2d", {x, w, IValue(), ints({2, 1}), ints({1, 0}), ints({1, 2}), 2})
                   .to_tensor();
  ASSERT_EQ(out.sizes(), (std::vector<std::int64_t>{1, 4, 7, 9}));
  const float* xp = x.data<float>();
  const float* wp = w.data<float>();
  for (std::int64_t o = 0; o < 4; ++o) {
    for (std::int64_t oh = 0; oh < 7; ++oh) {
      for (std::int64_t ow = 0; ow < 9; ++ow) {
        double sum = 0;
        for (std::int64_t c = 0; c < 3; ++c) {
          for (std::int64_t i = 0; i < 3; ++i) {
            for (std::int64_t j = 0; j < 2; ++j) {
              std::int64_t ih = oh * 2 - 1 + i;
              std::int64_t iw = ow + j * 2;
              if (ih < 0 || ih >= 13 || iw >= 11) continue;
              std::int64_t ic = (o / 2) * 3 + c;
              sum += xp[(ic * 13 + ih) * 11 + iw] * wp[((o * 3 + c) * 3 + i) * 2 + j];
            }
          }
        }
        EXPECT_NEAR(out.data<float>()[(o * 7 + oh) * 9 + ow], sum, 1e-4);
      }
    }
  }
}

TEST(NnOps, DropoutInEvalModeReturnsItsInput) {
  Tensor x = iota({2, 3});
  Tensor out = run_op("aten::dropout", {x, 0.5, false}).to_tensor();
  EXPECT_EQ(out.raw_data(), x.raw_data());
  Tensor out2 = run_op("aten::dropout_", {x, 0.5, false}).to_tensor();
  EXPECT_EQ(out2.raw_data(), x.raw_data());
}

void expect_unsupported(std::string_view op, std::vector<IValue> args, std::string_view needle) {
  try {
    run_op(op, std::move(args));
    ADD_FAILURE() << op << " should fail";
  } catch (const OpError& e) {
    ADD_FAILURE() << "expected an unsupported error, got " << e.message();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(e.message().find(needle), std::string::npos) << e.message();
  }
}

TEST(NnOps, TrainingModeIsUnsupported) {
  Tensor x = iota({2, 3});
  expect_unsupported("aten::dropout", {x, 0.5, true}, "training mode");
  expect_unsupported("aten::dropout_", {x, 0.5, true}, "training mode");
  Tensor ones = Tensor::empty({3}, DType::kFloat32);
  expect_unsupported("aten::batch_norm", {x, IValue(), IValue(), ones, ones, true, 0.1, 1e-5, true},
                     "training mode");
}

// float32 and float64 run; float16 is refused with symbolite's own error, as are integer
// averages (which PyTorch computes).
TEST(NnOps, OtherDtypesAreUnsupported) {
  Tensor x = Tensor::empty({1, 2, 4, 4}, DType::kFloat16);
  Tensor w = Tensor::empty({2, 2, 3, 3}, DType::kFloat16);
  expect_unsupported("aten::conv2d", {x, w}, "float32 and float64 only, got Half");
  expect_unsupported("aten::max_pool2d", {x, ints({2, 2})}, "float32 and float64 only, got Half");
  Tensor ones = Tensor::empty({2}, DType::kFloat16);
  expect_unsupported("aten::batch_norm",
                     {x, IValue(), IValue(), ones, ones, false, 0.1, 1e-5, true},
                     "float32 and float64 only, got Half");
  Tensor longs = Tensor::empty({1, 2, 4, 4}, DType::kInt64);
  expect_unsupported("aten::avg_pool2d", {longs, ints({2, 2})},
                     "float32 and float64 only, got Long");
  expect_unsupported("aten::adaptive_avg_pool2d", {longs, ints({1, 1})},
                     "float32 and float64 only, got Long");
  Tensor tw = Tensor::empty({2, 2, 3, 3}, DType::kFloat32);
  Tensor tx = Tensor::empty({1, 2, 4, 4}, DType::kFloat32);
  expect_unsupported("aten::_convolution",
                     {tx, tw, IValue(), ints({1, 1}), ints({0, 0}), ints({1, 1}), true,
                      ints({0, 0}), 1, false, false, true, true},
                     "transposed");
}

}  // namespace
}  // namespace symbolite::ops
