// What the profiler costs per operator, on tests/fixtures/models/nested.ptl's forward (8
// operators on 2x4 tensors, so per-operator overheads are not hidden behind kernel time):
// no sink installed, a sink recording time only, and one recording shapes, FLOPs and memory.
// `NoSinkCheck` times the hook the interpreter runs per operator when nothing is installed.
//
//   build/bin/symbolite_profiler_bench
#include <benchmark/benchmark.h>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/input_files.h"
#include "symbolite/runtime/interpreter.h"

namespace {

using namespace symbolite;

const mobile::LoadedModel& nested() {
  static const mobile::LoadedModel model =
      mobile::LoadedModel::load(SYMBOLITE_SOURCE_DIR "/tests/fixtures/models/nested.ptl");
  return model;
}

std::vector<ops::IValue> inputs() {
  const std::string dir = SYMBOLITE_SOURCE_DIR "/tests/fixtures/run/nested/valid_0/";
  return {runtime::read_input_file(dir + "input_0.npy"),
          runtime::read_input_file(dir + "input_1.npy")};
}

void run_forward(benchmark::State& state, profiler::EventSink* sink) {
  runtime::Interpreter interpreter(nested());
  auto args = inputs();
  std::optional<profiler::ProfilingScope> scope;
  if (sink != nullptr) scope.emplace(*sink);
  for (auto _ : state) {
    benchmark::DoNotOptimize(interpreter.run_method("forward", args));
    if (auto* recording = dynamic_cast<profiler::RecordingSink*>(sink)) recording->clear();
  }
  state.counters["ops/run"] = 8;
}

void NoSink(benchmark::State& state) { run_forward(state, nullptr); }

void TimeOnly(benchmark::State& state) {
  profiler::RecordingSink sink;
  run_forward(state, &sink);
}

void AllDetails(benchmark::State& state) {
  profiler::RecordingSink sink(profiler::kDetailAll);
  run_forward(state, &sink);
}

void NoSinkCheck(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(profiler::current_sink());
}

}  // namespace

BENCHMARK(NoSink);
BENCHMARK(TimeOnly);
BENCHMARK(AllDetails);
BENCHMARK(NoSinkCheck);
BENCHMARK_MAIN();
