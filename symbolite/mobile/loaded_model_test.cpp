// Loading a real model: operators resolve at load, and a missing one fails the load with the
// complete list and, via the debug handles, the module hierarchy of each use.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/support/error.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile {
namespace {

using symbolite::testing::error_from;
using symbolite::testing::fixture_path;

// A model loads whatever operators it names; require_operators() lists the missing ones.
TEST(ModelLoader, MissingOperatorsAreListedWithWhereTheyAreUsed) {
  ops::OperatorRegistry scalars_only;
  ops::register_scalar_ops(scalars_only);
  const auto model = LoadedModel::load(fixture_path("models/nested.ptl"), scalars_only);
  EXPECT_FALSE(model.missing_operators.empty());
  EXPECT_NO_THROW(LoadedModel::load(fixture_path("models/nested.ptl")).require_operators());
  auto e = error_from([&] { model.require_operators(); });
  EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
  std::string text = e.what();
  EXPECT_NE(text.find("operators are not implemented by symbolite ("), std::string::npos) << text;
  // Each use is listed, but the count is of distinct operators: aten::add.Tensor is one
  // operator however many methods call it.
  auto count = std::stoul(text.substr(text.find(": ") + 2));
  std::set<std::string> distinct;
  for (std::size_t at = text.find("\n  "); at != std::string::npos;
       at = text.find("\n  ", at + 1)) {
    distinct.insert(text.substr(at + 3, text.find(' ', at + 3) - at - 3));
  }
  EXPECT_EQ(count, distinct.size()) << text;
  // The broadcast failure site of the goldens, with its module hierarchy.
  EXPECT_NE(text.find("aten::add.Tensor (used in __torch__.model_defs.Nested.forward, "
                      "instruction 28: top(Nested)::forward.level1(Level1)::forward."
                      "level2(Level2)::forward.aten::add)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("aten::mm (used in __torch__.model_defs.Nested.direct"), std::string::npos);
}

TEST(ModelLoader, ModulesParametersAndMethodsLoad) {
  {
    auto model = LoadedModel::load(fixture_path("models/nested.ptl"));
    EXPECT_EQ(model.top_type, "__torch__.model_defs.Nested");
    EXPECT_EQ(model.bytecode_version, 8);
    auto methods = model.method_names();
    EXPECT_NE(std::find(methods.begin(), methods.end(), "forward"), methods.end());
    ASSERT_NE(model.method("forward"), nullptr);
    ASSERT_NE(model.method("forward")->debug_handles(), nullptr);
    EXPECT_EQ(model.method("forward")->debug_handles()->size(),
              model.method("forward")->instructions().size());
    EXPECT_TRUE(model.debug != nullptr);
    const auto& root = model.root.to_object();
    EXPECT_EQ(root.type_name, "__torch__.model_defs.Nested");
    // The Linear deep in the tree: its weight is a zero-copy view into the mapped archive.
    auto attribute = [](const ops::IValue& object, const std::string& name) {
      const auto& o = object.to_object();
      for (std::size_t i = 0; i < o.slot_names.size(); ++i) {
        if (o.slot_names[i] == name) return o.slots[i];
      }
      ADD_FAILURE() << "no attribute " << name;
      return ops::IValue();
    };
    auto proj =
        attribute(attribute(attribute(attribute(model.root, "level1"), "level2"), "leaf"), "proj");
    const auto& weight = attribute(proj, "weight").to_tensor();
    EXPECT_EQ(weight.dtype(), tensor::DType::kFloat32);
    EXPECT_EQ(weight.dim(), 2);
    EXPECT_TRUE(weight.storage().is_view());
  }
}

TEST(ModelLoader, StrippedModelLoadsWithoutDebugSource) {
  ops::OperatorRegistry scalars_only;
  ops::register_scalar_ops(scalars_only);
  const auto model = LoadedModel::load(fixture_path("models/nested_stripped.ptl"), scalars_only);
  auto e = error_from([&] { model.require_operators(); });
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
