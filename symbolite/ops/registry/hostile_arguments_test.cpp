// Every registered operator called with hostile arguments — ints at int64's ends, NaN and
// infinite floats and Scalars, empty, 0-dim, NaN-filled and int64-extreme tensors, sizes of
// 2^40, invalid UTF-8, and values of the wrong kind — one argument at a time, the others
// ordinary: an operator may refuse any of them with an error, but none may crash, hang or (in
// the sanitizer build) do anything undefined. Each operator runs in a forked child, so one
// that dies is named, not the test binary. Found: pixel_shuffle dividing by an overflowed
// square (SIGFPE), tril_indices / triu_indices, tensor_split and mvlgamma looping 2^40 or
// 2^63 times, to.dtype reading the dtype of a None, randperm's unchecked 2^40 allocation.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/ops/schema/schema_table.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kHuge = std::int64_t{1} << 40;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
const double kNotANumber = std::numeric_limits<double>::quiet_NaN();

// A tensor of `sizes` holding v - 3, v - 2, ..., v + 3 repeated, in `dtype`.
Tensor filled(const std::vector<std::int64_t>& sizes, DType dtype, double v) {
  Tensor t = Tensor::empty(sizes, DType::kFloat64);
  double* p = t.mutable_data<double>();
  for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = v + static_cast<double>(i % 7) - 3;
  return to_dtype(t, dtype);
}

bool is_one_of(const std::string& type, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (type == n) return true;
  }
  return false;
}

// A dict of one entry, `key` -> `value`.
IValue dict_of(IValue key, IValue value) {
  auto d = std::make_shared<Dict>();
  d->items.emplace_back(std::move(key), std::move(value));
  return IValue::dict(std::move(d));
}

// The key type of "Dict(K, t)", or "" for another type.
std::string dict_key_type(const std::string& type) {
  if (!type.starts_with("Dict(")) return "";
  return type.substr(5, type.find(',') - 5);
}

// An ordinary value of a schema type, tensors of dtype `tensors`; none for a type this test
// does not build.
std::optional<IValue> ordinary(const std::string& type, DType tensors) {
  if (is_one_of(type, {"Tensor", "Tensor?"})) return IValue(filled({2, 3, 4}, tensors, 0.5));
  if (const std::string key = dict_key_type(type); !key.empty()) {
    std::optional<IValue> k = ordinary(key, tensors);
    if (!k) return std::nullopt;
    return dict_of(*k, IValue(std::int64_t{1}));
  }
  if (type == "Any") return IValue::tuple({IValue(std::int64_t{1}), IValue::string("a")});
  if (type == "MemoryFormat") return IValue(std::int64_t{0});  // contiguous_format
  if (type == "Device") return IValue::device("cpu");
  if (is_one_of(type, {"int", "int?", "SymInt", "SymInt?", "t"})) return IValue(std::int64_t{1});
  if (is_one_of(type, {"float", "float?"})) return IValue(0.5);
  if (is_one_of(type, {"Scalar", "Scalar?"})) return IValue(2.0);
  if (is_one_of(type, {"bool", "bool?"})) return IValue(false);
  if (is_one_of(type, {"int[]", "int[]?", "SymInt[]", "SymInt[]?"})) return int_list_value({1});
  if (is_one_of(type, {"float[]", "float[]?"})) return IValue::list({IValue(2.0)});
  if (is_one_of(type, {"ScalarType?", "Layout?", "Device?", "Generator?", "MemoryFormat?"})) {
    return IValue();
  }
  if (type == "ScalarType") return IValue(std::int64_t{6});  // float32
  if (is_one_of(type, {"str", "str?"})) return IValue::string("a\tb c");
  if (type == "t[]") return IValue::list({IValue(std::int64_t{3}), IValue(std::int64_t{1})});
  if (type == "bool[]") return IValue::list({IValue(true), IValue(false)});
  if (type == "str[]") return IValue::list({IValue::string("a"), IValue::string("b")});
  if (type == "Tensor[]") {
    return IValue::list(
        {IValue(filled({2, 3}, DType::kFloat32, 1)), IValue(filled({2, 3}, DType::kFloat32, 2))});
  }
  if (type == "Tensor?[]") return IValue::list({IValue(filled({2}, DType::kInt64, 1)), IValue()});
  return std::nullopt;
}

// Values of the wrong kind for any argument: a crafted file can put anything on the stack.
std::vector<IValue> wrong_kinds() {
  return {IValue(),
          IValue::string("x"),
          IValue::tuple({}),
          IValue::list({IValue::string("s")}),
          IValue::list({IValue(), IValue(std::int64_t{1})}),
          dict_of(IValue::string("k"), IValue()),
          IValue::device("cuda:7")};
}

