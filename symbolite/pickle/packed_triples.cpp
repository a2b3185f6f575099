#include "symbolite/pickle/packed_triples.h"

#include "symbolite/pickle/opcodes.h"
#include "symbolite/support/error.h"

namespace symbolite::pickle {
namespace {

// Reads one triple after another; each member function returns false as soon as the
// opcodes stop being what a packed triple is made of.
class TripleScanner {
 public:
  TripleScanner(Cursor& in, const Memo& memo) : in_(in), memo_(memo) {}

  std::optional<TripleScan> scan() {
    for (;;) {
      Opcode op{};
      if (!next(op)) return std::nullopt;
      if (op == Opcode::kTuple) {
        if (memoized_next()) return std::nullopt;
        return std::move(scan_);
      }
      TripleTable::Row row;
      if (!text(op, row.text) || !integer(op, row.first) || !next(op) || !integer(op, row.second) ||
          !next(op) || op != Opcode::kTuple3) {
        return std::nullopt;
      }
      scan_.table.rows.push_back(row);
    }
  }

 private:
  bool next(Opcode& op) {
    if (in_.at_end()) return false;
    op = static_cast<Opcode>(in_.next_opcode());
    return true;
  }

  // Whether the next opcode memoizes what is on top of the stack (read, then left unread): a
  // packed tuple must not be memoized, or the memo could place its placeholder anywhere.
  bool memoized_next() {
    const Cursor here = in_;
    Opcode op{};
    const bool put =
        next(op) && (op == Opcode::kBinPut || op == Opcode::kLongBinPut || op == Opcode::kMemoize);
    in_ = here;
    return put;
  }

  // A string, new (and then perhaps memoized) or from the memo; `op` is left at the opcode
  // after it.
  bool text(Opcode& op, std::uint32_t& index) {
    switch (op) {
      case Opcode::kShortBinUnicode:
      case Opcode::kBinUnicode: {
        Bytes bytes = in_.take(op == Opcode::kBinUnicode ? in_.u32() : in_.u8());
        index = static_cast<std::uint32_t>(scan_.table.texts.size());
        scan_.table.texts.push_back(bytes);
        if (!next(op)) return false;
        if (op == Opcode::kBinPut || op == Opcode::kLongBinPut) {
          std::uint64_t key = op == Opcode::kBinPut ? in_.u8() : in_.u32();
          text_of_key_[key] = index;
          scan_.memo_puts.emplace_back(key, Value::string(std::move(bytes)));
          return next(op);
        }
        return true;
      }
      case Opcode::kBinGet:
      case Opcode::kLongBinGet: {
        std::uint64_t key = op == Opcode::kBinGet ? in_.u8() : in_.u32();
        if (auto known = text_of_key_.find(key); known != text_of_key_.end()) {
          index = known->second;
          return next(op);
        }
        const Value* value = memo_.get(key);
        if (value == nullptr || !value->is(Value::Kind::kString)) return false;
        index = static_cast<std::uint32_t>(scan_.table.texts.size());
        scan_.table.texts.push_back(value->as_string_bytes());
        text_of_key_[key] = index;
        return next(op);
      }
      default:
        return false;
    }
  }

  // BININT1, BININT2, BININT: the forms PyTorch writes an int of 32 bits in.
  bool integer(Opcode op, std::int64_t& value) {
    switch (op) {
      case Opcode::kBinInt1:
        value = in_.u8();
        return true;
      case Opcode::kBinInt2:
        value = in_.u16();
        return true;
      case Opcode::kBinInt:
        value = in_.i32();
        return true;
      default:
        return false;
    }
  }

  Cursor& in_;
  const Memo& memo_;
  TripleScan scan_;
  // The text a memo key holds, for keys read or put during this scan (a put here replaces
  // what the memo holds until the table is kept).
  std::unordered_map<std::uint64_t, std::uint32_t> text_of_key_;
};

}  // namespace

Value TripleTable::to_value() const {
  ValueList items;
  items.reserve(rows.size());
  for (const Row& row : rows) {
    items.push_back(Value::tuple(
        {Value::string(texts[row.text]), Value::integer(row.first), Value::integer(row.second)}));
  }
  return Value::tuple(std::move(items));
}

Value PackedTriples::expanded(const Value& root) const {
  std::unordered_map<const void*, Value> done;  // by identity: memo sharing stays a DAG
  auto expand = [&](auto& self, const Value& value) -> Value {
    const void* identity = value.identity();
    if (identity == nullptr) return value;
    if (auto found = done.find(identity); found != done.end()) return found->second;
    Value copy = value;
    if (const TripleTable* table = find(value)) {
      copy = table->to_value();
    } else if (value.is(Value::Kind::kTuple) || value.is(Value::Kind::kList)) {
      ValueList items;
      for (const Value& item : value.as_sequence()) items.push_back(self(self, item));
      copy = value.is(Value::Kind::kTuple)
                 ? Value::tuple(std::move(items))
                 : Value::list(std::move(items)).with_list_tag(value.list_tag());
    } else if (value.is(Value::Kind::kDict)) {
      DictItems items;
      for (const auto& [key, item] : value.as_dict()) {
        items.emplace_back(self(self, key), self(self, item));
      }
      copy = Value::dict(std::move(items));
    } else if (value.is(Value::Kind::kObject)) {
      copy = Value::object(value.as_object().type_name, self(self, value.as_object().state));
    }
    done.emplace(identity, copy);
    return copy;
  };
  return expand(expand, root);
}

const TripleTable* PackedTriples::find(const Value& value) const {
  auto found = tables_.find(value.identity());
  return found == tables_.end() ? nullptr : &found->second;
}

void PackedTriples::add(Value placeholder, TripleTable table) {
  tables_.emplace(placeholder.identity(), std::move(table));
  placeholders_.push_back(std::move(placeholder));
}

std::optional<TripleScan> scan_triples(Cursor& in, const Memo& memo) {
  try {
    return TripleScanner(in, memo).scan();
  } catch (const Error&) {  // truncated input: the generic opcodes report it where it is
    return std::nullopt;
  }
}

}  // namespace symbolite::pickle
