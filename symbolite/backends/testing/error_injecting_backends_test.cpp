// The error-injecting test backends break where they say, and the tools built on the lowering
// point at the ReLU's source: a compile failure names the ReLU's delegate node, a run-time
// failure composes the traceback through the delegate down to the ReLU, and the accuracy error
// changes numbers the eager lowering of the same model keeps equal to PyTorch's.
#include <gtest/gtest.h>

#include "symbolite/backends/eager/eager_support.h"
#include "symbolite/backends/register_backends.h"
#include "symbolite/compiler/lowering/lowering.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/result_tensors.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::backends {
namespace {

using symbolite::testing::fixture_path;

mobile::LoadedModel lowered_nested(const std::string& backend) {
  register_delegate_backends();
  compiler::LoweringOptions options;
  options.backend = backend;
  auto lowered = compiler::lower_model_bytes(fixture_path("models/nested.ptl"),
                                             EagerSupport(backend), options);
  auto owner = std::make_shared<std::vector<std::uint8_t>>(std::move(lowered.bytes));
  return mobile::LoadedModel::load_bytes(Bytes(owner, owner->data(), owner->size()),
                                         backend + " nested.ptl");
}

std::vector<ops::IValue> valid_inputs() {
  std::string dir = fixture_path("run/nested/valid_0/");
  return {runtime::read_input_file(dir + "input_0.npy"),
          runtime::read_input_file(dir + "input_1.npy")};
}

TEST(ErrorInjectingBackends, CompileErrorNamesTheRelu) {
  auto model = lowered_nested("relu_compile_error");
  try {
    runtime::Interpreter interpreter(model);
    FAIL() << "the payload compiled";
  } catch (const runtime::RunError& e) {
    EXPECT_NE(e.details().message.find("relu_compile_error"), std::string::npos);
    ASSERT_TRUE(e.details().delegate_handle.has_value());
    EXPECT_TRUE(e.details().module_hierarchy.ends_with("level1(Level1)::forward.aten::relu"))
        << e.details().module_hierarchy;
    EXPECT_NE(e.details().traceback.find("torch.relu(self.level2(x, y))"), std::string::npos);
  }
}

TEST(ErrorInjectingBackends, RuntimeErrorIsADelegateFailureAtTheRelu) {
  auto model = lowered_nested("relu_runtime_error");
  runtime::Interpreter interpreter(model);
  try {
    interpreter.run_method("forward", valid_inputs());
    FAIL() << "the run succeeded";
  } catch (const runtime::RunError& e) {
    EXPECT_NE(e.details().message.find("injected failure"), std::string::npos);
    EXPECT_TRUE(e.details().module_hierarchy.starts_with("top(Nested)::forward.__lowered_"))
        << e.details().module_hierarchy;
    EXPECT_TRUE(e.details().module_hierarchy.ends_with("level1(Level1)::forward.aten::relu"))
        << e.details().module_hierarchy;
  }
}

TEST(ErrorInjectingBackends, AccuracyErrorChangesWhatEagerKeeps) {
  auto expected = tensor::read_npy_file(fixture_path("run/nested/valid_0/output_0.npy"));
  auto output = [&](const std::string& backend) {
    auto model = lowered_nested(backend);
    runtime::Interpreter interpreter(model);
    return runtime::result_tensors(interpreter.run_method("forward", valid_inputs()))
        .at(0)
        .contiguous();
  };
  auto max_difference = [&](const tensor::Tensor& t) {
    double worst = 0;
    for (std::int64_t i = 0; i < t.numel(); ++i) {
      worst = std::max(
          worst, static_cast<double>(std::abs(t.data<float>()[i] - expected.data<float>()[i])));
    }
    return worst;
  };
  EXPECT_LT(max_difference(output("eager")), 1e-5);
  EXPECT_GT(max_difference(output("relu_accuracy_error")), 1e-2);
}

}  // namespace
}  // namespace symbolite::backends
