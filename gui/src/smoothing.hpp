// Smoothing of noisy curves (training loss) the way TensorBoard does it.
#pragma once

#include <span>
#include <vector>

namespace numlab_gui {

/// Exponential moving average with weight `weight` in [0, 1), debiased so
/// the first points are not pulled towards zero: s_i = m_i / (1 - w^(i+1))
/// where m_i = w m_(i-1) + (1 - w) x_i and m_(-1) = 0. Weight 0 returns the
/// input; non-finite inputs are passed through without entering the average.
std::vector<double> ema_smooth(std::span<const double> values, double weight);

}  // namespace numlab_gui
