// ONNX tensors and element types as stax sees them: TensorProto -> Tensor (raw or typed data,
// or external data beside the model), the element types both share. Not a public header.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "onnx/onnx_pb.h"
#include "stax/support/tensor.h"

namespace stax::importer::detail {

// FLOAT, DOUBLE, INT32, INT64, BOOL -> their stax dtype; nullopt for the others.
std::optional<DType> dtype_from_onnx(int32_t elem_type);
// The ONNX name of an element type ("float16", "uint8", ...), for messages.
std::string onnx_type_name(int32_t elem_type);

// Where a tensor comes from, for messages: a GraphError at `path` (with `node`/`op` when it is
// a node's attribute) saying `what` ("initializer 'w'", "attribute 'value'").
struct TensorSite {
  std::string path, node, op, what;
  [[noreturn]] void fail(const std::string& message) const;
};

// The contents of `t`: raw_data (little-endian) or the typed field, or its external data, read
// from `model_dir`. GraphError (at `site`) for an unsupported element type, a negative dim, data
// of the wrong length, an external location outside `model_dir` or past the end of its file;
// UserError when an external data file is missing or unreadable.
Tensor tensor_from_proto(const onnx::TensorProto& t, const std::filesystem::path& model_dir,
                         const TensorSite& site);

}  // namespace stax::importer::detail
