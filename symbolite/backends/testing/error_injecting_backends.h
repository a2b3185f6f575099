// Test-only delegate backends that break on purpose, for testing the tools that debug a
// lowering (`explain`, `minify`, tracebacks through delegates) — never for real models. Each runs
// like `eager` except at every ReLU (aten::relu, aten::relu_):
//   relu_compile_error   the payload fails to compile, naming the ReLU's delegate handle;
//   relu_runtime_error   the ReLU fails when it runs (a delegate failure with its handle);
//   relu_accuracy_error  the ReLU computes x + 1: no error, wrong numbers.
#pragma once

namespace symbolite::backends {

void register_error_injecting_backends();

}  // namespace symbolite::backends
