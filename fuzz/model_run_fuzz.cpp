// Fuzzes running a model: the input is a model archive that also carries the inputs of a
// method (`forward`, or the one the record `fuzz_method` names) as records
// `fuzz_input_<i>.npy` (a tensor) or `fuzz_input_<i>.json` (any other value, as
// `symbolite run --input` reads it; fuzz/make_model_run_corpus.py writes the seeds). The
// model is loaded, verified and run under a budget of instructions, stack and memory; only
// symbolite::Error may escape. The loader's own harness stops at the verifier; what a file
// can do to the interpreter and the kernels once it passes (a crafted OP count, values of the
// wrong kind on the stack, jumps and loops, constants no exporter writes) is this one's.
// Mutations change one entry at a time (zip_entry_mutator.h): the bytecode, the constants or
// the inputs.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/zip_entry_mutator.h"
#include "symbolite/archive/model_archive.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/support/error.h"
#include "symbolite/support/machine_memory.h"
#include "symbolite/support/parallel_for.h"
#include "symbolite/tensor/npy.h"

namespace {

using symbolite::Bytes;
using symbolite::ops::IValue;

// The method's inputs the archive carries, in order; stops at the first index it lacks.
std::vector<IValue> inputs_of(const symbolite::archive::ModelArchive& archive) {
  std::vector<IValue> inputs;
  for (int i = 0;; ++i) {
    const std::string stem = "fuzz_input_" + std::to_string(i);
    if (auto npy = archive.try_read_record(stem + ".npy")) {
      inputs.emplace_back(symbolite::tensor::read_npy(*npy));
    } else if (auto json = archive.try_read_record(stem + ".json")) {
      inputs.push_back(symbolite::runtime::parse_input_json(
          json->str(), "/nonexistent-symbolite-fuzz/" + stem + ".json"));
    } else {
      return inputs;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // One thread: a finding replays the same way. A size an input chose meets symbolite's own
  // memory check (256 MiB here) before libFuzzer's malloc limit (2 GB) would report it.
  symbolite::set_intra_op_threads(1);
  symbolite::set_memory_bound(std::size_t{256} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Bytes file(nullptr, data, size);
  try {
    const auto model = symbolite::mobile::LoadedModel::load_bytes(file, "fuzz.ptl");
    // The central directory again (LoadedModel keeps no archive): cheap beside a run.
    const auto archive = symbolite::archive::ModelArchive::from_bytes(file, "fuzz.ptl");
    const auto method = archive.try_read_record("fuzz_method");
    const std::string name(method ? method->str() : "forward");
    std::vector<IValue> inputs = inputs_of(archive);
    symbolite::runtime::Interpreter interpreter(model);
    symbolite::runtime::RunBudget budget;
    budget.max_instructions = 100000;
    budget.max_stack = 10000;
    interpreter.set_budget(budget);
    const IValue result = interpreter.run_method(name, std::move(inputs));
    (void)result.repr();
  } catch (const symbolite::Error&) {
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  return symbolite::fuzzing::mutate_zip_entry(data, size, max_size, seed);
}
