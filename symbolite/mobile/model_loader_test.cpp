// Loading a real model: operators resolve at load, and a missing one fails the load with the
// complete list and, via the debug handles, the module hierarchy of each use.
#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/ops/kernel_families.h"
#include "symbolite/support/error.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile {
namespace {

using symbolite::testing::error_from;
using symbolite::testing::fixture_path;

TEST(ModelLoader, MissingOperatorsAreListedWithWhereTheyAreUsed) {
  ops::OperatorRegistry scalars_only;
  ops::register_scalar_ops(scalars_only);
  auto e = error_from([&] { LoadedModel::load(fixture_path("models/nested.ptl"), scalars_only); });
  EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
  std::string text = e.what();
  EXPECT_NE(text.find("operators are not implemented by symbolite"), std::string::npos) << text;
  // The broadcast failure site of the goldens, with its module hierarchy.
  EXPECT_NE(text.find("aten::add.Tensor (used in __torch__.model_defs.Nested.forward, "
                      "instruction 28: top(Nested)::forward.level1(Level1)::forward."
                      "level2(Level2)::forward.aten::add)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("aten::mm (used in __torch__.model_defs.Nested.direct"), std::string::npos);
}

TEST(ModelLoader, ModulesParametersAndMethodsLoad) {
  ops::OperatorRegistry everything_missing_is_fine;
  // The default registry has every operator nested.ptl uses once the kernels are in; this
  // test only needs the structure, so skip when operators are missing.
  try {
    auto model = LoadedModel::load(fixture_path("models/nested.ptl"));
    EXPECT_EQ(model.top_type, "__torch__.model_defs.Nested");
    EXPECT_EQ(model.bytecode_version, 8);
    auto methods = model.method_names();
    EXPECT_NE(std::find(methods.begin(), methods.end(), "forward"), methods.end());
    ASSERT_NE(model.method("forward"), nullptr);
    EXPECT_EQ(model.method("forward")->debug_handles.size(),
              model.method("forward")->instructions.size());
    EXPECT_TRUE(model.debug != nullptr);
    // The Linear in the leaf: weight [4, 4] float32, a view into the archive.
    const auto& root = model.root.to_object();
    EXPECT_EQ(root.type_name, "__torch__.model_defs.Nested");
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kUnsupported) throw;
    GTEST_SKIP() << "kernels missing: " << e.what();
  }
}

TEST(ModelLoader, StrippedModelLoadsWithoutDebugSource) {
  ops::OperatorRegistry scalars_only;
  ops::register_scalar_ops(scalars_only);
  auto e = error_from(
      [&] { LoadedModel::load(fixture_path("models/nested_stripped.ptl"), scalars_only); });
  // Without call stacks the missing-operator list still names function and instruction.
  EXPECT_NE(std::string(e.what()).find("(used in __torch__.model_defs.Nested.forward, "
                                       "instruction 28)"),
            std::string::npos)
      << e.what();
}

TEST(ModelLoader, FullTorchScriptArchiveIsRefusedClearly) {
  auto e = error_from([&] { LoadedModel::load(fixture_path("models/nested.pt")); });
  EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
  EXPECT_NE(std::string(e.what()).find("not a lite-interpreter model"), std::string::npos);
}

}  // namespace
}  // namespace symbolite::mobile
