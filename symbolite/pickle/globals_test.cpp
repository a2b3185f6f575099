// The allow-list's rule for the module types PyTorch's to_backend generates.
#include <gtest/gtest.h>

#include "symbolite/pickle/globals.h"

namespace symbolite::pickle {
namespace {

TEST(LoweredClass, AcceptsOnlyToBackendModuleTypes) {
  EXPECT_TRUE(is_lowered_class("torch.jit.LoweredModule.symbolite.__torch__.delegate_defs.Mid"));
  EXPECT_TRUE(is_lowered_class("torch.jit.LoweredWrapper.backend_with_compiler_demo.__torch__.M"));
  EXPECT_FALSE(is_lowered_class("torch.jit.LoweredModule.symbolite.os.system"));
  EXPECT_FALSE(is_lowered_class("torch.jit.LoweredModule..__torch__.M"));
  EXPECT_FALSE(is_lowered_class("torch.jit.LoweredModule.a-b.__torch__.M"));
  EXPECT_FALSE(is_lowered_class("torch.jit.LoweredModule.symbolite.__torch__."));
  EXPECT_FALSE(is_lowered_class("torch.jit.LoweredModule.symbolite"));
  EXPECT_FALSE(is_lowered_class("torch.jit._pickle.something"));
  EXPECT_FALSE(is_lowered_class("builtins.eval"));
}

TEST(LoweredClass, IsAClassOnlyUnderTheDefaultResolver) {
  const std::string name = "torch.jit.LoweredWrapper.symbolite.__torch__.M";
  EXPECT_EQ(classify_global(name, {}), GlobalKind::kClass);
  EXPECT_EQ(classify_global(name, [](std::string_view) { return false; }), std::nullopt);
  EXPECT_EQ(classify_global("torch.jit.Other.symbolite.__torch__.M", {}), std::nullopt);
}

}  // namespace
}  // namespace symbolite::pickle
