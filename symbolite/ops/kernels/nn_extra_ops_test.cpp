// The kernels of the sequence, convolution and pooling fixture models against PyTorch 1.13:
// every case of tests/fixtures/ops/nn_extra_cases.json (written by make_nn_extra_refs.py)
// runs the operator on the same arguments and must give all of PyTorch's outputs (rtol 1e-4,
// atol 1e-5; integer outputs exactly) or PyTorch's exact error class and message.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/nn_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;
using testing::expect_unsupported;

SYMBOLITE_NN_REFERENCE_SUITE(NnExtraOpsReference, "nn_extra_cases.json");

IValue tensors(std::vector<Tensor> ts) {
  IValueList items(ts.begin(), ts.end());
  return IValue::list(std::move(items));
}

TEST(NnExtraOps, LstmRefusesWhatItDoesNotImplement) {
  auto zeros = [](std::vector<std::int64_t> s) {
    return Tensor::empty(std::move(s), DType::kFloat32);
  };
  IValue params = tensors({zeros({24, 5}), zeros({24, 6}), zeros({24}), zeros({24})});
  IValue hx = tensors({zeros({1, 2, 6}), zeros({1, 2, 6})});
  // 2-d input (PyTorch broadcasts it oddly), training dropout (random), a batch of one
  // against a larger hidden batch (broadcasts in PyTorch).
  expect_unsupported("aten::lstm.input",
                     {zeros({3, 5}), hx, params, true, 1, 0.0, false, false, false});
  IValue params2 = tensors({zeros({24, 5}), zeros({24, 6}), zeros({24}), zeros({24}),
                            zeros({24, 6}), zeros({24, 6}), zeros({24}), zeros({24})});
  IValue hx2 = tensors({zeros({2, 2, 6}), zeros({2, 2, 6})});
  expect_unsupported("aten::lstm.input",
                     {zeros({3, 2, 5}), hx2, params2, true, 2, 0.5, true, false, false});
  expect_unsupported("aten::lstm.input",
                     {zeros({3, 1, 5}), hx, params, true, 1, 0.0, false, false, false});
}

TEST(NnExtraOps, RandomAndUnimplementedFormsRefuse) {
  auto zeros = [](std::vector<std::int64_t> s) {
    return Tensor::empty(std::move(s), DType::kFloat32);
  };
  // Training-mode dropout is random.
  for (const char* op : {"aten::feature_dropout", "aten::feature_dropout_", "aten::alpha_dropout",
                         "aten::feature_alpha_dropout_"}) {
    expect_unsupported(op, {zeros({2, 3, 4}), 0.5, true});
  }
  // rrelu's random slopes in training.
  expect_unsupported("aten::rrelu", {zeros({2, 3}), 0.1, 0.3, true});
  // A GRU's dropout between layers in training.
  std::vector<Tensor> layer = {zeros({9, 2}), zeros({9, 3}), zeros({9}), zeros({9})};
  std::vector<Tensor> two_layers = layer;
  two_layers.insert(two_layers.end(), {zeros({9, 3}), zeros({9, 3}), zeros({9}), zeros({9})});
  expect_unsupported("aten::gru.input", {zeros({4, 1, 2}), zeros({2, 1, 3}), tensors(two_layers),
                                         true, 2, 0.5, true, false, false});
  // embedding_bag takes the 1-d indices F.embedding_bag passes (it flattens 2-d ones).
  Tensor idx = Tensor::empty({2, 2}, DType::kInt64);
  Tensor offsets = Tensor::empty({2}, DType::kInt64);
  expect_unsupported("aten::embedding_bag.padding_idx",
                     {zeros({5, 3}), idx, offsets, false, 0, false, IValue(), false, IValue()});
}

TEST(NnExtraOps, MaskedFillRefusesOtherMaskTypes) {
  Tensor x = Tensor::empty({3}, DType::kFloat32);
  expect_unsupported("aten::masked_fill.Scalar", {x, Tensor::empty({3}, DType::kFloat32), 1.0});
}

// Boxes no sampling grid fits (NaN or huge coordinates from a hostile file): torchvision casts
// the grid size to int (undefined) and sizes a table by it; symbolite names the roi.
TEST(NnExtraOps, RoiAlignRefusesBoxesItCannotSample) {
  Tensor planes = Tensor::empty({1, 2, 8, 8}, DType::kFloat32);
  for (float corner : {std::numeric_limits<float>::quiet_NaN(), 1e30F, 3e5F}) {
    Tensor rois = Tensor::empty({2, 5}, DType::kFloat32);
    float* r = rois.mutable_data<float>();
    const float boxes[10] = {0, 1, 1, 4, 4, 0, 0, 0, corner, corner};
    std::copy(boxes, boxes + 10, r);
    const Error e = testing::error_from([&] {
      run_op("torchvision::roi_align", {planes, rois, 1.0, 7, 7, 0, false});
    });
    EXPECT_NE(e.message().find("roi_align: roi 1 needs"), std::string::npos) << e.message();
  }
  // The largest table taken: 2^11 x 2^11 samples in each of 2 x 2 bins.
  Tensor rois = Tensor::empty({1, 5}, DType::kFloat32);
  const float box[5] = {0, 0, 0, 4096, 4096};
  std::copy(box, box + 5, rois.mutable_data<float>());
  const IValue out = run_op("torchvision::roi_align", {planes, rois, 1.0, 2, 2, 0, false});
  EXPECT_EQ(out.to_tensor().sizes(), (std::vector<std::int64_t>{1, 2, 2, 2}));
}

TEST(NnExtraOps, ListOps) {
  auto ints = [](std::vector<std::int64_t> v) {
    IValueList items(v.begin(), v.end());
    return IValue::list(std::move(items));
  };
  EXPECT_TRUE(run_op("aten::ne.int_list", {ints({2, 3}), ints({2, 4})}).to_bool());
  EXPECT_FALSE(run_op("aten::ne.int_list", {ints({2, 3}), ints({2, 3})}).to_bool());
  EXPECT_FALSE(run_op("aten::eq.int_list", {ints({2}), ints({2, 3})}).to_bool());
  IValue original = ints({1, 2});
  IValue copy = run_op("aten::list.t", {original});
  EXPECT_NE(copy.identity(), original.identity());
  EXPECT_EQ(copy.to_list().size(), 2u);
  auto unpacked = run_op_multi("prim::TupleUnpack", {IValue::tuple({IValue(1), IValue(2.5)})});
  ASSERT_EQ(unpacked.size(), 2u);
  EXPECT_EQ(unpacked[0].to_int(), 1);
  EXPECT_EQ(unpacked[1].to_double(), 2.5);
}

}  // namespace
}  // namespace symbolite::ops
