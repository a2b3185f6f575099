// `LoadedModel`: a lite-interpreter model ready to run — the module object tree with its
// parameters (views into the mapped archive), every bytecode function with its operators
// resolved to kernels, and the model's debug information for symbolicating failures.
//
// Loading checks everything up front but operators: one symbolite does not implement is listed
// in `missing_operators` and gets a kernel that fails the run if the run reaches it
// (ops/registry/missing_operator.h) — scripted library code names operators on branches a run
// never takes. `require_operators()` refuses such a model with the whole list instead.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbolite/archive/model_archive.h"
#include "symbolite/debuginfo/debug_info_source.h"
#include "symbolite/mobile/bytecode.h"
#include "symbolite/mobile/cat_in_place_plan.h"
#include "symbolite/mobile/lazy_handle_table.h"
#include "symbolite/ops/common/activation.h"
#include "symbolite/ops/registry/epilogue_kernels.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/support/content_hash.h"

namespace symbolite::mobile {

struct ModelInfo;

struct ResolvedOperator {
  std::string name;  // "aten::add.Tensor"
  const ops::OperatorDef* def = nullptr;
  std::size_t num_specified_args = 0;  // how many the bytecode pushes
  // PyTorch's upgrader ("div_Tensor_0_3") whose kernel `def` is, when the file's operator
  // version predates the operator's current meaning; else empty.
  std::string_view upgrader;

  // The rest is set on the operators fusion adds (operator_fusion.h), which the interpreter
  // runs with run_fused_operator (runtime/instruction_handlers.h).
  bool fused() const {
    return epilogue != nullptr || folded_away || taken_by_producer || cat_plan != nullptr;
  }
  // The kernel that runs this operator and then `epilogue` on its output
  // (ops/registry/epilogue_kernels.h), and the activation's own operator, run after it when
  // that kernel could not.
  ops::EpilogueKernel epilogue_kernel = nullptr;
  std::shared_ptr<const ops::Epilogue> epilogue;
  const ops::OperatorDef* activation_def = nullptr;
  std::vector<ops::IValue> activation_args;  // its arguments after the tensor (ReLU6's 0, 6)
  // A convolution with its batch norm folded in (batch_norm_folding.h): the batch norm's
  // instruction. On a 3-d (unbatched) input, whose batch norm normalizes rows rather than the
  // convolution's channels, the convolution runs as written and the batch norm's instruction
  // runs the batch norm after all.
  std::size_t batch_norm_pc = 0;
  // A folded batch norm: returns its input, unless its convolution ran as written; then it
  // runs `def` and, with `activation_def` (the activation moved into the convolution), that.
  bool folded_away = false;
  // A fused convolution whose output only a max_pool2d reads (batch_norm_folding.h,
  // PoolChain): the two run together, band by band (ops/registry/epilogue_kernels.h,
  // MaxPoolStage), the pool, at `pool_pc`, then returning its input. Where the kernel does
  // not take the pair (a small image), `alone` runs here and the pool at its own instruction.
  std::shared_ptr<const ops::MaxPoolStage> then_pool;
  std::size_t pool_pc = 0;
  // That max_pool2d: returns its input, already its output, unless its producer ran alone;
  // then `alone` runs.
  bool taken_by_producer = false;
  // Each of the two as it was before they were chained.
  std::shared_ptr<const ResolvedOperator> alone;
  // A fused convolution whose output is item `cat_item` of a chained cat's list
  // (batch_norm_folding.h, CatChain), or that cat (`gathers_cat`): the convolution writes its
  // output into its part of a buffer that the cat returns whole (runtime/cat_in_place.h).
  std::shared_ptr<CatInPlacePlan> cat_plan;
  std::size_t cat_item = 0;
  bool gathers_cat = false;
  // What a profile of the code as it runs calls a fused operator: the operators it stands for,
  // joined by '+' ("aten::conv2d+aten::batch_norm+aten::hardswish_").
  std::string fused_name;
};

// A bytecode function ready to run: the function as the file has it (`code`: instructions with
// decoded opcodes, operator names, types, schema — shared with the ModelInfo it was read from,
// never copied) and what loading adds to it, index for index.
struct LoadedFunction {
  std::shared_ptr<const BytecodeFunction> code;
  std::vector<ResolvedOperator> operators;     // code->operators resolved to kernels
  std::vector<ops::IValue> constants;          // code->constants as runtime values
  std::vector<ops::IValue> argument_defaults;  // code->arguments' defaults, including self's
  std::size_t register_size = 0;               // registers the code uses, ≤ code->register_size
  // The model's debug handles (mobile_debug_handles.pkl), decoded on first use, and this
  // function's number in it; null when the file has none.
  std::shared_ptr<const LazyHandleTable> handle_table;
  std::size_t handle_table_index = 0;
  // The code with fused operators (operator_fusion.h), index for index; empty if none fuse.
  std::vector<Instruction> fused_instructions;
  // Whether that code folds values read from the root module (batch_norm_folding.h): it
  // then runs only with the root module as `self`.
  bool fused_assumes_root = false;

