// A program that uses symbolite as an installed library: symbolicates one debug handle of a
// model, then runs one of its methods on .npy inputs and writes the result.
//   consumer MODEL HANDLE METHOD OUTPUT.npy [INPUT.npy...]
#include <cstdio>
#include <string>
#include <vector>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/support/error.h"
#include "symbolite/tensor/npy.h"
#include "symbolite/version.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: consumer MODEL HANDLE METHOD OUTPUT.npy [INPUT.npy...]\n");
    return 2;
  }
  const std::string model_path = argv[1];
  try {
    std::printf("symbolite %s\n", symbolite::version());

    auto info = symbolite::mobile::ModelInfo::load(model_path);
    auto where = info.symbolicator().symbolicate(std::stoll(argv[2]));
    std::printf("%s\n%s\n", where.module_hierarchy.c_str(), where.traceback.c_str());

    auto model = symbolite::mobile::LoadedModel::load(model_path);
    symbolite::runtime::Interpreter interpreter(model);
    std::vector<symbolite::ops::IValue> inputs;
    for (int i = 5; i < argc; ++i) inputs.emplace_back(symbolite::tensor::read_npy_file(argv[i]));
    symbolite::ops::IValue result = interpreter.run_method(argv[3], std::move(inputs));
    symbolite::tensor::write_npy_file(argv[4], result.to_tensor());
    std::printf("%s: wrote %s\n", argv[3], argv[4]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
