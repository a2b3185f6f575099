// Tuples of (str, int, int) tuples read packed (packed_triples.h) must come out exactly as
// unpickling them as values does: the same tree once the placeholders are expanded, the same
// memo for what follows, the same error, byte and limit when the input is bad. Each case is
// unpickled both ways and compared; the cases that must pack also check that they did.
#include "symbolite/pickle/packed_triples.h"

#include <cstddef>
#include <string>

#include <gtest/gtest.h>

#include "symbolite/pickle/unpickler.h"
#include "symbolite/pickle/unpickler_test_util.h"

namespace symbolite::pickle {
namespace {

using namespace std::string_literals;
using test::binunicode;
using test::read_pickle_fixture;

std::string render(const Value& value) { return value.debug_string(std::size_t{1} << 24); }

// Unpickles `bytes` as values and packed after "instructions"; expects the same outcome and
// returns how many tuples were packed.
std::size_t packed_tables(const Bytes& bytes, UnpickleOptions options = {}) {
  std::string plain;
  try {
    plain = render(unpickle(bytes, options));
  } catch (const Error& e) {
    plain = "error " + std::string(to_string(e.kind())) + ": " + e.message();
  }
  PackedTriples packed("instructions");
  options.packed_triples = &packed;
  std::string with_packing;
  try {
    with_packing = render(packed.expanded(unpickle(bytes, options)));
  } catch (const Error& e) {
    with_packing = "error " + std::string(to_string(e.kind())) + ": " + e.message();
  }
  EXPECT_EQ(with_packing, plain);
  return packed.size();
}

std::size_t packed_tables(const std::string& pickle, UnpickleOptions options = {}) {
  return packed_tables(Bytes::copy_of(pickle), std::move(options));
}

// ("instructions", (MARK body TUPLE)) then `after`, as PyTorch's pickler lays a function's
// instruction list out.
std::string instructions(const std::string& body, const std::string& after = "") {
  return "\x80\002"s + binunicode("instructions") + "q\000("s + body + "t\x86" + after + ".";
}

// ("OP", x, n) with a new string (memoized under `key`) or one read from the memo.
std::string triple_put(const std::string& op, int key, int x, int n) {
  return binunicode(op) + "q" + static_cast<char>(key) + "K" + static_cast<char>(x) + "K" +
         static_cast<char>(n) + "\x87";
}
std::string triple_get(int key, int x, int n) {
  return "h"s + static_cast<char>(key) + "K" + static_cast<char>(x) + "K" + static_cast<char>(n) +
         "\x87";
}

TEST(PackedTriples, ReadsPyTorchsBytecodeAsItsValues) {
  // PyTorch's own bytecode.pkl: each function's instructions packed, nothing else.
  Bytes bytecode = read_pickle_fixture("bytecode.pkl");
  PackedTriples packed("instructions");
  UnpickleOptions options;
  options.packed_triples = &packed;
  Value root = unpickle(bytecode, options);
  EXPECT_EQ(render(packed.expanded(root)), render(unpickle(bytecode)));
  const ValueList& functions = root.as_tuple();
  ASSERT_GT(functions.size(), 1u);
  for (std::size_t i = 1; i < functions.size(); ++i) {
    const Value& pair = functions[i].as_tuple()[1].as_tuple()[0];
    ASSERT_EQ(pair.as_tuple()[0].as_string(), "instructions");
    const TripleTable* table = packed.find(pair.as_tuple()[1]);
    ASSERT_NE(table, nullptr) << "function " << i;
    EXPECT_GT(table->rows.size(), 3u);
  }
  EXPECT_EQ(packed.size(), functions.size() - 1);
  for (const char* other : {"data.pkl", "callstack_debug_map.pkl", "python_proto4.pkl"}) {
    SCOPED_TRACE(other);
    EXPECT_EQ(packed_tables(read_pickle_fixture(other)), 0u);
  }
}

TEST(PackedTriples, KeepsEachTriplesStringAndOperands) {
  const std::string body = triple_put("LOAD", 1, 3, 0) + triple_put("MOVE", 2, 7, 200) +
                           triple_get(1, 0, 0) + "h\002M\001\001J\377\377\377\377\x87"s +
                           "\x8c\003RETK\000K\000\x87"s;  // SHORT_BINUNICODE, not memoized
  // What follows reads the memo the packed strings were put in.
  const std::string pickle = instructions(body, "h\002\x86");
  EXPECT_EQ(packed_tables(pickle), 1u);
  PackedTriples packed("instructions");
  UnpickleOptions options;
  options.packed_triples = &packed;
  Value root = unpickle(Bytes::copy_of(pickle), options);
  const TripleTable* table = packed.find(root.as_tuple()[0].as_tuple()[1]);
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rows.size(), 5u);
  ASSERT_EQ(table->texts.size(), 3u);  // each memoized string once
  EXPECT_EQ(table->texts[table->rows[2].text].str(), "LOAD");
  EXPECT_EQ(table->texts[table->rows[3].text].str(), "MOVE");
  EXPECT_EQ(table->rows[1].second, 200);
  EXPECT_EQ(table->rows[3].first, 257);
  EXPECT_EQ(table->rows[3].second, -1);
  EXPECT_EQ(table->texts[table->rows[4].text].str(), "RET");
  EXPECT_EQ(root.as_tuple()[1].as_string(), "MOVE");
  EXPECT_EQ(packed_tables(instructions("")), 1u);  // an empty list packs too
}

TEST(PackedTriples, LeavesEverythingElseToTheValues) {
  const std::string two = triple_put("LOAD", 1, 3, 0) + triple_get(1, 4, 0);
  const std::string cases[] = {
      // Another key, or none on the stack.
      "\x80\002"s + binunicode("operators") + "(" + two + "t\x86.",
      "\x80\002(" + two + "t.",
      // A member that is not (str, int, int).
      instructions(two + binunicode("LOAD") + "G\077\360\000\000\000\000\000\000K\000\x87"s),
      instructions(two + "h\001K\000\x86"s),
      instructions(two + "K\001K\000K\000\x87"s),
      instructions(two + "h\001\x8a\001\001K\000\x87"s),  // LONG1 operand
      instructions(two + "U\004LOADK\000K\000\x87"s),     // SHORT_BINSTRING
      // A memoized triple, tuple or string (MEMOIZE: the key is the memo's size).
      instructions(two + "h\001K\000K\000\x87q\005"s),
      "\x80\002"s + binunicode("instructions") + "(" + two + "tq\007\x86.",
      instructions(two + binunicode("JMP") + "\x94K\000K\000\x87"s),
      // A memo key that never held a string, or never was.
      "\x80\002K\007q\0000"s + binunicode("instructions") + "(" + two +
          "h\000K\000K\000\x87t\x86."s,
      instructions(two + "h\011K\000K\000\x87"s),
  };
  for (const std::string& pickle : cases) {
    SCOPED_TRACE(::testing::PrintToString(pickle));
    EXPECT_EQ(packed_tables(pickle), 0u);
  }
}

TEST(PackedTriples, PutsTheMemoOnlyWhenItKeepsTheTable) {
  // Key 1 holds "A"; inside, a triple reads it, then "B" is put under key 1. Packed, the
  // first triple still reads "A", and what follows reads "B".
  const std::string head = "\x80\002"s + binunicode("A") + "q\0010" + binunicode("instructions") +
                           "q\000("s + triple_get(1, 0, 0) + triple_put("B", 1, 0, 0);
  EXPECT_EQ(packed_tables(head + triple_get(1, 0, 0) + "t\x86h\001\x86."), 1u);
  // When the tuple turns out not to pack, the values read it from the start: the first
  // triple still reads "A".
  EXPECT_EQ(packed_tables(head + "K\000K\000K\000\x87t\x86h\001\x86."s), 0u);
}

TEST(PackedTriples, BadInputFailsAsTheValuesFail) {
  const std::string two = triple_put("LOAD", 1, 3, 0) + triple_get(1, 4, 0);
  const std::string whole = instructions(two + two + two);
  // Cut anywhere: the same error at the same byte.
  for (std::size_t cut = 1; cut < whole.size(); ++cut) {
    SCOPED_TRACE(cut);
    packed_tables(whole.substr(0, cut));
  }
  // Limits reached inside the tuple are reported where the values reach them.
  for (std::size_t cost = 1; cost < 64; ++cost) {
    SCOPED_TRACE(cost);
    UnpickleOptions options;
    options.limits.max_cost = cost;
    packed_tables(whole, options);
  }
  for (std::size_t depth = 1; depth < 4; ++depth) {
    UnpickleOptions options;
    options.limits.max_depth = depth;
    packed_tables(whole, options);
  }
  for (std::size_t limit = 1; limit < 8; ++limit) {
    UnpickleOptions options;
    options.limits.max_stack = limit;
    options.limits.max_memo = limit;
    options.limits.max_memo_key = limit - 1;
    packed_tables(whole, options);
  }
}

}  // namespace
}  // namespace symbolite::pickle
