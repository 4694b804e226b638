#include "libnum/cpu_features.hpp"

#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <xmmintrin.h>
#endif

namespace num {
namespace {

std::atomic<int> probes{0};

#if defined(__x86_64__) || defined(__i386__)
struct cpuid_registers {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

cpuid_registers cpuid(unsigned leaf, unsigned subleaf, unsigned max_leaf) {
  cpuid_registers r;
  if (leaf <= max_leaf) __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

bool bit(unsigned reg, unsigned n) { return (reg >> n & 1u) != 0; }

// XCR0: which register states the OS saves (and so lets programs use).
unsigned long long enabled_register_state() {
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}
#endif

cpu_features probe() {
  probes.fetch_add(1, std::memory_order_relaxed);
  cpu_features f;
#if defined(__x86_64__) || defined(__i386__)
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  const cpuid_registers leaf1 = cpuid(1, 0, max_leaf);
  const bool osxsave = bit(leaf1.ecx, 27);
  const bool avx = bit(leaf1.ecx, 28);
  const unsigned long long xcr0 = osxsave ? enabled_register_state() : 0;
  const bool avx_state = avx && (xcr0 & 0x6) == 0x6;             // SSE and AVX state
  const bool avx512_state = avx_state && (xcr0 & 0xE0) == 0xE0;  // opmask, ZMM0-15 upper, ZMM16-31
  const cpuid_registers leaf7 = cpuid(7, 0, max_leaf);
  const cpuid_registers leaf7_1 = leaf7.eax >= 1 ? cpuid(7, 1, max_leaf) : cpuid_registers{};
  f.f16c = avx_state && bit(leaf1.ecx, 29);
  f.fma = avx_state && bit(leaf1.ecx, 12);
  f.avx2 = avx_state && bit(leaf7.ebx, 5);
  f.bmi2 = bit(leaf7.ebx, 8);
  f.avx512f = avx512_state && bit(leaf7.ebx, 16);
  f.avx512dq = avx512_state && bit(leaf7.ebx, 17);
  f.avx512bw = avx512_state && bit(leaf7.ebx, 30);
  f.avx512vl = avx512_state && bit(leaf7.ebx, 31);
  f.avx512bf16 = avx512_state && bit(leaf7_1.eax, 5);
#endif
  return f;
}

}  // namespace

const cpu_features& host_cpu() {
  static const cpu_features features = probe();
  return features;
}

int cpu_feature_probes() { return probes.load(std::memory_order_relaxed); }

bool mxcsr_flushes_subnormals() {
#if defined(__x86_64__) || defined(__i386__)
  constexpr unsigned flush_to_zero = 0x8000, denormals_are_zero = 0x0040;
  return (_mm_getcsr() & (flush_to_zero | denormals_are_zero)) != 0;
#else
  return false;
#endif
}

bool mxcsr_rounds_to_nearest() {
#if defined(__x86_64__) || defined(__i386__)
  constexpr unsigned rounding_control = 0x6000;
  return (_mm_getcsr() & rounding_control) == 0;
#else
  return true;
#endif
}

}  // namespace num
