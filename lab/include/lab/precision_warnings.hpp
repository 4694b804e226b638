// Warnings about hyperparameters a precision policy cannot represent.
#pragma once

#include <string>
#include <vector>

#include "lab/optimizer.hpp"
#include "lab/precision_policy.hpp"

namespace lab {

/// One message per problem, e.g. "eps = 1e-08 rounds to 0 in fp16 ...":
/// Adam's eps when the optimizer runs in the low format (eps is added to a
/// rounded denominator, so an eps below half the smallest subnormal is lost
/// entirely and one below the smallest normal keeps few bits); the learning
/// rate (divided by the loss scale for loss_scale_method divide_lr) when
/// weights are stored in the format; divide_lr with a non-linear optimizer
/// (Adam); and partials_block without low partials.
std::vector<std::string> precision_warnings(const precision_policy& policy, const optimizer_settings& optimizer,
                                            double lr);

}  // namespace lab
