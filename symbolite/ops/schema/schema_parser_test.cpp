#include "symbolite/ops/schema/schema_parser.h"

#include <string>

#include <gtest/gtest.h>

#include "symbolite/ops/schema/schema_table_data.h"
#include "symbolite/support/error.h"

namespace symbolite::ops {
namespace {

using Kind = pickle::Value::Kind;

const SchemaArgument& arg(const FunctionSchema& s, std::string_view name) {
  for (const auto& a : s.arguments) {
    if (a.name == name) return a;
  }
  throw std::runtime_error("no argument " + std::string(name));
}

std::vector<std::int64_t> ints(const pickle::Value& v) {
  std::vector<std::int64_t> out;
  for (const auto& item : v.as_list()) out.push_back(item.as_int());
  return out;
}

// The main oracle: PyTorch printed every line of the table; parsing and printing it again
// must give back the same text.
TEST(SchemaParser, EveryTableLineRoundTrips) {
  std::string text = detail::pytorch_schema_text();
  std::size_t count = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    ++count;
    try {
      EXPECT_EQ(parse_schema(line).to_string(), line);
    } catch (const Error& e) {
      ADD_FAILURE() << line << ": " << e.what();
    }
  }
  EXPECT_GT(count, 4000u);
}

TEST(SchemaParser, Conv2dDefaults) {
  auto s = parse_schema(
      "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
      "int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor");
  EXPECT_EQ(s.name, "aten::conv2d");
  EXPECT_EQ(s.overload, "");
  EXPECT_EQ(s.full_name(), "aten::conv2d");
  ASSERT_EQ(s.arguments.size(), 7u);
  EXPECT_EQ(arg(s, "bias").type, "Tensor?");
  EXPECT_TRUE(arg(s, "bias").default_value->is_none());
  EXPECT_EQ(arg(s, "stride").type, "int[]");
  EXPECT_EQ(arg(s, "stride").list_size, 2);
  EXPECT_EQ(ints(*arg(s, "stride").default_value), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(ints(*arg(s, "padding").default_value), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(arg(s, "groups").default_value->as_int(), 1);
  EXPECT_FALSE(arg(s, "input").default_value.has_value());
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].type, "Tensor");
  EXPECT_EQ(s.returns[0].name, "");
}

TEST(SchemaParser, NamedReturns) {
  auto s = parse_schema(
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  EXPECT_EQ(s.full_name(), "aten::max.dim");
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0].name, "values");
  EXPECT_EQ(s.returns[1].name, "indices");
  EXPECT_TRUE(arg(s, "keepdim").default_value->is(Kind::kBool));
  EXPECT_FALSE(arg(s, "keepdim").default_value->as_bool());
}

