// The scalar special functions behind torch.special, torch.erfinv, digamma and polygamma,
// computed with PyTorch 1.13's own algorithms and coefficients
// (aten/src/ATen/native/Math.h: Cephes' Chebyshev series and rational approximations, the
// Faddeeva package's erfcx, Pavlis' erfinv), in the same precision, so results agree with
// PyTorch's to rounding, edges included (poles, ±1, ±inf, NaN).
// Each is defined for float and double.
#pragma once

#include <cstdint>
#include <limits>

namespace symbolite::ops::special {

// Infinity and NaN of T, as the algorithms' sources write them.
template <typename T>
inline constexpr T kInf = std::numeric_limits<T>::infinity();
template <typename T>
inline constexpr T kNan = std::numeric_limits<T>::quiet_NaN();

// The inverse of erf: ±inf at ±1, NaN outside [-1, 1].
template <typename T>
T erfinv(T y);

// psi(x) = d/dx log Γ(x): ∓inf at ±0, NaN at negative integers and -inf.
template <typename T>
T digamma(T x);

// The n-th derivative of digamma (n >= 0): digamma, trigamma, then
// (-1)^(n+1) n! zeta(n + 1, x).
template <typename T>
T polygamma(std::int64_t n, T x);

// The Hurwitz zeta function sum_k (k + q)^-x (computed in double, as PyTorch's CPU kernel).
template <typename T>
T zeta(T x, T q);

// Modified Bessel functions of the first kind, orders 0 and 1, and their exponentially
// scaled forms exp(-|x|) I(x).
template <typename T>
T i0(T x);
template <typename T>
T i0e(T x);
template <typename T>
T i1(T x);
template <typename T>
T i1e(T x);

// The inverse of the standard normal CDF: -inf at 0, inf at 1, NaN outside [0, 1].
template <typename T>
T ndtri(T y);

// exp(x^2) erfc(x), without overflow or cancellation for large |x|.
template <typename T>
T erfcx(T x);

// log of the standard normal CDF, accurate far into the lower tail.
template <typename T>
T log_ndtr(T x);

// The regularized lower and upper incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x)
// (NaN for negative a or x; defined in incomplete_gamma.cpp).
template <typename T>
T igamma(T a, T x);
template <typename T>
T igammac(T a, T x);

}  // namespace symbolite::ops::special
