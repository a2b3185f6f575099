// The wider builds of vector_math.h's functions, one translation unit per instruction set
// (vector_math_avx2.cpp compiled with -mavx2 -mfma, vector_math_avx512.cpp with -mavx512f).
// vector_math.cpp calls them only on CPUs that have the instructions. Those files include
// nothing but intrinsics, SLEEF and this header: an inline function from a shared header
// compiled there could be picked by the linker for every caller and fault on older CPUs.
#pragma once

#include <cstdint>

#include "symbolite/ops/cpu/vector_math.h"  // declarations and constants only

namespace symbolite::ops::vec {

namespace avx2 {
void exp_f32(const float* in, float* out, std::int64_t n);
void sigmoid_f32(const float* in, float* out, std::int64_t n);
void silu_f32(const float* in, float* out, std::int64_t n);
void tanh_f32(const float* in, float* out, std::int64_t n);
void hardswish_f32(const float* in, float* out, std::int64_t n);
void relu_f32(const float* in, float* out, std::int64_t n);
void relu6_f32(const float* in, float* out, std::int64_t n);
void hardsigmoid_f32(const float* in, float* out, std::int64_t n);
void epilogue_rows_f32(const Rows& rows, const float* bias, const float* scale, const float* shift,
                       const Activation* activation);
void epilogue_interleaved_f32(float* p, std::int64_t n, const float* scale, const float* shift,
                              const Activation* activation);
void scale_rows_f32(const float* in, const float* scales, float* out, std::int64_t rows,
                    std::int64_t cols);
void gelu_f32(const float* in, float* out, std::int64_t n);
void softmax_row_f32(const float* in, float* out, std::int64_t n);
void gelu_tanh_f32(const float* in, float* out, std::int64_t n);
void gelu_f64(const double* in, double* out, std::int64_t n);
void gelu_tanh_f64(const double* in, double* out, std::int64_t n);
void leaky_relu_f32(const float* in, float* out, std::int64_t n, float slope);
void elu_f32(const float* in, float* out, std::int64_t n, float negcoef, float poscoef,
             float negiptcoef);
void softplus_f32(const float* in, float* out, std::int64_t n, float beta, float threshold);
void pow_f32(const float* in, float* out, std::int64_t n, float exponent);
void mish_f32(const float* in, float* out, std::int64_t n);
void log_sigmoid_f32(const float* in, float* out, std::int64_t n);
void log_softmax_row_f32(const float* in, float* out, std::int64_t n);
void float_function_f32(FloatFunction f, const float* in, float* out, std::int64_t n);
void divide_f32(const float* a, const float* b, float* out, std::int64_t n);
void divide_f32(const float* a, float divisor, float* out, std::int64_t n);
void clamp_f32(const float* in, float* out, std::int64_t n, float lo, float hi);
}  // namespace avx2

namespace avx512 {
void exp_f32(const float* in, float* out, std::int64_t n);
void epilogue_planes_f32(float* p, std::int64_t rows, std::int64_t cols, const float* bias,
                         const float* scale, const float* shift, const Activation* activation);
void sigmoid_f32(const float* in, float* out, std::int64_t n);
void silu_f32(const float* in, float* out, std::int64_t n);
void tanh_f32(const float* in, float* out, std::int64_t n);
void hardswish_f32(const float* in, float* out, std::int64_t n);
void relu_f32(const float* in, float* out, std::int64_t n);
void relu6_f32(const float* in, float* out, std::int64_t n);
void hardsigmoid_f32(const float* in, float* out, std::int64_t n);
void epilogue_rows_f32(const Rows& rows, const float* bias, const float* scale, const float* shift,
                       const Activation* activation);
void epilogue_interleaved_f32(float* p, std::int64_t n, const float* scale, const float* shift,
                              const Activation* activation);
void scale_rows_f32(const float* in, const float* scales, float* out, std::int64_t rows,
                    std::int64_t cols);
void gelu_f32(const float* in, float* out, std::int64_t n);
void softmax_row_f32(const float* in, float* out, std::int64_t n);
void gelu_tanh_f32(const float* in, float* out, std::int64_t n);
void gelu_f64(const double* in, double* out, std::int64_t n);
void gelu_tanh_f64(const double* in, double* out, std::int64_t n);
void leaky_relu_f32(const float* in, float* out, std::int64_t n, float slope);
void elu_f32(const float* in, float* out, std::int64_t n, float negcoef, float poscoef,
             float negiptcoef);
void softplus_f32(const float* in, float* out, std::int64_t n, float beta, float threshold);
void pow_f32(const float* in, float* out, std::int64_t n, float exponent);
void mish_f32(const float* in, float* out, std::int64_t n);
void log_sigmoid_f32(const float* in, float* out, std::int64_t n);
void log_softmax_row_f32(const float* in, float* out, std::int64_t n);
void float_function_f32(FloatFunction f, const float* in, float* out, std::int64_t n);
void divide_f32(const float* a, const float* b, float* out, std::int64_t n);
void divide_f32(const float* a, float divisor, float* out, std::int64_t n);
void clamp_f32(const float* in, float* out, std::int64_t n, float lo, float hi);
}  // namespace avx512

}  // namespace symbolite::ops::vec
