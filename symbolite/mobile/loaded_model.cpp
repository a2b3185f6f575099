#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "symbolite/archive/pickle_record.h"
#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/debuginfo/table_debug_info_source.h"
#include "symbolite/mobile/bytecode_verifier.h"
#include "symbolite/mobile/lazy_debug_source.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/mobile/operator_fusion.h"
#include "symbolite/mobile/operator_upgraders.h"
#include "symbolite/mobile/value_conversion.h"
#include "symbolite/ops/registry/missing_operator.h"
#include "symbolite/support/error.h"
#include "symbolite/support/printable_text.h"

namespace symbolite::mobile {
namespace {

std::size_t first_use(const BytecodeFunction& fn, std::size_t op_index) {
  for (std::size_t i = 0; i < fn.instructions.size(); ++i) {
    const auto& ins = fn.instructions[i];
    if ((ins.op == OpCode::kOp || ins.op == OpCode::kOpN) &&
        ins.x == static_cast<std::int64_t>(op_index)) {
      return i;
    }
  }
  return 0;
}

// The model's own debug tables as a DebugInfoSource; it keeps the ModelInfo that owns them.
class ModelDebugSource : public debuginfo::TableDebugInfoSource {
 public:
  explicit ModelDebugSource(std::shared_ptr<const ModelInfo> info)
      : TableDebugInfoSource(info->debug.table,
                             info->debug.has_handle_table ? &info->debug.handles : nullptr,
                             info->top_type(), true),
        info_(std::move(info)) {}

 private:
  std::shared_ptr<const ModelInfo> info_;
};

// `op` in a file of `operator_version`, which PyTorch 1.13 runs through `upgrader`: its kernel
// when the registry has what it calls (else op.def stays null: a missing operator). PyTorch's
// upgrader takes its own number of arguments off the stack; a call site that recorded another
// number (a newer argument passed) is refused, as PyTorch fails or crashes on it.
void resolve_upgrader(ResolvedOperator& op, const OperatorUpgrader& upgrader,
                      const OperatorRef& ref, const std::string& function,
                      std::uint64_t operator_version, const ops::OperatorRegistry& registry) {
  op.upgrader = upgrader.def.name;
  for (std::string_view needed : upgrader.calls) {
    if (registry.find(needed) == nullptr) return;
  }
  op.num_specified_args = upgrader.def.num_args;
  if (ref.num_specified_args && *ref.num_specified_args >= 0 &&
      static_cast<std::size_t>(*ref.num_specified_args) != upgrader.def.num_args) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("{}: operator {} is called with {} arguments, but the file's operator "
                            "version {} makes PyTorch 1.13 run it as the upgrader {}, which takes "
                            "{}; PyTorch cannot run this call either",
                            function, op.name, *ref.num_specified_args, operator_version,
                            upgrader.def.name, upgrader.def.num_args));
  }
  op.def = &upgrader.def;
}

}  // namespace

struct LoadedModel::LazyModelId {
  explicit LazyModelId(std::shared_ptr<const ModelInfo> model) : info(std::move(model)) {}
  std::shared_ptr<const ModelInfo> info;
  std::once_flag once;
  Hash128 id{};
};

const Hash128& LoadedModel::model_id() const {
  static const Hash128 kNone{};
  if (!model_id_) return kNone;  // a default-constructed LoadedModel: no archive
  std::call_once(model_id_->once,
                 [this] { model_id_->id = compute_model_id(model_id_->info->archive); });
  return model_id_->id;
}

