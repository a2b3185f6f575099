// Bounded runs: a file's register_size is not allocated as claimed, a loop the bytecode shows
// to be endless is refused at load, and every other loop is stopped by the run budget
// (instructions, time, stack, cancellation) with a RunError at the instruction it reached.
// The models are PyTorch's is_cuda.ptl and nested.ptl, rewritten with altered bytecode.
#include <atomic>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/mobile/model_writer.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::runtime {
namespace {

using mobile::Instruction;
using mobile::OpCode;

// is_cuda.ptl with its forward changed by `edit`, written without debug records.
template <typename Edit>
mobile::LoadedModel is_cuda_with(Edit edit) {
  auto info = mobile::ModelInfo::load(testing::fixture_path("models/is_cuda.ptl"));
  mobile::Bytecode bytecode = *info.bytecode;
  for (auto& fn : bytecode.functions) {
    if (fn.qualified_name.ends_with(".forward")) edit(fn);
  }
  return mobile::LoadedModel::load_bytes(
      Bytes::from_vector(mobile::write_model_bytes(info.archive, bytecode, nullptr)), "edited.ptl");
}

// forward(x) of is_cuda.ptl on the golden input; returns the output's values.
std::vector<float> run_forward(Interpreter& interpreter, nlohmann::json* golden_out = nullptr) {
  std::ifstream in(testing::fixture_path("goldens/is_cuda.json"));
  auto golden = nlohmann::json::parse(in);
  auto x = tensor::Tensor::empty(golden["input"]["shape"].get<std::vector<std::int64_t>>(),
                                 tensor::DType::kFloat32);
  for (std::size_t i = 0; i < golden["input"]["data"].size(); ++i) {
    x.mutable_data<float>()[i] = golden["input"]["data"][i].get<float>();
  }
  if (golden_out != nullptr) *golden_out = golden["output"];
  auto out = interpreter.run_method("forward", {ops::IValue(x)}).to_tensor().contiguous();
  return std::vector<float>(out.data<float>(), out.data<float>() + out.numel());
}

// Prepends `spin` to forward: code that never leaves it.
mobile::LoadedModel spinning(std::vector<Instruction> spin) {
  return is_cuda_with([&](mobile::BytecodeFunction& fn) {
    fn.instructions.insert(fn.instructions.begin(), spin.begin(), spin.end());
  });
}

std::string run_error_text(Interpreter& interpreter) {
  try {
    run_forward(interpreter);
  } catch (const RunError& e) {
    return e.details().message;
  }
  return "(no error)";
}

TEST(RunBudget, RegisterSizeIsSizedByTheCodeNotTheClaim) {
  // 2^31 - 1 registers would be 32 GiB of values: the frame holds only those the code uses.
  auto model = is_cuda_with([](mobile::BytecodeFunction& fn) { fn.register_size = 2147483647; });
  Interpreter interpreter(model);
  nlohmann::json expected;
  auto out = run_forward(interpreter, &expected);
  ASSERT_EQ(out.size(), expected.size());
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_FLOAT_EQ(out[i], expected[i].get<float>());
}

TEST(RunBudget, JumpToItselfIsRefusedAtLoad) {
  try {
    spinning({{OpCode::kJmp, 0, 0}});
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    EXPECT_NE(std::string(e.what()).find("instruction 0 (JMP 0 0): jumps to itself"),
              std::string::npos)
        << e.what();
  }
  try {
    spinning({{OpCode::kJmp, 1, 0}, {OpCode::kJmp, -1, 0}});
    FAIL() << "loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("jumps back to itself through other jumps only"),
              std::string::npos)
        << e.what();
  }
}

TEST(RunBudget, InstructionLimitStopsALoopAtItsInstruction) {
  auto model =
      spinning({{OpCode::kUninitialized, 0, 0}, {OpCode::kDrop, 0, 0}, {OpCode::kJmp, -2, 0}});
  Interpreter interpreter(model);
  RunBudget budget;
  budget.max_instructions = 1000;
  interpreter.set_budget(budget);
  try {
    run_forward(interpreter);
    FAIL() << "the run ended";
  } catch (const RunError& e) {
    EXPECT_EQ(e.details().message,
              "the run was stopped after 1000 instructions, its limit (--max-instructions)");
    // 1000 instructions of a 3-instruction loop: the 1001st is instruction 1000 % 3 = 1.
    EXPECT_EQ(e.details().instruction, 1u);
  }
}

TEST(RunBudget, ALimitAboveWhatTheRunNeedsChangesNothing) {
  auto model = mobile::LoadedModel::load(testing::fixture_path("models/is_cuda.ptl"));
  Interpreter interpreter(model);
  RunBudget budget;
  budget.max_instructions = 100000;
  budget.timeout = std::chrono::seconds(60);
  interpreter.set_budget(budget);
  nlohmann::json expected;
  auto out = run_forward(interpreter, &expected);
  ASSERT_EQ(out.size(), expected.size());
  // The counter restarts with every call.
  EXPECT_EQ(run_forward(interpreter), out);
}

TEST(RunBudget, TimeoutStopsAnEndlessLoop) {
  auto model =
      spinning({{OpCode::kUninitialized, 0, 0}, {OpCode::kDrop, 0, 0}, {OpCode::kJmp, -2, 0}});
  Interpreter interpreter(model);
  RunBudget budget;
  budget.timeout = std::chrono::milliseconds(50);
  interpreter.set_budget(budget);
  std::string message = run_error_text(interpreter);
  EXPECT_TRUE(message.starts_with("the run was stopped after ")) << message;
  EXPECT_NE(message.find("its time limit (--timeout)"), std::string::npos) << message;
}

TEST(RunBudget, CancelFromAnotherThread) {
  auto model =
      spinning({{OpCode::kUninitialized, 0, 0}, {OpCode::kDrop, 0, 0}, {OpCode::kJmp, -2, 0}});
  Interpreter interpreter(model);
  std::atomic<bool> cancel{false};
  RunBudget budget;
  budget.cancel = &cancel;
  interpreter.set_budget(budget);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancel = true;
  });
  std::string message = run_error_text(interpreter);
  canceller.join();
  EXPECT_TRUE(message.starts_with("the run was cancelled after ")) << message;
}

TEST(RunBudget, AStackThatOnlyGrowsIsStopped) {
  auto model = spinning({{OpCode::kUninitialized, 0, 0}, {OpCode::kJmp, -1, 0}});
  Interpreter interpreter(model);
  RunBudget budget;
  budget.max_stack = 10000;
  interpreter.set_budget(budget);
  std::string message = run_error_text(interpreter);
  EXPECT_TRUE(message.starts_with("the stack holds ")) << message;
  EXPECT_NE(message.find("more than the limit of 10000"), std::string::npos) << message;
}

}  // namespace
}  // namespace symbolite::runtime
