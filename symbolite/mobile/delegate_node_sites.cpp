#include "symbolite/mobile/delegate_node_sites.h"

#include <vector>

namespace symbolite::mobile {
namespace {

struct Lowered {
  std::string path;
  std::string instance;  // the attribute name: the module instance in call stacks
  const LoweredModuleInfo* info = nullptr;
};

void collect(const ModuleNode& node, const std::string& path, std::vector<Lowered>& out) {
  for (const auto& child : node.children) {
    std::string child_path = path.empty() ? child.name : path + "." + child.name;
    if (child.lowered) out.push_back({child_path, child.name, &*child.lowered});
    collect(child, child_path, out);
  }
}

}  // namespace

std::map<debuginfo::DebugHandle, DelegateNodeSite> delegate_node_sites(const ModelInfo& model) {
  std::map<debuginfo::DebugHandle, DelegateNodeSite> sites;
  std::vector<Lowered> lowered;
  collect(model.modules, "", lowered);
  if (lowered.empty() || !model.bytecode || !model.debug.has_handle_table) return sites;

  // The execute calls: `execute` INTERFACE_CALLs whose call stack enters a lowered module.
  auto symbolicator = model.symbolicator();
  std::map<std::string, std::vector<debuginfo::DebugHandle>> calls;  // instance -> handles
  for (const auto& fn : model.debug.handles.functions()) {
    const BytecodeFunction* code = model.bytecode->find(fn.function);
    if (code == nullptr) continue;
    for (std::size_t i = 0; i < code->instructions.size() && i < fn.handles.size(); ++i) {
      const auto& ins = code->instructions[i];
      if (ins.opcode != "INTERFACE_CALL" || fn.handles[i] < 0) continue;
      // INTERFACE_CALL X N calls the method named by constant X: `execute`, not `is_available`.
      if (ins.x < 0 || static_cast<std::size_t>(ins.x) >= code->constants.size()) continue;
      const auto& name = code->constants[static_cast<std::size_t>(ins.x)];
      if (!name.is(pickle::Value::Kind::kString) || name.as_string() != "execute") continue;
      const std::string hierarchy = symbolicator.resolve(fn.handles[i]).module_hierarchy;
      for (const auto& l : lowered) {
        if (hierarchy.find("." + l.instance + "(") != std::string::npos) calls[l.instance].push_back(fn.handles[i]);
      }
    }
  }
  for (const auto& l : lowered) {
    const auto& found = calls[l.instance];
    for (const auto& [method, handles] : l.info->program_handles) {
      for (auto h : handles) {
        DelegateNodeSite site{l.path, l.info->backend, method, std::nullopt};
        if (found.size() == 1) site.call = found.front();
        sites.emplace(h, std::move(site));
      }
    }
  }
  return sites;
}

}  // namespace symbolite::mobile