TEST(SchemaParser, OutArgument) {
  auto s = parse_schema(
      "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  const auto& out = arg(s, "out");
  EXPECT_EQ(out.type, "Tensor");
  ASSERT_TRUE(out.alias.has_value());
  EXPECT_EQ(out.alias->before_sets, std::vector<std::string>{"a"});
  EXPECT_TRUE(out.is_write);
  EXPECT_TRUE(out.kwarg_only);
  EXPECT_TRUE(out.is_out);
  EXPECT_TRUE(arg(s, "alpha").kwarg_only);
  EXPECT_FALSE(arg(s, "alpha").is_out);
  EXPECT_FALSE(arg(s, "self").kwarg_only);
  EXPECT_TRUE(s.returns[0].is_write);
  EXPECT_FALSE(s.returns[0].is_out);
  EXPECT_EQ(arg(s, "alpha").default_value->as_int(), 1);
}

TEST(SchemaParser, Varargs) {
  auto format = parse_schema("aten::format(str self, ...) -> str");
  EXPECT_TRUE(format.is_vararg);
  EXPECT_FALSE(format.is_varret);
  ASSERT_EQ(format.arguments.size(), 1u);
  auto tuple = parse_schema("prim::TupleConstruct(...) -> Any");
  EXPECT_TRUE(tuple.is_vararg);
  EXPECT_TRUE(tuple.arguments.empty());
  auto both = parse_schema("prim::BroadcastMKLDNNTensors(...) -> ...");
  EXPECT_TRUE(both.is_varret);
  EXPECT_TRUE(both.returns.empty());
  EXPECT_EQ(both.to_string(), "prim::BroadcastMKLDNNTensors(...) -> ...");
  EXPECT_EQ(parse_schema("f(...) -> (int, ...)").to_string(), "f(...) -> (int, ...)");
}

TEST(SchemaParser, AliasAnnotations) {
  auto s = parse_schema("aten::_set_item.t(t[](a!) l, int idx, t(b -> *) el) -> t[](a!)");
  const auto& l = arg(s, "l");
  EXPECT_EQ(l.type, "t[]");
  EXPECT_TRUE(l.is_write);
  EXPECT_FALSE(l.element_alias.has_value());
  const auto& el = arg(s, "el");
  EXPECT_EQ(el.alias->before_sets, std::vector<std::string>{"b"});
  EXPECT_EQ(el.alias->after_sets, std::vector<std::string>{"*"});
  EXPECT_FALSE(el.is_write);
  EXPECT_EQ(el.to_string(), "t(b -> *) el");

  auto list = parse_schema("f(*, Tensor(a!)[] out) -> ()");
  const auto& out = list.arguments[0];
  EXPECT_EQ(out.type, "Tensor[]");
  EXPECT_TRUE(out.element_alias.has_value());
  EXPECT_TRUE(out.alias.has_value());
  EXPECT_TRUE(out.alias->before_sets.empty());
  EXPECT_TRUE(out.is_write);
  EXPECT_TRUE(out.is_out);
  EXPECT_EQ(list.to_string(), "f(*, Tensor(a!)[] out) -> ()");

  auto sets = parse_schema("f(Tensor(b|a) x) -> Tensor(*)");
  EXPECT_EQ(sets.arguments[0].alias->before_sets, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(sets.to_string(), "f(Tensor(b|a) x) -> Tensor(*)");
}

TEST(SchemaParser, ContainerTypes) {
  auto s = parse_schema(
      "f(Dict(str,t)(a!) d, Tuple(int, Tensor?) p, Future(t) fut, RRef(t) r, Any a, int[][] n) -> "
      "((str, t)[])");
  EXPECT_EQ(arg(s, "d").type, "Dict(str, t)");
  EXPECT_TRUE(arg(s, "d").is_write);
  EXPECT_EQ(arg(s, "p").type, "(int, Tensor?)");
  EXPECT_EQ(arg(s, "fut").type, "Future(t)");
  EXPECT_EQ(arg(s, "r").type, "RRef(t)");
  EXPECT_EQ(arg(s, "a").type, "Any");
  EXPECT_EQ(arg(s, "n").type, "int[][]");
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].type, "(str, t)[]");
  EXPECT_EQ(s.to_string(),
            "f(Dict(str, t)(a!) d, (int, Tensor?) p, Future(t) fut, RRef(t) r, Any a, int[][] n) "
            "-> ((str, t)[])");
  EXPECT_EQ(parse_schema("f() -> ()").to_string(), "f() -> ()");
}

TEST(SchemaParser, NumberDefaults) {
  auto s = parse_schema(
      "f(float eps=1e-05, float a=-1, Scalar b=-2, Scalar c=0.5, float d=2., int "
      "e=-9223372036854775807, "
      "float? f=1, float[] g=[1, 2.5], int[] h=[-2, -1], bool[3] m=True) -> ()");
  EXPECT_DOUBLE_EQ(arg(s, "eps").default_value->as_double(), 1e-05);
  EXPECT_TRUE(arg(s, "a").default_value->is(Kind::kDouble));  // float type: a double
  EXPECT_EQ(arg(s, "a").default_value->as_double(), -1.0);
  EXPECT_EQ(arg(s, "b").default_value->as_int(), -2);  // Scalar: int unless . or e
  EXPECT_TRUE(arg(s, "c").default_value->is(Kind::kDouble));
  EXPECT_EQ(arg(s, "e").default_value->as_int(), -9223372036854775807);
  EXPECT_TRUE(arg(s, "f").default_value->is(Kind::kInt));  // float? parses as PyTorch: int
  EXPECT_EQ(arg(s, "g").default_value->as_list()[0].as_double(), 1.0);
  EXPECT_EQ(ints(*arg(s, "h").default_value), (std::vector<std::int64_t>{-2, -1}));
  EXPECT_EQ(arg(s, "m").default_value->as_list().size(), 3u);
  // PyTorch's printing of the same (checked against torch._C.parse_schema).
  EXPECT_EQ(
      s.to_string(),
      "f(float eps=1.0000000000000001e-05, float a=-1., Scalar b=-2, Scalar c=0.5, float d=2., "
      "int e=-9223372036854775807, float? f=1, float[] g=[1., 2.5], int[] h=[-2, -1], "
      "bool[3] m=[True, True, True]) -> ()");
  EXPECT_EQ(parse_schema("f(int[2] x=[1,1], SymInt[2] y=1, int[1] z=[0]) -> ()").to_string(),
            "f(int[2] x=1, SymInt[2] y=[1, 1], int[1] z=[0]) -> ()");
  EXPECT_EQ(parse_schema("f(float x=9223372036854775807) -> ()").to_string(),
            "f(float x=9.2233720368547758e+18) -> ()");
}

