// The instruction-set extensions of the machine this process runs on, read
// once per process. Every runtime dispatcher (libnum's array and statistics
// kernels, lab's GEMMs and element loops) asks host_cpu() instead of
// executing CPUID itself: in a virtual machine CPUID traps to the hypervisor
// and costs microseconds, far more than a short array call.
#pragma once

namespace num {

/// What the CPU and the operating system both support (AVX and AVX-512
/// register state must be enabled by the OS, checked with XGETBV). All false
/// on non-x86 machines.
struct cpu_features {
  bool avx2 = false;
  bool f16c = false;        ///< vcvtps2ph / vcvtph2ps
  bool fma = false;
  bool bmi2 = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512bf16 = false;  ///< vcvtneps2bf16 (AVX512-BF16)
};

/// This machine's features, probed with CPUID on the first call (thread-safe)
/// and returned from memory on every later one.
const cpu_features& host_cpu();

/// How many times this process has executed the CPUID probe: 1 once
/// host_cpu() has been called, never more. Tests use it to show that array
/// calls do not query the CPU.
int cpu_feature_probes();

/// Whether the calling thread's MXCSR flushes subnormal results to zero (FTZ)
/// or reads subnormal operands as zero (DAZ), as -ffast-math start-up code or
/// torch.set_flush_denormal(True) leave it. The CPU's own conversions
/// (vcvtps2ph, vcvtpd2ps) then differ from the core's rounding on subnormals,
/// so the kernels that use them ask on every call: the MXCSR is per thread and
/// a program may change it at any time (one stmxcsr, a nanosecond or two).
/// False on non-x86 machines.
bool mxcsr_flushes_subnormals();
/// Whether the calling thread's MXCSR rounds to nearest (its RC field 00),
/// which kernels that take the rounding of the CPU's fp32/fp64 arithmetic
/// need for nearest-even results. Asked per call, as above. True on non-x86
/// machines.
bool mxcsr_rounds_to_nearest();

}  // namespace num
