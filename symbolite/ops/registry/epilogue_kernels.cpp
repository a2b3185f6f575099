#include "symbolite/ops/registry/epilogue_kernels.h"

namespace symbolite::ops {
namespace {

bool batch_norm_epilogue(Stack& stack, Activation activation) {
  return nn::batch_norm_with_activation(stack, activation);
}
bool conv2d_epilogue(Stack& stack, Activation activation) {
  return nn::conv2d_with_activation(stack, activation);
}

}  // namespace

EpilogueKernel epilogue_kernel(std::string_view op_name) {
  if (op_name == "aten::batch_norm") return batch_norm_epilogue;
  if (op_name == "aten::conv2d") return conv2d_epilogue;
  return nullptr;
}

}  // namespace symbolite::ops
