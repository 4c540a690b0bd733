// The program the model tests build around a generated model named `model`: model_main IN OUT
// reads input 0's raw bytes from IN, calls model_run with a caller workspace and writes output
// 0's raw bytes to OUT. Exit status 0, 2 for its own failures, 10 + the C API's error code.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "model.h"

namespace {

size_t bytes_of(int dtype, int ndim, const int64_t* shape) {
  size_t n = dtype == STAX_FLOAT64 || dtype == STAX_INT64 ? 8 : dtype == STAX_BOOL ? 1 : 4;
  for (int d = 0; d < ndim; ++d) n *= static_cast<size_t>(shape[d]);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || model_num_inputs() != 1 || model_num_outputs() != 1) return 2;
  std::vector<unsigned char> in(bytes_of(model_input_dtype(0), model_input_ndim(0), model_input_shape(0)));
  std::vector<unsigned char> out(bytes_of(model_output_dtype(0), model_output_ndim(0), model_output_shape(0)));
  FILE* f = std::fopen(argv[1], "rb");
  if (f == nullptr || std::fread(in.data(), 1, in.size(), f) != in.size()) return 2;
  std::fclose(f);
  void* workspace = std::aligned_alloc(model_WORKSPACE_ALIGNMENT, (model_WORKSPACE_SIZE + 64) / 64 * 64);
  const void* inputs[] = {in.data()};
  void* outputs[] = {out.data()};
  const int rc = model_run(inputs, outputs, workspace);
  std::free(workspace);
  if (rc != STAX_OK) return 10 + rc;
  f = std::fopen(argv[2], "wb");
  if (f == nullptr || std::fwrite(out.data(), 1, out.size(), f) != out.size()) return 2;
  return std::fclose(f) == 0 ? 0 : 2;
}
