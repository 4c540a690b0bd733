// NumPy .npy files, format 1.0 and 2.0 (3.0 read too), little-endian, C order; dtypes
// <f4 <f8 <i4 <i8 |b1. Anything else is a UserError saying what is wrong with which file.
#pragma once

#include <filesystem>
#include <string>

#include "stax/support/tensor.h"

namespace stax {

Tensor read_npy(const std::filesystem::path& file);
Tensor parse_npy(const std::string& bytes, const std::string& what = "npy data");
void write_npy(const std::filesystem::path& file, const Tensor& t);
std::string serialize_npy(const Tensor& t);

}  // namespace stax
