#include "lab/loss.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "lab/errors.hpp"

namespace lab {

float softmax_cross_entropy(const op_context& ctx, const tensor& logits, std::span<const std::int32_t> labels,
                            float label_smoothing, float grad_scale, tensor& grad_logits) {
  const auto& s = logits.shape();
  if (s.rank() != 2 || s[0] != labels.size())
    throw input_error("softmax_cross_entropy: logits " + s.str() + " do not match " + std::to_string(labels.size()) +
                      " labels");
  const std::size_t n = s[0], k = s[1];
  grad_logits.resize(s);
  const float off = label_smoothing / static_cast<float>(k);
  const float on = 1.0f - label_smoothing + off;
  const float inv_n = grad_scale / static_cast<float>(n);
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t label = labels[i];
    if (label < 0 || static_cast<std::size_t>(label) >= k)
      throw input_error("softmax_cross_entropy: label " + std::to_string(label) + " outside [0, " +
                        std::to_string(k) + ")");
    const float* z = logits.data() + i * k;
    float* g = grad_logits.data() + i * k;
    const float zmax = *std::max_element(z, z + k);
    double sum = 0.0;
    for (std::size_t j = 0; j < k; ++j) {
      g[j] = std::exp(z[j] - zmax);
      sum += g[j];
    }
    const double log_sum = std::log(sum);
    double loss = 0.0;
    const auto inv_sum = static_cast<float>(1.0 / sum);
    for (std::size_t j = 0; j < k; ++j) {
      const float q = static_cast<std::size_t>(label) == j ? on : off;
      const double log_p = static_cast<double>(z[j] - zmax) - log_sum;
      // A class with weight 0 adds nothing even where log_p = -inf (PyTorch's
      // nll_loss reads only the label's entry when smoothing is off).
      if (q != 0.0f) loss -= q * log_p;
      g[j] = (g[j] * inv_sum - q) * inv_n;
    }
    total += loss;
  }
  float mean = static_cast<float>(total / static_cast<double>(n));
  ctx.produce({"loss", "softmax_cross_entropy", op_class::loss, "loss"}, tensor_role::activation, std::span<float>(&mean, 1));
  ctx.produce({"loss", "softmax_cross_entropy", op_class::loss, "grad_input"}, tensor_role::grad_input, grad_logits.values());
  return mean;
}

float mean_squared_error(const op_context& ctx, const tensor& prediction, const tensor& target, float grad_scale,
                         tensor& grad_prediction) {
  if (prediction.shape() != target.shape())
    throw input_error("mean_squared_error: prediction " + prediction.shape().str() + " and target " +
                      target.shape().str() + " differ");
  const std::size_t n = prediction.size();
  grad_prediction.resize(prediction.shape());
  double total = 0.0;
  const float g_scale = 2.0f * grad_scale / static_cast<float>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float d = prediction[i] - target[i];
    total += static_cast<double>(d) * d;
    grad_prediction[i] = g_scale * d;
  }
  float mean = static_cast<float>(total / static_cast<double>(n));
  ctx.produce({"loss", "mse", op_class::loss, "loss"}, tensor_role::activation, std::span<float>(&mean, 1));
  ctx.produce({"loss", "mse", op_class::loss, "grad_input"}, tensor_role::grad_input, grad_prediction.values());
  return mean;
}

loss_kind loss_kind_named(std::string_view name) {
  if (name == "cross_entropy") return loss_kind::cross_entropy;
  if (name == "mse") return loss_kind::mse;
  throw input_error("unknown loss '" + std::string(name) + "' (known: cross_entropy, mse)");
}

float classification_loss(const op_context& ctx, loss_kind kind, const tensor& logits,
                          std::span<const std::int32_t> labels, float label_smoothing, float grad_scale,
                          tensor& grad_logits) {
  if (kind == loss_kind::cross_entropy)
    return softmax_cross_entropy(ctx, logits, labels, label_smoothing, grad_scale, grad_logits);
  const auto& s = logits.shape();
  if (s.rank() != 2 || s[0] != labels.size())
    throw input_error("mean_squared_error: logits " + s.str() + " do not match " + std::to_string(labels.size()) +
                      " labels");
  const std::size_t classes = s[1];
  tensor targets({labels.size(), classes});
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || static_cast<std::size_t>(labels[i]) >= classes)
      throw input_error("mean_squared_error: label " + std::to_string(labels[i]) + " outside [0, " +
                        std::to_string(classes) + ")");
    targets[i * classes + static_cast<std::size_t>(labels[i])] = 1.0f;
  }
  return mean_squared_error(ctx, logits, targets, grad_scale, grad_logits);
}

}  // namespace lab
