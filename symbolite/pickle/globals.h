// The allow-list of pickle globals (see unpickler.h) and what calling each one means.
//
// A GLOBAL only ever becomes one of these kinds; nothing else is callable, so unpickling
// can build data but never run anything.
#pragma once

#include <optional>
#include <string_view>

#include "symbolite/pickle/unpickler.h"
#include "symbolite/pickle/value.h"

namespace symbolite::pickle {

enum class GlobalKind {
  kClass,           // a TorchScript class accepted by the type resolver
  kStorageType,     // torch.FloatStorage, torch.LongStorage, ...
  kOrderedDict,     // collections.OrderedDict
  kBuildList,       // torch.jit._pickle.build_{int,double,bool,tensor}list
  kRestoreTypeTag,  // torch.jit._pickle.restore_type_tag
  kRebuildTensor,   // torch._utils._rebuild_tensor_v2
  kDevice,          // torch.device("cpu")
};

// What `qualified_name` ("module.name") is, or nullopt when it is not allowed. An empty
// `is_class` accepts as classes names starting with "__torch__." and the two classes
// PyTorch's to_backend generates (is_lowered_class).
std::optional<GlobalKind> classify_global(std::string_view qualified_name,
                                          const TypeResolver& is_class);

// True for "torch.jit.LoweredModule.<backend>.__torch__.<original>" and
// "torch.jit.LoweredWrapper.<backend>.__torch__.<original>" (backend: [A-Za-z0-9_]+), the
// module types to_backend generates; nothing else under "torch.jit." is a class.
bool is_lowered_class(std::string_view qualified_name);

// The dtype of a storage class: "torch.FloatStorage" -> "Float"; nullopt for other names.
std::optional<std::string_view> storage_dtype(std::string_view qualified_name);

// The result of REDUCE on a function global (kBuildList, kRestoreTypeTag, kRebuildTensor,
// kDevice)
// with the argument tuple `args`. Error(kModel) when the arguments have the wrong shape.
Value call_global(GlobalKind kind, std::string_view qualified_name, const Value& args);

// The storage a persistent id ('storage', torch.XStorage, key, device, numel) refers to.
// Error(kModel) for any other shape.
StorageRef storage_from_persistent_id(const Value& pid);

}  // namespace symbolite::pickle
