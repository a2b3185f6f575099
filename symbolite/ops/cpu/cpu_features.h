// What the CPU running this process supports, checked once: kernels that have an AVX-512
// build (strided copies, running maxima, one-row products) pick it at run time, so one binary
// runs on any x86-64 and at full width where it can.
#pragma once

namespace symbolite::ops {

bool cpu_has_avx512f();
// AVX2 and FMA both (GCC's x86-64-v3 vector instructions): the 8-lane builds.
bool cpu_has_avx2_fma();

}  // namespace symbolite::ops
