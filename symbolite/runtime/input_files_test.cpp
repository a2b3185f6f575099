// Input files: `.npy` tensors arrive writable (a model may write its inputs in place, as
// PyTorch lets it), and write_input_file writes what read_input_file reads back.
#include "symbolite/runtime/input_files.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>

#include "symbolite/support/error.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/scratch_dir.h"

namespace symbolite::runtime {
namespace {

TEST(InputFiles, NpyTensorsAreWritable) {
  const std::string path = testing::fixture_path("run/nested/valid_0/input_0.npy");
  ops::IValue v = read_input_file(path);
  const auto& t = v.to_tensor();
  EXPECT_FALSE(t.storage().is_view());
  const float before = t.data<float>()[0];
  t.mutable_data<float>()[0] = before + 1.0f;
  // The file is untouched.
  EXPECT_EQ(tensor::read_npy_file(path).data<float>()[0], before);
}

TEST(InputFiles, WrittenValuesReadBack) {
  testing::ScratchDir dir;
  ops::IValue t = read_input_file(testing::fixture_path("run/nested/valid_0/input_0.npy"));
  std::string tensor_path = write_input_file(dir.file("t"), t);
  EXPECT_TRUE(tensor_path.ends_with("t.npy"));
  auto back = read_input_file(tensor_path).to_tensor();
  ASSERT_EQ(back.sizes(), t.to_tensor().sizes());
  for (std::int64_t i = 0; i < back.numel(); ++i)
    EXPECT_EQ(back.data<float>()[i], t.to_tensor().data<float>()[i]);

  ops::IValue list =
      ops::IValue::list({ops::IValue(std::int64_t{3}), ops::IValue(2.5), ops::IValue(true),
                         ops::IValue::string("s"), ops::IValue()});
  std::string list_path = write_input_file(dir.file("l"), list);
  EXPECT_TRUE(list_path.ends_with("l.json"));
  EXPECT_EQ(read_input_file(list_path).repr(), list.repr());

  // Containers, nested, with tensors and special floats: the same structure comes back.
  auto keyed = std::make_shared<ops::Dict>();
  keyed->items.emplace_back(ops::IValue(std::int64_t{7}), ops::IValue::string("seven"));
  auto named = std::make_shared<ops::Dict>();
  named->items.emplace_back(ops::IValue::string("zeta"),
                            ops::IValue::list({t, ops::IValue(std::int64_t{3})}));
  named->items.emplace_back(ops::IValue::string("alpha"), ops::IValue::dict(keyed));
  ops::IValue nested = ops::IValue::tuple(
      {t, ops::IValue::dict(named), ops::IValue(std::numeric_limits<double>::infinity())});
  std::string nested_path = write_input_file(dir.file("n"), nested);
  EXPECT_TRUE(nested_path.ends_with("n.json"));
  EXPECT_TRUE(std::filesystem::exists(dir.file("n_0.npy")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("n_1.npy")));
  ops::IValue back_nested = read_input_file(nested_path);
  ASSERT_TRUE(back_nested.is(ops::IValue::Kind::kTuple));
  const auto& items = back_nested.to_tuple();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].to_tensor().sizes(), t.to_tensor().sizes());
  const auto& d = items[1].to_dict().items;
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].first.to_string(), "zeta");  // insertion order, not sorted
  EXPECT_EQ(d[1].first.to_string(), "alpha");
  EXPECT_EQ(d[1].second.to_dict().items.at(0).first.to_int(), 7);
  EXPECT_EQ(d[0].second.to_list().at(1).to_int(), 3);
  EXPECT_TRUE(std::isinf(items[2].to_double()));

  try {
    write_input_file(dir.file("x"), ops::IValue::device("cpu"));
    FAIL() << "a device has no input file";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(e.message().find("is not an input file's value"), std::string::npos);
  }
}

// Mistakes in a JSON input name the file and where in it.
TEST(InputFiles, JsonMistakesNameTheFileAndThePlace) {
  testing::ScratchDir dir;
  auto error_of = [&](const std::string& text) {
    std::string path = dir.file("bad.json");
    std::ofstream(path) << text;
    try {
      read_input_file(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"a": [1, {"$tuple": 3}]})")
                .find("bad.json: at [\"a\"][1]: \"$tuple\" takes a list of values"),
            std::string::npos)
      << error_of(R"({"a": [1, {"$tuple": 3}]})");
  EXPECT_NE(error_of(R"({"$float": "nope"})").find("at the top: \"$float\" is \"nan\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"$dict": [[1]]})").find("at [0]: a \"$dict\" item is a [key, value] pair"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"$tensor": "missing.npy"})").find("missing.npy"), std::string::npos);
  // Integers are int64 as in TorchScript: past it is an error, never a double.
  EXPECT_NE(error_of(R"([1, 9223372036854775808])")
                .find("bad.json: at [1]: the integer 9223372036854775808 does not fit"),
            std::string::npos)
      << error_of(R"([1, 9223372036854775808])");
  EXPECT_NE(error_of(R"([1, -99999999999999999999])")
                .find("bad.json: the integer -99999999999999999999 does not fit"),
            std::string::npos)
      << error_of(R"([1, -99999999999999999999])");
  EXPECT_NE(error_of("[1e400]").find("bad.json: "), std::string::npos);
  // Hostile nesting is a limit, not a stack overflow, even 100,000 deep.
  try {
    parse_input_json(std::string(100000, '[') + std::string(100000, ']'), "deep.json");
    FAIL() << "no limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kLimit);
    EXPECT_NE(e.message().find("nested deeper than 64"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace symbolite::runtime
