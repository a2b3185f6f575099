// Malformed and hostile pickles: every one must end in an Error whose message starts with
// "byte N:", never in a crash, a hang, or unbounded memory. Argument bytes are 3-digit octal
// escapes, which cannot swallow a following opcode letter the way "\x01a" would.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/pickle/unpickler.h"
#include "symbolite/pickle/unpickler_test_util.h"

namespace symbolite::pickle {
namespace {

using namespace std::string_literals;
using test::binunicode;
using test::le32;
using test::le64;
using test::parse;
using test::parse_error;
using test::read_pickle_fixture;

const char* const kRealPickles[] = {
    "data.pkl",
    "bytecode.pkl",
    "callstack_debug_map.pkl",
    "mobile_debug_handles.pkl",
    "debug_string_table.pkl",
    "debug_legacy.pkl",
    "python_proto2.pkl",
    "python_proto4.pkl",
};

void expect_error(std::string_view pickle, ErrorKind kind, std::string_view message,
                  const UnpickleOptions& options = {}) {
  Error e = parse_error(pickle, options);
  EXPECT_EQ(to_string(e.kind()), to_string(kind)) << e.message();
  EXPECT_EQ(e.message(), message);
}

TEST(UnpicklerHostile, UnknownAndUnsupportedOpcodes) {
  expect_error("\x80\002\xff", ErrorKind::kFormat, "byte 2: unknown pickle opcode 0xff");
  expect_error("\x80\002\x8f", ErrorKind::kUnsupported,
               "byte 2: unsupported pickle opcode 0x8f (EMPTY_SET)");
  expect_error("\x80\002I1\n.", ErrorKind::kUnsupported,
               "byte 2: unsupported pickle opcode 0x49 ('I', INT)");
  expect_error("\x80\011N.", ErrorKind::kUnsupported, "byte 0: pickle protocol 9");
}

TEST(UnpicklerHostile, GlobalsOutsideTheAllowList) {
  expect_error("cos\nsystem\n(S'ls'\ntR.", ErrorKind::kUnsupported,
               "byte 0: global 'os.system' is not allowed");
  expect_error("\x80\002cbuiltins\neval\n", ErrorKind::kUnsupported,
               "byte 2: global 'builtins.eval' is not allowed");
  expect_error("\x80\004\x8c\002os\x8c\006system\x93.", ErrorKind::kUnsupported,
               "byte 14: global 'os.system' is not allowed");
  expect_error("\x80\002ctorch\nEvilStorage\n", ErrorKind::kUnsupported,
               "byte 2: global 'torch.EvilStorage' is not allowed");
  expect_error("\x80\002c__torch__", ErrorKind::kFormat,
               "byte 2: truncated GLOBAL: no end of line in the last 9 bytes");
}

TEST(UnpicklerHostile, StackAndMemoMisuse) {
  expect_error("\x80\002h\005.", ErrorKind::kFormat, "byte 2: memo key 5 was never stored");
  expect_error("\x80\002a.", ErrorKind::kFormat, "byte 2: stack underflow: needs 2 values, has 0");
  expect_error("\x80\0020.", ErrorKind::kFormat, "byte 2: stack underflow: needs 1 values, has 0");
  expect_error("\x80\002q\000."s, ErrorKind::kFormat,
               "byte 2: stack underflow: needs 1 values, has 0");
  // Items below a MARK are out of reach until it closes.
  expect_error("\x80\002N(\x85.", ErrorKind::kFormat,
               "byte 4: stack underflow: needs 1 values, has 0");
  expect_error("\x80\002(e.", ErrorKind::kFormat,
               "byte 3: stack underflow: no container below MARK");
  expect_error("\x80\002t.", ErrorKind::kFormat, "byte 2: no MARK to close");
  expect_error("\x80\002K\001(K\002e.", ErrorKind::kUnsupported,
               "byte 7: APPEND needs a list, got int");
  expect_error("\x80\002K\001K\002R.", ErrorKind::kUnsupported,
               "byte 6: only globals can be called, got int");
}

TEST(UnpicklerHostile, BadEndings) {
  expect_error("", ErrorKind::kFormat, "byte 0: pickle ends without STOP");
  expect_error("\x80\002N", ErrorKind::kFormat, "byte 3: pickle ends without STOP");
  expect_error("\x80\002(N.", ErrorKind::kFormat, "byte 4: STOP inside an open MARK");
  expect_error("\x80\002NN.", ErrorKind::kFormat,
               "byte 4: STOP with 2 values on the stack, expected 1");
  expect_error("\x80\002.", ErrorKind::kFormat,
               "byte 2: STOP with 0 values on the stack, expected 1");
  expect_error("\x80\002N.N", ErrorKind::kFormat, "byte 4: trailing data after STOP (1 bytes)");
}

TEST(UnpicklerHostile, ClaimedLengthsAreCheckedFirst) {
  expect_error("\x80\002X" + le32(1000) + "twelve bytes", ErrorKind::kFormat,
               "byte 2: truncated BINUNICODE: needs 1000 bytes, 12 left");
  expect_error("\x80\002\x8d" + le64(~std::uint64_t{0}) + "abc", ErrorKind::kFormat,
               "byte 2: truncated BINUNICODE8: needs 18446744073709551615 bytes, 3 left");
  expect_error("\x80\002T" + le32(0x80000000u), ErrorKind::kFormat,
               "byte 2: negative length -2147483648");
  expect_error("\x80\002\x8b" + le32(0x7fffffff), ErrorKind::kFormat,
               "byte 2: truncated LONG4: needs 2147483647 bytes, 0 left");
  expect_error("\x80\002J\001\002", ErrorKind::kFormat,
               "byte 2: truncated BININT: needs 4 bytes, 2 left");
}

TEST(UnpicklerHostile, DeepNestingHitsTheLimit) {
  const std::string marks(100000, '(');
  expect_error("\x80\002" + marks, ErrorKind::kLimit, "byte 514: more than 512 nested MARKs");
  // Nesting without MARKs: N TUPLE1 TUPLE1 ...
  Error tuples = parse_error("\x80\002N" + std::string(100000, '\x85') + ".");
  EXPECT_EQ(tuples.kind(), ErrorKind::kLimit);
  EXPECT_EQ(tuples.message(), "byte 515: values nested deeper than the limit of 512");
  // 100000 empty lists, each appended into the one below.
  Error lists = parse_error("\x80\002" + std::string(100000, ']') + std::string(99999, 'a') + ".");
  EXPECT_EQ(lists.kind(), ErrorKind::kLimit);
  // Dicts and object states count too.
  Error dicts = parse_error("\x80\002" + std::string(100000, '}') + std::string(49999, 's') + ".");
  EXPECT_EQ(dicts.kind(), ErrorKind::kLimit);
  std::string objects = "\x80\002";
  for (int i = 0; i < 1000; ++i) objects += "c__torch__\nM\n)\x81";
  objects += "N" + std::string(1000, 'b');
  EXPECT_EQ(parse_error(objects).kind(), ErrorKind::kLimit);
}

TEST(UnpicklerHostile, DepthLimitIsExact) {
  UnpickleOptions options;
  options.limits.max_depth = 10;
  EXPECT_NO_THROW(parse("\x80\002N" + std::string(10, '\x85') + ".", options));
  EXPECT_EQ(parse_error("\x80\002N" + std::string(11, '\x85') + ".", options).kind(),
            ErrorKind::kLimit);
  EXPECT_NO_THROW(parse("\x80\002" + std::string(10, '(') + std::string(10, '1') + "N.", options));
  EXPECT_EQ(parse_error("\x80\002" + std::string(11, '('), options).kind(), ErrorKind::kLimit);
}

TEST(UnpicklerHostile, ManySmallContainersAreBoundedByCost) {
  // A MARK, N one-byte EMPTY_LISTs, then LIST: deflated, a million of them is 1 KB of file.
  auto lists = [](std::size_t n) { return "\x80\002(" + std::string(n, ']') + "l."; };
  EXPECT_NO_THROW(parse(lists(800000)));  // 5 units each: 4,000,005 of 4,194,304
  auto e = parse_error(lists(1000000));
  EXPECT_EQ(e.kind(), ErrorKind::kLimit);
  EXPECT_NE(std::string(e.what()).find("the values built cost more than 4194304 units"),
            std::string::npos)
      << e.what();
}

TEST(UnpicklerHostile, OtherLimits) {
  UnpickleOptions options;
  options.limits.max_stack = 3;
  EXPECT_NO_THROW(parse("\x80\002NNN00.", options));
  expect_error("\x80\002NNNN", ErrorKind::kLimit, "byte 5: stack holds more than 3 values",
               options);
  options = {};
  options.limits.max_memo = 2;
  EXPECT_NO_THROW(parse("\x80\002Nq\001q\002q\001.", options));
  expect_error("\x80\002Nq\001q\002q\003.", ErrorKind::kLimit,
               "byte 7: memo holds more than 2 entries", options);
  options = {};
  options.limits.max_memo_key = 100;
  expect_error("\x80\002Nr" + le32(101) + ".", ErrorKind::kLimit,
               "byte 3: memo key 101 exceeds the limit of 100", options);
}

TEST(UnpicklerHostile, NoCyclesThroughTheMemo) {
  // A list appended to itself.
  expect_error("\x80\002]q\000h\000a."s, ErrorKind::kUnsupported,
               "byte 7: cannot put the list inside itself");
  expect_error("\x80\002]2a."s, ErrorKind::kUnsupported,
               "byte 4: cannot put the list inside itself");
  // A list placed in a tuple, then fetched from the memo and modified.
  expect_error("\x80\002]q\000\x85h\000Na."s, ErrorKind::kUnsupported,
               "byte 9: cannot modify the list: it is already inside another container (recursive "
               "structure)");
  // An object whose state holds the object.
  expect_error("\x80\002c__torch__\nM\n)\x81q\000}(K\001h\000ub."s, ErrorKind::kUnsupported,
               "byte 26: cannot modify the object: it is already inside another container "
               "(recursive structure)");
  // A dict inside a list inside the dict.
  expect_error("\x80\002}q\000]h\000aK\001s."s, ErrorKind::kUnsupported,
               "byte 11: cannot modify the dict: it is already inside another container (recursive "
               "structure)");
}

TEST(UnpicklerHostile, TruncatedRealPicklesAlwaysFail) {
  for (const char* name : kRealPickles) {
    Bytes data = read_pickle_fixture(name);
    for (std::size_t length = 0; length < data.size(); ++length) {
      try {
        unpickle(data.slice(0, length));
        ADD_FAILURE() << name << " truncated to " << length << " bytes parsed";
      } catch (const Error& e) {
        EXPECT_EQ(e.message().rfind("byte ", 0), 0u)
            << name << " at " << length << ": " << e.message();
      }
    }
  }
}

TEST(UnpicklerHostile, BitFlipsParseOrFailCleanly) {
  std::size_t parsed = 0;
  std::size_t failed = 0;
  for (const char* name : kRealPickles) {
    Bytes original = read_pickle_fixture(name);
    std::vector<std::uint8_t> bytes(original.data(), original.data() + original.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      // Two flips per byte keep this fast in unoptimized builds: a rotating low bit, and
      // the high bit, which moves ASCII opcodes into the protocol-2 range and back.
      for (std::uint8_t mask : {static_cast<std::uint8_t>(1u << (i % 7)), std::uint8_t{0x80}}) {
        bytes[i] ^= mask;
        try {
          Value value = unpickle(Bytes::from_vector(bytes));
          value.debug_string();
          ++parsed;
        } catch (const Error& e) {
          ++failed;
          EXPECT_EQ(e.message().rfind("byte ", 0), 0u)
              << name << " byte " << i << ": " << e.message();
        }
        bytes[i] ^= mask;
      }
    }
  }
  EXPECT_GT(parsed, 0u);
  EXPECT_GT(failed, 0u);
}

}  // namespace
}  // namespace symbolite::pickle