  const std::string& qualified_name() const {
    return code->qualified_name;
  }  // "__torch__.Top.forward"
  const std::vector<Instruction>& instructions() const { return code->instructions; }
  // One debug handle per instruction, or null when the file has none for this function. The
  // first call decodes the model's handle table; a damaged one throws its Error, each time.
  const std::vector<debuginfo::DebugHandle>* debug_handles() const {
    return handle_table ? handle_table->handles_of(handle_table_index) : nullptr;
  }
  // The handle of instruction `pc`, if the file has one (-1 included, as the file has it).
  std::optional<debuginfo::DebugHandle> debug_handle(std::size_t pc) const {
    const auto* handles = debug_handles();
    if (handles == nullptr || pc >= handles->size()) return std::nullopt;
    return (*handles)[pc];
  }
  // "forward" of "__torch__.Top.forward".
  std::string short_name() const;
};

// An operator the registry lacks, and the first instruction of a function that calls it.
struct MissingOperatorUse {
  std::string name;      // "aten::lgamma"
  std::string function;  // "__torch__.Top.forward"
  std::size_t instruction = 0;
};

struct LoadedModel {
  std::string path;
  ops::IValue root;      // the top module object
  std::string top_type;  // "__torch__.Top"
  std::int64_t bytecode_version = 0;
  std::optional<std::uint64_t> operator_version;  // the archive's `version` record
  // The model's id (mobile/model_id.h), computed on first use: it hashes every tensor, which
  // running never needs, so loading does not pay for it. Thread-safe.
  const Hash128& model_id() const;
  std::unordered_map<std::string, LoadedFunction> functions;  // by qualified name
  // Objects of data.pkl to finish by calling their class's `__setstate__` (lowered modules),
  // in order; the runtime makes the calls before the first run (runtime/model_setup.h).
  struct PendingSetState {
    ops::IValue object;
    ops::IValue state;
  };
  std::vector<PendingSetState> pending_setstate;
  std::shared_ptr<std::once_flag> setstate_once = std::make_shared<std::once_flag>();
  // The model's own debug info when it has a call-stack map; else null (stripped model).
  std::shared_ptr<const debuginfo::DebugInfoSource> debug;

  // Every use of an operator symbolite lacks, operators in order of first use; empty when
  // every operator is implemented.
  std::vector<MissingOperatorUse> missing_operators;
  // Throws Error(kUnsupported) listing every missing operator with where it is used and its
  // module hierarchy ("2 operators are not implemented by symbolite (3 uses):"), if any.
  void require_operators() const;

  // Runs every function as the file has it from now on: no folded batch norms or fused
  // activations (mobile/operator_fusion.h). The results are the same bits; `run
  // --no-fusion` and `bench --no-fusion` use it to compare.
  void drop_fusion();

  // The method `name` of the top module ("forward"), or null.
  const LoadedFunction* method(std::string_view name) const;
  // Names of the top module's methods, sorted.
  std::vector<std::string> method_names() const;

  // Loads and verifies `path`. Throws Error naming the file, entry and byte offset for bad
  // files; missing operators do not fail the load (`missing_operators`).
  static LoadedModel load(const std::string& path,
                          const ops::OperatorRegistry& registry = ops::default_registry());
  // The same for archive bytes in memory; `display_name` prefixes errors.
  static LoadedModel load_bytes(Bytes bytes, const std::string& display_name,
                                const ops::OperatorRegistry& registry = ops::default_registry());
  // The same for a model already opened (`symbolite check` reads it once for both uses);
  // the LoadedModel shares `info`.
  static LoadedModel from_info(std::shared_ptr<const ModelInfo> info, const std::string& path,
                               const ops::OperatorRegistry& registry = ops::default_registry());

 private:
  struct LazyModelId;
  std::shared_ptr<LazyModelId> model_id_;
  // The kernels of missing operators (ResolvedOperator::def points here), one per use.
  std::vector<std::shared_ptr<const ops::OperatorDef>> missing_defs_;

  static LoadedModel from_archive(archive::ModelArchive archive, const std::string& path,
                                  const ops::OperatorRegistry& registry);
};

}  // namespace symbolite::mobile
