// Batch norm folding and operator fusion (mobile/batch_norm_folding.h, operator_fusion.h) on
// the fused*.ptl models (tests/fixtures/fused_defs.py): what is folded and fused and what is
// not, results against PyTorch 1.13's lite interpreter (goldens/fused.json,
// make_fused_model.py) and bit for bit against the same model's unfused code (what a profiled
// run executes), and failures reported where the unfused code reports them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/cpu/max_pool_plane.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/forward_call.h"
#include "tests/test_support/json_tensor.h"
#include "tests/test_support/loaded_fixture.h"
#include "tests/test_support/nn_cases.h"

namespace symbolite::runtime {
namespace {

using ops::IValue;
using tensor::Tensor;

nlohmann::json golden(const char* key) {
  std::ifstream in(testing::fixture_path("goldens/fused.json"));
  return nlohmann::json::parse(in)[key];
}

nlohmann::json calls() { return golden("calls"); }

// Runs forward on fresh copies of the call's inputs: with the fused code, or under a
// profiler, which runs the file's code.
IValue run(const std::string& model_name, const nlohmann::json& call, bool fused) {
  return testing::run_forward_call(testing::loaded_fixture(model_name + ".ptl"), call,
                                   /*profiled=*/!fused);
}

RunErrorDetails failure(const std::string& model_name, const nlohmann::json& call, bool fused) {
  try {
    run(model_name, call, fused);
  } catch (const RunError& e) {
    return e.details();
  }
  ADD_FAILURE() << call["name"] << ": no error";
  return {};
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && a.is_contiguous() &&
         b.is_contiguous() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

// What the fused code of `model`'s forward does differently, instruction by instruction:
// "fold aten::conv2d" (a convolution applying its batch norm), "+act" (an activation in its
// epilogue), "identity" (a folded batch norm), "skip" (JMP 1 over an activation), "clear"
// (DROPR of the register F.relu's inlined code would have stored its input in), "chain" (a
// convolution run with the max pool reading its output), "chained" (that pool), "cat" (a
// convolution writing its output into its part of a cat's), "gathers" (that cat).
std::vector<std::string> rewrites(const std::string& model_name) {
  const mobile::LoadedFunction& fn =
      *testing::loaded_fixture(model_name + ".ptl").method("forward");
  std::vector<std::string> out;
  if (fn.fused_instructions.empty()) return out;
  EXPECT_EQ(fn.fused_instructions.size(), fn.instructions().size());
  for (std::size_t pc = 0; pc < fn.instructions().size(); ++pc) {
    const mobile::Instruction& was = fn.instructions()[pc];
    const mobile::Instruction& now = fn.fused_instructions[pc];
    if (was.op == now.op && was.x == now.x && was.n == now.n) continue;
    if (now.op == mobile::OpCode::kDropR) {  // a functional activation's register
      out.push_back("clear");
      continue;
    }
    if (now.op == mobile::OpCode::kJmp) {
      EXPECT_EQ(now.x, 1);
      out.push_back(was.op == mobile::OpCode::kOp
                        ? "skip " + fn.operators[static_cast<std::size_t>(was.x)].name
                        : "skip");
      continue;
    }
    EXPECT_EQ(now.op, mobile::OpCode::kOp);
    const mobile::ResolvedOperator& op = fn.operators[static_cast<std::size_t>(now.x)];
    if (op.taken_by_producer) {
      EXPECT_NE(op.alone, nullptr);
      out.push_back("chained " + op.name);
      continue;
    }
    if (op.gathers_cat) {
      EXPECT_NE(op.cat_plan, nullptr);
      out.push_back("gathers " + op.name);
      continue;
    }
    std::string what = op.name;
    if (op.epilogue != nullptr && !op.epilogue->scale.empty()) what = "fold " + op.name;
    if (op.folded_away) what = "identity";
    if (op.then_pool != nullptr) {
      EXPECT_NE(op.alone, nullptr);
      EXPECT_TRUE(fn.operators[static_cast<std::size_t>(fn.fused_instructions[op.pool_pc].x)]
                      .taken_by_producer);
      what.insert(0, "chain ");
    }
    if (op.cat_plan != nullptr) {
      EXPECT_GT(op.cat_plan->cat_pc(), pc);
      what.insert(0, "cat" + std::to_string(op.cat_item) + " ");
    }
    if (op.epilogue != nullptr && op.epilogue->activation) {
      EXPECT_NE(op.activation_def, nullptr);
      what += " +act";
    }
    out.push_back(what);
  }
  return out;
}

TEST(OperatorFusion, FoldsEachEvalBatchNormIntoTheConvolutionBeforeIt) {
  const std::vector<std::string> expected = {
      // pre: a batch norm on the input (no convolution to fold into) with its relu_.
      "aten::batch_norm +act", "skip aten::relu_",
      // a, b, c, d: the batch norm folded, the activation in the convolution's epilogue.
      "fold aten::conv2d +act", "identity", "skip aten::relu_",         //
      "fold aten::conv2d +act", "identity", "skip aten::hardswish_",    //
      "fold aten::conv2d +act", "identity", "skip aten::silu_",         //
      "fold aten::conv2d +act", "identity", "skip aten::hardsigmoid_",  //
      // d6: ReLU6 is LOADC 0.0; LOADC 6.0; OP hardtanh_, all three skipped.
      "fold aten::conv2d +act", "identity", "skip", "skip", "skip aten::hardtanh_",
      // e: folded, its relu (not in place) in the epilogue all the same. f: folded; relu_
      // comes after a STORE and LOAD.
      "fold aten::conv2d +act", "identity", "skip aten::relu", "fold aten::conv2d", "identity"};
  EXPECT_EQ(rewrites("fused"), expected);
  EXPECT_TRUE(testing::loaded_fixture("fused.ptl").method("forward")->fused_assumes_root);
  const std::vector<std::string> depthwise = {
      // a to e: the batch norm folded, the activation in the convolution's epilogue.
      "fold aten::conv2d +act", "identity", "skip aten::hardswish_",                 //
      "fold aten::conv2d +act", "identity", "skip aten::silu_",                      //
      "fold aten::conv2d +act", "identity", "skip", "skip", "skip aten::hardtanh_",  //
      "fold aten::conv2d +act", "identity", "skip aten::hardsigmoid_",               //
      "fold aten::conv2d +act", "identity", "skip aten::relu_",                      //
      // f: folded, no activation; g: the convolution's own bias, then its activation.
      "fold aten::conv2d", "identity", "aten::conv2d +act", "skip aten::hardswish_"};
  EXPECT_EQ(rewrites("fused_depthwise"), depthwise);
  // DenseNet's layer: the bottleneck convolution in a branch the module attributes decide,
  // its batch norm and relu_ after the branches meet.
  const std::vector<std::string> branches = {"fold aten::conv2d +act", "identity",
                                             "skip aten::relu_"};
  EXPECT_EQ(rewrites("fused_branches"), branches);
}

TEST(OperatorFusion, ChainsAConvolutionWithTheMaxPoolReadingItsOutputAlone) {
  const std::string pool = "chained aten::max_pool2d";
  EXPECT_EQ(rewrites("fused_pool"),
            (std::vector<std::string>{
                // a: bias and relu_ in the epilogue, chained with its pool.
                "chain aten::conv2d +act", "skip aten::relu_", pool,
                // b: the batch norm folded too.
                "chain fold aten::conv2d +act", "identity", "skip aten::relu_", pool,
                // c: F.max_pool2d(x, 2).
                "chain aten::conv2d +act", "skip aten::relu_", pool,
                // d: its output read again after the pool; e: its shape read before it.
                "aten::conv2d +act", "skip aten::relu_", "aten::conv2d +act", "skip aten::relu_",
                // f
                "chain aten::conv2d +act", "skip aten::hardswish_", pool,
                // g: its window changed in place (aten::_set_item) before the pool.
                "aten::conv2d +act", "skip aten::relu_"}));
}

TEST(OperatorFusion, HasConvolutionsWriteTheirOutputsIntoTheCatReadingThemAlone) {
  EXPECT_EQ(rewrites("fused_cat"),
            (std::vector<std::string>{
                // The squeeze; a: expand1x1 and expand3x3 into their cat.
                "aten::conv2d +act", "skip aten::relu_",                            //
                "cat0 aten::conv2d +act", "skip aten::relu_",                       //
                "cat1 aten::conv2d +act", "skip aten::relu_", "gathers aten::cat",  //
                // b: three batch-normed branches, cat along dim -3.
                "cat0 fold aten::conv2d +act", "identity", "skip aten::relu_",       //
                "cat1 fold aten::conv2d +act", "identity", "skip aten::relu_",       //
                "cat2 fold aten::conv2d +act", "identity", "skip aten::hardswish_",  //
                "gathers aten::cat",                                                 //
                // c: listed second, then first.
                "cat1 aten::conv2d +act", "skip aten::relu_",                       //
                "cat0 aten::conv2d +act", "skip aten::silu_", "gathers aten::cat",  //
                // d: its first item read again; e: the input in its list.
                "aten::conv2d +act", "skip aten::relu_", "aten::conv2d +act", "skip aten::relu_",
                "aten::conv2d +act", "skip aten::relu_"}));
}

TEST(OperatorFusion, FusesActivationsWhereNothingFolds) {
  // An activation in a convolution's epilogue; a batch norm whose input is read again.
  EXPECT_EQ(rewrites("fused_peephole"),
            (std::vector<std::string>{"aten::conv2d +act", "skip aten::relu_", "aten::conv2d +act",
                                      "skip aten::hardswish_", "aten::conv2d +act", "skip", "skip",
                                      "skip aten::hardtanh_", "aten::batch_norm +act",
                                      "skip aten::silu_"}));
  // float64 parameters: nothing folds; each batch norm takes its activation.
  std::vector<std::string> fused64 = rewrites("fused64");
  EXPECT_EQ(std::count(fused64.begin(), fused64.end(), "aten::batch_norm +act"), 7);
  EXPECT_EQ(fused64.size(), 16U);  // six take one instruction, ReLU6 three
  // A model that sets an attribute: module attributes are not fixed, nothing folds.
  EXPECT_EQ(rewrites("fused_sets_attribute"),
            (std::vector<std::string>{"aten::batch_norm +act", "skip aten::relu_"}));
  EXPECT_FALSE(
      testing::loaded_fixture("fused_sets_attribute.ptl").method("forward")->fused_assumes_root);
}

TEST(OperatorFusion, FusesActivationsThatMakeNewTensorsAsTheInPlaceOnes) {
  // nn.ReLU(), nn.SiLU(), nn.ReLU6(), F.relu: each reads an output nothing else holds.
  std::vector<std::string> expected;
  auto steps = [&expected](std::initializer_list<std::string> list) {
    expected.insert(expected.end(), list);
  };
  // a to e: Conv-BN-activation blocks.
  for (const char* act : {"relu", "silu", "hardswish", "hardsigmoid"}) {
    steps({"fold aten::conv2d +act", "identity", std::string("skip aten::") + act});
  }
  steps({"fold aten::conv2d +act", "identity", "skip", "skip", "skip aten::hardtanh"});
  // F.relu inlined: STORE r; LOADC False; JF; LOAD r; OP relu_; JMP; LOAD r; OP relu.
  auto then_f_relu = [&steps](const std::string& producer, const std::string& op = "relu") {
    steps({producer, "clear", "skip", "skip", "skip", "skip aten::" + op + "_", "skip", "skip",
           "skip aten::" + op});
  };
  then_f_relu("aten::conv2d +act");        // f: the convolution's bias, then F.relu
  then_f_relu("chain aten::conv2d +act");  // p: chained with its pool
  steps({"chained aten::max_pool2d"});
  then_f_relu("cat0 aten::conv2d +act");  // q1, q2: into the parts of their cat
  then_f_relu("cat1 aten::conv2d +act");
  steps({"gathers aten::cat"});
  // h: the batch norm folded; F.relu(x, inplace=True) takes the other branch.
  steps({"fold aten::conv2d +act", "identity", "clear", "skip", "skip", "skip", "skip aten::relu_",
         "skip", "skip", "skip aten::relu"});
  then_f_relu("aten::conv2d +act", "relu6");  // k: F.relu6
  // m: STORE r; LOAD self; GET_ATTR m_act; DROP; MOVE r; OP relu (the middle three run);
  // gate: the same with MOVE of the gate's `self`.
  steps({"aten::conv2d +act", "clear", "skip", "skip aten::relu"});
  steps({"aten::conv2d +act", "clear", "skip", "skip aten::hardsigmoid"});
  // g: its output read again after F.silu, which is not fused.
  EXPECT_EQ(rewrites("fused_out_of_place"), expected);
}

TEST(OperatorFusion, FoldsAreUndoneOnUnbatchedInputs) {
  // Batched, the fold applies; unbatched, the batch norm runs after the plain convolution
  // (and the relu_ after it): ResultsAreThoseOfTheUnfusedCodeAndPyTorchs checks both.
  EXPECT_EQ(rewrites("fused_unbatched"),
            (std::vector<std::string>{"fold aten::conv2d +act", "identity", "skip aten::relu_"}));
}

TEST(OperatorFusion, ResultsAreThoseOfTheUnfusedCodeAndPyTorchs) {
  int checked = 0;
  for (const auto& call : calls()) {
    if (!call.contains("output")) continue;
    const std::string model_name = call["model"].get<std::string>();
    SCOPED_TRACE(model_name + "/" + call["name"].get<std::string>());
    Tensor fused = run(model_name, call, true).to_tensor();
    Tensor unfused = run(model_name, call, false).to_tensor();
    // Every step computes as the unfused operators do, in the same order.
    EXPECT_TRUE(same_bits(fused, unfused));
    testing::nn_expect_close(fused, testing::tensor_from_json(call["output"]));
    ++checked;
  }
  // fused at batch 1 and 2, fused64, fused_peephole, fused_sets_attribute, fused_unbatched
  // unbatched and batched, fused_depthwise at batch 1 and 2, fused_branches, fused_pool (too
  // small an image for its chains: each convolution and pool apart), fused_cat and
  // fused_out_of_place at batch 1 and 2
  EXPECT_EQ(checked, 15);
}

TEST(OperatorFusion, ChainedCatsCopyNothingFromTheirSecondRunOn) {
  // A model of its own: the cats' shapes are remembered in it, run to run.
  const mobile::LoadedModel model =
      mobile::LoadedModel::load(testing::fixture_path("models/fused_cat.ptl"));
  int checked = 0;
  for (const auto& call : calls()) {
    if (call["model"] != "fused_cat") continue;
    const std::string name = call["name"].get<std::string>();
    SCOPED_TRACE(name);
    const Tensor unfused = testing::run_forward_call(model, call, /*profiled=*/true).to_tensor();
    // Bytes each cat allocated, run by run, as the code runs.
    for (int run = 0; run < 3; ++run) {
      profiler::RecordingSink sink(profiler::kDetailAsRun | profiler::kDetailMemory);
      IValue result;
      {
        profiler::ProfilingScope scope(sink);
        result = testing::run_forward_call(model, call);
      }
      EXPECT_TRUE(same_bits(result.to_tensor(), unfused));
      testing::nn_expect_close(result.to_tensor(), testing::tensor_from_json(call["output"]));
      std::vector<std::int64_t> cat_bytes;
      for (const auto& e : sink.events()) {
        if (e.op == "aten::cat") cat_bytes.push_back(e.bytes_allocated);
      }
      ASSERT_EQ(cat_bytes.size(), 5U);
      // The three chained cats: a copy on the first run, and on every run of the batch of two,
      // whose items are not contiguous parts of the output; nothing after that.
      const bool copies = run == 0 || name == "float32_batch2";
      for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(cat_bytes[i] > 0, copies) << "cat " << i;
      // d and e always copy.
      EXPECT_GT(cat_bytes[3], 0);
      EXPECT_GT(cat_bytes[4], 0);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

// The large_calls input: element i is ((i * 7919) % 2003 - 1001) / 512, exact in float32.
Tensor large_input(const std::vector<std::int64_t>& shape) {
  Tensor x = Tensor::uninitialized(shape, tensor::DType::kFloat32);
  float* data = x.mutable_data<float>();
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    data[i] = static_cast<float>(i * 7919 % 2003 - 1001) / 512.0f;
  }
  return x;
}

TEST(OperatorFusion, ChainedPoolsGiveTheUnfusedBitsAndPyTorchsOnLargeImages) {
  int checked = 0;
  for (const auto& call : golden("large_calls")) {
    if (call.contains("message")) continue;
    const auto shape = call["shape"].get<std::vector<std::int64_t>>();
    SCOPED_TRACE(call["shape"].dump());
    const mobile::LoadedModel& model = testing::loaded_fixture("fused_pool.ptl");
    Tensor fused =
        Interpreter(model).run_method("forward", {IValue(large_input(shape))}).to_tensor();
    profiler::RecordingSink as_run(profiler::kDetailAsRun);
    {
      profiler::ProfilingScope scope(as_run);
      Interpreter(model).run_method("forward", {IValue(large_input(shape))});
    }
    std::vector<std::string> events;
    for (const auto& e : as_run.events()) {
      if (e.op.find("conv2d") != std::string_view::npos) events.emplace_back(e.op);
    }
    // The chains ran (a to c and f), the others apart (d, e, g); none on a CPU the pool's
    // plane kernel does not run on (ops/cpu/max_pool_plane.h: AVX-512 or AVX2).
    const bool planes = ops::max_pool_plane_takes({8, 8, 3, 3, 3, 3, 2, 2, 0, 0});
    const std::string chain = planes ? "+aten::max_pool2d" : "";
    EXPECT_EQ(events, (std::vector<std::string>{
                          "aten::conv2d+aten::relu_" + chain,
                          "aten::conv2d+aten::batch_norm+aten::relu_" + chain,
                          "aten::conv2d+aten::relu_" + chain, "aten::conv2d+aten::relu_",
                          "aten::conv2d+aten::relu_", "aten::conv2d+aten::hardswish_" + chain,
                          "aten::conv2d+aten::relu_"}));
    Tensor unfused;
    {
      profiler::RecordingSink sink;  // the file's code
      profiler::ProfilingScope scope(sink);
      unfused = Interpreter(model).run_method("forward", {IValue(large_input(shape))}).to_tensor();
    }
    EXPECT_TRUE(same_bits(fused, unfused));
    // Against PyTorch: the shape, the sum and 100 evenly spaced elements.
    const nlohmann::json& summary = call["summary"];
    ASSERT_EQ(fused.sizes(), summary["shape"].get<std::vector<std::int64_t>>());
    const float* data = fused.data<float>();
    double sum = 0;
    for (std::int64_t i = 0; i < fused.numel(); ++i) sum += data[i];
    const double expected_sum = summary["sum"].get<double>();
    EXPECT_NEAR(sum, expected_sum, 1e-5 * std::abs(expected_sum));
    const auto step = summary["step"].get<std::int64_t>();
    const auto samples = summary["samples"].get<std::vector<float>>();
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const float actual = data[static_cast<std::int64_t>(k) * step];
      EXPECT_NEAR(actual, samples[k], 1e-5f + 1e-5f * std::abs(samples[k])) << "sample " << k;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);  // batch 1, batch 2
}

TEST(OperatorFusion, AChainedPoolThatRefusesItsInputFailsAtItsOwnInstruction) {
  int checked = 0;
  for (const auto& call : golden("large_calls")) {
    if (!call.contains("message")) continue;
    const mobile::LoadedModel& model =
        testing::loaded_fixture(call["model"].get<std::string>() + ".ptl");
    const auto shape = call["shape"].get<std::vector<std::int64_t>>();
    auto fail = [&](bool fused) {
      std::optional<profiler::RecordingSink> sink;
      std::optional<profiler::ProfilingScope> scope;
      if (!fused) scope.emplace(sink.emplace());  // the file's code
      try {
        Interpreter(model).run_method("forward", {IValue(large_input(shape))});
      } catch (const RunError& e) {
        return e.details();
      }
      ADD_FAILURE() << "no error";
      return RunErrorDetails{};
    };
    RunErrorDetails fused = fail(true);
    RunErrorDetails unfused = fail(false);
    EXPECT_EQ(fused.message, call["message"].get<std::string>());
    EXPECT_EQ(fused.instruction, unfused.instruction);
    EXPECT_EQ(fused.traceback, unfused.traceback);
    EXPECT_EQ(model.method("forward")
                  ->operators[static_cast<std::size_t>(
                      model.method("forward")->instructions()[fused.instruction].x)]
                  .name,
              "aten::max_pool2d");
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

// The events a profile of the code as it runs (profiler::kDetailAsRun) records for a call,
// those of convolutions and batch norms only, and the result.
std::pair<std::vector<std::string>, Tensor> profile_as_run(const std::string& model_name,
                                                           const nlohmann::json& call) {
  profiler::RecordingSink sink(profiler::kDetailAsRun);
  IValue result;
  {
    profiler::ProfilingScope scope(sink);
    result = testing::run_forward_call(testing::loaded_fixture(model_name + ".ptl"), call);
  }
  std::vector<std::string> names;
  for (const auto& e : sink.events()) {
    if (e.op.find("conv2d") != std::string_view::npos ||
        e.op.find("batch_norm") != std::string_view::npos) {
      names.emplace_back(e.op);
    }
  }
  return {names, result.to_tensor()};
}

TEST(OperatorFusion, ProfilesTheCodeAsItRunsWhenAsked) {
  const std::string act = "aten::conv2d+aten::batch_norm+aten::";
  for (const auto& call : calls()) {
    if (!call.contains("output")) continue;
    const std::string model_name = call["model"].get<std::string>();
    const std::string name = call["name"].get<std::string>();
    SCOPED_TRACE(model_name + "/" + name);
    auto [events, result] = profile_as_run(model_name, call);
    // The fused code ran: the bits of an unprofiled run.
    EXPECT_TRUE(same_bits(result, run(model_name, call, true).to_tensor()));
    if (model_name == "fused" && name == "float32") {
      // One event per fused operator, none for a folded batch norm.
      EXPECT_EQ(events, (std::vector<std::string>{"aten::batch_norm+aten::relu_", act + "relu_",
                                                  act + "hardswish_", act + "silu_",
                                                  act + "hardsigmoid_", act + "hardtanh_",
                                                  act + "relu", "aten::conv2d+aten::batch_norm"}));
    } else if (model_name == "fused_unbatched") {
      // Unbatched, the fold steps aside: the batch norm (with its relu_) runs after all.
      std::vector<std::string> expected{act + "relu_"};
      if (name == "unbatched") expected.emplace_back("aten::batch_norm+aten::relu_");
      EXPECT_EQ(events, expected);
    }
  }
  // Without the flag, the file's operators one by one.
  auto [plain, result] = [&] {
    profiler::RecordingSink sink;
    profiler::ProfilingScope scope(sink);
    IValue out = testing::run_forward_call(testing::loaded_fixture("fused.ptl"), calls()[0]);
    std::vector<std::string> names;
    for (const auto& e : sink.events()) names.emplace_back(e.op);
    return std::pair{names, out};
  }();
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "aten::batch_norm"), 8);
  EXPECT_EQ(std::count_if(plain.begin(), plain.end(),
                          [](const std::string& n) { return n.find('+') != std::string::npos; }),
            0);
}

TEST(OperatorFusion, LeavesTheCallersInputAsItWas) {
  const nlohmann::json call = calls()[0];
  ASSERT_EQ(call["model"], "fused");
  Tensor x = testing::tensor_from_json(call["inputs"][0]);
  Tensor before = x.copy();
  Interpreter interpreter(testing::loaded_fixture("fused.ptl"));
  interpreter.run_method("forward", {IValue(x)});
  EXPECT_TRUE(same_bits(x, before));
}

TEST(OperatorFusion, FailuresAreReportedWhereTheUnfusedCodeReportsThem) {
  int checked = 0;
  for (const auto& call : calls()) {
    if (call.contains("output")) continue;
    SCOPED_TRACE(call["model"].get<std::string>() + "/" + call["name"].get<std::string>());
    RunErrorDetails fused = failure(call["model"], call, true);
    RunErrorDetails unfused = failure(call["model"], call, false);
    // PyTorch raises torch.jit.Error, without the class, for a `raise` in the model.
    if (call["error_type"] != "Error") {
      EXPECT_EQ(fused.python_class, call["error_type"].get<std::string>());
    }
    EXPECT_EQ(fused.python_class, unfused.python_class);
    EXPECT_EQ(fused.message, call["message"].get<std::string>());
    EXPECT_EQ(fused.instruction, unfused.instruction);
    EXPECT_EQ(fused.handle, unfused.handle);
    EXPECT_EQ(fused.module_hierarchy, unfused.module_hierarchy);
    EXPECT_EQ(fused.traceback, unfused.traceback);
    ++checked;
  }
  // float64 input to float32 parameters; 4 channels for 8; fused_pool's first pool refusing
  // its input, chained or not
  EXPECT_EQ(checked, 3);
}

}  // namespace
}  // namespace symbolite::runtime
