// CPU features the SIMD paths and the hardware cross-checks depend on, read
// with CPUID (clang 14's __builtin_cpu_supports knows neither "f16c" nor
// "avx512bf16"). All false on non-x86 machines.
#pragma once

namespace num {

/// F16C: vcvtps2ph / vcvtph2ps.
bool cpu_has_f16c();
/// BMI2.
bool cpu_has_bmi2();
/// AVX512-BF16: vcvtneps2bf16 (AVX-512 F support is checked separately).
bool cpu_has_avx512bf16();

}  // namespace num
