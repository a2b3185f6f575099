#include "symbolite/debuginfo/module_hierarchy.h"

#include "symbolite/support/printable_text.h"

namespace symbolite::debuginfo {
namespace {

std::string_view short_name(std::string_view qualified) {
  auto dot = qualified.rfind('.');
  return dot == std::string_view::npos ? qualified : qualified.substr(dot + 1);
}

}  // namespace

void append_instance_label(std::string& out, const std::optional<ModuleInstance>& instance) {
  if (!instance) {
    out += "UNKNOWN_INSTANCE(UNKNOWN_TYPE)";
    return;
  }
  out += single_line(instance->instance_name);
  out += '(';
  out += single_line(short_name(instance->type_name));
  out += ')';
}

std::string module_hierarchy(std::string_view top_type, std::string_view method,
                             const InlinedCallStack* call_stack, std::string_view node_kind) {
  std::string out = "top(";
  out += single_line(short_name(top_type));
  out += ")::";
  out += single_line(method);
  for (const InlinedCallStack* call = call_stack; call != nullptr; call = call->callee().get()) {
    out += '.';
    append_instance_label(out, call->module_instance());
    out += "::";
    out += single_line(call->function_name());
  }
  out += '.';
  out += single_line(node_kind);
  return out;
}

}  // namespace symbolite::debuginfo
