// libFuzzer harness of the .npy reader: any bytes either are refused with a stax::UserError
// naming what is wrong, or read into a tensor that writes back to bytes which read to the same
// tensor. Anything else (another exception, a crash, a sanitizer report) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "stax/support/error.h"
#include "stax/support/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  stax::Tensor t;
  try {
    t = stax::parse_npy(bytes, "fuzz.npy");
  } catch (const stax::UserError&) {
    return 0;
  }
  stax::Tensor back = stax::parse_npy(stax::serialize_npy(t), "written");
  if (back.dtype() != t.dtype() || back.shape() != t.shape() || back.nbytes() != t.nbytes() ||
      (t.nbytes() > 0 && std::memcmp(back.data(), t.data(), t.nbytes()) != 0))
    std::abort();  // the writer and the reader disagree
  return 0;
}
