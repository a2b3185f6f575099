// Fuzzes the record readers on top of the unpickler: the input is a pickle, decoded as a
// debug_pkl (both formats), a callstack_debug_map.pkl, a mobile_debug_handles.pkl, a
// bytecode.pkl and a data.pkl module tree, and symbolicated. Only symbolite::Error may escape
// a reader.
#include <cstddef>
#include <cstdint>

#include "fuzz/pickle_opcode_mutator.h"
#include "symbolite/debuginfo/callstack_map_reader.h"
#include "symbolite/debuginfo/handle_table_reader.h"
#include "symbolite/debuginfo/source_range_reader.h"
#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/debuginfo/table_debug_info_source.h"
#include "symbolite/mobile/bytecode.h"
#include "symbolite/mobile/module_tree.h"
#include "symbolite/pickle/unpickler.h"
#include "symbolite/support/error.h"

using namespace symbolite;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pickle::Value root;
  try {
    root = pickle::unpickle(Bytes(nullptr, data, size));
  } catch (const Error&) {
    return 0;
  }
  debuginfo::SourceRangeTags tags;
  try {
    auto budget = debuginfo::SourceTextBudget::for_records(size);
    debuginfo::add_tags(debuginfo::read_source_range_file(root, budget), tags);
  } catch (const Error&) {
  }
  debuginfo::DebugTable table;
  try {
    table = debuginfo::read_callstack_map(root, tags);
  } catch (const Error&) {
  }
  debuginfo::HandleTable handles;
  try {
    handles = debuginfo::read_handle_table(root);
  } catch (const Error&) {
  }
  try {
    mobile::read_bytecode(root);
  } catch (const Error&) {
  }
  try {
    mobile::read_module_tree(root);
  } catch (const Error&) {
  }
  debuginfo::Symbolicator symbolicator(
      std::make_shared<debuginfo::TableDebugInfoSource>(table, &handles, "__torch__.Fuzz", true));
  for (auto handle : table.handles()) symbolicator.symbolicate(handle);
  symbolicator.symbolicate(-1);
  symbolicator.symbolicate(123456789);
  return 0;
}

// Mutations mostly work on whole pickle opcodes (pickle_opcode_mutator.h).
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return symbolite::fuzzing::mutate_pickle(data, size, max_size, seed);
}
