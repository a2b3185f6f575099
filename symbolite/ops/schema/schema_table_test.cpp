#include "symbolite/ops/schema/schema_table.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace symbolite::ops {
namespace {

TEST(SchemaTable, HoldsEveryPytorchSchema) {
  EXPECT_EQ(all_schemas().size(), 4165u);  // PyTorch 1.13.1's torch._C._jit_get_all_schemas()
}

TEST(SchemaTable, FindsByFullName) {
  const FunctionSchema* add = find_schema("aten::add.Tensor");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->to_string(),
            "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  const FunctionSchema* relu = find_schema("aten::relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->overload, "");
  EXPECT_EQ(find_schema("aten::relu."), nullptr);
  EXPECT_EQ(find_schema("aten::no_such_op"), nullptr);
  EXPECT_EQ(find_schema(""), nullptr);
  EXPECT_EQ(find_schema("aten::add.Tensor"), add);  // parsed once, stable addresses
}

TEST(SchemaTable, ListsOverloads) {
  auto adds = schemas_named("aten::add");
  EXPECT_GE(adds.size(), 5u);
  bool has_out = false;
  for (const auto* s : adds) {
    EXPECT_EQ(s->name, "aten::add");
    has_out = has_out || s->overload == "out";
  }
  EXPECT_TRUE(has_out);
  EXPECT_TRUE(schemas_named("aten::no_such_op").empty());
  EXPECT_TRUE(schemas_named("aten::add.Tensor").empty());
}

TEST(SchemaTable, ConcurrentFirstUse) {
  // The first use parses the table; concurrent first uses must see one table.
  std::vector<std::thread> threads;
  std::vector<const FunctionSchema*> found(4);
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back(
        [&found, i] { found[static_cast<std::size_t>(i)] = find_schema("aten::conv2d"); });
  }
  for (auto& t : threads) t.join();
  for (const auto* f : found) EXPECT_EQ(f, found[0]);
  ASSERT_NE(found[0], nullptr);
}

}  // namespace
}  // namespace symbolite::ops
