// The pickler: writes `Value`s as protocol-2 pickles that PyTorch 1.13's unpickler reads —
// the inverse of unpickler.h for the values debug records and bytecode hold.
//
// Shared subtrees stay shared: a tuple, list, dict or object reached twice (same identity())
// is written once, memoized with BINPUT, and referenced with BINGET, as PyTorch writes its
// call-stack maps; equal strings are written once too. Typed lists (ListTag) are written
// through torch.jit._pickle.build_intlist and friends, as TorchScript requires. Objects are
// written as GLOBAL + NEWOBJ + BUILD. Tensors are written as PyTorch writes them:
// torch._utils._rebuild_tensor_v2 of a storage persistent id ('storage',
// torch.<dtype>Storage, key, device, numel), each storage key once (memoized). The storage
// bytes themselves are records of the archive (constants/<key>, data/<key>): the caller's
// business.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbolite/pickle/value.h"

namespace symbolite::pickle {

// TorchScript types of dicts, by identity(): such a dict is written as PyTorch writes a typed
// one, `torch.jit._pickle.restore_type_tag(dict, "Dict[str, Any]")` (the unpickler keeps no
// tags, so a caller names the ones whose type matters, e.g. a to_backend compile spec).
using TypeTags = std::unordered_map<const void*, std::string>;

std::vector<std::uint8_t> pickle(const Value& value, const TypeTags& tags = {});

}  // namespace symbolite::pickle
