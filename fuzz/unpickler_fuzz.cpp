// libFuzzer harness for the safe unpickler (and the pickler): unpickles the input, renders
// the result, and checks that pickling it back gives the same value, and that unpickling it
// with instruction lists packed (packed_triples.h) gives the same value or the same error.
// symbolite::Error is the expected way to fail; any other exception, crash, hang, leak or
// sanitizer report is a finding. On success it also checks that every string is a view
// into the input, as the unpickler promises.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "fuzz/pickle_opcode_mutator.h"
#include "symbolite/pickle/packed_triples.h"
#include "symbolite/pickle/pickler.h"
#include "symbolite/pickle/unpickler.h"
#include "symbolite/pickle/value.h"
#include "symbolite/support/bytes.h"
#include "symbolite/support/error.h"

namespace {

using symbolite::Bytes;
using symbolite::pickle::Value;

// Visits each node once: memo sharing can make the tree exponentially larger than the DAG.
void check_strings(const Value& value, const Bytes& input, std::unordered_set<const void*>& seen) {
  if (value.identity() != nullptr && !seen.insert(value.identity()).second) return;
  if (value.is(Value::Kind::kString)) {
    const Bytes& text = value.as_string_bytes();
    if (text.size() > 0 &&
        (text.data() < input.data() || text.data() + text.size() > input.data() + input.size())) {
      __builtin_trap();
    }
  }
  symbolite::pickle::any_child(value, [&](const Value& child) {
    check_strings(child, input, seen);
    return false;
  });
}

bool has_archive_references(const Value& value, int depth = 0) {
  if (depth > 1000) return true;
  if (value.is(Value::Kind::kTensor) || value.is(Value::Kind::kStorage) ||
      value.is(Value::Kind::kGlobal)) {
    return true;
  }
  return symbolite::pickle::any_child(
      value, [&](const Value& child) { return has_archive_references(child, depth + 1); });
}

// The input unpickled with tuples after "instructions" packed, placeholders expanded and
// rendered, or the error's text: what unpickling it as values gives.
std::string packed_outcome(const Bytes& input) {
  symbolite::pickle::PackedTriples packed("instructions");
  symbolite::pickle::UnpickleOptions options;
  options.packed_triples = &packed;
  try {
    return packed.expanded(symbolite::pickle::unpickle(input, options)).debug_string(4096);
  } catch (const symbolite::Error& e) {
    return e.text();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A non-owning view: the result dies before the input does.
  Bytes input(std::shared_ptr<const void>(), data, size);
  Value value;
  try {
    value = symbolite::pickle::unpickle(input);
  } catch (const symbolite::Error& e) {
    if (packed_outcome(input) != e.text()) __builtin_trap();
    return 0;
  }
  std::string rendered = value.debug_string(4096);
  if (packed_outcome(input) != rendered) __builtin_trap();
  std::unordered_set<const void*> seen;
  check_strings(value, input, seen);
  // Whatever the unpickler accepts, the pickler writes back to the same value, and the
  // unpickler must accept that — except tensors, storages and globals, which the pickler writes
  // in PyTorch's canonical form (one persistent id per storage), not byte for byte as read.
  if (has_archive_references(value)) return 0;
  std::vector<std::uint8_t> written;
  try {
    written = symbolite::pickle::pickle(value);
  } catch (const symbolite::Error&) {
    return 0;
  }
  Value again = symbolite::pickle::unpickle(Bytes::from_vector(std::move(written)));
  if (again.debug_string(4096) != rendered) __builtin_trap();
  return 0;
}

// Mutations mostly work on whole pickle opcodes (pickle_opcode_mutator.h).
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return symbolite::fuzzing::mutate_pickle(data, size, max_size, seed);
}
