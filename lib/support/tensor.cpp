#include "stax/support/tensor.h"

#include <unistd.h>

#include <cmath>

#include "stax/support/error.h"

namespace stax {

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

Tensor::Tensor(DType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)),
      bytes_(std::make_shared<std::vector<unsigned char>>(static_cast<std::size_t>(shape_numel(shape_)) * dtype_size(dtype), 0)) {}

std::vector<unsigned char>& Tensor::own() {
  if (!bytes_) bytes_ = std::make_shared<std::vector<unsigned char>>();
  else if (bytes_.use_count() > 1) bytes_ = std::make_shared<std::vector<unsigned char>>(*bytes_);
  return *bytes_;
}

double Tensor::get_double(int64_t i) const {
  switch (dtype_) {
    case DType::Float32: return data_as<float>()[i];
    case DType::Float64: return data_as<double>()[i];
    case DType::Int32: return data_as<int32_t>()[i];
    case DType::Int64: return static_cast<double>(data_as<int64_t>()[i]);
    case DType::Bool: return data()[i] ? 1.0 : 0.0;
  }
  return 0;
}

int64_t Tensor::get_int(int64_t i) const {
  switch (dtype_) {
    case DType::Float32: return static_cast<int64_t>(data_as<float>()[i]);
    case DType::Float64: return static_cast<int64_t>(data_as<double>()[i]);
    case DType::Int32: return data_as<int32_t>()[i];
    case DType::Int64: return data_as<int64_t>()[i];
    case DType::Bool: return data()[i] ? 1 : 0;
  }
  return 0;
}

bool Tensor::get_bool(int64_t i) const {
  switch (dtype_) {
    case DType::Float32: return data_as<float>()[i] != 0.0f;
    case DType::Float64: return data_as<double>()[i] != 0.0;
    case DType::Int32: return data_as<int32_t>()[i] != 0;
    case DType::Int64: return data_as<int64_t>()[i] != 0;
    case DType::Bool: return data()[i] != 0;
  }
  return false;
}

void Tensor::set_double(int64_t i, double v) {
  switch (dtype_) {
    case DType::Float32: data_as<float>()[i] = static_cast<float>(v); return;
    case DType::Float64: data_as<double>()[i] = v; return;
    case DType::Int32:
    case DType::Int64:
      STAX_ASSERT(std::isfinite(v), "set_double of a non-finite value on an integer tensor");
      set_int(i, static_cast<int64_t>(v));
      return;
    case DType::Bool: data()[i] = v != 0.0; return;
  }
}

void Tensor::set_int(int64_t i, int64_t v) {
  switch (dtype_) {
    case DType::Float32: data_as<float>()[i] = static_cast<float>(v); return;
    case DType::Float64: data_as<double>()[i] = static_cast<double>(v); return;
    case DType::Int32: data_as<int32_t>()[i] = static_cast<int32_t>(static_cast<uint32_t>(v)); return;
    case DType::Int64: data_as<int64_t>()[i] = v; return;
    case DType::Bool: data()[i] = v != 0; return;
  }
}

void Tensor::set_bool(int64_t i, bool v) { set_int(i, v ? 1 : 0); }

uint64_t physical_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

void check_memory_available(uint64_t bytes, const std::string& what) {
  const uint64_t machine = physical_memory_bytes();
  if (machine == 0 || bytes <= machine) return;
  throw UserError(what + " needs " + (bytes == UINT64_MAX ? std::string("more than 2^64") : std::to_string(bytes)) +
                  " bytes of memory at once, more than this machine has (" + std::to_string(machine) + " bytes)");
}

}  // namespace stax
