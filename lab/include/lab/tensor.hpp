// fp32 tensors: a shape and a contiguous row-major buffer. Images are NCHW.
// A tensor is a value type (copying copies the data); ops take std::span views.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace lab {

/// Dimensions of a tensor, outermost first (NCHW for images, NF for features).
class shape {
 public:
  shape() = default;
  shape(std::initializer_list<std::size_t> dims) : dims_(dims) {}
  explicit shape(std::vector<std::size_t> dims) : dims_(std::move(dims)) {}

  /// Number of dimensions.
  [[nodiscard]] std::size_t rank() const { return dims_.size(); }
  /// Extent of dimension i (no bounds check beyond the vector's).
  [[nodiscard]] std::size_t operator[](std::size_t i) const { return dims_[i]; }
  /// Product of all extents (1 for rank 0).
  [[nodiscard]] std::size_t elements() const;
  /// Product of all extents but the first: the size of one sample.
  [[nodiscard]] std::size_t per_sample() const;
  /// The same shape with the first (batch) extent replaced by n.
  [[nodiscard]] shape with_batch(std::size_t n) const;
  /// The extents as a vector.
  [[nodiscard]] const std::vector<std::size_t>& dims() const { return dims_; }
  /// "[32, 1, 28, 28]", for messages.
  [[nodiscard]] std::string str() const;

  friend bool operator==(const shape&, const shape&) = default;

 private:
  std::vector<std::size_t> dims_;
};

/// A shape plus its fp32 values, contiguous and row-major.
class tensor {
 public:
  tensor() = default;
  /// A zero-filled tensor of the given shape.
  explicit tensor(lab::shape s) : shape_(std::move(s)), size_(shape_.elements()), data_(size_, 0.0f) {}

  [[nodiscard]] const lab::shape& shape() const { return shape_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] float* data() { return data_.data(); }
  [[nodiscard]] const float* data() const { return data_.data(); }
  [[nodiscard]] std::span<float> values() { return {data_.data(), size_}; }
  [[nodiscard]] std::span<const float> values() const { return {data_.data(), size_}; }
  float& operator[](std::size_t i) { return data_[i]; }
  float operator[](std::size_t i) const { return data_[i]; }

  /// Gives the tensor a new shape, keeping the allocation when it is big
  /// enough (buffers that alternate between shapes are not re-zeroed on
  /// every call); contents are unspecified afterwards (callers overwrite).
  void resize(const lab::shape& s);
  /// Changes the shape without touching data; element counts must agree.
  void reshape(const lab::shape& s);
  /// Sets every element to zero.
  void zero();

 private:
  lab::shape shape_;
  std::size_t size_ = 0;     // shape_.elements(); data_ may be longer
  std::vector<float> data_;
};

}  // namespace lab
