// Opcode-level behaviour of the unpickler on hand-written pickles.
//
// Argument bytes are written as 3-digit octal escapes ("K\001"): unlike "\x01", an octal
// escape cannot swallow a following opcode letter such as 'a', 'e' or '0'.
#include "symbolite/pickle/unpickler.h"

#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "symbolite/pickle/unpickler_test_util.h"

namespace symbolite::pickle {
namespace {

using namespace std::string_literals;
using test::binunicode;
using test::le32;
using test::le64;
using test::parse;
using test::parse_error;

// PROTO 2 + body + STOP.
std::string p2(std::string_view body) { return "\x80\002" + std::string(body) + "."; }

std::int64_t parse_int(std::string_view body) { return parse(p2(body)).as_int(); }

TEST(Unpickler, Scalars) {
  EXPECT_TRUE(parse(p2("N")).is_none());
  EXPECT_TRUE(parse(p2("\x88")).as_bool());
  EXPECT_FALSE(parse(p2("\x89")).as_bool());
  EXPECT_EQ(parse_int("K\xff"), 255);
  EXPECT_EQ(parse_int("M\xff\xff"), 65535);
  EXPECT_EQ(parse_int("J\xff\xff\xff\xff"), -1);
  EXPECT_EQ(parse_int("J" + le32(0x80000000u)), std::numeric_limits<std::int32_t>::min());
}

TEST(Unpickler, Long1AndLong4) {
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(parse_int(std::string("\x8a\000", 2)), 0);
  EXPECT_EQ(parse_int("\x8a\001\xff"), -1);
  EXPECT_EQ(parse_int("\x8a\001\x80"), -128);
  EXPECT_EQ(parse_int("\x8a\001\177"), 127);
  EXPECT_EQ(parse_int(std::string("\x8a\002\000\x80", 4)), -32768);
  EXPECT_EQ(parse_int(std::string("\x8a\003\000\x80\000", 5)), 32768);
  EXPECT_EQ(parse_int(std::string("\x8a\005\000\000\000\000\xff", 7)), -(std::int64_t{1} << 32));
  EXPECT_EQ(parse_int("\x8a\010" + le64(static_cast<std::uint64_t>(kMax))), kMax);
  EXPECT_EQ(parse_int("\x8a\010" + le64(static_cast<std::uint64_t>(kMin))), kMin);
  // Redundant sign-extension bytes are fine; a ninth significant byte is not.
  EXPECT_EQ(parse_int("\x8a\012" + le64(~std::uint64_t{0}) + "\xff\xff"), -1);
  EXPECT_EQ(parse_int("\x8a\011" + le64(5) + std::string(1, '\0')), 5);
  Error too_big = parse_error(p2("\x8a\011" + le64(std::uint64_t{1} << 63) + std::string(1, '\0')));
  EXPECT_EQ(too_big.kind(), ErrorKind::kUnsupported);
  EXPECT_EQ(too_big.message(), "byte 2: integer of 9 bytes does not fit in 64 bits");

  EXPECT_EQ(parse_int("\x8b" + le32(2) + "\001\002"), 0x0201);
  EXPECT_EQ(parse_int("\x8b" + le32(0)), 0);
  EXPECT_EQ(parse_error(p2("\x8b" + le32(0xffffffffu))).kind(), ErrorKind::kFormat);
}

TEST(Unpickler, BinFloatIsBigEndian) {
  EXPECT_EQ(parse(p2(std::string("G\077\xf8\0\0\0\0\0\0", 9))).as_double(), 1.5);
  double negative_zero = parse(p2(std::string("G\x80\0\0\0\0\0\0\0", 9))).as_double();
  EXPECT_EQ(std::bit_cast<std::uint64_t>(negative_zero), std::uint64_t{1} << 63);
  EXPECT_TRUE(std::isnan(parse(p2(std::string("G\177\xf8\0\0\0\0\0\0", 9))).as_double()));
}

TEST(Unpickler, EveryStringOpcodeIsAZeroCopyView) {
  const std::string cases[] = {
      binunicode("h\xc3\xa9llo"),
      "\x8c\005hello",             // SHORT_BINUNICODE
      "\x8d" + le64(5) + "hello",  // BINUNICODE8
      "U\005hello",                // SHORT_BINSTRING
      "T" + le32(5) + "hello",     // BINSTRING
      "B" + le32(5) + "hello",     // BINBYTES
      "C\005hello",                // SHORT_BINBYTES
      "\x8e" + le64(5) + "hello",  // BINBYTES8
  };
  for (const std::string& body : cases) {
    Bytes input = Bytes::copy_of(p2(body));
    Value value = unpickle(input);
    EXPECT_EQ(value.as_string().size(), 5u + (body[0] == 'X')) << body;
    EXPECT_EQ(value.as_string_bytes().owner(), input.owner()) << body;
    EXPECT_EQ(value.as_string_bytes().data() + value.as_string().size() + 1,
              input.data() + input.size())
        << body;
  }
  EXPECT_EQ(parse(p2(binunicode(""))).as_string(), "");
}

TEST(Unpickler, Tuples) {
  EXPECT_TRUE(parse(p2(")")).as_tuple().empty());
  EXPECT_EQ(parse(p2("K\001\x85")).as_tuple().size(), 1u);
  EXPECT_EQ(parse(p2("K\001K\002\x86")).as_tuple()[1].as_int(), 2);
  Value three = parse(p2("K\001K\002K\003\x87"));
  EXPECT_EQ(three.debug_string(), "(1, 2, 3)");
  EXPECT_EQ(parse(p2("(K\001K\002K\003K\004t")).debug_string(), "(1, 2, 3, 4)");
  EXPECT_EQ(parse(p2("(t")).debug_string(), "()");
}

TEST(Unpickler, Lists) {
  EXPECT_EQ(parse(p2("]K\001a")).debug_string(), "[1]");
  EXPECT_EQ(parse(p2("](K\001K\002e")).debug_string(), "[1, 2]");
  EXPECT_EQ(parse(p2("](e")).debug_string(), "[]");
  EXPECT_EQ(parse(p2("(K\001K\002l")).debug_string(), "[1, 2]");
  // APPENDS in batches, as Python writes lists longer than 1000.
  EXPECT_EQ(parse(p2("](K\001e(K\002e")).debug_string(), "[1, 2]");
}

TEST(Unpickler, Dicts) {
  EXPECT_EQ(parse(p2("}K\001K\002s")).debug_string(), "{1: 2}");
  EXPECT_EQ(parse(p2("}(K\001K\002K\003K\004u")).debug_string(), "{1: 2, 3: 4}");
  EXPECT_EQ(parse(p2("(K\001K\002d")).debug_string(), "{1: 2}");
  EXPECT_EQ(parse_error(p2("}(K\001u")).message(), "byte 6: odd number of dict items");
  EXPECT_EQ(parse_error(p2("(K\001d")).message(), "byte 5: odd number of dict items");
}

TEST(Unpickler, StackOpcodes) {
  EXPECT_EQ(parse(p2("K\001K\0020")).as_int(),
            1);  // POP
  EXPECT_EQ(parse(p2("K\001(K\002K\0031")).as_int(),
            1);                     // POP_MARK
  Value dup = parse(p2("]2\x86"));  // DUP
  EXPECT_EQ(dup.as_tuple()[0].identity(), dup.as_tuple()[1].identity());
}

TEST(Unpickler, MemoKeepsIdentity) {
  Value pair = parse(p2("]q\000h\000\x86"s));
  const ValueList& items = pair.as_tuple();
  EXPECT_NE(items[0].identity(), nullptr);
  EXPECT_EQ(items[0].identity(), items[1].identity());

  Value tuples = parse(p2("K\001\x85r" + le32(70000) + "j" + le32(70000) + "\x86"));
  EXPECT_EQ(tuples.as_tuple()[0].identity(), tuples.as_tuple()[1].identity());

  // MEMOIZE numbers entries in order; keys out of order are fine too.
  Value memoized = parse("\x80\004K\007\x94K\010\x94"s + "00h\001h\000\x86."s);
  EXPECT_EQ(memoized.debug_string(), "(8, 7)");
  EXPECT_EQ(parse(p2("K\005q\0110K\006q\0020h\011h\002\x86")).debug_string(), "(5, 6)");
  // A PUT replaces an earlier value under the same key.
  EXPECT_EQ(parse(p2("K\005q\0000K\006q\0000h\000"s)).as_int(), 6);
}

TEST(Unpickler, Protocol4FramesAndStackGlobal) {
  std::string body = "\x8c\013collections\x8c\013OrderedDict\x93)R";
  std::string pickle = "\x80\004\x95" + le64(body.size() + 1) + body + ".";
  EXPECT_EQ(parse(pickle).debug_string(), "{}");
  EXPECT_EQ(parse_error("\x80\004\x95" + le64(100) + "N.").kind(), ErrorKind::kFormat);
  EXPECT_EQ(parse_error(p2("K\001K\002\x93")).kind(), ErrorKind::kFormat);  // not strings
}

TEST(Unpickler, TorchScriptObjects) {
  Value object = parse(p2("c__torch__.m\nM\n)\x81}(" + binunicode("x") + "K\001ub"));
  EXPECT_EQ(object.as_object().type_name, "__torch__.m.M");
  EXPECT_EQ(object.debug_string(), "__torch__.m.M({'x': 1})");
  // REDUCE with () creates the object too; without BUILD its state stays None.
  EXPECT_EQ(parse(p2("c__torch__\nM\n)R")).as_object().state.kind(), Value::Kind::kNone);

  Error with_args = parse_error(p2("c__torch__\nM\nK\001\x85\x81"));
  EXPECT_EQ(with_args.kind(), ErrorKind::kUnsupported);
  EXPECT_EQ(with_args.message(), "byte 18: '__torch__.M' called with arguments (1,)");
}

TEST(Unpickler, CustomTypeResolver) {
  UnpickleOptions options;
  options.is_class = [](std::string_view name) { return name == "my.Class"; };
  EXPECT_EQ(parse(p2("cmy\nClass\n)\x81"), options).as_object().type_name, "my.Class");
  EXPECT_EQ(parse_error(p2("c__torch__\nM\n)\x81"), options).kind(), ErrorKind::kUnsupported);
}

TEST(Unpickler, OrderedDictBecomesADict) {
  Value dict = parse(p2("ccollections\nOrderedDict\n)R(" + binunicode("a") + "K\001u"));
  EXPECT_EQ(dict.debug_string(), "{'a': 1}");
  EXPECT_EQ(parse_error(p2("ccollections\nOrderedDict\n]\x85R")).kind(), ErrorKind::kUnsupported);
}

// torch.device("cpu"), as PyTorch pickles a device constant of a traced model (the file itself:
// runtime/traced_device_test.cpp); anything but one string is refused.
TEST(Unpickler, TorchDeviceIsADevice) {
  Value cpu = parse(p2("ctorch\ndevice\n" + binunicode("cpu") + "\x85R"));
  ASSERT_TRUE(cpu.is(Value::Kind::kDevice));
  EXPECT_EQ(cpu.as_device(), "cpu");
  EXPECT_EQ(cpu.debug_string(), "device(type='cpu')");
  EXPECT_EQ(parse_error(p2("ctorch\ndevice\nK\001\x85R")).kind(), ErrorKind::kModel);
  EXPECT_EQ(parse_error(p2("ctorch\ndevice\n)R")).kind(), ErrorKind::kModel);
}

TEST(Unpickler, BuildListsAndTypeTags) {
  EXPECT_EQ(parse(p2("ctorch.jit._pickle\nbuild_intlist\n](K\001K\002e\x85R")).debug_string(),
            "[1, 2]");
  EXPECT_EQ(parse(p2("ctorch.jit._pickle\nbuild_doublelist\n](G\077\xf8\0\0\0\0\0\0e\x85R"s))
                .debug_string(),
            "[1.5]");
  EXPECT_EQ(parse(p2("ctorch.jit._pickle\nbuild_boollist\n(\x88l\x85R")).debug_string(), "[True]");
  EXPECT_EQ(parse(p2("ctorch.jit._pickle\nbuild_tensorlist\n]\x85R")).debug_string(), "[]");
  // The "__torch__."-prefixed spelling of old writers is no TorchScript class.
  EXPECT_EQ(parse(p2("c__torch__.torch.jit._pickle\nbuild_intlist\n]\x85R")).debug_string(), "[]");
  Error wrong_item = parse_error(p2("ctorch.jit._pickle\nbuild_intlist\n](Ne\x85R"));
  EXPECT_EQ(wrong_item.kind(), ErrorKind::kModel);
  EXPECT_EQ(wrong_item.message(),
            "byte 40: torch.jit._pickle.build_intlist: an item must be int, got None");

  Value tagged =
      parse(p2("ctorch.jit._pickle\nrestore_type_tag\n}" + binunicode("Dict[str, int]") + "\x86R"));
  EXPECT_EQ(tagged.debug_string(), "{}");
  EXPECT_EQ(parse_error(p2("ctorch.jit._pickle\nrestore_type_tag\n}K\001\x86R")).kind(),
            ErrorKind::kModel);
}

// ('storage', torch.<dtype>Storage, key, 'cpu', numel) BINPERSID
std::string storage(std::string_view dtype, std::string_view key, int numel) {
  return "(" + binunicode("storage") + "ctorch\n" + std::string(dtype) + "Storage\n" +
         binunicode(key) + binunicode("cpu") + "K" + std::string(1, static_cast<char>(numel)) +
         "tQ";
}

const std::string kRebuild = "ctorch._utils\n_rebuild_tensor_v2\n";
const std::string kNoHooks = "ccollections\nOrderedDict\n)R";

TEST(Unpickler, RebuildTensor) {
  Value tensor = parse(p2(kRebuild + "(" + storage("Half", "7", 6) +
                          "K\001K\002K\002\x86K\002K\001\x86\x88" + kNoHooks + "tR"));
  const TensorRef& ref = tensor.as_tensor();
  EXPECT_EQ(ref.storage.dtype, "Half");
  EXPECT_EQ(ref.storage.key, "7");
  EXPECT_EQ(ref.storage.numel, 6);
  EXPECT_EQ(ref.storage_offset, 1);
  EXPECT_EQ(ref.sizes, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(ref.strides, (std::vector<std::int64_t>{2, 1}));
  EXPECT_TRUE(ref.requires_grad);

  // 0-dim tensor with the optional metadata argument, all bits off.
  std::string metadata = "}" + binunicode("conj") + "\x89s";
  EXPECT_TRUE(parse(p2(kRebuild + "(" + storage("Float", "0", 1) + "K\000))\x89"s + kNoHooks +
                       metadata + "tR"))
                  .as_tensor()
                  .sizes.empty());
  std::string conj = "}" + binunicode("conj") + "\x88s";
  EXPECT_EQ(parse_error(p2(kRebuild + "(" + storage("Float", "0", 1) + "K\000))\x89"s + kNoHooks +
                           conj + "tR"))
                .kind(),
            ErrorKind::kUnsupported);
  // Sizes and strides must pair up.
  Error mismatch = parse_error(
      p2(kRebuild + "(" + storage("Float", "0", 1) + "K\000K\001\x85)\x89"s + kNoHooks + "tR"));
  EXPECT_EQ(mismatch.kind(), ErrorKind::kModel);
  EXPECT_NE(mismatch.message().find("1 sizes but 0 strides"), std::string::npos);
}

TEST(Unpickler, PersistentIdShape) {
  EXPECT_EQ(parse(p2(storage("BFloat16", "3", 4))).as_storage().dtype, "BFloat16");
  Error not_a_tuple = parse_error(p2(binunicode("storage") + "Q"));
  EXPECT_EQ(not_a_tuple.kind(), ErrorKind::kModel);
  EXPECT_EQ(not_a_tuple.message().rfind("byte 14: persistent id must be", 0), 0u);
  // A storage class given as a string, not a global.
  std::string as_string = "(" + binunicode("storage") + binunicode("torch.FloatStorage") +
                          binunicode("0") + binunicode("cpu") + "K\001tQ";
  EXPECT_EQ(parse_error(p2(as_string)).kind(), ErrorKind::kModel);
  // Four fields.
  std::string short_pid = "(" + binunicode("storage") + "ctorch\nFloatStorage\n" + binunicode("0") +
                          binunicode("cpu") + "tQ";
  EXPECT_EQ(parse_error(p2(short_pid)).kind(), ErrorKind::kModel);
  // A storage class is no callable.
  EXPECT_EQ(parse_error(p2("ctorch\nFloatStorage\n)R")).kind(), ErrorKind::kUnsupported);
}

TEST(Unpickler, BuildOnlyOnObjects) {
  Error on_dict = parse_error(p2("ccollections\nOrderedDict\n)R}b"));
  EXPECT_EQ(on_dict.kind(), ErrorKind::kUnsupported);
  EXPECT_EQ(on_dict.message(), "byte 30: BUILD needs a TorchScript object, got dict");
}

TEST(Unpickler, ErrorsKeepTheirContextOutside) {
  try {
    with_context("archive entry 'm/data.pkl'", [] { return parse("\x80\002\xff"); });
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "archive entry 'm/data.pkl': byte 2: unknown pickle opcode 0xff");
  }
}

}  // namespace
}  // namespace symbolite::pickle
