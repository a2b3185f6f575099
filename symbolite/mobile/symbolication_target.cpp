#include "symbolite/mobile/symbolication_target.h"

#include <fmt/format.h>

#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/mobile/model_id.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {

SymbolicationTarget SymbolicationTarget::open(const std::string& path) {
  if (path.ends_with(".symdbg")) return open_sidecar(path);
  SymbolicationTarget t;
  t.model_ = std::make_shared<const ModelInfo>(ModelInfo::load(path));
  t.symbolicator_.emplace(t.model_->symbolicator());
  t.model_id_ = compute_model_id(t.model_->archive);
  return t;
}

SymbolicationTarget SymbolicationTarget::open_sidecar(const std::string& sidecar,
                                                      const std::string& model) {
  SymbolicationTarget t;
  auto reader = debuginfo::SidecarReader::open(sidecar);
  t.model_id_ = reader->model_id();
  if (!model.empty()) {
    Hash128 actual = compute_model_id(archive::ModelArchive::open(model));
    if (actual != t.model_id_) {
      throw Error(ErrorKind::kModel,
                  fmt::format("sidecar {} belongs to model {}, but {} is model {}: its handles "
                              "would be symbolicated against the wrong source",
                              sidecar, to_hex(t.model_id_), model, to_hex(actual)));
    }
  }
  t.symbolicator_.emplace(std::move(reader));
  return t;
}

const std::map<debuginfo::DebugHandle, DelegateNodeSite>& SymbolicationTarget::delegate_sites()
    const {
  std::call_once(*sites_once_, [this] { *delegate_sites_ = delegate_node_sites(*model_); });
  return *delegate_sites_;
}

debuginfo::Symbolication SymbolicationTarget::symbolicate(
    debuginfo::DebugHandle handle, std::optional<debuginfo::DebugHandle> backend) const {
  if (backend) return symbolicator_->symbolicate_delegated(handle, *backend);
  debuginfo::Symbolication s = symbolicator_->symbolicate(handle);
  if (s.site || !model_) return s;
  // A delegate node's handle is carried by no instruction, only by its delegate program: it
  // symbolicates through the call that runs its lowered module, as a failure inside it does,
  // or else as part of the lowered method.
  const auto& sites = delegate_sites();
  auto it = sites.find(handle);
  if (it == sites.end()) return s;
  const DelegateNodeSite& site = it->second;
  s = site.call ? symbolicator_->symbolicate_delegated(*site.call, handle)
                : symbolicator_->symbolicate_in(handle, site.method);
  s.notes.push_back(fmt::format("a delegate node of {} (backend '{}', method '{}')", site.module,
                                site.backend, site.method));
  return s;
}

}  // namespace symbolite::mobile
