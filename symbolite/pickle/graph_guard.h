// `GraphGuard`: keeps the Value graph an unpickler builds shallow and acyclic.
//
// Why: a hostile pickle can nest containers without MARKs (`NONE TUPLE1 TUPLE1 ...` or
// many EMPTY_LISTs then APPENDs) until the recursive shared_ptr destructor, or any reader
// walking the result, overflows the stack; and with the memo it can make a list contain
// itself, which leaks and never ends a walk.
//
// How: the guard knows the depth of every container node the unpickler creates (tuple,
// list, dict, object) and refuses any node deeper than the limit. A node placed into
// another container is *sealed*: it can no longer be modified. Every node that has a
// parent is sealed, so a modification never changes a parent's depth and can never close
// a cycle (the new child would have to reach the node, i.e. the node would have a parent).
// Writers always fill a container before placing it, so real pickles never hit this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "symbolite/pickle/value.h"

namespace symbolite::pickle {

class GraphGuard {
 public:
  explicit GraphGuard(std::size_t max_depth) : max_depth_(max_depth) {}

  // Registers a newly created container `node` holding `children` (numbering the node
  // through Value::set_guard_id); seals them.
  void created(Value& node, std::span<const Value> children);
  // Checks that `children` may be added to the existing container `node` (a list, dict,
  // or object getting its state), then seals them and updates its depth.
  void adding(const Value& node, std::span<const Value> children);

  // Nesting depth of `value`: 0 for scalars, 1 for an empty container.
  std::size_t depth(const Value& value) const;

 private:
  struct Node {
    std::uint32_t depth = 1;
    bool sealed = false;
  };

  static bool is_container(const Value& value);
  // The node's entry; Error(kInternal) for a container this guard did not create.
  Node& node_of(const Value& value);
  const Node& node_of(const Value& value) const;
  // 1 + the deepest child; Error(kLimit) past the limit.
  std::uint32_t depth_above(std::span<const Value> children) const;
  void seal(std::span<const Value> children);

  std::size_t max_depth_;
  // Indexed by Value::guard_id() - 1: a number per node rather than a map keyed by address
  // (hashing every container was a fifth of the time loading a model took).
  std::vector<Node> nodes_;
};

}  // namespace symbolite::pickle
