#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::ops {
namespace {

bool batch_norm_epilogue(Stack& stack, const Epilogue& epilogue) {
  return nn::batch_norm_with_activation(stack, epilogue.activation);
}

}  // namespace

EpilogueKernel epilogue_kernel(std::string_view op_name) {
  if (op_name == "aten::batch_norm") return batch_norm_epilogue;
  if (op_name == "aten::conv2d") return nn::conv2d_with_epilogue;
  return nullptr;
}

}  // namespace symbolite::ops
