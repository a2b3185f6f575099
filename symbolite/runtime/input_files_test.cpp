// Input files: `.npy` tensors arrive writable (a model may write its inputs in place, as
// PyTorch lets it), and write_input_file writes what read_input_file reads back.
#include "symbolite/runtime/input_files.h"

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
  for (std::int64_t i = 0; i < back.numel(); ++i) EXPECT_EQ(back.data<float>()[i], t.to_tensor().data<float>()[i]);

  ops::IValue list = ops::IValue::list({ops::IValue(std::int64_t{3}), ops::IValue(2.5), ops::IValue(true),
                                        ops::IValue::string("s"), ops::IValue()});
  std::string list_path = write_input_file(dir.file("l"), list);
  EXPECT_TRUE(list_path.ends_with("l.json"));
  EXPECT_EQ(read_input_file(list_path).repr(), list.repr());

  try {
    write_input_file(dir.file("x"), ops::IValue::tuple({t}));
    FAIL() << "a tuple has no input file";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(e.message().find("is not an input file's value"), std::string::npos);
  }
}

}  // namespace
}  // namespace symbolite::runtime
