// A thread's floating-point control: on x86 the control bits of the SSE control and status
// register (MXCSR): rounding mode, exception masks, flush-to-zero and denormals-are-zero.
// It is per thread, so two uses:
//  - parallel_for runs every range under its caller's control, so a host application's
//    setting (or a kernel's, below) holds on the workers too and results do not depend on
//    the thread count;
//  - float32 matrix products read subnormal operands as zero (SubnormalOperandsAsZero):
//    a product with subnormal inputs (an attention's softmax weights of e^-90) runs 5-20x
//    slower on x86, which handles each such input in microcode. The result differs from the
//    exact one by at most 2^-126 x (the sum of the other factors' magnitudes) per element
//    (README, "Where symbolite deliberately differs").
// Elsewhere (another architecture) the control is a constant 0 and setting it does nothing.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace symbolite {

using FloatControl = std::uint32_t;

#if defined(__x86_64__) || defined(__i386__)
// MXCSR bits 0-5 are sticky exception flags (status, not control): left out, so controls
// compare equal whatever a thread's computations raised.
inline constexpr FloatControl kFloatStatusBits = 0x3F;
inline constexpr FloatControl kDenormalsAreZero = 0x40;

inline FloatControl current_float_control() { return _mm_getcsr() & ~kFloatStatusBits; }
// Keeps the thread's exception flags; replaces every control bit.
inline void set_float_control(FloatControl control) {
  _mm_setcsr((_mm_getcsr() & kFloatStatusBits) | (control & ~kFloatStatusBits));
}
#else
inline constexpr FloatControl kDenormalsAreZero = 0;
inline FloatControl current_float_control() { return 0; }
inline void set_float_control(FloatControl) {}
#endif

// Sets the calling thread's control for a scope and restores it after; writes the register
// only when the control differs (a write costs tens of cycles).
class ScopedFloatControl {
 public:
  explicit ScopedFloatControl(FloatControl control) : previous_(current_float_control()) {
    if (control != previous_) {
      set_float_control(control);
      changed_ = true;
    }
  }
  ~ScopedFloatControl() {
    if (changed_) set_float_control(previous_);
  }
  ScopedFloatControl(const ScopedFloatControl&) = delete;
  ScopedFloatControl& operator=(const ScopedFloatControl&) = delete;

 private:
  FloatControl previous_;
  bool changed_ = false;
};

// The float32 matrix products' setting (ops/cpu/gemm.cpp, onednn_matmul.cpp): the current
// control with denormals-are-zero added. Results that are subnormal stay subnormal (no
// flush-to-zero): only inputs are read as zero.
class SubnormalOperandsAsZero {
 public:
  SubnormalOperandsAsZero() : scope_(current_float_control() | kDenormalsAreZero) {}

 private:
  ScopedFloatControl scope_;
};

}  // namespace symbolite
