#include "symbolite/mobile/operator_fusion.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "symbolite/mobile/batch_norm_folding.h"
#include "symbolite/ops/common/tensor_args.h"
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
      conv.fused_name = conv.name + "+" + bn.name;
      // An activation right after the batch norm runs in the convolution's epilogue too:
      // nothing between them reads the output.
      if (std::optional<ActivationSite> site = activation_after(fold.batch_norm_pc)) {
        epilogue->activation = site->kind;
        conv.activation_def = bn.activation_def = site->def;
        conv.activation_args = bn.activation_args = site->constants;
        conv.fused_name += "+" + operator_name(*site);
        bn.fused_name = bn.name + "+" + operator_name(*site);  // when it runs after all
        skip(*site);
      }
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
      if (!is_operator(first) || rewritten(pc)) continue;
      const ResolvedOperator& producer = fn_.operators[static_cast<std::size_t>(first.x)];
      if (!standard_kernel(producer)) continue;
      ops::EpilogueKernel kernel = ops::epilogue_kernel(producer.name);
      if (kernel == nullptr) continue;
      std::optional<ActivationSite> site = activation_after(pc);
      if (!site) continue;

      auto [it, added] = combined_index.try_emplace({first.x, code_[site->op_pc].x}, 0);
      if (added) {
        ResolvedOperator combined = producer;
        combined.epilogue_kernel = kernel;
        auto epilogue = std::make_shared<ops::Epilogue>();
        epilogue->activation = site->kind;
        combined.epilogue = std::move(epilogue);
        combined.activation_def = site->def;
        combined.activation_args = site->constants;
        combined.fused_name = producer.name + "+" + operator_name(*site);
        it->second = add_operator(std::move(combined));
      }
      rewrite(pc, it->second);
      skip(*site);
      pc = site->last_pc;  // the activation is taken
    }
  }

  // Chains in the fused code (FusedChains): convolutions must have been fused.
  void chain_in_fused_code(const ops::IValue& root) {
    if (fused_.empty()) return;  // nothing was
    FusedChains chains = find_chains(fn_, fused_, root);
    for (const PoolChain& pool : chains.pools) chain_pool(pool);
    for (const CatChain& cat : chains.cats) chain_cat(cat);
  }

  void finish() { fn_.fused_instructions = std::move(fused_); }

 private:
  // A fused convolution and the max_pool2d that alone reads its output (PoolChain) run as
  // one operator at the convolution's instruction (ResolvedOperator::then_pool); the pool
  // returns its input.
  void chain_pool(const PoolChain& chain) {
    const auto conv_index = static_cast<std::size_t>(fused_[chain.conv_pc].x);
    const auto pool_index = static_cast<std::size_t>(fused_[chain.pool_pc].x);
    std::optional<ops::MaxPoolStage> stage = max_pool_stage(chain.pool_args);
    const ResolvedOperator& conv = fn_.operators[conv_index];
    if (!stage || !chainable(conv) || fn_.operators[pool_index].fused()) return;
    auto conv_alone = std::make_shared<ResolvedOperator>(conv);
    auto pool_alone = std::make_shared<ResolvedOperator>(fn_.operators[pool_index]);
    ResolvedOperator chained_conv = *conv_alone;
    chained_conv.then_pool = std::make_shared<ops::MaxPoolStage>(*stage);
    chained_conv.pool_pc = chain.pool_pc;
    chained_conv.fused_name = conv_alone->fused_name + "+" + pool_alone->name;
    chained_conv.alone = std::move(conv_alone);
    ResolvedOperator chained_pool = *pool_alone;
    chained_pool.taken_by_producer = true;
    chained_pool.alone = std::move(pool_alone);
    rewrite(chain.conv_pc, add_operator(std::move(chained_conv)));
    rewrite(chain.pool_pc, add_operator(std::move(chained_pool)));
  }

  // Fused convolutions whose outputs only a cat reads, in a list of their own (CatChain),
  // write them into the parts of the buffer the cat returns (ResolvedOperator::cat_plan).
  void chain_cat(const CatChain& chain) {
    const auto cat_index = static_cast<std::size_t>(fused_[chain.cat_pc].x);
    if (fn_.operators[cat_index].fused()) return;
    for (std::size_t pc : chain.conv_pcs) {
      if (!chainable(fn_.operators[static_cast<std::size_t>(fused_[pc].x)])) return;
    }
    auto plan = std::make_shared<CatInPlacePlan>(chain.cat_pc, chain.conv_pcs.size());
    for (std::size_t item = 0; item < chain.conv_pcs.size(); ++item) {
      ResolvedOperator conv =
          fn_.operators[static_cast<std::size_t>(fused_[chain.conv_pcs[item]].x)];
      conv.cat_plan = plan;
      conv.cat_item = item;
      rewrite(chain.conv_pcs[item], add_operator(std::move(conv)));
    }
    ResolvedOperator cat = fn_.operators[cat_index];
    cat.cat_plan = std::move(plan);
    cat.gathers_cat = true;
    cat.fused_name = cat.name;
    rewrite(chain.cat_pc, add_operator(std::move(cat)));
  }
  // A fused convolution not in a chain yet.
  static bool chainable(const ResolvedOperator& conv) {
    return conv.epilogue != nullptr && !conv.folded_away && conv.then_pool == nullptr &&
           conv.cat_plan == nullptr;
  }

  // An activation of the value on top of the stack that a kernel before it may apply
  // instead: `OP relu_` (hardswish_, hardsigmoid_, silu_, or any of them out of place), or
  // ReLU6's `LOADC 0.0; LOADC 6.0; OP hardtanh_` (or hardtanh), running the standard kernel,
  // with no jump landing inside. Only asked right after the operator whose output it reads,
  // which therefore nothing else holds.
  struct ActivationSite {
    ops::Activation kind;
    std::size_t first_pc;  // its first instruction
    std::size_t op_pc;     // its OP
    std::size_t last_pc;   // its last instruction: the OP, or a functional one's last
    const ops::OperatorDef* def;
    std::vector<ops::IValue> constants;  // the LOADCs' values
    // Where the value went through a register first (stored_activation_at,
    // functional_activation_at): the register, cleared at its STORE.
    std::optional<std::int32_t> register_cleared;
    std::size_t store_pc = 0;
  };
  // The activation of the output the operator at `producer_pc` pushes, in any of the forms.
  std::optional<ActivationSite> activation_after(std::size_t producer_pc) {
    if (auto site = activation_at(producer_pc + 1)) return site;
    if (auto site = stored_activation_at(producer_pc + 1)) return site;
    return functional_activation_at(producer_pc + 1);
  }
  std::optional<ActivationSite> activation_at(std::size_t pc) {
    std::size_t op_pc = pc;
    std::vector<ops::IValue> constants;
    while (op_pc < code_.size() && code_[op_pc].op == OpCode::kLoadC && constants.size() < 2) {
      constants.push_back(fn_.constants[static_cast<std::size_t>(code_[op_pc].x)]);
      ++op_pc;
    }
    if (op_pc >= code_.size() || !is_operator(code_[op_pc])) return std::nullopt;
    for (std::size_t at = pc; at <= op_pc; ++at) {
      if (rewritten(at)) return std::nullopt;
    }
    const ResolvedOperator& op = fn_.operators[static_cast<std::size_t>(code_[op_pc].x)];
    if (!standard_kernel(op) || op.num_specified_args != constants.size() + 1) return std::nullopt;
    std::optional<ops::Activation> kind = ops::fusable_activation(op.name, constants);
    if (!kind) return std::nullopt;
    if (targets_.empty()) targets_ = jump_targets(code_);
    for (std::size_t at = pc; at <= op_pc; ++at) {
      if (targets_[at]) return std::nullopt;
    }
    return ActivationSite{*kind, pc, op_pc, op_pc, op.def, std::move(constants), std::nullopt, 0};
  }
  // `x = self.conv(x); x = self.act(x)` as TorchScript compiles it: the value stored, the
  // submodule fetched and dropped, the value moved back and activated:
  //   STORE r; (LOAD a or MOVE a; GET_ATTR ...; DROP) ...; MOVE r; OP relu
  // What lies between leaves the stack as it was and does not touch r, so the activation
  // still reads the operator's output alone. Fused, the STORE clears r (the MOVE would
  // have), the instructions between run as they are, and the MOVE and activation are skipped.
  std::optional<ActivationSite> stored_activation_at(std::size_t pc) {
    if (pc >= code_.size() || code_[pc].op != OpCode::kStore) return std::nullopt;
    const std::int32_t r = code_[pc].x;
    std::size_t at = pc + 1;
    while (at < code_.size() && (code_[at].op == OpCode::kLoad || code_[at].op == OpCode::kMove) &&
           code_[at].x != r) {
      std::size_t next = at + 1;
      while (next < code_.size() && code_[next].op == OpCode::kGetAttr) ++next;
      if (next >= code_.size() || code_[next].op != OpCode::kDrop) return std::nullopt;
      at = next + 1;
    }
    if (at >= code_.size() || code_[at].op != OpCode::kMove || code_[at].x != r) {
      return std::nullopt;
    }
    std::optional<ActivationSite> site = activation_at(at + 1);
    if (!site) return std::nullopt;
    for (std::size_t i = pc; i <= at; ++i) {
      if (targets_[i] || rewritten(i)) return std::nullopt;  // activation_at computed targets_
    }
    site->first_pc = at;
    site->register_cleared = r;
    site->store_pc = pc;
    return site;
  }
  // F.relu(x) (F.silu, F.hardswish, F.hardsigmoid, F.relu6 too) as TorchScript inlines it,
  // a branch on its `inplace` argument, a constant:
  //   STORE r; LOADC inplace; JF else; LOAD r; OP relu_; JMP join;
  //   else: LOAD r (or MOVE r); OP relu; join: STORE s; DROPR r
  // The branch the constant takes reads r, and nothing else does (a MOVE, or the DROPR right
  // after the join), so the operator's output is as unseen as in the simple form. Fused, the
  // first instruction clears r, as the code leaves it, and the rest become `JMP 1`.
  std::optional<ActivationSite> functional_activation_at(std::size_t pc) {
    if (pc + 4 >= code_.size() || code_[pc].op != OpCode::kStore ||
        code_[pc + 1].op != OpCode::kLoadC || code_[pc + 2].op != OpCode::kJf) {
      return std::nullopt;
    }
    const ops::IValue& inplace = fn_.constants[static_cast<std::size_t>(code_[pc + 1].x)];
    if (!inplace.is(ops::IValue::Kind::kBool)) return std::nullopt;
    const std::int32_t r = code_[pc].x;
    // The verifier keeps every jump inside the code.
    const auto target = [this](std::size_t at) {
      return static_cast<std::size_t>(static_cast<std::int64_t>(at) + code_[at].x);
    };
    const std::size_t otherwise = target(pc + 2);
    if (otherwise <= pc + 4 || otherwise + 2 >= code_.size() ||
        code_[otherwise - 1].op != OpCode::kJmp) {
      return std::nullopt;
    }
    const std::size_t join = target(otherwise - 1);
    const std::size_t taken = inplace.to_bool() ? pc + 3 : otherwise;  // LOAD r or MOVE r
    if (join <= otherwise || join + 1 >= code_.size() || code_[taken].x != r ||
        (code_[taken].op != OpCode::kLoad && code_[taken].op != OpCode::kMove)) {
      return std::nullopt;
    }
    std::optional<ActivationSite> site = activation_at(taken + 1);
    // The taken branch ends at its activation: the JMP to the join, or the join.
    if (!site || site->op_pc + 1 != (inplace.to_bool() ? otherwise - 1 : join)) {
      return std::nullopt;
    }
    if (code_[taken].op == OpCode::kLoad &&
        (code_[join].op != OpCode::kStore || code_[join + 1].op != OpCode::kDropR ||
         code_[join + 1].x != r)) {
      return std::nullopt;
    }
    // Nothing outside jumps in, and nothing inside was rewritten.
    for (std::size_t at = 0; at < code_.size(); ++at) {
      const bool inside = at >= pc && at < join;
      if (inside && rewritten(at)) return std::nullopt;
      const OpCode op = code_[at].op;
      if (!inside && (op == OpCode::kJf || op == OpCode::kJmp || op == OpCode::kLoop) &&
          target(at) >= pc && target(at) < join) {
        return std::nullopt;
      }
    }
    site->first_pc = pc;
    site->last_pc = join - 1;
    site->register_cleared = r;
    site->store_pc = pc;
    return site;
  }
  // max_pool2d's arguments after its input (kernel_size, stride, padding, dilation,
  // ceil_mode), read at load as its kernel reads them; nullopt for anything else, which the
  // pool then gets to refuse at its own instruction.
  static std::optional<ops::MaxPoolStage> max_pool_stage(const std::vector<ops::IValue>& args) {
    using Kind = ops::IValue::Kind;
    if (args.size() != 5 || !args[4].is(Kind::kBool)) return std::nullopt;
    // int[2]: one int or two; stride may be empty (the kernel size).
    const auto kernel = ops::int_list_if(args[0]), stride = ops::int_list_if(args[1]),
               padding = ops::int_list_if(args[2]), dilation = ops::int_list_if(args[3]);
    auto one_or_two = [](const auto& v) { return v && !v->empty() && v->size() <= 2; };
    if (!one_or_two(kernel) || !stride || stride->size() > 2 || !one_or_two(padding) ||
        !one_or_two(dilation)) {
      return std::nullopt;
    }
    ops::MaxPoolStage stage;
    stage.kh = kernel->front();
    stage.kw = kernel->back();
    stage.sh = stride->empty() ? stage.kh : stride->front();
    stage.sw = stride->empty() ? stage.kw : stride->back();
    stage.ph = padding->front();
    stage.pw = padding->back();
    stage.dh = dilation->front();
    stage.dw = dilation->back();
    stage.ceil_mode = args[4].to_bool();
    return stage;
  }
  const std::string& operator_name(const ActivationSite& site) const {
    return fn_.operators[static_cast<std::size_t>(code_[site.op_pc].x)].name;
  }
  // The activation's instructions become `JMP 1`: a kernel before it applied it, and its
  // result (the same tensor) is on the stack. The STORE of a value that went through a
  // register clears the register instead.
  void skip(const ActivationSite& site) {
    if (fused_.empty()) fused_ = code_;
    for (std::size_t at = site.first_pc; at <= site.last_pc; ++at) {
      fused_[at] = Instruction{OpCode::kJmp, 1, 0};
    }
    if (site.register_cleared) {
      fused_[site.store_pc] = Instruction{OpCode::kDropR, *site.register_cleared, 0};
    }
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
  if (root != nullptr) fuser.chain_in_fused_code(*root);
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
