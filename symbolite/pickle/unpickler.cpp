#include "symbolite/pickle/unpickler.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "symbolite/pickle/cursor.h"
#include "symbolite/pickle/globals.h"
#include "symbolite/pickle/graph_guard.h"
#include "symbolite/pickle/memo.h"
#include "symbolite/pickle/opcodes.h"
#include "symbolite/support/error.h"

namespace symbolite::pickle {
namespace {

// Decodes the little-endian two's complement integer of LONG1/LONG4 if it fits 64 bits.
std::optional<std::int64_t> decode_long(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return 0;
  bool negative = (bytes.back() & 0x80) != 0;
  std::uint64_t value = 0;
  std::size_t width = std::min<std::size_t>(bytes.size(), 8);
  for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t{bytes[i]} << (8 * i);
  if (width < 8) {
    if (negative) value |= ~std::uint64_t{0} << (8 * width);
  } else {
    // Longer encodings fit only if the extra bytes are pure sign extension.
    if (((value >> 63) != 0) != negative) return std::nullopt;
    for (std::size_t i = 8; i < bytes.size(); ++i) {
      if (bytes[i] != (negative ? 0xff : 0x00)) return std::nullopt;
    }
  }
  return static_cast<std::int64_t>(value);
}

class Unpickler {
 public:
  Unpickler(const Bytes& data, const UnpickleOptions& options)
      : in_(data),
        options_(options),
        memo_(options.limits.max_memo, options.limits.max_memo_key),
        guard_(options.limits.max_depth) {}

  Value run() {
    while (!in_.at_end()) {
      std::uint8_t op = in_.next_opcode();
      bool stopped = false;
      try {
        stopped = !step(op);
      } catch (const Error& e) {
        throw at_byte(in_.opcode_offset(), e);
      }
      if (stopped) return finish();
    }
    throw Error(ErrorKind::kFormat, fmt::format("byte {}: pickle ends without STOP", in_.offset()));
  }

 private:
  // Prefixes "byte N: " to an error raised while reading the opcode at `offset`.
  static Error at_byte(std::size_t offset, const Error& inner) {
    Error outer(inner.kind(), fmt::format("byte {}: {}", offset, inner.message()));
    for (const std::string& where : inner.context()) outer.add_context(where);
    return outer;
  }

  Value finish() {
    if (!in_.at_end()) {
      throw Error(ErrorKind::kFormat, fmt::format("byte {}: trailing data after STOP ({} bytes)",
                                                  in_.offset(), in_.remaining()));
    }
    return std::move(stack_.back());
  }

  // --- stack -------------------------------------------------------------------------

  // Stack index where the innermost open MARK's items begin.
  std::size_t frame_start() const { return marks_.empty() ? 0 : marks_.back(); }

  // At least `count` values above the innermost MARK.
  void require(std::size_t count) const {
    if (stack_.size() - frame_start() < count) {
      throw Error(ErrorKind::kFormat, fmt::format("stack underflow: needs {} values, has {}", count,
                                                  stack_.size() - frame_start()));
    }
  }

  void push(Value value) {
    charge(1);
    if (stack_.size() >= options_.limits.max_stack) {
      throw Error(ErrorKind::kLimit,
                  fmt::format("stack holds more than {} values", options_.limits.max_stack));
    }
    stack_.push_back(std::move(value));
  }

  Value pop() {
    require(1);
    Value top = std::move(stack_.back());
    stack_.pop_back();
    return top;
  }

  // Closes the innermost MARK; returns the stack index where its items begin.
  std::size_t pop_mark() {
    if (marks_.empty()) throw Error(ErrorKind::kFormat, "no MARK to close");
    std::size_t start = marks_.back();
    marks_.pop_back();
    return start;
  }

  // Values from `start` to the top of the stack, moved out.
  ValueList take_from(std::size_t start) {
    ValueList items(std::make_move_iterator(stack_.begin() + start),
                    std::make_move_iterator(stack_.end()));
    stack_.resize(start);
    return items;
  }

  // The container an APPENDS/SETITEMS with items from `start` adds to: the value just
  // below the MARK, which must itself lie inside the enclosing frame.
  Value& target_below(std::size_t start) {
    if (start <= frame_start()) {
      throw Error(ErrorKind::kFormat, "stack underflow: no container below MARK");
    }
    return stack_[start - 1];
  }

  // --- containers ----------------------------------------------------------------------

