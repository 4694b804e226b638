#include "lab/op_context.hpp"

#include <cblas.h>

#include "libnum/cpu_features.hpp"

#include <cstddef>
#include <stdexcept>

#include "sgemm_avx512.hpp"

namespace lab {

std::string_view role_name(tensor_role role) {
  switch (role) {
    case tensor_role::activation: return "activation";
    case tensor_role::grad_input: return "grad_input";
    case tensor_role::grad_weight: return "grad_weight";
    case tensor_role::weight: return "weight";
    case tensor_role::master_weight: return "master_weight";
    case tensor_role::update: return "update";
    case tensor_role::optimizer_state: return "optimizer_state";
  }
  return "unknown";
}

void op_context::update(const site& where, std::span<float> weight, std::span<const float> delta) const {
  if (weight.size() != delta.size()) throw std::logic_error("op_context::update: size mismatch");
  if (hook_ != nullptr) {
    hook_->update(where, weight, delta);
    return;
  }
  for (std::size_t i = 0; i < weight.size(); ++i) weight[i] += delta[i];
}

void sgemm(const gemm_args& g) {
  // Checked here, in a file compiled without AVX-512 flags.
  const num::cpu_features& cpu = num::host_cpu();
  if (cpu.avx512f && cpu.avx512dq && cpu.avx2 && cpu.fma) {
    detail::sgemm_avx512(g);
    return;
  }
  cblas_sgemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans, g.trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(g.m), static_cast<int>(g.n), static_cast<int>(g.k), 1.0f, g.a, static_cast<int>(g.lda),
              g.b, static_cast<int>(g.ldb), g.beta, g.c, static_cast<int>(g.ldc));
}

}  // namespace lab