std::vector<IValue> hostile(const std::string& type) {
  if (const std::string key = dict_key_type(type); !key.empty()) {
    std::vector<IValue> dicts = {IValue::dict(std::make_shared<Dict>())};
    for (IValue& k : hostile(key)) dicts.push_back(dict_of(std::move(k), IValue::string("v")));
    return dicts;
  }
  if (type == "Any") {
    return {IValue::tuple({}), IValue::tuple({IValue()}), IValue(kMax), IValue::list({})};
  }
  if (type == "MemoryFormat" || type == "MemoryFormat?") {
    return {IValue(std::int64_t{-1}), IValue(std::int64_t{1000}), IValue(std::int64_t{2}),
            IValue(std::int64_t{3})};
  }
  if (type == "Device" || type == "Device?") {
    return {IValue::device("cuda"), IValue::device(""), IValue::device("cpu:-1"),
            IValue::device("\xff")};
  }
  if (is_one_of(type, {"int", "int?", "SymInt", "SymInt?"})) {
    return {IValue(kMax),
            IValue(kMin),
            IValue(std::int64_t{-1}),
            IValue(std::int64_t{0}),
            IValue(kHuge),
            IValue(std::int64_t{-7})};
  }
  if (is_one_of(type, {"float", "float?"})) {
    return {IValue(kNotANumber), IValue(kInfinity), IValue(-kInfinity), IValue(1e300),
            IValue(-1e300),      IValue(0.0),       IValue(-1.0)};
  }
  if (is_one_of(type, {"Scalar", "Scalar?"})) {
    return {IValue(kNotANumber), IValue(kInfinity),       IValue(1e300),           IValue(kMax),
            IValue(kMin),        IValue(std::int64_t{0}), IValue(std::int64_t{-1})};
  }
  if (is_one_of(type, {"int[]", "int[]?", "SymInt[]", "SymInt[]?"})) {
    return {int_list_value({kMax}),         int_list_value({kMin}),
            int_list_value({-1}),           int_list_value({}),
            int_list_value({kHuge, kHuge}), int_list_value({0, 0, 0, 0, 0, 0, 0}),
            int_list_value({-2, 5})};
  }
  if (is_one_of(type, {"float[]", "float[]?"})) {
    return {IValue::list({IValue(kNotANumber)}), IValue::list({IValue(1e300)}),
            IValue::list({IValue(-1.0)}), IValue::list({})};
  }
  if (is_one_of(type, {"Tensor", "Tensor?"})) {
    return {IValue(filled({0}, DType::kFloat32, 0)),
            IValue(filled({}, DType::kFloat32, 1)),
            IValue(filled({4}, DType::kInt64, static_cast<double>(kMax))),
            IValue(filled({4}, DType::kInt64, -5)),
            IValue(filled({3}, DType::kFloat32, kNotANumber)),
            IValue(filled({2, 0, 3}, DType::kFloat32, 1)),
            IValue(filled({1, 1, 1, 1, 1, 1, 1}, DType::kFloat32, 1)),
            IValue(filled({4}, DType::kBool, 1)),
            IValue(filled({2, 3}, DType::kFloat64, 1e300)),
            IValue(filled({3}, DType::kUInt8, 250))};
  }
  if (type == "Tensor[]") {
    return {IValue::list({}), IValue::list({IValue(filled({0}, DType::kFloat32, 0))}),
            IValue::list({IValue(filled({2}, DType::kFloat32, 1)),
                          IValue(filled({3, 1}, DType::kInt64, 1))})};
  }
  if (type == "Tensor?[]") {
    return {IValue::list({}), IValue::list({IValue(), IValue()}),
            IValue::list({IValue(filled({2}, DType::kInt64, static_cast<double>(kMax)))}),
            IValue::list({IValue(filled({2}, DType::kBool, 1))})};
  }
  if (is_one_of(type, {"str", "str?"})) {
    return {IValue::string(""), IValue::string("\xff\xfe\x80"),
            IValue::string(std::string(1000, 'x')), IValue::string("{}{0}%d%s")};
  }
  if (type == "t[]") {
    return {IValue::list({}), IValue::list({IValue(kMax), IValue(kMin)}),
            IValue::list({IValue(kNotANumber)}), IValue::list({IValue::string("s")})};
  }
  if (type == "t") return {IValue(kMax), IValue(kNotANumber), IValue::string("x"), IValue()};
  if (type == "bool[]") return {IValue::list({}), IValue::list({IValue(true)})};
  if (type == "str[]") return {IValue::list({}), IValue::list({IValue::string("")})};
  if (is_one_of(type, {"ScalarType", "ScalarType?"})) {
    return {IValue(std::int64_t{-1}), IValue(std::int64_t{1000}), IValue(std::int64_t{4}),
            IValue(std::int64_t{0}), IValue(std::int64_t{11})};
  }
  return {};
}

// Runs `name` on `args` (a vararg operator with their count, as OPN pushes it).
void call(const std::string& name, const FunctionSchema& schema, std::vector<IValue> args) {
  try {
    (void)testing::run_case_op(name, std::move(args), schema.is_vararg);
  } catch (const std::exception&) {
    // refusing is fine
  }
}

