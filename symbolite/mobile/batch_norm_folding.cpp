#include "symbolite/mobile/batch_norm_folding.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <vector>

#include "symbolite/ops/common/batch_norm_affine.h"
#include "symbolite/ops/common/nn_common.h"

namespace symbolite::mobile {
namespace {

using ops::IValue;
using tensor::DType;
using tensor::Tensor;

// What the walk knows of a value: nothing; its value (read from the module tree or the
// constants); that it is the output of the convolution at `producer`; or (looking for chains)
// a list built at `producer` of the outputs of the convolutions at `items`, in order.
struct WalkValue {
  enum class Kind { kUnknown, kKnown, kConvOutput, kConvList };
  Kind kind = Kind::kUnknown;
  IValue known;
  std::size_t producer = 0;
  std::vector<std::size_t> items;

  static WalkValue of(IValue v) { return {Kind::kKnown, std::move(v), 0, {}}; }
  bool is_conv_output() const { return kind == Kind::kConvOutput; }
  // Whether this value holds the output of the convolution at `conv`.
  bool holds(std::size_t conv) const {
    return (kind == Kind::kConvOutput && producer == conv) ||
           (kind == Kind::kConvList && std::find(items.begin(), items.end(), conv) != items.end());
  }
};

// What the walk makes of an operator.
enum class Role {
  kConv,        // aten::conv2d
  kBatchNorm,   // aten::batch_norm
  kMaxPool,     // aten::max_pool2d
  kCat,         // aten::cat
  kShape,       // aten::size: reads a shape, not the values
  kComparison,  // int or float comparison, computed when both sides are known
  kPushesOne,   // pushes one value the walk does not know
  kOther,       // after it the walk knows nothing of the stack below what comes next
  kIdentity,    // returns its input: prim::unchecked_cast, (fused code) a folded batch norm
};

// Operators that push exactly one value: the walk keeps track of the stack across them.
bool pushes_one_value(std::string_view name) {
  static const char* const kNames[] = {
      "aten::conv2d",    "aten::batch_norm", "aten::relu",        "aten::relu_",
      "aten::hardswish", "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_",
      "aten::silu",      "aten::silu_",      "aten::sigmoid",     "aten::hardtanh",
      "aten::hardtanh_", "aten::add.Tensor", "aten::add_.Tensor", "aten::mul.Tensor",
      "aten::size",      "aten::dropout",    "aten::dropout_",    "aten::flatten.using_ints",
      "aten::linear",    "aten::max_pool2d", "aten::avg_pool2d",  "aten::adaptive_avg_pool2d",
      "aten::cat",       "aten::mean.dim",   "aten::len.t",       "aten::__getitem__.t"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

// A parameter the fold can read once for all runs: a float32 tensor of `channels` elements
// held read-only in the file.
bool fixed_channel_vector(const IValue& v, std::int64_t channels) {
  if (!v.is(IValue::Kind::kTensor)) return false;
  const Tensor& t = v.to_tensor();
  return t.dtype() == DType::kFloat32 && t.numel() == channels && t.storage().is_view();
}

// Every instruction some path from `start` can reach.
std::vector<bool> reachable_from(const std::vector<Instruction>& code, std::size_t start) {
  std::vector<bool> seen(code.size(), false);
  std::vector<std::size_t> todo{start};
  while (!todo.empty()) {
    std::size_t pc = todo.back();
    todo.pop_back();
    if (pc >= code.size() || seen[pc]) continue;
    seen[pc] = true;
    const Instruction& ins = code[pc];
    const auto target = static_cast<std::size_t>(static_cast<std::int64_t>(pc) + ins.x);
    switch (ins.op) {
      case OpCode::kRet:
      case OpCode::kRaiseException:
        break;
      case OpCode::kJmp:
        todo.push_back(target);
        break;
      case OpCode::kJf:
      case OpCode::kLoop:
        todo.push_back(target);
        todo.push_back(pc + 1);
        break;
      default:
        todo.push_back(pc + 1);
    }
  }
  return seen;
}

// A number comparison, `aten::<eq|ne|lt|gt|le|ge>.<int|float|float_int|int_float>`: its
// base name and the kinds its overload takes; nullopt for any other operator. Mixed
// overloads compare in double, as TorchScript does (DenseNet's `drop_rate > 0`).
struct NumberComparison {
  std::string_view base;
  IValue::Kind a, b;
};

std::optional<NumberComparison> number_comparison(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view base = name.substr(0, dot), overload = name.substr(dot + 1);
  constexpr std::string_view kBases[] = {"aten::eq", "aten::ne", "aten::lt",
                                         "aten::gt", "aten::le", "aten::ge"};
  if (std::find(std::begin(kBases), std::end(kBases), base) == std::end(kBases)) {
    return std::nullopt;
  }
  using Kind = IValue::Kind;
  if (overload == "int") return NumberComparison{base, Kind::kInt, Kind::kInt};
  if (overload == "float") return NumberComparison{base, Kind::kDouble, Kind::kDouble};
  if (overload == "float_int") return NumberComparison{base, Kind::kDouble, Kind::kInt};
  if (overload == "int_float") return NumberComparison{base, Kind::kInt, Kind::kDouble};
  return std::nullopt;
}

// A comparison of two known numbers of the kinds its overload takes (`if self.stride == 1:`,
// a stochastic depth's `if p < 0.0`), computed.
std::optional<IValue> compare_numbers(const ResolvedOperator& op,
                                      const std::vector<WalkValue>& args) {
  const std::optional<NumberComparison> comparison = number_comparison(op.name);
  if (!comparison || args.size() != 2 || args[0].kind != WalkValue::Kind::kKnown ||
      args[1].kind != WalkValue::Kind::kKnown) {
    return std::nullopt;
  }
  const IValue& a = args[0].known;
  const IValue& b = args[1].known;
  if (!a.is(comparison->a) || !b.is(comparison->b)) return std::nullopt;
  auto compare = [&](auto x, auto y) -> std::optional<IValue> {
    const std::string_view base = comparison->base;
    if (base == "aten::eq") return IValue(x == y);
    if (base == "aten::ne") return IValue(x != y);
    if (base == "aten::lt") return IValue(x < y);
    if (base == "aten::gt") return IValue(x > y);
    if (base == "aten::le") return IValue(x <= y);
    return IValue(x >= y);  // aten::ge
  };
  if (a.is(IValue::Kind::kInt) && b.is(IValue::Kind::kInt)) {
    return compare(a.to_int(), b.to_int());
  }
  auto as_double = [](const IValue& v) {
    return v.is(IValue::Kind::kInt) ? static_cast<double>(v.to_int()) : v.to_double();
  };
  return compare(as_double(a), as_double(b));
}

struct ConvSite {
  IValue weight;         // None where the walk does not know it
  bool escaped = false;  // its output was read by something other than a fold or chain
};

// What the walk looks for: batch norms to fold (in the file's code), or chains — max pools fed
// by a convolution alone, cats of convolutions' outputs — in the fused code, where folded batch
// norms return their input and fused activations are jumps over them.
enum class Search { kBatchNormFolds, kChains };

Role role_of(const ResolvedOperator& op) {
  if (op.folded_away || op.name == "prim::unchecked_cast") return Role::kIdentity;
  // An upgraded operator, or a kernel of one's own registry, is not the standard one.
  const bool standard =
      op.upgrader.empty() && op.def != nullptr && ops::default_registry().find(op.name) == op.def;
  if (standard && op.name == "aten::conv2d") return Role::kConv;
  if (standard && op.name == "aten::batch_norm") return Role::kBatchNorm;
  if (standard && op.name == "aten::max_pool2d") return Role::kMaxPool;
  if (standard && op.name == "aten::cat") return Role::kCat;
  if (standard && op.name == "aten::size") return Role::kShape;
  if (number_comparison(op.name)) return Role::kComparison;
  return pushes_one_value(op.name) ? Role::kPushesOne : Role::kOther;
}

class Walker {
 public:
  Walker(const LoadedFunction& fn, const std::vector<Instruction>& code, const IValue& root,
         Search search)
      : fn_(fn), code_(code), search_(search), registers_(fn.register_size + 1) {
    for (const auto& op : fn.operators) roles_.push_back(role_of(op));
    // The arguments: self, then values the walk cannot know.
    std::size_t arguments = fn.code->arguments.size();
    if (arguments > 0) {
      stack_.push_back(WalkValue::of(root));
      stack_.resize(arguments);
    }
  }

  void walk() {
    const auto& code = code_;
    std::vector<bool> visited(code.size(), false);
    std::size_t pc = 0;
    while (pc < code.size() && !visited[pc]) {
      visited[pc] = true;
      std::optional<std::size_t> next = step(code[pc], pc);
      if (!next) break;
      pc = *next;
    }
    if (pc < code.size()) {
      // Where the walk stops, the run goes on along paths it does not know. A fold whose
      // instructions one of them can come back to would run again with other values.
      std::vector<bool> reachable = reachable_from(code, pc);
      auto reached = [&](std::size_t from, std::size_t to) {
        for (std::size_t at = from; at <= to; ++at) {
          if (reachable[at]) return true;
        }
        return false;
      };
      std::erase_if(folds_,
                    [&](const BatchNormFold& f) { return reached(f.conv_pc, f.batch_norm_pc); });
      std::erase_if(chains_.pools,
                    [&](const PoolChain& c) { return reached(c.conv_pc, c.pool_pc); });
      std::erase_if(chains_.cats, [&](const CatChain& c) {
        return reached(*std::min_element(c.conv_pcs.begin(), c.conv_pcs.end()), c.cat_pc);
      });
    }
  }
  std::vector<BatchNormFold> folds() { return std::move(folds_); }
  FusedChains chains() { return std::move(chains_); }

 private:
  WalkValue pop() {
    if (stack_.empty()) return {};  // below what the walk tracks
    WalkValue v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  // A value consumed by anything but a fold or chain: a convolution output's is off.
  void consume(const WalkValue& v) {
    if (v.is_conv_output()) convs_[v.producer].escaped = true;
    for (std::size_t conv : v.items) convs_[conv].escaped = true;
  }
  // A value an operator the walk does not know may change in place, or that a container now
  // holds: a list built of known values (a pool's window) is known no more, wherever it is.
  void may_change(const WalkValue& v) {
    if (v.kind != WalkValue::Kind::kKnown || !v.known.is(IValue::Kind::kList)) return;
    const ops::IValueList* list = &v.known.to_list();
    auto forget = [list](WalkValue& held) {
      if (held.kind == WalkValue::Kind::kKnown && held.known.is(IValue::Kind::kList) &&
          &held.known.to_list() == list) {
        held = {};
      }
    };
    for (WalkValue& held : stack_) forget(held);
    for (WalkValue& held : registers_) forget(held);
  }
  void forget_stack() {
    for (const auto& v : stack_) consume(v);
    stack_.clear();
  }

  // The next instruction on the path, or nullopt where the walk cannot follow.
  std::optional<std::size_t> step(const Instruction& ins, std::size_t pc) {
    const auto x = static_cast<std::size_t>(ins.x);
    switch (ins.op) {
      case OpCode::kLoad:
        stack_.push_back(registers_[x]);
        break;
      case OpCode::kMove:
        stack_.push_back(std::move(registers_[x]));
        registers_[x] = {};
        break;
      case OpCode::kStore:
        registers_[x] = pop();
        break;
      case OpCode::kStoreN:
        for (std::size_t i = static_cast<std::size_t>(ins.n); i > 0; --i) {
          registers_[x + i - 1] = pop();
        }
        break;
      case OpCode::kDrop:
        pop();
        break;
      case OpCode::kDropR:
        registers_[x] = {};
        break;
      case OpCode::kLoadC:
        stack_.push_back(WalkValue::of(fn_.constants[x]));
        break;
      case OpCode::kGetAttr: {
        WalkValue object = pop();
        consume(object);
        WalkValue attribute;
        if (object.kind == WalkValue::Kind::kKnown && object.known.is(IValue::Kind::kObject)) {
          const auto& slots = object.known.to_object().slots;
          if (x < slots.size()) attribute = WalkValue::of(slots[x]);
        }
        stack_.push_back(std::move(attribute));
        break;
      }
      case OpCode::kJf: {
        WalkValue condition = pop();
        consume(condition);
        const auto if_false = static_cast<std::size_t>(static_cast<std::int64_t>(pc) + ins.x);
        if (condition.kind == WalkValue::Kind::kKnown && condition.known.is(IValue::Kind::kBool)) {
          return condition.known.to_bool() ? pc + 1 : if_false;
        }
        // An assertion: where one side only raises, the run goes on along the other.
        if (only_raises(if_false)) return pc + 1;
        if (only_raises(pc + 1)) return if_false;
        return std::nullopt;
      }
      case OpCode::kNot: {
        WalkValue v = pop();
        consume(v);
        stack_.push_back(v.kind == WalkValue::Kind::kKnown && v.known.is(IValue::Kind::kBool)
                             ? WalkValue::of(IValue(!v.known.to_bool()))
                             : WalkValue{});
        break;
      }
      case OpCode::kIs:
      case OpCode::kIsNot: {
        WalkValue b = pop();
        WalkValue a = pop();
        consume(a);
        consume(b);
        WalkValue result;
        if (a.kind == WalkValue::Kind::kKnown && b.kind == WalkValue::Kind::kKnown &&
            (a.known.is_none() || b.known.is_none())) {
          const bool same = a.known.is_none() && b.known.is_none();
          result = WalkValue::of(IValue(ins.op == OpCode::kIs ? same : !same));
        }
        stack_.push_back(std::move(result));
        break;
      }
      case OpCode::kJmp:
        return static_cast<std::size_t>(static_cast<std::int64_t>(pc) + ins.x);
      case OpCode::kListConstruct:
      case OpCode::kTupleConstruct: {
        std::size_t n = ins.op == OpCode::kTupleConstruct ? x : static_cast<std::size_t>(ins.n);
        if (ins.op == OpCode::kListConstruct && conv_list(n, pc)) break;
        // A list of known values (a convolution's stride [2, 2]) is known.
        ops::IValueList items(n);
        bool known = ins.op == OpCode::kListConstruct;
        for (std::size_t i = n; i > 0; --i) {
          WalkValue item = pop();
          consume(item);
          may_change(item);
          known = known && item.kind == WalkValue::Kind::kKnown;
          if (known) items[i - 1] = std::move(item.known);
        }
        stack_.push_back(known ? WalkValue::of(IValue::list(std::move(items))) : WalkValue{});
        break;
      }
      case OpCode::kDim:  // reads the rank, which a chained pool keeps: not a use
        pop();
        stack_.emplace_back();
        break;
      case OpCode::kDtype:
      case OpCode::kDevice:
      case OpCode::kIsCuda:
      case OpCode::kIsInstance:  // one value in, one out
        consume(pop());
        stack_.emplace_back();
        break;
      case OpCode::kFormat:
        for (std::size_t i = 0; i < x; ++i) consume(pop());
        stack_.emplace_back();
        break;
      case OpCode::kListUnpack:
        consume(pop());
        stack_.resize(stack_.size() + x);
        break;
      case OpCode::kUninitialized:  // a branch's output on its raising side (DenseNet's)
        stack_.emplace_back();
        break;
      case OpCode::kNumToTensor:
      case OpCode::kTupleSlice:
        consume(pop());
        stack_.emplace_back();
        break;
      case OpCode::kTupleIndex:
        consume(pop());
        consume(pop());
        stack_.emplace_back();
        break;
      case OpCode::kWarn:
        consume(pop());
        consume(pop());
        break;
      case OpCode::kOp:
        operator_call(fn_.operators[x], roles_[x], pc);
        break;
      default:
        return std::nullopt;
    }
    return pc + 1;
  }

  // A shape read does not use a convolution's values, so a batch norm may still fold into
  // it; a chained pool's output would stand in for it, whose shape differs.
  void read_shape(const WalkValue& v) {
    if (search_ == Search::kChains) consume(v);
  }

  // (Looking for chains) The top `n` values, the outputs of as many convolutions that nothing
  // else refers to, made a list: pushes it and returns true. Otherwise leaves them.
  bool conv_list(std::size_t n, std::size_t pc) {
    if (search_ != Search::kChains || n < 2 || n > stack_.size()) return false;
    WalkValue list{WalkValue::Kind::kConvList, {}, pc, {}};
    for (std::size_t i = stack_.size() - n; i < stack_.size(); ++i) {
      const WalkValue& item = stack_[i];
      if (!item.is_conv_output() || convs_[item.producer].escaped || list.holds(item.producer)) {
        return false;
      }
      list.items.push_back(item.producer);
    }
    stack_.resize(stack_.size() - n);
    for (std::size_t conv : list.items) {
      if (!only_reference(conv)) {
        consume(list);
        stack_.emplace_back();
        return true;
      }
    }
    stack_.push_back(std::move(list));
    return true;
  }

  // From `pc`, straight-line code that ends in RAISE_EXCEPTION.
  bool only_raises(std::size_t pc) const {
    const auto& code = code_;
    for (; pc < code.size(); ++pc) {
      switch (code[pc].op) {
        case OpCode::kRaiseException:
          return true;
        case OpCode::kJf:
        case OpCode::kJmp:
        case OpCode::kLoop:
        case OpCode::kRet:
          return false;
        default:
          break;
      }
    }
    return false;
  }

  void operator_call(const ResolvedOperator& op, Role role, std::size_t pc) {
    std::vector<WalkValue>& args = args_;
    args.resize(op.num_specified_args);
    for (std::size_t i = args.size(); i > 0; --i) args[i - 1] = pop();
    switch (role) {
      case Role::kConv:
        for (const auto& a : args) consume(a);
        convs_[pc] = {};
        if (args.size() >= 2 && args[1].kind == WalkValue::Kind::kKnown) {
          convs_[pc].weight = args[1].known;
        }
        stack_.push_back({WalkValue::Kind::kConvOutput, {}, pc, {}});
        return;
      case Role::kMaxPool:
        if (search_ == Search::kChains && !args.empty() && args[0].is_conv_output()) {
          try_chain(op, args, pc);
        }
        for (const auto& a : args) consume(a);
        stack_.emplace_back();
        return;
      case Role::kCat:
        if (args.size() == 2 && args[0].kind == WalkValue::Kind::kConvList &&
            args[1].kind == WalkValue::Kind::kKnown && args[1].known.is(IValue::Kind::kInt)) {
          try_cat(args, pc);
        }
        for (const auto& a : args) consume(a);
        stack_.emplace_back();
        return;
      case Role::kBatchNorm:
        for (std::size_t i = 1; i < args.size(); ++i) consume(args[i]);
        if (search_ == Search::kBatchNormFolds && args.size() == 9 && args[0].is_conv_output()) {
          try_fold(args, pc);
        } else if (!args.empty()) {
          consume(args[0]);
        }
        stack_.emplace_back();
        return;
      case Role::kShape:
        for (const auto& a : args) read_shape(a);
        stack_.emplace_back();
        return;
      case Role::kComparison: {
        for (const auto& a : args) consume(a);
        std::optional<IValue> result = compare_numbers(op, args);
        stack_.push_back(result ? WalkValue::of(std::move(*result)) : WalkValue{});
        return;
      }
      case Role::kPushesOne:
        for (const auto& a : args) consume(a);
        stack_.emplace_back();
        return;
      case Role::kOther:
        for (const auto& a : args) {
          consume(a);
          may_change(a);
        }
        forget_stack();
        return;
      case Role::kIdentity:
        for (std::size_t i = 1; i < args.size(); ++i) consume(args[i]);
        stack_.push_back(args.empty() ? WalkValue{} : std::move(args[0]));
        return;
    }
  }

  // A max_pool2d reading the output of the convolution at args[0].producer, which nothing
  // else reads, with its window known (the arguments the bytecode leaves out are the
  // schema's defaults, which the interpreter pushes): a chain.
  void try_chain(const ResolvedOperator& op, const std::vector<WalkValue>& args, std::size_t pc) {
    const std::size_t producer = args[0].producer;
    ConvSite& site = convs_[producer];
    if (site.escaped || !only_reference(producer)) return;
    site.escaped = true;
    PoolChain chain{producer, pc, {}};
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (args[i].kind != WalkValue::Kind::kKnown) return;
      chain.pool_args.push_back(args[i].known);
    }
    const auto& defaults = op.def->defaults;
    const std::size_t first_default = op.def->num_args - defaults.size();
    for (std::size_t i = args.size(); i < op.def->num_args; ++i) {
      if (i < first_default) return;
      chain.pool_args.push_back(defaults[i - first_default]);
    }
    chains_.pools.push_back(std::move(chain));
  }

  // The list of convolutions' outputs args[0], which nothing else refers to (nor to its
  // items), concatenated along the known dim args[1]: a chain.
  void try_cat(const std::vector<WalkValue>& args, std::size_t pc) {
    const WalkValue& list = args[0];
    for (std::size_t conv : list.items) {
      if (convs_[conv].escaped || !only_reference(conv)) return;
    }
    for (std::size_t conv : list.items) convs_[conv].escaped = true;
    chains_.cats.push_back(CatChain{list.items, pc, args[1].known.to_int()});
  }

  // Nothing but the batch norm's argument may still refer to the convolution's output.
  bool only_reference(std::size_t producer) const {
    auto refers = [producer](const WalkValue& v) { return v.holds(producer); };
    for (const auto& v : stack_) {
      if (refers(v)) return false;
    }
    for (const auto& v : registers_) {
      if (refers(v)) return false;
    }
    return true;
  }

  void try_fold(const std::vector<WalkValue>& args, std::size_t pc) {
    const std::size_t conv_pc = args[0].producer;
    ConvSite& site = convs_[conv_pc];
    if (site.escaped || !only_reference(conv_pc)) return;
    site.escaped = true;  // one fold per convolution
    for (std::size_t i = 1; i <= 7; ++i) {
      if (args[i].kind != WalkValue::Kind::kKnown) return;
    }
    const IValue& weight = args[1].known;
    const IValue& bias = args[2].known;
    const IValue& mean = args[3].known;
    const IValue& var = args[4].known;
    if (!args[5].known.is(IValue::Kind::kBool) || args[5].known.to_bool()) return;  // training
    if (!args[7].known.is(IValue::Kind::kDouble)) return;
    const double eps = args[7].known.to_double();

    if (!site.weight.is(IValue::Kind::kTensor)) return;
    const Tensor& conv_weight = site.weight.to_tensor();
    if (conv_weight.dtype() != DType::kFloat32 || conv_weight.dim() != 4) return;
    const std::int64_t channels = conv_weight.sizes()[0];
    if (channels == 0) return;
    // Every check batch_norm makes passes for a float32 convolution output: nothing is left
    // that could fail at the batch norm's instruction.
    if (!fixed_channel_vector(mean, channels) || !fixed_channel_vector(var, channels)) return;
    for (const IValue* v : {&weight, &bias}) {
      if (!v->is_none() && !fixed_channel_vector(*v, channels)) return;
    }
    BatchNormFold fold{conv_pc, pc, std::vector<float>(static_cast<std::size_t>(channels)),
                       std::vector<float>(static_cast<std::size_t>(channels))};
    // batch_norm's scale and shift, computed as its kernel computes them, then rounded.
    const ops::ChannelAffine affine =
        ops::batch_norm_affine(ops::per_channel(ops::nn::optional_tensor(weight), channels, 1.0),
                               ops::per_channel(ops::nn::optional_tensor(bias), channels, 0.0),
                               ops::per_channel(ops::nn::optional_tensor(mean), channels, 0.0),
                               ops::per_channel(ops::nn::optional_tensor(var), channels, 1.0), eps);
    for (std::size_t c = 0; c < affine.scale.size(); ++c) {
      fold.scale[c] = static_cast<float>(affine.scale[c]);
      fold.shift[c] = static_cast<float>(affine.shift[c]);
    }
    folds_.push_back(std::move(fold));
  }

  const LoadedFunction& fn_;
  const std::vector<Instruction>& code_;
  Search search_;
  std::vector<WalkValue> stack_;  // the top of the stack; below it, values the walk cannot know
  std::vector<WalkValue> registers_;
  std::map<std::size_t, ConvSite> convs_;
  std::vector<Role> roles_;      // per operator index
  std::vector<WalkValue> args_;  // an operator's arguments, reused
  std::vector<BatchNormFold> folds_;
  FusedChains chains_;
};

}  // namespace

std::vector<BatchNormFold> find_batch_norm_folds(const LoadedFunction& fn, const IValue& root) {
  Walker walker(fn, fn.instructions(), root, Search::kBatchNormFolds);
  walker.walk();
  return walker.folds();
}

FusedChains find_chains(const LoadedFunction& fn, const std::vector<Instruction>& fused_code,
                        const IValue& root) {
  Walker walker(fn, fused_code, root, Search::kChains);
  walker.walk();
  return walker.chains();
}

}  // namespace symbolite::mobile
