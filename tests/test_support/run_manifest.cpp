#include "tests/test_support/run_manifest.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/result_tensors.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/text.h"

namespace symbolite::testing {
namespace {

void expect_close(const tensor::Tensor& got, const tensor::Tensor& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  auto g = got.contiguous();
  auto w = want.contiguous();
  if (want.dtype() != tensor::DType::kFloat32 && want.dtype() != tensor::DType::kFloat64) {
    ASSERT_EQ(g.nbytes(), w.nbytes());
    EXPECT_EQ(0, std::memcmp(g.raw_data(), w.raw_data(), g.nbytes())) << what;
    return;
  }
  auto element = [](const tensor::Tensor& t, std::int64_t i) {
    return t.dtype() == tensor::DType::kFloat32 ? static_cast<double>(t.data<float>()[i])
                                                : t.data<double>()[i];
  };
  for (std::int64_t i = 0; i < w.numel(); ++i) {
    double a = element(g, i);
    double b = element(w, i);
    if (std::isnan(a) && std::isnan(b)) continue;
    ASSERT_LE(std::abs(a - b), 1e-5 + 1e-4 * std::abs(b)) << what << " element " << i;
  }
}

}  // namespace

const nlohmann::json& run_manifest() {
  static const nlohmann::json manifest = [] {
    std::ifstream in(fixture_path("run/manifest.json"));
    return nlohmann::json::parse(in);
  }();
  return manifest;
}

std::string run_case_name(int index) {
  const auto& e = run_manifest()[static_cast<std::size_t>(index)];
  std::string stem = e["model"].get<std::string>();
  stem = stem.substr(0, stem.find('.'));
  return stem + "_" +
         (e.contains("case") ? e["case"].get<std::string>()
                             : e["dir"].get<std::string>().substr(stem.size() + 1));
}

// "top(Net)::forward.__lowered_0(Net)::forward.a(A)::forward.aten::mul" without the
// lowered module's segment.
static std::string without_lowered_segment(const std::string& hierarchy) {
  static const std::regex segment(R"(__lowered_[0-9]+\([^)]*\)::forward\.)");
  return std::regex_replace(hierarchy, segment, "");
}

// The innermost frame of a traceback.
static std::string last_frame(const std::string& traceback) {
  auto at = traceback.rfind("\n  File ");
  return at == std::string::npos ? traceback : traceback.substr(at);
}

void check_run_entry(const nlohmann::json& entry, const mobile::LoadedModel& model, bool lowered) {
  std::string dir = fixture_path("run/" + entry["dir"].get<std::string>());
  SCOPED_TRACE(entry["model"].get<std::string>() + " " + entry["method"].get<std::string>() +
               entry["call"].get<std::string>());
  std::vector<ops::IValue> inputs;
  for (const auto& name : entry["inputs"])
    inputs.push_back(runtime::read_input_file(dir + "/" + name.get<std::string>()));
  runtime::Interpreter interpreter(model);
  if (!entry.contains("case")) {
    ops::IValue result = interpreter.run_method(entry["method"].get<std::string>(), inputs);
    std::vector<tensor::Tensor> outputs = runtime::result_tensors(result);
    ASSERT_EQ(outputs.size(), entry["outputs"].size());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      expect_close(outputs[i],
                   tensor::read_npy_file(dir + "/" + entry["outputs"][i].get<std::string>()),
                   "output " + std::to_string(i));
    }
    return;
  }
  try {
    interpreter.run_method(entry["method"].get<std::string>(), inputs);
    FAIL() << "expected the call to fail";
  } catch (const runtime::RunError& e) {
    const auto& d = e.details();
    EXPECT_EQ(d.python_class, entry["error_type"].get<std::string>());
    EXPECT_EQ(d.message, entry["message"].get<std::string>());
    if (lowered) {
      EXPECT_EQ(without_lowered_segment(d.module_hierarchy),
                entry["module_hierarchy"].get<std::string>());
      if (entry["lost_source_ranges"].get<int>() == 0) {
        std::string expected = last_frame(rstrip(entry["traceback"].get<std::string>()));
        EXPECT_TRUE(rstrip(d.traceback).ends_with(expected))
            << d.traceback << "\nexpected to end with" << expected;
      }
    } else {
      EXPECT_EQ(d.module_hierarchy, entry["module_hierarchy"].get<std::string>());
      if (entry["lost_source_ranges"].get<int>() == 0) {
        EXPECT_EQ(rstrip(d.traceback), rstrip(entry["traceback"].get<std::string>()));
      }
    }
    ASSERT_TRUE(d.handle.has_value());
  }
}

}  // namespace symbolite::testing
