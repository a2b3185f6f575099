// How floats print through str() and in lists (as FORMAT and print show them too): PyTorch
// 1.13's own output for each
// value (tests/fixtures/ops/str_cases.json, made by make_str_refs.py from scripted functions).
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::ops {
namespace {

nlohmann::json cases() {
  std::ifstream in(symbolite::testing::fixture_path("ops/str_cases.json"));
  return nlohmann::json::parse(in);
}

double from_hex(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

TEST(IValueStr, FloatsPrintAsTorchScriptPrintsThem) {
  const auto c = cases();
  ASSERT_FALSE(c["floats"].empty());
  for (const auto& f : c["floats"]) {
    const std::string want = f["str"];
    EXPECT_EQ(IValue(from_hex(f["value"])).str(), want) << f["value"];
    EXPECT_EQ(run_op("aten::str", {IValue(from_hex(f["value"]))}).to_string(), want) << f["value"];
  }
  for (const auto& l : c["lists"]) {
    IValueList items;
    for (const auto& v : l["values"]) items.emplace_back(from_hex(v));
    EXPECT_EQ(IValue::list(std::move(items)).str(), l["str"].get<std::string>());
  }
}

}  // namespace
}  // namespace symbolite::ops