  void charge(std::size_t units) {
    cost_ += units;
    if (cost_ > options_.limits.max_cost) {
      throw Error(ErrorKind::kLimit,
                  fmt::format("the values built cost more than {} units (a unit per value, 4 more "
                              "per container): far more than a model's records hold",
                              options_.limits.max_cost));
    }
  }

  void push_new(Value node, std::span<const Value> children) {
    charge(4);
    guard_.created(node, children);
    push(std::move(node));
  }

  void push_tuple(ValueList items) {
    Value tuple = Value::tuple(std::move(items));
    push_new(tuple, tuple.as_tuple());
  }

  void append(Value& list, std::size_t start) {
    if (!list.is(Value::Kind::kList)) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("APPEND needs a list, got {}", list.kind_name()));
    }
    std::span<const Value> items(stack_.data() + start, stack_.size() - start);
    guard_.adding(list, items);
    ValueList& target = list.mutable_list();
    target.insert(target.end(), std::make_move_iterator(stack_.begin() + start),
                  std::make_move_iterator(stack_.end()));
    stack_.resize(start);
  }

  void set_items(Value& dict, std::size_t start) {
    if (!dict.is(Value::Kind::kDict)) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("SETITEM needs a dict, got {}", dict.kind_name()));
    }
    if ((stack_.size() - start) % 2 != 0) {
      throw Error(ErrorKind::kFormat, "odd number of dict items");
    }
    std::span<const Value> items(stack_.data() + start, stack_.size() - start);
    guard_.adding(dict, items);
    DictItems& target = dict.mutable_dict();
    for (std::size_t i = start; i < stack_.size(); i += 2) {
      target.emplace_back(std::move(stack_[i]), std::move(stack_[i + 1]));
    }
    stack_.resize(start);
  }

  void build() {
    require(2);
    Value& target = stack_[stack_.size() - 2];
    if (!target.is(Value::Kind::kObject)) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("BUILD needs a TorchScript object, got {}", target.kind_name()));
    }
    guard_.adding(target, std::span<const Value>(&stack_.back(), 1));
    target.mutable_object().state = pop();
  }

  // --- packed triples ------------------------------------------------------------------

  // After a MARK that follows the packing key: reads a tuple of (str, int, int) tuples into a
  // table and pushes its placeholder. False, with nothing read or changed, when the tuple is
  // anything else or would break a limit (the generic opcodes then read it, and report the
  // limit where it is reached).
  bool pack_triples() {
    if (stack_.empty() || !stack_.back().is(Value::Kind::kString) ||
        stack_.back().as_string() != options_.packed_triples->key()) {
      return false;
    }
    const Cursor start = in_;
    std::optional<TripleScan> scan = scan_triples(in_, memo_);
    const UnpicklerLimits& limits = options_.limits;
    // As values each triple would cost 8 units (three pushes, a tuple) and stand on the stack.
    const std::size_t rows = scan ? scan->table.rows.size() : 0;
    if (!scan || cost_ + 8 * rows + 5 >= limits.max_cost ||
        stack_.size() + rows + 3 >= limits.max_stack ||
        memo_.size() + scan->memo_puts.size() >= limits.max_memo ||
        std::any_of(scan->memo_puts.begin(), scan->memo_puts.end(),
                    [&](const auto& put) { return put.first > limits.max_memo_key; })) {
      in_ = start;
      return false;
    }
    for (auto& [key, text] : scan->memo_puts) memo_.put(key, std::move(text));
    charge(8 * rows);
    // The placeholder holds an empty tuple so that it nests as deep as the tuple of tuples it
    // stands for: the depth limit holds as it would.
    Value inner = Value::tuple({});
    guard_.created(inner, {});
    Value placeholder = Value::tuple({std::move(inner)});
    push_new(placeholder, placeholder.as_tuple());
    options_.packed_triples->add(stack_.back(), std::move(scan->table));
    return true;
  }

  // --- globals -------------------------------------------------------------------------

  void push_global(std::string_view module, std::string_view name) {
    std::string qualified = fmt::format("{}.{}", module, name);
    if (!classify_global(qualified, options_.is_class)) {
      throw Error(ErrorKind::kUnsupported, fmt::format("global '{}' is not allowed", qualified));
    }
    push(Value::global(std::move(qualified)));
  }

  void stack_global() {
    require(2);
    Value name = pop();
    Value module = pop();
    if (!module.is(Value::Kind::kString) || !name.is(Value::Kind::kString)) {
      throw Error(ErrorKind::kFormat, fmt::format("STACK_GLOBAL needs two strings, got {} and {}",
                                                  module.kind_name(), name.kind_name()));
    }
    push_global(module.as_string(), name.as_string());
  }

  static bool is_empty_tuple(const Value& v) {
    return v.is(Value::Kind::kTuple) && v.as_tuple().empty();
  }

  // REDUCE (callable, args) or NEWOBJ (class, args).
  void call(bool newobj) {
    require(2);
    Value args = pop();
    Value callable = pop();
    if (!callable.is(Value::Kind::kGlobal)) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("only globals can be called, got {}", callable.kind_name()));
    }
    std::string_view name = callable.as_global();
    std::optional<GlobalKind> kind = classify_global(name, options_.is_class);
    if (!kind) {  // GLOBAL checked it; only a resolver changing its mind gets here
      throw Error(ErrorKind::kUnsupported, fmt::format("global '{}' is not allowed", name));
    }
    if (*kind == GlobalKind::kClass || *kind == GlobalKind::kOrderedDict) {
      if (!is_empty_tuple(args)) {
        throw Error(ErrorKind::kUnsupported,
                    fmt::format("'{}' called with arguments {}", name, args.debug_string(80)));
      }
      if (*kind == GlobalKind::kClass) {
        push_new(Value::object(std::string(name), Value::none()), {});
      } else {
        push_new(Value::dict({}), {});
      }
      return;
    }
    if (newobj || *kind == GlobalKind::kStorageType) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("'{}' cannot be {}", name, newobj ? "instantiated" : "called"));
    }
    push(call_global(*kind, name, args));
  }

  // --- memo ----------------------------------------------------------------------------

  void memo_put(std::uint64_t key) {
    require(1);
    memo_.put(key, stack_.back());
  }

  void memo_get(std::uint64_t key) {
    const Value* value = memo_.get(key);
    if (value == nullptr) {
      throw Error(ErrorKind::kFormat, fmt::format("memo key {} was never stored", key));
    }
    push(*value);
  }

  // --- scalars -------------------------------------------------------------------------

  void push_long(std::uint64_t length) {
    Bytes bytes = in_.take(length);
    std::optional<std::int64_t> value = decode_long(bytes.span());
    if (!value) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("integer of {} bytes does not fit in 64 bits", length));
    }
    push(Value::integer(*value));
  }

  void push_string(std::uint64_t length) { push(Value::string(in_.take(length))); }

  std::int32_t non_negative_length() {
    std::int32_t length = in_.i32();
    if (length < 0) throw Error(ErrorKind::kFormat, fmt::format("negative length {}", length));
    return length;
  }

  [[noreturn]] static void unsupported(std::uint8_t op) {
    std::string_view name = opcode_name(op);
    if (name.empty()) {
      throw Error(ErrorKind::kFormat, fmt::format("unknown pickle opcode {:#04x}", op));
    }
    if (op >= 0x20 && op < 0x7f) {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("unsupported pickle opcode {:#04x} ('{}', {})", op,
                              static_cast<char>(op), name));
    }
    throw Error(ErrorKind::kUnsupported,
                fmt::format("unsupported pickle opcode {:#04x} ({})", op, name));
  }

  // Executes one opcode; false at STOP.
  bool step(std::uint8_t op);

  Cursor in_;
  const UnpickleOptions& options_;
  std::vector<Value> stack_;
  std::vector<std::size_t> marks_;  // stack sizes at each open MARK
  std::size_t cost_ = 0;            // charged by push and push_new against limits.max_cost
  Memo memo_;
  GraphGuard guard_;
};

