#include "lab/op_context.hpp"

#include <cblas.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "fused_loops.hpp"
#include "libnum/cpu_features.hpp"
#include "sgemm_avx512.hpp"

namespace lab {

namespace {

// The one table of role names, in enum order.
constexpr std::array<std::string_view, tensor_role_count> role_names = {
    "activation", "grad_input", "grad_weight", "weight", "master_weight", "update", "optimizer_state"};

}  // namespace

std::string_view role_name(tensor_role role) { return role_names[static_cast<std::size_t>(role)]; }

std::optional<tensor_role> role_from_name(std::string_view name) {
  for (std::size_t i = 0; i < role_names.size(); ++i)
    if (role_names[i] == name) return static_cast<tensor_role>(i);
  return std::nullopt;
}

void apply_step_fp32(std::span<float> weight, const weight_step& step) {
  detail::fused_step(weight, step.direction, step.scale, step.keep);
}

void apply_decay_fp32(std::span<float> weight, float keep) {
  for (float& w : weight) w *= keep;
}

void add_scaled_fp32(std::span<const float> a, float s, std::span<const float> b, std::span<float> out) {
  detail::fused_add_scaled(a, s, b, out);
}

void requested_delta(const weight_step& step, std::span<float> delta) {
  for (std::size_t i = 0; i < delta.size(); ++i) delta[i] = step.scale * step.direction[i];
}

void op_context::update(const site& where, std::span<float> weight, const weight_step& step) const {
  if (weight.size() != step.direction.size()) throw std::logic_error("op_context::update: size mismatch");
  if (hook_ != nullptr) {
    hook_->update(where, weight, step);
    return;
  }
  apply_step_fp32(weight, step);
}

void op_context::add_scaled(const site& where, tensor_role role, std::span<const float> a, float s,
                            std::span<const float> b, std::span<float> out) const {
  if (a.size() != out.size() || b.size() != out.size()) throw std::logic_error("op_context::add_scaled: size mismatch");
  if (hook_ != nullptr) {
    hook_->add_scaled(where, role, a, s, b, out);
    return;
  }
  add_scaled_fp32(a, s, b, out);
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
