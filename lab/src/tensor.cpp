#include "lab/tensor.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <stdexcept>

#include "lab/errors.hpp"

namespace lab {

std::size_t shape::elements() const {
  return std::accumulate(dims_.begin(), dims_.end(), std::size_t{1}, std::multiplies<>());
}

std::size_t shape::per_sample() const {
  if (dims_.empty()) return 1;
  return std::accumulate(dims_.begin() + 1, dims_.end(), std::size_t{1}, std::multiplies<>());
}

shape shape::with_batch(std::size_t n) const {
  auto d = dims_;
  if (d.empty()) d.push_back(n); else d[0] = n;
  return shape(std::move(d));
}

std::string shape::str() const {
  std::string s = "[";
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

void tensor::resize(const lab::shape& s) {
  shape_ = s;
  data_.resize(s.elements());
}

void tensor::reshape(const lab::shape& s) {
  if (s.elements() != data_.size())
    throw std::logic_error("tensor::reshape: " + shape_.str() + " cannot become " + s.str());
  shape_ = s;
}

void tensor::zero() { std::fill(data_.begin(), data_.end(), 0.0f); }

}  // namespace lab
