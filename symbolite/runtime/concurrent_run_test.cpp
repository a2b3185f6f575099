// One loaded model run from many threads at once, the library's contract (interpreter.h): each
// thread with its own Interpreter gets exactly the outputs, and for a failing call the exact
// error, of a sequential run. Run under ThreadSanitizer by scripts/tsan.sh.
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::runtime {
namespace {

using symbolite::testing::fixture_path;

// The output's bytes, or the error's text: what two runs must agree on.
std::string outcome(Interpreter& interpreter, const std::string& method,
                    const std::vector<ops::IValue>& inputs) {
  try {
    auto t = interpreter.run_method(method, inputs).to_tensor().contiguous();
    return std::string(reinterpret_cast<const char*>(t.raw_data()), t.nbytes());
  } catch (const RunError& e) {
    return e.what();
  }
}

TEST(ConcurrentRun, ManyThreadsOneModelSameResultsAsSequential) {
  // nested.ptl: its delegate-free calls, one that works and one that fails in a submodule.
  const auto model = mobile::LoadedModel::load(fixture_path("models/nested.ptl"));
  struct Call {
    std::string method;
    std::vector<ops::IValue> inputs;
  };
  std::vector<Call> calls;
  for (const char* dir : {"run/nested/valid_2/", "run/nested/broadcast_three_deep/"}) {
    std::vector<ops::IValue> inputs{
        read_input_file(fixture_path(std::string(dir) + "input_0.npy")),
        read_input_file(fixture_path(std::string(dir) + "input_1.npy"))};
    calls.push_back({std::string(dir).find("valid") != std::string::npos ? "direct" : "forward",
                     std::move(inputs)});
  }
  std::vector<std::string> expected;
  {
    Interpreter sequential(model);
    for (const auto& call : calls)
      expected.push_back(outcome(sequential, call.method, call.inputs));
  }
  ASSERT_NE(expected[0], expected[1]);

  constexpr int kThreads = 8;
  constexpr int kRunsPerThread = 25;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Interpreter interpreter(model);
      for (int i = 0; i < kRunsPerThread; ++i) {
        std::size_t c = static_cast<std::size_t>(t + i) % calls.size();
        if (outcome(interpreter, calls[c].method, calls[c].inputs) != expected[c]) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(ConcurrentRun, ChainedCatsSharedByThreadsRunningShapesThatChange) {
  // fused_cat.ptl: cats whose items are written in place where the shapes are those of the
  // cat's last run (cat_in_place.h), which threads running other shapes keep changing.
  const auto model = mobile::LoadedModel::load(fixture_path("models/fused_cat.ptl"));
  std::vector<std::vector<ops::IValue>> inputs;
  for (const std::vector<std::int64_t>& shape :
       {std::vector<std::int64_t>{1, 6, 9, 7}, std::vector<std::int64_t>{2, 6, 5, 6},
        std::vector<std::int64_t>{1, 6, 4, 11}}) {
    tensor::Tensor x = tensor::Tensor::uninitialized(shape, tensor::DType::kFloat32);
    float* data = x.mutable_data<float>();
    for (std::int64_t i = 0; i < x.numel(); ++i) data[i] = static_cast<float>(i % 13 - 6) / 4.0f;
    inputs.push_back({ops::IValue(x)});
  }
  std::vector<std::string> expected;
  {
    Interpreter sequential(model);
    for (const auto& call : inputs) expected.push_back(outcome(sequential, "forward", call));
  }
  constexpr int kThreads = 6;
  constexpr int kRunsPerThread = 30;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Interpreter interpreter(model);
      for (int i = 0; i < kRunsPerThread; ++i) {
        // Half the threads keep one shape, the others change it every run.
        const std::size_t c = static_cast<std::size_t>(t % 2 == 0 ? t / 2 : t + i) % inputs.size();
        if (outcome(interpreter, "forward", inputs[c]) != expected[c]) ++mismatches[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace symbolite::runtime
