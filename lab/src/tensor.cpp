#include "lab/tensor.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <stdexcept>


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
  size_ = s.elements();
  if (data_.size() < size_) data_.resize(size_);
}

void tensor::reshape(const lab::shape& s) {
  if (s.elements() != size_)
    throw std::logic_error("tensor::reshape: " + shape_.str() + " cannot become " + s.str());
  shape_ = s;
}

void tensor::zero() { std::fill(data_.begin(), data_.begin() + static_cast<std::ptrdiff_t>(size_), 0.0f); }

}  // namespace lab
