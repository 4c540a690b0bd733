// The tensors that go into and come out of one evaluation of a graph, as files: the inputs a
// user gives as .npy files, the ones generated from a seed for the rest, and the folder layout
// the commands write (DIR/inputs/NAME.npy, DIR/NAME.npy). Shared by `interpret`, `run` and
// `check`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "stax/graph/graph.h"
#include "stax/support/tensor.h"

namespace stax::driver {

// One `--input NAME=FILE` of the command line.
struct InputFile {
  std::string name;
  std::filesystem::path file;
};

// Splits "NAME=FILE" at the first '='. UserError when there is no '=' or a side is empty.
InputFile parse_input_spec(std::string_view spec);

// The graph's inputs in graph input order. Those named in `given` are read from their .npy file
// and must have exactly the declared dtype and shape; the rest are random_tensor(dtype, shape,
// seed, stream = the input's position). UserError (naming the input and the file) for an
// unreadable or mismatched file, a name that is not an input of the graph, or a name given twice.
std::vector<Tensor> prepare_inputs(const graph::Graph& g, const std::vector<InputFile>& given,
                                   uint64_t seed);

// Writes inputs[k] to DIR/inputs/NAME.npy (creating the folders) and returns the paths, in
// graph input order.
std::vector<std::filesystem::path> write_inputs(const std::filesystem::path& dir,
                                                const graph::Graph& g,
                                                const std::vector<Tensor>& inputs);

// Writes outputs[k] to DIR/NAME.npy (creating DIR) and returns one path per output in graph
// output order; an output named twice is written once and its path returned twice.
std::vector<std::filesystem::path> write_outputs(const std::filesystem::path& dir,
                                                 const graph::Graph& g,
                                                 const std::vector<Tensor>& outputs);

}  // namespace stax::driver
