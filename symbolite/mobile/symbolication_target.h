// What debug handles are symbolicated against: a model with its debug info, or a split
// model's sidecar (checked against the model when both are given). Opened once, it answers
// any number of handles — the CLI's `symbolicate`, the Python module's DebugInfo and the
// fleet symbolication share it, so all give the same answer for the same handle. Safe to use
// from several threads at once.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/mobile/delegate_node_sites.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/support/content_hash.h"

namespace symbolite::mobile {

class SymbolicationTarget {
 public:
  // `path` is a model (.ptl) or, ending in ".symdbg", a sidecar. Throws Error naming the file.
  static SymbolicationTarget open(const std::string& path);
  // A sidecar; when `model` is not empty, it must be the model the sidecar was split from.
  static SymbolicationTarget open_sidecar(const std::string& sidecar,
                                          const std::string& model = {});

  // Known for a sidecar (stored in it) and for a model (computed from its records).
  const Hash128& model_id() const { return model_id_; }

  // `handle` alone, or with `backend` the handle "I:B" of a failure inside a to_backend
  // delegate (I the instruction's handle, B the delegate node's). A model's delegate node
  // handle given alone is symbolicated through the call that runs its lowered module.
  debuginfo::Symbolication symbolicate(
      debuginfo::DebugHandle handle,
      std::optional<debuginfo::DebugHandle> backend = std::nullopt) const;

 private:
  SymbolicationTarget() = default;

  std::shared_ptr<const ModelInfo> model_;  // null for a sidecar
  std::optional<debuginfo::Symbolicator> symbolicator_;
  Hash128 model_id_{};
  // Built on the first handle no instruction carries (it re-reads data.pkl); once, from any
  // thread.
  const std::map<debuginfo::DebugHandle, DelegateNodeSite>& delegate_sites() const;
  std::shared_ptr<std::once_flag> sites_once_ = std::make_shared<std::once_flag>();
  std::shared_ptr<std::map<debuginfo::DebugHandle, DelegateNodeSite>> delegate_sites_ =
      std::make_shared<std::map<debuginfo::DebugHandle, DelegateNodeSite>>();
};

}  // namespace symbolite::mobile
