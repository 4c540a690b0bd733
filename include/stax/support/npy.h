// NumPy .npy files, format 1.0 and 2.0 (3.0 read too), little-endian, C order; dtypes
// <f4 <f8 <i4 <i8 |b1. Anything else is a UserError saying what is wrong with which file.
#pragma once

#include <filesystem>
#include <string>

#include "stax/support/tensor.h"

namespace stax {

// Reads a whole .npy file. Errors name the file: cannot open, bad magic, unsupported version,
// malformed header, Fortran order, big-endian or unsupported dtype, truncated data, trailing
// bytes, a bool byte that is not 0 or 1.
Tensor read_npy(const std::filesystem::path& file);
// The same from bytes already in memory; `what` names them in errors.
Tensor parse_npy(const std::string& bytes, const std::string& what = "npy data");

// Writes `t` as NumPy does (format 1.0, or 2.0 when the header does not fit 1.0; data at a
// multiple of 64 bytes). Atomic: the bytes go to a temporary file in the same folder that is
// renamed over `file`, so a failed write never leaves a partial file. The folder must exist.
void write_npy(const std::filesystem::path& file, const Tensor& t);
// The file's bytes, exactly what `np.save` writes for the same array.
std::string serialize_npy(const Tensor& t);

}  // namespace stax