std::string LoadedFunction::short_name() const {
  const std::string& name = qualified_name();
  auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

const LoadedFunction* LoadedModel::method(std::string_view name) const {
  auto it = functions.find(top_type + "." + std::string(name));
  return it == functions.end() ? nullptr : &it->second;
}

std::vector<std::string> LoadedModel::method_names() const {
  std::vector<std::string> names;
  std::string prefix = top_type + ".";
  for (const auto& [qualified, fn] : functions) {
    if (qualified.starts_with(prefix) && qualified.find('.', prefix.size()) == std::string::npos) {
      names.push_back(qualified.substr(prefix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

LoadedModel LoadedModel::load(const std::string& path, const ops::OperatorRegistry& registry) {
  // Running reads every tensor: fill the page tables in one go rather than fault by fault.
  return from_archive(archive::ModelArchive::open(path, {}, MapPrefetch::kWhole), path, registry);
}

LoadedModel LoadedModel::load_bytes(Bytes bytes, const std::string& display_name,
                                    const ops::OperatorRegistry& registry) {
  return from_archive(archive::ModelArchive::from_bytes(std::move(bytes), display_name),
                      display_name, registry);
}

LoadedModel LoadedModel::from_archive(archive::ModelArchive archive, const std::string& path,
                                      const ops::OperatorRegistry& registry) {
  return from_info(std::make_shared<const ModelInfo>(ModelInfo::from_archive(
                       std::move(archive), ModelInfo::Contents::kForRunning)),
                   path, registry);
}

void LoadedModel::require_operators() const {
  if (missing_operators.empty()) return;
  std::size_t distinct = 0;
  for (std::size_t i = 0; i < missing_operators.size(); ++i) {
    distinct += i == 0 || missing_operators[i].name != missing_operators[i - 1].name;
  }
  Error error(ErrorKind::kUnsupported,
              fmt::format("{}: {} operator{} not implemented by symbolite ({} use{}):", path,
                          distinct, distinct == 1 ? " is" : "s are", missing_operators.size(),
                          missing_operators.size() == 1 ? "" : "s"));
  std::unique_ptr<debuginfo::Symbolicator> symbolicator;
  if (debug) symbolicator = std::make_unique<debuginfo::Symbolicator>(debug);
  std::string debug_error;  // damaged debug records: the list goes without hierarchies
  for (const auto& m : missing_operators) {
    std::string line = fmt::format("  {} (used in {}, instruction {}", single_line(m.name),
                                   single_line(m.function), m.instruction);
    const auto& fn = functions.at(m.function);
    if (symbolicator && debug_error.empty()) {
      try {
        if (auto handle = fn.debug_handle(m.instruction)) {
          auto s = symbolicator->resolve(*handle);
          if (!s.module_hierarchy.empty()) line += ": " + s.module_hierarchy;
        }
      } catch (const Error& e) {
        debug_error = e.text();
      }
    }
    error.add_detail(line + ")");
  }
  if (!debug_error.empty()) error.add_detail("(module hierarchies left out: " + debug_error + ")");
  throw error;
}

void LoadedModel::drop_fusion() {
  for (auto& [name, fn] : functions) fn.fused_instructions.clear();
}

LoadedModel LoadedModel::from_info(std::shared_ptr<const ModelInfo> info, const std::string& path,
                                   const ops::OperatorRegistry& registry) {
  if (!info->bytecode) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("{}: no bytecode.pkl: a full TorchScript archive (.pt), not a "
                            "lite-interpreter model; save it with _save_for_mobile",
                            path));
  }
  LoadedModel model;
  model.path = path;
  model.bytecode_version = info->bytecode->version;
  model.operator_version = info->operator_version;
  if (model.bytecode_version < 5 || model.bytecode_version > 8) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("{}: bytecode version {}; symbolite runs versions 5 to 8", path,
                            model.bytecode_version));
  }
  model.model_id_ = std::make_shared<LazyModelId>(info);

  ValueConverter data(info->archive, "data");
  data.allow_setstate([&](const std::string& type) {
    const std::string name = type + ".__setstate__";
    for (const auto& fn : info->bytecode->functions) {
      if (fn.qualified_name == name) return true;
    }
    return false;
  });
  model.root = archive::decode_pickle_record(
      info->archive, "data.pkl", [&](const pickle::Value& v) { return data.convert(v); });

  for (auto& call : data.take_setstate_calls()) {
    model.pending_setstate.push_back({std::move(call.object), std::move(call.state)});
  }
  // data.pkl is read once: the root object's class is the top module's type.
  model.top_type = info->contents == ModelInfo::Contents::kAll ? info->top_type()
                   : model.root.is(ops::IValue::Kind::kObject) ? model.root.to_object().type_name
                                                               : std::string();
  if (info->debug.has_callstack_map) {
    if (info->contents == ModelInfo::Contents::kAll) {
      model.debug = std::make_shared<ModelDebugSource>(info);
    } else {
      model.debug = std::make_shared<LazyDebugSource>(info->archive, model.top_type);
    }
  }

  // The handle table is a debug record: decoded on the first failure or profile.
  auto handle_table =
      info->debug.has_handle_table ? std::make_shared<const LazyHandleTable>(info) : nullptr;

  ValueConverter constants(info->archive, "constants");
  std::vector<MissingOperatorUse> missing;
  // Errors in a function's code name the file and record they came from.
  with_context(fmt::format("{}: bytecode.pkl", path), [&] {
    for (std::size_t index = 0; index < info->bytecode->functions.size(); ++index) {
      const BytecodeFunction& fn = info->bytecode->functions[index];
      LoadedFunction loaded;
      loaded.code = std::shared_ptr<const BytecodeFunction>(info, &fn);  // keeps `info` alive
      loaded.handle_table = handle_table;
      loaded.handle_table_index = index;
      if (fn.register_size < 0) {
        throw Error(ErrorKind::kModel,
                    fmt::format("{}: negative register_size", fn.qualified_name));
      }
      // Frames are sized by the registers the code uses, never above the declared size (the
      // verifier refuses operands past it).
      loaded.register_size =
          std::min(static_cast<std::size_t>(fn.register_size), registers_used(fn.instructions));
      with_context(fmt::format("{}: constants", fn.qualified_name), [&] {
        for (const auto& c : fn.constants) loaded.constants.push_back(constants.convert(c));
      });
      for (const auto& arg : fn.arguments) {
        loaded.argument_defaults.push_back(constants.convert(arg.default_value));
      }
      for (std::size_t i = 0; i < fn.operators.size(); ++i) {
        const auto& ref = fn.operators[i];
        ResolvedOperator op;
        op.name = ref.full_name();
        const OperatorUpgrader* upgrader =
            model.operator_version ? find_upgrader(op.name, *model.operator_version) : nullptr;
        if (upgrader != nullptr) {
          resolve_upgrader(op, *upgrader, ref, fn.qualified_name, *model.operator_version,
                           registry);
        } else {
          op.def = registry.find(op.name);
        }
        if (op.def == nullptr) {
          MissingOperatorUse m{op.name, fn.qualified_name, first_use(fn, i)};
          if (upgrader != nullptr) m.name += fmt::format(" (upgraded to {})", upgrader->def.name);
          missing.push_back(std::move(m));
          // A kernel that fails the run if it gets here; it takes what the call site pushes.
          auto def = std::make_shared<ops::OperatorDef>();
          def->name = op.name;
          def->num_args = ref.num_specified_args && *ref.num_specified_args >= 0
                              ? static_cast<std::size_t>(*ref.num_specified_args)
                              : 0;
          def->kernel = ops::missing_operator_kernel;
          op.def = def.get();
          op.num_specified_args = def->num_args;
          model.missing_defs_.push_back(std::move(def));
        } else if (upgrader == nullptr) {  // resolve_upgrader checked an upgrader's count
          // -1: a vararg operator (`aten::percentFormat`), called by OPN with its count.
          op.num_specified_args = ref.num_specified_args && *ref.num_specified_args >= 0
                                      ? static_cast<std::size_t>(*ref.num_specified_args)
                                      : op.def->num_args;
          std::size_t required = op.def->num_args - op.def->defaults.size();
          if (op.num_specified_args > op.def->num_args || op.num_specified_args < required) {
            throw Error(ErrorKind::kModel,
                        fmt::format("{}: operator {} is called with {} arguments; its schema "
                                    "takes {} to {}",
                                    fn.qualified_name, op.name, op.num_specified_args, required,
                                    op.def->num_args));
          }
        }
        loaded.operators.push_back(std::move(op));
      }
      verify_function(loaded);
      model.functions.emplace(fn.qualified_name, std::move(loaded));
    }
  });

  // Uses of one operator together, operators in order of first use (a map: a hostile file
  // may name many).
  std::unordered_map<std::string, std::size_t> first_seen;
  for (const auto& m : missing) first_seen.emplace(m.name, first_seen.size());
  std::stable_sort(missing.begin(), missing.end(), [&](const auto& a, const auto& b) {
    return first_seen.at(a.name) < first_seen.at(b.name);
  });
  model.missing_operators = std::move(missing);
  fuse_model_operators(model);
  return model;
}

}  // namespace symbolite::mobile
