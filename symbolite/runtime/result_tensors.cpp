#include "symbolite/runtime/result_tensors.h"

namespace symbolite::runtime {
namespace {

void collect(const ops::IValue& v, std::vector<tensor::Tensor>& out) {
  using K = ops::IValue::Kind;
  if (v.is(K::kTensor)) {
    out.push_back(v.to_tensor());
  } else if (v.is(K::kTuple) || v.is(K::kList)) {
    for (const auto& item : v.is(K::kTuple) ? v.to_tuple() : v.to_list()) collect(item, out);
  } else if (v.is(K::kDict)) {
    for (const auto& [key, value] : v.to_dict().items) {
      collect(key, out);
      collect(value, out);
    }
  }
}

}  // namespace

std::vector<tensor::Tensor> result_tensors(const ops::IValue& result) {
  std::vector<tensor::Tensor> out;
  collect(result, out);
  return out;
}

}  // namespace symbolite::runtime
