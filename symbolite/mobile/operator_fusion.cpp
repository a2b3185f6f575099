#include "symbolite/mobile/operator_fusion.h"

#include <map>
#include <optional>
#include <utility>

#include "symbolite/mobile/batch_norm_folding.h"
#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::mobile {
namespace {

bool is_operator(const Instruction& ins) { return ins.op == OpCode::kOp; }

// Instructions some jump lands on: skipping one of them would skip it for that path too.
std::vector<bool> jump_targets(const std::vector<Instruction>& code) {
  std::vector<bool> targets(code.size(), false);
  for (std::size_t pc = 0; pc < code.size(); ++pc) {
    const auto& ins = code[pc];
    if (ins.op == OpCode::kJf || ins.op == OpCode::kJmp || ins.op == OpCode::kLoop) {
      targets[static_cast<std::size_t>(static_cast<std::int64_t>(pc) + ins.x)] = true;
    }
  }
  return targets;
}

// The operator runs the kernel the standard registry has for its name (not an upgrader's, nor
// one a registry of one's own gives it), which fused kernels stand in for.
bool standard_kernel(const ResolvedOperator& op) {
  return op.upgrader.empty() && op.def != nullptr &&
         ops::default_registry().find(op.name) == op.def;
}

class Fuser {
 public:
  explicit Fuser(LoadedFunction& fn) : fn_(fn), code_(fn.instructions()) {}

  void fold_batch_norms(const ops::IValue& root) {
    for (BatchNormFold& fold : find_batch_norm_folds(fn_, root)) {
      ResolvedOperator conv = fn_.operators[static_cast<std::size_t>(code_[fold.conv_pc].x)];
      ResolvedOperator bn = fn_.operators[static_cast<std::size_t>(code_[fold.batch_norm_pc].x)];
      auto epilogue = std::make_shared<ops::Epilogue>();
      epilogue->scale = std::move(fold.scale);
      epilogue->shift = std::move(fold.shift);
      // An activation right after the batch norm runs in the convolution's epilogue too:
      // nothing between them reads the output.
      const std::size_t after = fold.batch_norm_pc + 1;
      if (std::optional<ops::Activation> kind = activation_at(after)) {
        epilogue->activation = *kind;
        conv.activation_def = bn.activation_def =
            fn_.operators[static_cast<std::size_t>(code_[after].x)].def;
        skip(after);
      }
      conv.fused = bn.fused = true;
      conv.epilogue_kernel = ops::epilogue_kernel(conv.name);
      conv.epilogue = std::move(epilogue);
      conv.batch_norm_pc = fold.batch_norm_pc;
      bn.folded_away = true;
      rewrite(fold.conv_pc, add_operator(std::move(conv)));
      rewrite(fold.batch_norm_pc, add_operator(std::move(bn)));
      fn_.fused_assumes_root = true;
    }
  }

  void fuse_activations() {
    // (producer, activation) operator indices -> the combined operator's index.
    std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> combined_index;
    for (std::size_t pc = 0; pc + 1 < code_.size(); ++pc) {
      const Instruction& first = code_[pc];
      const Instruction& second = code_[pc + 1];
      if (!is_operator(first) || !is_operator(second) || rewritten(pc) || rewritten(pc + 1)) {
        continue;
      }
      const ResolvedOperator& producer = fn_.operators[static_cast<std::size_t>(first.x)];
      if (!standard_kernel(producer)) continue;
      ops::EpilogueKernel kernel = ops::epilogue_kernel(producer.name);
      if (kernel == nullptr) continue;
      std::optional<ops::Activation> kind = activation_at(pc + 1);
      if (!kind) continue;
      const ResolvedOperator& activation = fn_.operators[static_cast<std::size_t>(second.x)];

      auto [it, added] = combined_index.try_emplace({first.x, second.x}, 0);
      if (added) {
        ResolvedOperator combined = producer;
        combined.fused = true;
        combined.epilogue_kernel = kernel;
        auto epilogue = std::make_shared<ops::Epilogue>();
        epilogue->activation = *kind;
        combined.epilogue = std::move(epilogue);
        combined.activation_def = activation.def;
        it->second = add_operator(std::move(combined));
      }
      rewrite(pc, it->second);
      skip(pc + 1);
      ++pc;  // the activation is taken
    }
  }

  void finish() { fn_.fused_instructions = std::move(fused_); }

 private:
  // The activation the OP at `pc` applies in place to the value on top of the stack, if a
  // kernel before it may apply it instead: no jump lands on it, and it runs the standard
  // kernel of relu_, hardswish_, hardsigmoid_ or silu_.
  std::optional<ops::Activation> activation_at(std::size_t pc) {
    if (pc >= code_.size() || !is_operator(code_[pc]) || rewritten(pc)) return std::nullopt;
    const ResolvedOperator& op = fn_.operators[static_cast<std::size_t>(code_[pc].x)];
    if (!standard_kernel(op) || op.num_specified_args != 1) return std::nullopt;
    if (targets_.empty()) targets_ = jump_targets(code_);
    if (targets_[pc]) return std::nullopt;
    return ops::fusable_activation(op.name);
  }
  // The OP at `pc` becomes `JMP 1`: a kernel before it applied its activation, and its
  // result (the same tensor) is on the stack.
  void skip(std::size_t pc) {
    if (fused_.empty()) fused_ = code_;
    fused_[pc] = Instruction{OpCode::kJmp, 1, 0};
  }
  std::int32_t add_operator(ResolvedOperator op) {
    fn_.operators.push_back(std::move(op));
    return static_cast<std::int32_t>(fn_.operators.size() - 1);
  }
  // OP at `pc` calls operator `index` instead.
  void rewrite(std::size_t pc, std::int32_t index) {
    if (fused_.empty()) fused_ = code_;
    fused_[pc].x = index;
  }
  bool rewritten(std::size_t pc) const {
    return !fused_.empty() && (fused_[pc].op != code_[pc].op || fused_[pc].x != code_[pc].x);
  }

  LoadedFunction& fn_;
  const std::vector<Instruction>& code_;
  std::vector<Instruction> fused_;
  std::vector<bool> targets_;  // jump_targets(code_), computed on the first need
};

}  // namespace

void fuse_operators(LoadedFunction& fn, const ops::IValue* root) {
  Fuser fuser(fn);
  if (root != nullptr) fuser.fold_batch_norms(*root);
  fuser.fuse_activations();
  fuser.finish();
}

void fuse_model_operators(LoadedModel& model) {
  bool sets_attributes = false;
  for (const auto& [name, fn] : model.functions) {
    for (const auto& ins : fn.instructions()) sets_attributes |= ins.op == OpCode::kSetAttr;
  }
  const std::string method_prefix = model.top_type + ".";
  for (auto& [name, fn] : model.functions) {
    const bool method = !model.top_type.empty() && name.starts_with(method_prefix) &&
                        name.find('.', method_prefix.size()) == std::string::npos;
    fuse_operators(fn, method && !sets_attributes ? &model.root : nullptr);
  }
}

}  // namespace symbolite::mobile
