// Host-side tensors: a shape and dtype (tensor_desc) and an owned, 64-byte aligned buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace kjudge {

struct tensor_desc {
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::int64_t> shape;

  [[nodiscard]] std::size_t numel() const;
  [[nodiscard]] std::size_t nbytes() const { return numel() * dtype_size(type); }
  [[nodiscard]] std::string shape_string() const;  // "[64, 256]"
  // Row-major contiguous strides in elements.
  [[nodiscard]] std::vector<std::int64_t> contiguous_strides() const;
  // Length of the last dimension of extent other than 1 (1 for a scalar or all-ones shape); the
  // oracle's notion of a "row".
  [[nodiscard]] std::size_t row_length() const;
};

struct aligned_free {
  bool owned = true;  // false: the bytes belong to someone else (host_tensor::borrowed)
  void operator()(void* p) const noexcept;
};

class host_tensor {
 public:
  host_tensor() = default;
  explicit host_tensor(tensor_desc desc);
  // A tensor over bytes it does not own (a worker's arena): no copy, no allocation. The caller
  // keeps the bytes alive and unchanged for the tensor's life.
  static host_tensor borrowed(tensor_desc desc, void* data);

  [[nodiscard]] const tensor_desc& desc() const { return m_desc; }
  [[nodiscard]] void* data() { return m_data.get(); }
  [[nodiscard]] const void* data() const { return m_data.get(); }
  [[nodiscard]] std::size_t numel() const { return m_desc.numel(); }
  [[nodiscard]] std::size_t nbytes() const { return m_desc.nbytes(); }
  [[nodiscard]] double get(std::size_t i) const { return load_as_double(data(), m_desc.type, i); }
  void set(std::size_t i, double v) { store_from_double(data(), m_desc.type, i, v); }
  // A copy with every element converted to dtype t (through double).
  [[nodiscard]] host_tensor converted(dtype t) const;
  // kj_tensor view (data pointer, dtype, contiguous strides).
  [[nodiscard]] kj_tensor view();

 private:
  tensor_desc m_desc;
  std::unique_ptr<std::byte, aligned_free> m_data;
};

// Bytes allocated with 64-byte alignment, at least n (rounded up to 64).
std::unique_ptr<std::byte, aligned_free> aligned_bytes(std::size_t n);

// kj_tensor for a desc over an existing buffer.
kj_tensor make_kj_tensor(const tensor_desc& d, void* data);

}  // namespace kjudge
