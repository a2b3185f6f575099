#include "symbolite/pickle/value.h"

#include <gtest/gtest.h>

#include "symbolite/support/error.h"

namespace symbolite::pickle {
namespace {

TEST(Value, DebugStringLooksLikePython) {
  Value v =
      Value::tuple({Value::real(2.0), Value::real(-0.0), Value::real(0.25), Value::string("s"),
                    Value::none(), Value::boolean(true), Value::list({Value::integer(-3)})});
  EXPECT_EQ(v.debug_string(), "(2.0, -0.0, 0.25, 's', None, True, [-3])");
  EXPECT_EQ(Value::tuple({Value::integer(1)}).debug_string(), "(1,)");
  EXPECT_EQ(Value::real(1e308).debug_string(), "1e+308");
}

TEST(Value, KindMismatchIsAModelError) {
  try {
    Value::integer(1).as_string();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    EXPECT_EQ(e.message(), "expected str, got int");
  }
}

TEST(Value, IdentityIsSharedByCopies) {
  Value list = Value::list({});
  Value copy = list;
  EXPECT_EQ(list.identity(), copy.identity());
  EXPECT_NE(list.identity(), Value::list({}).identity());
  EXPECT_EQ(Value::integer(1).identity(), nullptr);
}

}  // namespace
}  // namespace symbolite::pickle
