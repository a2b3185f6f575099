// The XNNPACK delegate's nodes: for each delegate-program step XNNPACK can compute, an
// accelerator (runtime/delegate/program_backend.h) built at load from the step's static
// arguments — weights repacked into XNNPACK's layouts, an XNNPACK operator created once — and
// set up for the actual shapes at each run:
//
//   aten::conv2d                        convolution2d_nhwc (groups, depthwise included)
//   aten::linear                        fully_connected_nc
//   aten::relu(_), relu6, hardtanh(_)   clamp_nc
//   aten::hardswish(_), sigmoid(_)      hardswish_nc, sigmoid_nc
//   aten::add/sub(_).Tensor (alpha 1),  add/subtract/multiply/divide_nd (broadcasting, in the
//   aten::mul(_)/div.Tensor             inputs' common layout)
//   aten::max_pool2d, avg_pool2d        max/average_pooling2d_nhwc (max: ceil mode by extra
//                                       end padding; average: floor mode, no padding)
//   aten::cat along channels            a copy per pixel (concat_node.h)
//   aten::adaptive_avg_pool2d to 1x1    global_average_pooling_nwc
//   aten::batch_norm (inference)        multiply_nd + add_nd with the folded scale and shift
//   aten::dropout(_) (inference)        nothing: the input is the output
//
// 4-D results are stored channels-last (channels_last.h). Inputs an accelerator does not take
// (another dtype, a non-dense layout, a shape the operator refuses) run the reference kernel
// instead, which also gives PyTorch's error message for bad shapes.
#pragma once

#include <memory>

#include "symbolite/runtime/delegate/program_backend.h"

namespace symbolite::backends {

// The accelerator of step `step`, or null when XNNPACK has none for it (or its arguments are
// not static where they must be).
std::unique_ptr<runtime::StepAccelerator> make_xnnpack_node(const runtime::CompiledProgram& program,
                                                            std::size_t step);

}  // namespace symbolite::backends