bool Unpickler::step(std::uint8_t op) {
  switch (static_cast<Opcode>(op)) {
    case Opcode::kProto: {
      std::uint8_t version = in_.u8();
      if (version > 5) {
        throw Error(ErrorKind::kUnsupported, fmt::format("pickle protocol {}", version));
      }
      break;
    }
    case Opcode::kFrame: {
      // Frames only group opcodes for buffered reading; the data is all here already.
      std::uint64_t length = in_.u64();
      if (length > in_.remaining()) {
        throw Error(ErrorKind::kFormat, fmt::format("truncated FRAME: needs {} bytes, {} left",
                                                    length, in_.remaining()));
      }
      break;
    }
    case Opcode::kStop:
      if (!marks_.empty()) throw Error(ErrorKind::kFormat, "STOP inside an open MARK");
      if (stack_.size() != 1) {
        throw Error(ErrorKind::kFormat,
                    fmt::format("STOP with {} values on the stack, expected 1", stack_.size()));
      }
      return false;

    case Opcode::kMark:
      if (marks_.size() >= options_.limits.max_depth) {
        throw Error(ErrorKind::kLimit,
                    fmt::format("more than {} nested MARKs", options_.limits.max_depth));
      }
      if (options_.packed_triples != nullptr && pack_triples()) break;
      marks_.push_back(stack_.size());
      break;
    case Opcode::kPop:
      pop();
      break;
    case Opcode::kPopMark:
      stack_.resize(pop_mark());
      break;
    case Opcode::kDup:
      require(1);
      push(stack_.back());
      break;

    case Opcode::kNone:
      push(Value::none());
      break;
    case Opcode::kNewTrue:
      push(Value::boolean(true));
      break;
    case Opcode::kNewFalse:
      push(Value::boolean(false));
      break;
    case Opcode::kBinInt:
      push(Value::integer(in_.i32()));
      break;
    case Opcode::kBinInt1:
      push(Value::integer(in_.u8()));
      break;
    case Opcode::kBinInt2:
      push(Value::integer(in_.u16()));
      break;
    case Opcode::kLong1:
      push_long(in_.u8());
      break;
    case Opcode::kLong4:
      push_long(static_cast<std::uint64_t>(non_negative_length()));
      break;
    case Opcode::kBinFloat:
      push(Value::real(in_.f64_big_endian()));
      break;

    case Opcode::kShortBinUnicode:
    case Opcode::kShortBinString:
    case Opcode::kShortBinBytes:
      push_string(in_.u8());
      break;
    case Opcode::kBinUnicode:
    case Opcode::kBinBytes:
      push_string(in_.u32());
      break;
    case Opcode::kBinString:
      push_string(static_cast<std::uint64_t>(non_negative_length()));
      break;
    case Opcode::kBinUnicode8:
    case Opcode::kBinBytes8:
      push_string(in_.u64());
      break;

    case Opcode::kEmptyTuple:
      push_tuple({});
      break;
    case Opcode::kTuple1:
    case Opcode::kTuple2:
    case Opcode::kTuple3: {
      std::size_t count = op - static_cast<std::uint8_t>(Opcode::kTuple1) + 1;
      require(count);
      push_tuple(take_from(stack_.size() - count));
      break;
    }
    case Opcode::kTuple:
      push_tuple(take_from(pop_mark()));
      break;
    case Opcode::kEmptyList:
      push_new(Value::list({}), {});
      break;
    case Opcode::kList: {
      Value list = Value::list(take_from(pop_mark()));
      push_new(list, list.as_list());
      break;
    }
    case Opcode::kEmptyDict:
      push_new(Value::dict({}), {});
      break;
    case Opcode::kDict: {
      ValueList items = take_from(pop_mark());
      if (items.size() % 2 != 0) throw Error(ErrorKind::kFormat, "odd number of dict items");
      Value dict = Value::dict({});
      guard_.created(dict, items);
      for (std::size_t i = 0; i < items.size(); i += 2) {
        dict.mutable_dict().emplace_back(std::move(items[i]), std::move(items[i + 1]));
      }
      push(std::move(dict));
      break;
    }
    case Opcode::kAppend:
      require(2);
      append(stack_[stack_.size() - 2], stack_.size() - 1);
      break;
    case Opcode::kAppends: {
      std::size_t start = pop_mark();
      append(target_below(start), start);
      break;
    }
    case Opcode::kSetItem:
      require(3);
      set_items(stack_[stack_.size() - 3], stack_.size() - 2);
      break;
    case Opcode::kSetItems: {
      std::size_t start = pop_mark();
      set_items(target_below(start), start);
      break;
    }

    case Opcode::kGlobal: {
      std::string_view module = in_.line();
      std::string_view name = in_.line();
      push_global(module, name);
      break;
    }
    case Opcode::kStackGlobal:
      stack_global();
      break;
    case Opcode::kReduce:
      call(false);
      break;
    case Opcode::kNewObj:
      call(true);
      break;
    case Opcode::kBuild:
      build();
      break;
    case Opcode::kBinPersId:
      push(Value::storage(storage_from_persistent_id(pop())));
      break;

    case Opcode::kBinPut:
      memo_put(in_.u8());
      break;
    case Opcode::kLongBinPut:
      memo_put(in_.u32());
      break;
    case Opcode::kMemoize:
      memo_put(memo_.size());
      break;
    case Opcode::kBinGet:
      memo_get(in_.u8());
      break;
    case Opcode::kLongBinGet:
      memo_get(in_.u32());
      break;

    default:
      unsupported(op);
  }
  return true;
}

}  // namespace

Value unpickle(const Bytes& data, const UnpickleOptions& options) {
  return Unpickler(data, options).run();
}

}  // namespace symbolite::pickle
