#include "stax/driver/build.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "stax/driver/compile.h"
#include "stax/driver/process.h"

namespace stax::driver {

namespace fs = std::filesystem;

namespace {

void write_raw(const fs::path& file, const Tensor& t) {
  write_file_atomic(file, std::string(reinterpret_cast<const char*>(t.data()), t.nbytes()));
}

}  // namespace

std::vector<std::string> default_cxxflags() {
  return {"-std=c++17", "-O3", "-march=native", "-fopenmp"};
}

std::vector<std::string> split_flags(const std::string& flags) {
  std::vector<std::string> out;
  std::istringstream in(flags);
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

std::string build_compiler(const BuildOptions& opts) {
  if (!opts.cxx.empty()) return opts.cxx;
  const char* env = std::getenv("CXX");
  return env != nullptr && *env != '\0' ? env : "g++";
}

std::vector<std::string> build_flags(const BuildOptions& opts) {
  return opts.cxxflags.empty() ? default_cxxflags() : opts.cxxflags;
}

void build_program(const BuildOptions& opts, const fs::path& main, const fs::path& exe, const fs::path& log,
                   const std::string& what) {
  std::vector<std::string> argv = {build_compiler(opts)};
  const std::vector<std::string> flags = build_flags(opts);
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-o", exe.string(), main.string(), "-lsleef"});
  const ProcessResult r = run_process(argv, log);
  if (r.exit_code == 0) return;
  std::cerr << r.output;
  std::cerr.flush();
  throw RuntimeFailure(what + " failed to build (" + argv[0] + " exited with status " + std::to_string(r.exit_code) +
                       "; its messages are above): " + command_line(argv));
}

void check_harness_exit(const ProcessResult& r, const std::string& model, const std::string& what) {
  if (r.exit_code == 0) return;
  std::string message = r.output;
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
  if (r.exit_code >= kHarnessApiBase && r.exit_code < kHarnessApiBase + 16)
    throw GeneratedCodeError(r.exit_code - kHarnessApiBase, "generated code of '" + model + "': " + message);
  std::cerr << r.output;
  std::cerr.flush();
  throw RuntimeFailure(what + " (" +
                       (r.exit_code > 128 ? "killed by signal " + std::to_string(r.exit_code - 128)
                                          : "exit status " + std::to_string(r.exit_code)) +
                       (r.exit_code == kHarnessUsage ? ", harness error" : "") + ")");
}

std::string harness_source(const std::vector<std::string>& names) {
  std::string s;
  s += "// The harness staxc builds around generated code: harness MODEL DIR [null-workspace]\n";
  s += "// reads DIR/in<i>.bin (raw bytes of input i), calls MODEL's NAME_run_checked and writes\n";
  s += "// DIR/out<o>.bin; harness MODEL isa prints the instruction set MODEL runs with (NAME_isa).\n";
  s += "// Exit status: 0, 2 for its own failures, 10 + the C API's error code.\n";
  for (std::size_t k = 0; k < names.size(); ++k) s += "#include \"model" + std::to_string(k) + ".cpp\"\n";
  s += R"(
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Model {
  int (*run_checked)(int, const void* const*, const stax_layout*, int, void* const*,
                     const stax_layout*, void*, char*, size_t);
  size_t (*workspace_size)(void);
  int (*num_inputs)(void);
  int (*num_outputs)(void);
  int (*input_dtype)(int);
  int (*input_ndim)(int);
  const int64_t* (*input_shape)(int);
  int (*output_dtype)(int);
  int (*output_ndim)(int);
  const int64_t* (*output_shape)(int);
  const char* (*isa)(void);
};

#define STAX_HARNESS_MODEL(N)                                                                  \
  Model{N##_run_checked, N##_workspace_size, N##_num_inputs, N##_num_outputs, N##_input_dtype, \
        N##_input_ndim, N##_input_shape, N##_output_dtype, N##_output_ndim, N##_output_shape, N##_isa}

const Model kModels[] = {
)";
  for (const std::string& n : names) s += "    STAX_HARNESS_MODEL(" + n + "),\n";
  s += R"(};

size_t element_size(int dtype) {
  return dtype == STAX_FLOAT64 || dtype == STAX_INT64 ? 8 : dtype == STAX_BOOL ? 1 : 4;
}

size_t byte_size(int dtype, int ndim, const int64_t* shape) {
  size_t n = element_size(dtype);
  for (int d = 0; d < ndim; ++d) n *= static_cast<size_t>(shape[d]);
  return n;
}

bool read_exact(const std::string& path, std::vector<unsigned char>& buf) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const size_t got = std::fread(buf.data(), 1, buf.size(), f);
  const bool at_end = std::fgetc(f) == EOF;
  std::fclose(f);
  return got == buf.size() && at_end;
}

bool write_all(const std::string& path, const std::vector<unsigned char>& buf) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const size_t put = std::fwrite(buf.data(), 1, buf.size(), f);
  return std::fclose(f) == 0 && put == buf.size();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL DIR [null-workspace]\n", argv[0]);
    return 2;
  }
  const int index = std::atoi(argv[1]);
  if (index < 0 || index >= static_cast<int>(sizeof kModels / sizeof kModels[0])) return 2;
  const Model& m = kModels[index];
  if (std::string(argv[2]) == "isa") {
    std::printf("%s\n", m.isa());
    return 0;
  }
  const std::string dir = argv[2];
  const bool null_workspace = argc > 3 && std::string(argv[3]) == "null-workspace";

  const int ni = m.num_inputs(), no = m.num_outputs();
  std::vector<std::vector<unsigned char>> in(ni), out(no);
  std::vector<const void*> in_ptr(ni + 1, nullptr);
  std::vector<void*> out_ptr(no + 1, nullptr);
  std::vector<stax_layout> in_layout(ni + 1), out_layout(no + 1);
  for (int i = 0; i < ni; ++i) {
    in_layout[i] = stax_layout{m.input_dtype(i), m.input_ndim(i), m.input_shape(i), nullptr};
    in[i].resize(byte_size(in_layout[i].dtype, in_layout[i].ndim, in_layout[i].shape));
    const std::string path = dir + "/in" + std::to_string(i) + ".bin";
    if (!read_exact(path, in[i])) {
      std::fprintf(stderr, "cannot read %zu bytes from %s\n", in[i].size(), path.c_str());
      return 2;
    }
    in_ptr[i] = in[i].data();
  }
  for (int o = 0; o < no; ++o) {
    out_layout[o] = stax_layout{m.output_dtype(o), m.output_ndim(o), m.output_shape(o), nullptr};
    out[o].assign(byte_size(out_layout[o].dtype, out_layout[o].ndim, out_layout[o].shape), 0xAB);
    out_ptr[o] = out[o].data();
  }
  void* workspace = nullptr;
  const size_t ws_size = m.workspace_size();
  if (!null_workspace && ws_size > 0) {
    workspace = std::aligned_alloc(64, (ws_size + 63) / 64 * 64);
    if (workspace == nullptr) return 2;
  }
  char message[512];
  const int rc = m.run_checked(ni, in_ptr.data(), in_layout.data(), no, out_ptr.data(),
                               out_layout.data(), workspace, message, sizeof message);
  std::free(workspace);
  if (rc != STAX_OK) {
    std::fprintf(stderr, "%s\n", message);
    return 10 + rc;
  }
  for (int o = 0; o < no; ++o) {
    const std::string path = dir + "/out" + std::to_string(o) + ".bin";
    if (!write_all(path, out[o])) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 2;
    }
  }
  return 0;
}
)";
  return s;
}

