// `PackedTriples`: tuples of (str, int, int) tuples that the unpickler reads into a table
// instead of building a Value for every item.
//
// Why: a TorchScript bytecode function's instruction list is a tuple of ("OP", X, N) tuples,
// tens of thousands of them in a large model (shufflenet_v2_x0_5: 21,800). As Values each
// one takes three heap blocks and about 300 bytes: 6.8 MB of fresh memory whose page faults
// were half of that model's load. A table row takes 24 bytes.
//
// How: the caller names the string key whose value may be packed ("instructions": a bytecode
// function holds an ("instructions", (...)) pair). When a MARK follows that string and
// everything up to its TUPLE is (str, int, int) triples, the unpickler reads them into a
// table and the value tree holds a placeholder tuple in its place; `find` gives the table for
// the placeholder. Anything else (another shape, a memoized triple or tuple, MEMOIZE, a memo
// key a triple's string cannot be read from) is unpickled as usual, so readers accept both
// forms. Limits, memo and errors come out exactly as unpickling it as values would. The
// placeholder is never memoized: only the container it was read into holds it (the key's
// pair, unless a crafted file memoizes and reuses that pair elsewhere).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbolite/pickle/cursor.h"
#include "symbolite/pickle/memo.h"
#include "symbolite/pickle/value.h"
#include "symbolite/support/bytes.h"

namespace symbolite::pickle {

struct TripleTable {
  struct Row {
    std::uint32_t text = 0;  // index into texts
    std::int64_t first = 0;
    std::int64_t second = 0;
  };
  std::vector<Bytes> texts;  // each memoized string once, in the order first read
  std::vector<Row> rows;

  // The tuple of (str, int, int) tuples the table was read from.
  Value to_value() const;
};

class PackedTriples {
 public:
  explicit PackedTriples(std::string key) : key_(std::move(key)) {}

  // The string a tuple must follow to be packed.
  const std::string& key() const { return key_; }

  // How many tuples were packed.
  std::size_t size() const { return tables_.size(); }

  // The table `value` stands for, or nullptr when it is not a placeholder of this unpickling.
  const TripleTable* find(const Value& value) const;

  // `root` with every placeholder replaced by its table's value: the tree unpickling without
  // packing builds (shared nodes stay shared). For tests and diagnostics.
  Value expanded(const Value& root) const;

  // For the unpickler: `placeholder` (a container node, kept alive here so that its identity
  // stays unique) now stands for `table`.
  void add(Value placeholder, TripleTable table);

 private:
  std::string key_;
  std::vector<Value> placeholders_;
  std::unordered_map<const void*, TripleTable> tables_;  // by placeholder identity
};

// For the unpickler, just after a MARK: the (str, int, int) TUPLE3s up to the TUPLE that
// closes it, with `in` left after that TUPLE; nullopt (and `in` anywhere) when the opcodes
// are anything else or fail to read. Strings are read from the opcodes or from `memo`; the
// memo is not changed: the BINPUTs of the triples' strings are returned, in order, for the
// unpickler to apply if it keeps the table.
struct TripleScan {
  TripleTable table;
  std::vector<std::pair<std::uint64_t, Value>> memo_puts;
};
std::optional<TripleScan> scan_triples(Cursor& in, const Memo& memo);

}  // namespace symbolite::pickle
