// oneDNN as Debian builds it runs its parallel regions on OpenMP (libgomp, which it loads
// anyway). Its threads would be a second pool beside symbolite's, and OpenMP's idle threads
// spin for a while after each region, taking the cores symbolite's workers need for the next
// operator. So every oneDNN call (gemm.cpp's products, onednn_conv.cpp's convolutions) runs
// on one OpenMP thread under a SingleOpenMpThread — a per-thread setting, set for the calling
// thread only and restored, so a host application's own OpenMP use keeps its setting — and
// symbolite splits the work across its own pool (support/parallel_for.h).
#pragma once

// Declared here rather than through <omp.h>, which clang does not ship without libomp-dev;
// these are the OpenMP C API's own signatures.
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int num_threads);
}

namespace symbolite::ops {

class SingleOpenMpThread {
 public:
  SingleOpenMpThread() : previous_(omp_get_max_threads()) {
    if (previous_ != 1) omp_set_num_threads(1);
  }
  ~SingleOpenMpThread() {
    if (previous_ != 1) omp_set_num_threads(previous_);
  }
  SingleOpenMpThread(const SingleOpenMpThread&) = delete;
  SingleOpenMpThread& operator=(const SingleOpenMpThread&) = delete;

 private:
  int previous_;
};

}  // namespace symbolite::ops
