#include "symbolite/mobile/bytecode.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

// Looks up ("name", value) in a tuple of named fields.
const pickle::Value* field(const pickle::ValueList& fields, std::string_view name) {
  for (const auto& f : fields) {
    const auto& pair = f.as_tuple();
    if (pair.size() == 2 && pair[0].is(pickle::Value::Kind::kString) &&
        pair[0].as_string() == name) {
      return &pair[1];
    }
  }
  return nullptr;
}

const pickle::Value& required(const pickle::ValueList& fields, std::string_view name) {
  if (const auto* v = field(fields, name)) return *v;
  throw Error(ErrorKind::kModel, fmt::format("missing field '{}'", name));
}

std::vector<Argument> read_arguments(const pickle::Value& list) {
  std::vector<Argument> out;
  for (const auto& arg : list.as_sequence()) {
    const auto& fields = arg.as_tuple();
    Argument a;
    a.name = std::string(required(fields, "name").as_string());
    a.type = std::string(required(fields, "type").as_string());
    if (const auto* d = field(fields, "default_value")) a.default_value = *d;
    out.push_back(std::move(a));
  }
  return out;
}

// An instruction's opcode from its name; operands PyTorch could not hold are refused.
OpCode decode_opcode(std::size_t index, std::string_view name) {
  auto op = opcode_from_name(name);
  if (!op) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("instruction {}: unknown opcode '{}'", index, name));
  }
  return *op;
}

std::int32_t decode_operand(std::size_t index, std::string_view name, std::int64_t value) {
  if (value < INT32_MIN || value > INT32_MAX) {
    throw Error(ErrorKind::kModel,
                fmt::format("instruction {} ({}): operand {} out of range", index, name, value));
  }
  return static_cast<std::int32_t>(value);
}

// A packed instruction list (pickle/packed_triples.h): each opcode name decoded once.
void read_packed_instructions(const pickle::TripleTable& table, std::vector<Instruction>& out) {
  std::vector<std::optional<OpCode>> opcodes(table.texts.size());
  out.reserve(table.rows.size());
  for (const auto& row : table.rows) {
    const std::size_t index = out.size();
    const std::string_view name = table.texts[row.text].str();
    std::optional<OpCode>& op = opcodes[row.text];
    if (!op) op = decode_opcode(index, name);
    out.push_back(Instruction{*op, decode_operand(index, name, row.first),
                              decode_operand(index, name, row.second)});
  }
}

// The packed tuples of one unpickling, and which of them were read as instruction lists.
struct PackedLists {
  const pickle::PackedTriples& tables;
  std::unordered_set<const void*> read;
};

void read_instructions(const pickle::Value& list, PackedLists* packed,
                       std::vector<Instruction>& out) {
  if (const pickle::TripleTable* table = packed ? packed->tables.find(list) : nullptr) {
    packed->read.insert(list.identity());
    read_packed_instructions(*table, out);
    return;
  }
  for (const auto& ins : list.as_sequence()) {
    const auto& t = ins.as_tuple();
    const std::size_t index = out.size();
    if (t.size() != 3) {
      throw Error(
          ErrorKind::kModel,
          fmt::format("instruction {}: expected (op, X, N), got {} elements", index, t.size()));
    }
    const std::string_view name = t[0].as_string();
    out.push_back(Instruction{decode_opcode(index, name),
                              decode_operand(index, name, t[1].as_int()),
                              decode_operand(index, name, t[2].as_int())});
  }
}

BytecodeFunction read_function(const pickle::ValueList& entry, PackedLists* packed) {
  if (entry.size() < 2) {
    throw Error(ErrorKind::kModel,
                fmt::format("expected (name, code[, schema]), got {} elements", entry.size()));
  }
  BytecodeFunction fn;
  fn.qualified_name = std::string(entry[0].as_string());
  with_context(fmt::format("function '{}'", fn.qualified_name), [&] {
    const auto& code = entry[1].as_tuple();
    with_context("instructions", [&] {
      read_instructions(required(code, kInstructionsKey), packed, fn.instructions);
    });
    with_context("operators", [&] {
      for (const auto& op : required(code, "operators").as_sequence()) {
        const auto& t = op.as_tuple();
        if (t.size() < 2 || t.size() > 3) {
          throw Error(ErrorKind::kModel,
                      fmt::format("operator {}: expected (name, overload[, num_args]), got {} "
                                  "elements",
                                  fn.operators.size(), t.size()));
        }
        OperatorRef ref{std::string(t[0].as_string()), std::string(t[1].as_string()), {}};
        if (t.size() == 3 && !t[2].is_none()) ref.num_specified_args = t[2].as_int();
        fn.operators.push_back(std::move(ref));
      }
    });
    for (const auto& c : required(code, "constants").as_sequence()) fn.constants.push_back(c);
    for (const auto& t : required(code, "types").as_sequence()) {
      fn.types.emplace_back(t.as_string());
    }
    fn.register_size = required(code, "register_size").as_int();
    if (entry.size() >= 3 && !entry[2].is_none()) {
      const auto& schema = entry[2].as_tuple();
      with_context("schema", [&] {
        fn.arguments = read_arguments(required(schema, "arguments"));
        fn.returns = read_arguments(required(schema, "returns"));
      });
    }
  });
  return fn;
}

// Whether `value` is or holds one of `packed`'s placeholders; nodes in `seen` were checked.
bool holds_packed(const pickle::Value& value, const pickle::PackedTriples& packed,
                  std::unordered_set<const void*>& seen) {
  const void* identity = value.identity();
  if (identity == nullptr || !seen.insert(identity).second) return false;
  if (packed.find(value) != nullptr) return true;
  return pickle::any_child(
      value, [&](const pickle::Value& child) { return holds_packed(child, packed, seen); });
}

Bytecode decode(const pickle::Value& root, PackedLists* packed) {
  const auto& top = root.as_tuple();
  if (top.empty()) throw Error(ErrorKind::kModel, "empty bytecode tuple");
  Bytecode bytecode;
  bytecode.version = top[0].as_int();
  for (std::size_t i = 1; i < top.size(); ++i) {
    bytecode.functions.push_back(read_function(top[i].as_tuple(), packed));
  }
  return bytecode;
}

}  // namespace

std::string OperatorRef::full_name() const {
  return overload.empty() ? name : name + "." + overload;
}

const BytecodeFunction* Bytecode::find(std::string_view qualified_name) const {
  for (const auto& fn : functions) {
    if (fn.qualified_name == qualified_name) return &fn;
  }
  return nullptr;
}

Bytecode read_bytecode(const pickle::Value& root) { return decode(root, nullptr); }

std::optional<Bytecode> read_bytecode(const pickle::Value& root,
                                      const pickle::PackedTriples& packed) {
  PackedLists lists{packed, {}};
  std::optional<Bytecode> bytecode;
  try {
    bytecode = decode(root, &lists);
  } catch (const Error&) {
    return std::nullopt;  // read as values, the error is theirs to tell
  }
  // Every packed tuple read as an instruction list, and none kept elsewhere.
  if (lists.read.size() != packed.size()) return std::nullopt;
  std::unordered_set<const void*> seen;
  for (const BytecodeFunction& fn : bytecode->functions) {
    for (const pickle::Value& c : fn.constants) {
      if (holds_packed(c, packed, seen)) return std::nullopt;
    }
    for (const auto* args : {&fn.arguments, &fn.returns}) {
      for (const Argument& a : *args) {
        if (holds_packed(a.default_value, packed, seen)) return std::nullopt;
      }
    }
  }
  return bytecode;
}

}  // namespace symbolite::mobile