// Calls `name` once per hostile value of each argument in a child process (a vararg
// operator also with each hostile value as its vararg, alone and in a tuple); what became of
// the child ("" when every call returned or threw).
std::string run_hostile(const std::string& name, const FunctionSchema& schema,
                        const std::vector<IValue>& ordinary_args) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(60);  // a hang ends the child with SIGALRM
    for (std::size_t i = 0; i < ordinary_args.size(); ++i) {
      std::vector<IValue> values = hostile(schema.arguments[i].type);
      for (IValue& v : wrong_kinds()) values.push_back(std::move(v));
      for (const IValue& value : values) {
        std::vector<IValue> args = ordinary_args;
        args[i] = value;
        call(name, schema, std::move(args));
      }
    }
    if (schema.is_vararg) {
      std::vector<IValue> extras = hostile("Scalar");
      for (IValue& v : wrong_kinds()) extras.push_back(std::move(v));
      for (const char* format : {"%d", "%s %d", "%c", "%e %f", "%x", "%5.3f", "%", "%%%"}) {
        std::vector<IValue> args = ordinary_args;
        args[0] = IValue::string(format);
        for (const IValue& extra : extras) {
          std::vector<IValue> with = args;
          with.push_back(extra);
          call(name, schema, with);
          with.back() = IValue::tuple({extra, extra});
          call(name, schema, std::move(with));
        }
      }
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0) return "exit " + std::to_string(WEXITSTATUS(status));
  return "";
}

// Ordinary tensors of float32, int64, uint8 and bool (the other paths of the kernels): a test
// each, so that CI's sanitizer shards share them (each forks a child per operator, about two
// minutes under AddressSanitizer).
class HostileArgumentsOf : public ::testing::TestWithParam<DType> {};

TEST_P(HostileArgumentsOf, NoOperatorCrashesHangsOrMisbehaves) {
  const DType tensors = GetParam();
  int called = 0;
  for (const std::string& name : default_registry().names()) {
    const FunctionSchema* schema = find_schema(name);
    if (schema == nullptr || name == "aten::warn") continue;  // (warn prints its message)
    std::vector<IValue> args;
    for (const auto& a : schema->arguments) {
      std::optional<IValue> v = ordinary(a.type, tensors);
      if (!v) break;
      args.push_back(*v);
    }
    if (args.size() != schema->arguments.size()) continue;
    ++called;
    EXPECT_EQ(run_hostile(name, *schema, args), "")
        << name << " with " << tensor::scalar_type_name(tensors) << " tensors";
  }
  // All but the operators of a type no schema argument has (torchvision's have no schema,
  // percentFormat's ... is typed by its caller).
  EXPECT_GT(called, 1350);
}

INSTANTIATE_TEST_SUITE_P(Tensors, HostileArgumentsOf,
                         ::testing::Values(DType::kFloat32, DType::kInt64, DType::kUInt8,
                                           DType::kBool),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(tensor::scalar_type_name(info.param));
                         });

// Sizes and counts at the ends of int64 give PyTorch's results and errors (family
// "hostile_sizes" of tests/fixtures/ops/op_cases.json).
TEST(HostileArguments, SizesAndCountsMatchPyTorch) { testing::run_op_cases("hostile_sizes", 0, 0); }

// Counts no memory holds fail at once with the size they asked for (PyTorch fails them with
// its allocator's words, or loops: symbolite's message says what was asked).
TEST(HostileArguments, CountsNoMemoryHoldsFailAtOnce) {
  const IValue none;
  const Error tril = testing::error_from([&] {
    run_op("aten::tril_indices", {IValue(std::int64_t{1} << 20), IValue(std::int64_t{1} << 20),
                                  IValue(std::int64_t{0}), none, none, none, none});
  });
  EXPECT_EQ(tril.kind(), ErrorKind::kLimit) << tril.message();
  EXPECT_NE(tril.message().find("for a Long tensor of sizes [2, 549756338176]"), std::string::npos)
      << tril.message();
  const Error beyond = testing::error_from([&] {
    run_op("aten::triu_indices",
           {IValue(kHuge), IValue(kHuge), IValue(std::int64_t{0}), none, none, none, none});
  });
  EXPECT_EQ(beyond.message().rfind("triu_indices: the 1099511627776 x 1099511627776 triangle at "
                                   "offset 0 has 6.044629098078643e+23 elements",
                                   0),
            0u)
      << beyond.message();
  const Error split = testing::error_from([&] {
    run_op("aten::tensor_split.sections",
           {IValue(filled({3}, DType::kFloat32, 1)), IValue(kHuge), IValue(std::int64_t{0})});
  });
  EXPECT_EQ(split.message(),
            "tensor_split: 1099511627776 sections need more memory than this machine has");
  const Error gamma = testing::error_from([&] {
    run_op("aten::mvlgamma", {IValue(filled({2}, DType::kFloat32, 5)), IValue(kHuge)});
  });
  EXPECT_EQ(gamma.kind(), ErrorKind::kLimit) << gamma.message();
}

}  // namespace
}  // namespace symbolite::ops