Harness Harness::build(const std::vector<const codegen::GeneratedCode*>& models,
                       const BuildOptions& opts) {
  Harness h;
  for (std::size_t k = 0; k < models.size(); ++k) {
    write_generated(*models[k], h.dir_.path() / ("model" + std::to_string(k) + ".cpp"), {});
    h.names_.push_back(models[k]->name);
  }
  const fs::path main = h.dir_.path() / "harness.cpp";
  write_file_atomic(main, harness_source(h.names_));
  h.exe_ = h.dir_.path() / "harness";
  h.run_prefix_ = opts.run_prefix;
  build_program(opts, main, h.exe_, h.dir_.path() / "build.log", "the generated code");
  return h;
}

std::string Harness::isa(std::size_t model) const {
  STAX_ASSERT(model < names_.size(), "no such model in the harness");
  TempDir run_dir;
  const ProcessResult r = run_process({exe_.string(), std::to_string(model), "isa"}, run_dir.path() / "run.log");
  check_harness_exit(r, names_[model], "the generated code of '" + names_[model] + "' failed to run");
  std::string name = r.output;
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  return name;
}

std::vector<Tensor> Harness::run(std::size_t model, const graph::Graph& g,
                                 const std::vector<Tensor>& inputs, bool caller_workspace) const {
  STAX_ASSERT(model < names_.size(), "no such model in the harness");
  STAX_ASSERT(inputs.size() == g.inputs.size(), "one tensor per graph input");
  TempDir run_dir;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    write_raw(run_dir.path() / ("in" + std::to_string(i) + ".bin"), inputs[i]);
  std::vector<std::string> argv = run_prefix_;
  argv.insert(argv.end(), {exe_.string(), std::to_string(model), run_dir.path().string()});
  if (!caller_workspace) argv.push_back("null-workspace");
  const ProcessResult r = run_process(argv, run_dir.path() / "run.log");
  check_harness_exit(r, names_[model], "the generated code of '" + names_[model] + "' failed to run");
  std::vector<Tensor> outputs;
  for (std::size_t o = 0; o < g.outputs.size(); ++o) {
    const graph::Value& v = g[g.outputs[o]];
    Tensor t(v.dtype, v.shape);
    const std::string bytes = read_file(run_dir.path() / ("out" + std::to_string(o) + ".bin"));
    STAX_ASSERT(bytes.size() == t.nbytes(), "harness output of the wrong size");
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(t.data()));
    outputs.push_back(std::move(t));
  }
  return outputs;
}

}  // namespace stax::driver
