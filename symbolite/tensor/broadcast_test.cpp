#include "symbolite/tensor/broadcast.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "symbolite/support/error.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::tensor {
namespace {

using Shape = std::vector<std::int64_t>;

TEST(Broadcast, Basics) {
  EXPECT_EQ(broadcast_shapes(Shape{2, 1}, Shape{1, 3}), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes(Shape{}, Shape{}), Shape{});
  EXPECT_EQ(broadcast_shapes(Shape{1}, Shape{0}), Shape{0});
  EXPECT_EQ(broadcast_shapes(Shape{4}, Shape{3, 1}), (Shape{3, 4}));
}

TEST(Broadcast, MatchesPyTorch) {
  // Results and error texts recorded from PyTorch 1.13 by tests/fixtures/npy/make_npy.py.
  std::ifstream in(testing::fixture_path("npy/expected.json"));
  ASSERT_TRUE(in);
  auto expected = nlohmann::json::parse(in);
  ASSERT_GE(expected["broadcast"].size(), 10u);
  for (const auto& c : expected["broadcast"]) {
    Shape a = c["a"].get<Shape>();
    Shape b = c["b"].get<Shape>();
    SCOPED_TRACE(c.dump());
    if (c.contains("result")) {
      EXPECT_EQ(broadcast_shapes(a, b), c["result"].get<Shape>());
    } else {
      try {
        broadcast_shapes(a, b);
        ADD_FAILURE() << "expected an error";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::kModel);
        EXPECT_EQ(e.message(), c["error"].get<std::string>());
      }
    }
  }
}

TEST(Broadcast, ExactPyTorchMessage) {
  try {
    broadcast_shapes(Shape{2, 4}, Shape{3, 4});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
                 "dimension 0");
  }
}

}  // namespace
}  // namespace symbolite::tensor
