// The kernel families, one file each; `register_kernel_families` adds them all to a
// registry (see operator_registry.h for why registration is explicit).
#pragma once

#include "symbolite/ops/registry/operator_registry.h"

namespace symbolite::ops {

// Scalars, lists and strings: `aten::add.int`, `aten::__getitem__.t`, `aten::len.t`, ...
void register_scalar_ops(OperatorRegistry& registry);
// Elementwise tensor arithmetic and activations: add, mul, relu, sigmoid, ... (+ in-place).
void register_elementwise_ops(OperatorRegistry& registry);
// Elementwise math: abs, exp, clamp_, pow.Tensor_Scalar, sign.
void register_math_ops(OperatorRegistry& registry);
// Division with rounding: floor_divide, remainder, fmod, div with a rounding_mode.
void register_division_ops(OperatorRegistry& registry);
// Rounding of tensors: floor, ceil, trunc, round (+ in place).
void register_rounding_ops(OperatorRegistry& registry);
// Boolean and bitwise: __and__, logical_not/and/or/xor, where.
void register_logical_ops(OperatorRegistry& registry);
// Reductions: sum, mean, max, min, argmax, ...
void register_reduction_ops(OperatorRegistry& registry);
// Shape and views: view, reshape, select, slice, cat, flatten, expand, split, ... and
// factories (zeros, arange), broadcast_tensors.
void register_shape_ops(OperatorRegistry& registry);
// Unary float functions (sqrt, log, sin, erf, ... + in place) and clamp, clamp_min, clamp_max.
void register_unary_float_ops(OperatorRegistry& registry);
// triu, tril: a matrix's upper or lower triangle.
void register_triangle_ops(OperatorRegistry& registry);
// Advanced indexing: index.Tensor, index_select.
void register_indexing_ops(OperatorRegistry& registry);
// Copies like self: clone, to.dtype, zeros_like.
void register_copy_ops(OperatorRegistry& registry);
// Matrix products: mm, matmul, linear, bilinear, addmm, bmm, baddbmm.
void register_linear_algebra_ops(OperatorRegistry& registry);
// Neural-network layers: conv, batch_norm, pooling, dropout, ...
void register_nn_ops(OperatorRegistry& registry);
// Random sampling: bernoulli_, ...
void register_random_ops(OperatorRegistry& registry);
// Masking: masked_fill, masked_fill_.
void register_masking_ops(OperatorRegistry& registry);
// Lists and tuples as operators: list.t, eq/ne.int_list, prim::TupleUnpack.
void register_list_ops(OperatorRegistry& registry);
// Copies that move elements: roll, repeat, pad.
void register_rearrange_ops(OperatorRegistry& registry);
// Einstein summation as batched matrix products.
void register_einsum_ops(OperatorRegistry& registry);
// Dicts as operators: keys, values, items, get, setdefault, pop, _set_item, ... per key type.
void register_dict_ops(OperatorRegistry& registry);
// Strings: add.str, comparisons, len, indexing, str(x), case, strip, split, join, replace, find.
void register_string_ops(OperatorRegistry& registry);
// The math module on numbers: sqrt.float, log.float_float, pow, floor, isnan, gcd, ...
void register_float_math_ops(OperatorRegistry& registry);
// Python number arithmetic: floordiv/remainder/divmod with floats, div.int, bit ops, min/max.
void register_number_ops(OperatorRegistry& registry);
// List methods: extend, insert, pop, remove, index, count, sort, sorted, min/max/sum of lists.
void register_list_methods_ops(OperatorRegistry& registry);

// Activations beyond the elementwise ones: elu, leaky_relu, prelu, glu, mish, softplus, ...
void register_activation_ops(OperatorRegistry& registry);
// Channel rearrangements: pixel_shuffle, pixel_unshuffle, channel_shuffle.
void register_pixel_shuffle_ops(OperatorRegistry& registry);
// Losses over class indices: nll_loss(2d, _nd), cross_entropy_loss, multi(label)_margin_loss.
void register_class_loss_ops(OperatorRegistry& registry);
// Connectionist temporal classification: ctc_loss.Tensor and .IntList.
void register_ctc_loss_ops(OperatorRegistry& registry);
// div with a rounding mode ("trunc", "floor"), also what old files' upgraders use.
// Detection models: torchvision::nms and roi_align, topk, meshgrid, unbind, maximum/minimum,
// and the aliases and conversions tracing records (detach, expand_as, to.other, full_like, ...).
void register_detection_ops(OperatorRegistry& registry);
// Operators that are others with their arguments rearranged: *_like, new_*, *_as, movedim,
// narrow, clip, square, tile, outer, dot, mv, masked_select, addcmul, addcdiv.
void register_composed_ops(OperatorRegistry& registry);
// Running reductions along a dimension: cumsum, cumprod, cummax, cummin.
void register_scan_ops(OperatorRegistry& registry);
// gather, take_along_dim, scatter (src, value, reductions), scatter_add, one_hot.
void register_gather_scatter_ops(OperatorRegistry& registry);
// sort and argsort, stable or not.
void register_sort_ops(OperatorRegistry& registry);
// var, std, var_mean, std_mean, logsumexp, prod, count_nonzero.
void register_statistics_ops(OperatorRegistry& registry);
// diagonal, diag, trace, eye.
void register_diagonal_ops(OperatorRegistry& registry);
// index_put and index_put_: writes through an advanced index.
void register_index_put_ops(OperatorRegistry& registry);
// torch.tensor: aten::tensor of nested lists of numbers, or of one number.
void register_tensor_from_data_ops(OperatorRegistry& registry);
// Elementwise functions of two tensors: atan2, hypot, logaddexp, xlogy, copysign, fmax, fmin,
// float_power, lerp.
void register_binary_float_ops(OperatorRegistry& registry);
// grid_sampler (F.grid_sample, 4-D, bilinear and nearest) and affine_grid_generator.
void register_grid_sample_ops(OperatorRegistry& registry);
// Distinct values and counts: _unique2, _unique, unique_dim, unique_consecutive, bincount, histc.
void register_unique_ops(OperatorRegistry& registry);
// Sliding windows as columns: im2col (F.unfold) and col2im (F.fold).
void register_sliding_window_ops(OperatorRegistry& registry);
// Special functions: erfinv, lgamma, digamma, polygamma, mvlgamma, i0, torch.special's i0e, i1,
// entr, erfcx, ndtr(i), log_ndtr, xlog1py, zeta, igamma, igammac, and the special_* aliases.
void register_special_function_ops(OperatorRegistry& registry);
// Matrix factorizations through LAPACK: cholesky, eigh / eigvalsh, qr, svd / svdvals.
void register_linalg_decomposition_ops(OperatorRegistry& registry);
// Functions of singular values built on them: pinv, matrix_rank, matrix_norm, linalg_norm.
void register_linalg_spectral_ops(OperatorRegistry& registry);
// LU-based linear algebra through LAPACK: solve, inv, det, slogdet, logdet, lstsq.
void register_linalg_solve_ops(OperatorRegistry& registry);
// The rest of TorchScript's str methods: partition, rpartition, splitlines, expandtabs,
// isidentifier, isprintable, istitle; bin, oct, hex.
void register_string_pieces_ops(OperatorRegistry& registry);
// Questions about tensors and dtypes (element_size, stride, result_type, can_cast, ...), the
// CPU identities (cpu, data, alias), strided views and factories, and warn.
void register_tensor_info_ops(OperatorRegistry& registry);
// Padding operators traced models record (constant_pad_nd, reflection_pad*d,
// replication_pad*d) and pad_sequence.
void register_padding_ops(OperatorRegistry& registry);
// Products built from matrix products: tensordot, kron, addmv, addr, addbmm, linalg.multi_dot,
// chain_matmul.
void register_matrix_product_ops(OperatorRegistry& registry);
// Index combinations: cartesian_prod, combinations.
void register_combination_ops(OperatorRegistry& registry);
// Order statistics by sorting: quantile and nanquantile, mode.
void register_quantile_ops(OperatorRegistry& registry);
// In-place forms of out-of-place operators: lt_, exp_, lerp_, gcd_, ... and t_, transpose_.
void register_in_place_ops(OperatorRegistry& registry);
// Other names of operators (arccos, greater, divide, concat, absolute_, ...), relu6, msort,
// ravel, fliplr / flipud, mT / mH / adjoint / matrix_H.
void register_alias_ops(OperatorRegistry& registry);
// Splits and index updates: hsplit / vsplit / dsplit, diagflat, sum_to_size, fill_diagonal_,
// put, index_reduce, vander / linalg.vander.
void register_split_fill_ops(OperatorRegistry& registry);
// NaN-skipping and joint statistics: nansum, nanmean, aminmax, cov, corrcoef.
void register_nan_statistics_ops(OperatorRegistry& registry);
// Integrals and distances: trapz / trapezoid / cumulative_trapezoid, dist, pdist, renorm.
void register_integral_distance_ops(OperatorRegistry& registry);
// Element tests: isin, isreal.
void register_membership_ops(OperatorRegistry& registry);
// Named products: inner, vdot, linalg.vecdot, matrix_power, triangular solves.
void register_vector_product_ops(OperatorRegistry& registry);
// Window functions: hann, hamming, bartlett, blackman, kaiser.
void register_window_ops(OperatorRegistry& registry);
// The matrix exponential by PyTorch's degree-selecting Taylor polynomials: matrix_exp.
void register_matrix_exp_ops(OperatorRegistry& registry);

inline void register_kernel_families(OperatorRegistry& registry) {
  register_scalar_ops(registry);
  register_elementwise_ops(registry);
  register_math_ops(registry);
  register_division_ops(registry);
  register_rounding_ops(registry);
  register_logical_ops(registry);
  register_reduction_ops(registry);
  register_shape_ops(registry);
  register_triangle_ops(registry);
  register_unary_float_ops(registry);
  register_indexing_ops(registry);
  register_copy_ops(registry);
  register_linear_algebra_ops(registry);
  register_nn_ops(registry);
  register_random_ops(registry);
  register_masking_ops(registry);
  register_list_ops(registry);
  register_rearrange_ops(registry);
  register_einsum_ops(registry);
  register_dict_ops(registry);
  register_string_ops(registry);
  register_float_math_ops(registry);
  register_number_ops(registry);
  register_list_methods_ops(registry);
  register_activation_ops(registry);
  register_pixel_shuffle_ops(registry);
  register_class_loss_ops(registry);
  register_ctc_loss_ops(registry);
  register_detection_ops(registry);
  register_composed_ops(registry);
  register_scan_ops(registry);
  register_gather_scatter_ops(registry);
  register_sort_ops(registry);
  register_statistics_ops(registry);
  register_diagonal_ops(registry);
  register_index_put_ops(registry);
  register_tensor_from_data_ops(registry);
  register_binary_float_ops(registry);
  register_grid_sample_ops(registry);
  register_unique_ops(registry);
  register_sliding_window_ops(registry);
  register_special_function_ops(registry);
  register_linalg_decomposition_ops(registry);
  register_linalg_spectral_ops(registry);
  register_linalg_solve_ops(registry);
  register_string_pieces_ops(registry);
  register_tensor_info_ops(registry);
  register_padding_ops(registry);
  register_matrix_product_ops(registry);
  register_combination_ops(registry);
  register_quantile_ops(registry);
  register_in_place_ops(registry);
  register_alias_ops(registry);
  register_split_fill_ops(registry);
  register_nan_statistics_ops(registry);
  register_integral_distance_ops(registry);
  register_membership_ops(registry);
  register_vector_product_ops(registry);
  register_window_ops(registry);
  register_matrix_exp_ops(registry);
}

}  // namespace symbolite::ops
