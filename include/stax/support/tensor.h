// A dense row-major tensor that owns its bytes: the currency of constants, .npy files, the
// reference interpreter and the tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "stax/support/dtype.h"

namespace stax {

using Shape = std::vector<int64_t>;

// Product of the dims (1 for a 0-d shape).
int64_t shape_numel(const Shape& shape);
// "[64, 128]"
std::string shape_str(const Shape& shape);

// Bytes of physical memory of this machine (0 when the system does not say).
uint64_t physical_memory_bytes();
// Throws UserError when `bytes`, what `what` needs at once ("interpreting graph 'g'"), is more
// than this machine's physical memory: said before any of it is allocated, rather than failing
// midway with std::bad_alloc or being killed by the system.
void check_memory_available(uint64_t bytes, const std::string& what);
// a + b, or UINT64_MAX when it overflows (sums of tensor sizes compared with a limit).
inline uint64_t add_saturating(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor.
  Tensor(DType dtype, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return shape_numel(shape_); }
  std::size_t nbytes() const { return bytes_ ? bytes_->size() : 0; }

  // Writable bytes make them this tensor's alone first (see bytes_).
  unsigned char* data() { return own().data(); }
  const unsigned char* data() const { return bytes_ ? bytes_->data() : nullptr; }
  template <typename T> T* data_as() { return reinterpret_cast<T*>(data()); }
  template <typename T> const T* data_as() const { return reinterpret_cast<const T*>(data()); }

  // Element access converting from/to the tensor's dtype (flat row-major index).
  double get_double(int64_t i) const;
  int64_t get_int(int64_t i) const;  // floats truncate toward zero (in range only)
  bool get_bool(int64_t i) const;    // nonzero
  void set_double(int64_t i, double v);  // rounds to float32 for float32 tensors
  void set_int(int64_t i, int64_t v);    // wraps to the width of int32; bool: v != 0
  void set_bool(int64_t i, bool v);

 private:
  DType dtype_ = DType::Float32;
  Shape shape_;
  // The bytes, shared by the copies of a tensor until one of them asks for writable ones (copy on
  // write): a model's constants pass from stage to stage of the compiler (batch norms folded,
  // composites expanded, lowering) in copies of its graph without their data being copied.
  std::shared_ptr<std::vector<unsigned char>> bytes_;
  std::vector<unsigned char>& own();
};

}  // namespace stax
