// aten::warn (a model's warnings.warn) reaches the installed handler, once per call, with the
// model's message; the default handler is restored by nullptr.
#include "symbolite/ops/registry/warnings.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"

namespace symbolite::ops {
namespace {

std::vector<std::string>& seen() {
  static std::vector<std::string> messages;
  return messages;
}

TEST(Warnings, AModelsWarningReachesTheHandler) {
  seen().clear();
  set_warning_handler([](std::string_view message) { seen().emplace_back(message); });
  run_op_multi("aten::warn", {IValue::string("beware"), IValue(std::int64_t{2})});
  run_op_multi("aten::warn", {IValue::string("twice")});
  set_warning_handler(nullptr);
  EXPECT_EQ(seen(), (std::vector<std::string>{"beware", "twice"}));
}

}  // namespace
}  // namespace symbolite::ops