TEST(SchemaParser, StringDefaults) {
  auto s = parse_schema(
      R"(f(str a="mean", str b='mean', str c="\"\'\\", str? d=" \n\t\f\v", int e="\101") -> ())");
  EXPECT_EQ(arg(s, "a").default_value->as_string(), "mean");
  EXPECT_EQ(arg(s, "b").default_value->as_string(), "mean");
  EXPECT_EQ(arg(s, "c").default_value->as_string(), "\"'\\");
  EXPECT_EQ(arg(s, "d").default_value->as_string(), " \n\t\f\v");
  EXPECT_EQ(arg(s, "e").default_value->as_string(), "A");
  EXPECT_EQ(s.to_string(),
            R"(f(str a="mean", str b="mean", str c="\"\'\\", str? d=" \n\t\f\v", int e=A) -> ())");
}

// The names PyTorch 1.13's parser maps to integers (parseSingleConstant), one test per family;
// values checked with torch._C.parse_schema("f(int x=<name>) -> ()").
TEST(SchemaParser, ScalarTypeNames) {
  auto s = parse_schema("f(ScalarType a=float, ScalarType? b=long, float c=float) -> ()");
  EXPECT_EQ(arg(s, "a").default_value->as_int(), 6);       // at::kFloat
  EXPECT_EQ(arg(s, "b").default_value->as_int(), 4);       // at::kLong
  EXPECT_TRUE(arg(s, "c").default_value->is(Kind::kInt));  // an int even for a float type
}

TEST(SchemaParser, LayoutNames) {
  auto s = parse_schema("f(Layout a=strided) -> ()");
  EXPECT_EQ(s.arguments[0].default_value->as_int(), 0);  // at::kStrided
}

TEST(SchemaParser, ReductionNames) {
  auto s = parse_schema("f(int reduction=Mean) -> ()");
  EXPECT_EQ(s.arguments[0].default_value->as_int(), 1);  // at::Reduction::Mean
  EXPECT_EQ(s.to_string(), "f(int reduction=1) -> ()");
}

TEST(SchemaParser, MemoryFormatNames) {
  auto s = parse_schema("f(MemoryFormat? a=contiguous_format) -> ()");
  EXPECT_EQ(s.arguments[0].default_value->as_int(), 0);  // c10::MemoryFormat::Contiguous
}

TEST(SchemaParser, OtherNamesAreNotDefaults) {
  // PyTorch 1.13 knows only the five names above: Sum, channels_last, preserve_format, ...
  // are errors there too.
  for (const char* name : {"Sum", "channels_last", "preserve_format", "double", "inf", "nan"}) {
    EXPECT_THROW(parse_schema(std::string("f(int x=") + name + ") -> ()"), Error) << name;
  }
}

std::string error_of(std::string_view text) {
  try {
    parse_schema(text);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kFormat) << e.what();
    return e.message();
  }
  ADD_FAILURE() << "no error for " << text;
  return "";
}

TEST(SchemaParser, ErrorsNameOffsetAndExpectation) {
  EXPECT_EQ(error_of("aten::add(Tensor self"), "byte 21: expected ')' but found end of input");
  EXPECT_EQ(error_of("aten::add(Tensor self) Tensor"), "byte 23: expected '->' but found 'Tensor'");
  EXPECT_EQ(error_of("f(int[] x=None) -> ()"), "byte 10: expected '[' but found 'None'");
  EXPECT_EQ(error_of("f(Tensor x=1) -> ()"),
            "byte 11: expected None (the only default of a Tensor) but found number '1'");
  EXPECT_EQ(error_of("f(..., int x) -> ()"),
            "byte 7: expected ')' after '...' (it must be the last argument) but found 'int'");
  EXPECT_EQ(error_of("f(int x) -> () extra"), "byte 15: expected end of input but found 'extra'");
  EXPECT_EQ(error_of("f(int x=\"abc) -> ()"), "byte 8: unterminated string literal");
  EXPECT_EQ(error_of("f(int x=1e400) -> ()"),
            "byte 8: expected a number within double range but found number '1e400'");
  EXPECT_EQ(error_of("f(int x=99999999999999999999) -> ()"),
            "byte 8: expected an integer within 64 bits but found number '99999999999999999999'");
  EXPECT_EQ(error_of("f(str x='\\x41') -> ()").substr(0, 7), "byte 9:");
  EXPECT_EQ(error_of("f(int x) -> (str, t)[]"), "byte 20: expected end of input but found '['");
  EXPECT_EQ(error_of("f(int x) @"), "byte 9: unexpected character 0x40");
  EXPECT_EQ(error_of(""), "byte 0: expected an operator name but found end of input");
}

TEST(SchemaParser, NestingIsBounded) {
  std::string deep = "f(";
  for (int i = 0; i < 1000; ++i) deep += "Future(";
  deep += "int";
  try {
    parse_schema(deep);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLimit);
  }
}

}  // namespace
}  // namespace symbolite::ops
