// json_text: JSON as symbolite writes it, valid UTF-8 whatever bytes the names hold.
#include "symbolite/support/json_text.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace symbolite {
namespace {

using nlohmann::json;

TEST(JsonText, EscapesQuotesBackslashesAndControlCharacters) {
  json j = "a\"b\\c\nd\te\x01 f\x1f";
  EXPECT_EQ(json_text(j), R"("a\"b\\c\nd\te\u0001 f\u001f")");
  EXPECT_EQ(json_text(json(std::string("x\0y", 3))), R"("x\u0000y")");
}

TEST(JsonText, ValidUtf8IsWrittenAsIsNotAsEscapes) {
  EXPECT_EQ(json_text(json("äß 🙂 /")), "\"äß 🙂 /\"");
}

TEST(JsonText, InvalidUtf8IsReplacedInsteadOfThrowing) {
  json j = {{"name", std::string("top\xff\xc0.layer")}, {"ok", "ü"}};
  EXPECT_EQ(json_text(j, -1), "{\"name\":\"top\xef\xbf\xbd\xef\xbf\xbd.layer\",\"ok\":\"ü\"}");
  // A truncated sequence at the very end too.
  EXPECT_EQ(json_text(json(std::string("ab\xe2\x82"))), "\"ab\xef\xbf\xbd\"");
  // What json_text exists for: a plain dump throws on the same value.
  EXPECT_THROW((void)j.dump(), json::type_error);
}

TEST(JsonText, IndentTwoByDefaultAndMinusOneIsOneLine) {
  json j = {{"a", 1}, {"b", json::array({true, nullptr})}};
  EXPECT_EQ(json_text(j), "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ]\n}");
  EXPECT_EQ(json_text(j, -1), R"({"a":1,"b":[true,null]})");
  EXPECT_EQ(json_text(j, 0), "{\n\"a\": 1,\n\"b\": [\ntrue,\nnull\n]\n}");
}

}  // namespace
}  // namespace symbolite
