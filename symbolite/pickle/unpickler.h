// Safe unpickler for the pickles PyTorch writes (protocol 2, plus the protocol 3/4 opcodes a
// Python-side writer may add). It builds `Value`s only: globals resolve through an
// allow-list, never by constructing arbitrary objects.
//
// Allowed globals:
//   torch.jit._pickle.build_intlist / build_doublelist / build_boollist / build_tensorlist
//                                             REDUCE((list,)) -> that list (items checked)
//   torch.jit._pickle.restore_type_tag        REDUCE((value, type_str)) -> value
//     (both also under the "__torch__." prefix old writers used, as PyTorch accepts)
//   torch._utils._rebuild_tensor_v2           REDUCE(storage, offset, size, stride, ...) -> tensor
//   collections.OrderedDict                   REDUCE(()) -> empty dict
//   torch.<Dtype>Storage (Float, Long, ...)   only inside a persistent id tuple
//   TorchScript classes                       GLOBAL + NEWOBJ / REDUCE(()) -> Object, then BUILD
//                                             sets its state; which names count as classes is
//                                             decided by the type resolver (default: any name
//                                             starting with "__torch__.", plus to_backend's
//                                             torch.jit.Lowered{Module,Wrapper}.<backend>.
//                                             __torch__.* module types).
// Anything else is Error(kUnsupported) naming the global and the byte offset.
//
// Persistent ids ('storage', torch.XStorage, key, device, numel) become StorageRef values.
// Limits bound nesting depth, memo size, stack size and lengths claimed before the bytes
// exist; every failure is an Error whose message starts with "byte N:".
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "symbolite/pickle/packed_triples.h"
#include "symbolite/pickle/value.h"
#include "symbolite/support/bytes.h"

namespace symbolite::pickle {

struct UnpicklerLimits {
  std::size_t max_depth = 512;          // nesting of marks / containers
  std::size_t max_memo = 1u << 24;      // memo entries
  std::size_t max_stack = 1u << 24;     // values on the stack
  std::size_t max_memo_key = 1u << 26;  // largest memo index accepted by PUT
  // What building values may cost: 1 per value pushed, 4 more per new container (tuple,
  // list, dict, object), about 32 bytes a unit. A deflated record of a few KB can hold
  // millions of one-byte EMPTY_LISTs; this bounds their memory (~130 MiB at the default)
  // where the stack limit alone would allow gigabytes. The largest torchvision model's
  // largest pickle (maxvit_t's callstack_debug_map.pkl, 334 KB) costs under 400,000.
  std::size_t max_cost = 1u << 22;
};

// Returns true when `qualified_name` (e.g. "__torch__.torch.nn.modules.linear.Linear") is
// a TorchScript class the caller accepts.
using TypeResolver = std::function<bool(std::string_view qualified_name)>;

struct UnpickleOptions {
  UnpicklerLimits limits;
  TypeResolver is_class;  // empty: accept names starting with "__torch__."
  // Where tuples of (str, int, int) tuples after its key go instead of the value tree
  // (packed_triples.h); null: every tuple is built as values.
  PackedTriples* packed_triples = nullptr;
};

// Unpickles one pickle from `data`. Strings in the result are views into `data`.
Value unpickle(const Bytes& data, const UnpickleOptions& options = {});

}  // namespace symbolite::pickle
