// Where each delegate node of a lowered file runs. A delegate node's handle is carried by no
// bytecode instruction — only by its delegate program — so on its own it symbolicates without
// its top method ("<unknown>" in PyTorch). This index finds, for every handle of a symbolite
// delegate program in the file, the lowered module and method it belongs to and the
// instruction that calls that module's `execute`, so that the handle alone symbolicates through
// the delegate exactly as a failure inside it does (Symbolicator::symbolicate_delegated).
// It re-reads data.pkl for the payloads: only `symbolicate` pays for that, not every load.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/mobile/model_info.h"

namespace symbolite::mobile {

struct DelegateNodeSite {
  std::string module;   // path of the lowered module from the top: "__lowered_2"
  std::string backend;  // "xnnpack"
  std::string method;   // the lowered method: "forward"
  // The handle of the INTERFACE_CALL instruction that runs the lowered module, when exactly
  // one instruction's call stack goes through it.
  std::optional<debuginfo::DebugHandle> call;
};

// Empty for a model without lowered modules or without debug records.
std::map<debuginfo::DebugHandle, DelegateNodeSite> delegate_node_sites(const ModelInfo& model);

}  // namespace symbolite::mobile
