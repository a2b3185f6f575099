#include "symbolite/mobile/delegate_node_sites.h"

#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "symbolite/archive/pickle_record.h"
#include "symbolite/mobile/delegate_program.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

struct Lowered {
  std::vector<std::string> path;  // attribute names from the top
  std::string instance;           // the attribute name: the module instance in call stacks
  const LoweredModuleInfo* info = nullptr;
};

void collect(const ModuleNode& node, const std::vector<std::string>& path,
             std::vector<Lowered>& out) {
  for (const auto& child : node.children) {
    std::vector<std::string> child_path = path;
    child_path.push_back(child.name);
    if (child.lowered) out.push_back({child_path, child.name, &*child.lowered});
    collect(child, child_path, out);
  }
}

// Per method, the delegate-node handles of a lowered module's payload when it is a symbolite
// delegate program that parses (its state: (compile spec, {method: (program, weights)}, flag));
// other payloads are opaque. Parsed here, when a handle needs it, not at every load.
std::map<std::string, std::vector<debuginfo::DebugHandle>> program_handles(
    const pickle::Value& lowered) {
  std::map<std::string, std::vector<debuginfo::DebugHandle>> out;
  if (!lowered.is(pickle::Value::Kind::kObject)) return out;
  const auto& state = lowered.as_object().state;
  if (!state.is(pickle::Value::Kind::kTuple) || state.as_tuple().size() != 3) return out;
  const auto& processed = state.as_tuple()[1];
  if (!processed.is(pickle::Value::Kind::kDict)) return out;
  for (const auto& [key, value] : processed.as_dict()) {
    if (!key.is(pickle::Value::Kind::kString)) continue;
    const pickle::Value* text = &value;
    if (value.is(pickle::Value::Kind::kTuple) && !value.as_tuple().empty())
      text = &value.as_tuple().front();
    if (!text->is(pickle::Value::Kind::kString) ||
        !text->as_string().starts_with(kDelegateProgramMagic))
      continue;
    try {
      auto& handles = out[std::string(key.as_string())];
      for (const auto& step : parse_delegate_program(text->as_string()).steps)
        handles.push_back(step.handle);
    } catch (const Error&) {
      // A payload that does not parse fails at load, where the runtime says why.
      out.erase(std::string(key.as_string()));
    }
  }
  return out;
}

}  // namespace

std::map<debuginfo::DebugHandle, DelegateNodeSite> delegate_node_sites(const ModelInfo& model) {
  std::map<debuginfo::DebugHandle, DelegateNodeSite> sites;
  std::vector<Lowered> lowered;
  collect(model.modules, {}, lowered);
  if (lowered.empty() || !model.bytecode || !model.debug.has_handle_table) return sites;

  // The execute calls: `execute` INTERFACE_CALLs whose call stack enters a lowered module.
  auto symbolicator = model.symbolicator();
  std::map<std::string, std::vector<debuginfo::DebugHandle>> calls;  // instance -> handles
  for (const auto& fn : model.debug.handles.functions()) {
    const BytecodeFunction* code = model.bytecode->find(fn.function);
    if (code == nullptr) continue;
    for (std::size_t i = 0; i < code->instructions.size() && i < fn.handles.size(); ++i) {
      const auto& ins = code->instructions[i];
      if (ins.op != OpCode::kInterfaceCall || fn.handles[i] < 0) continue;
      // INTERFACE_CALL X N calls the method named by constant X: `execute`, not `is_available`.
      if (ins.x < 0 || static_cast<std::size_t>(ins.x) >= code->constants.size()) continue;
      const auto& name = code->constants[static_cast<std::size_t>(ins.x)];
      if (!name.is(pickle::Value::Kind::kString) || name.as_string() != "execute") continue;
      const std::string hierarchy = symbolicator.resolve(fn.handles[i]).module_hierarchy;
      for (const auto& l : lowered) {
        if (hierarchy.find("." + l.instance + "(") != std::string::npos)
          calls[l.instance].push_back(fn.handles[i]);
      }
    }
  }
  // The payloads, from data.pkl again: the module tree keeps only their sizes.
  archive::decode_pickle_record(model.archive, "data.pkl", [&](const pickle::Value& root) {
    for (const auto& l : lowered) {
      const pickle::Value* object = &root;
      for (const auto& name : l.path)
        object = object == nullptr ? nullptr : pickle::object_attribute(*object, name);
      if (object == nullptr) continue;
      const auto& found = calls[l.instance];
      for (const auto& [method, handles] : program_handles(*object)) {
        for (auto h : handles) {
          DelegateNodeSite site{fmt::format("{}", fmt::join(l.path, ".")), l.info->backend, method,
                                std::nullopt};
          if (found.size() == 1) site.call = found.front();
          sites.emplace(h, std::move(site));
        }
      }
    }
    return 0;
  });
  return sites;
}

}  // namespace symbolite::mobile
