#include "batch.h"

#include <fstream>
#include <utility>

#include "stax/driver/compile.h"

namespace stax::e2e {

namespace fs = std::filesystem;

namespace {

// The program's main, after driver::harness_source's (renamed stax_harness_main): PROGRAM JOBS
// runs the lines of the file JOBS, each "MODEL DIR MODE" (MODE: workspace, null-workspace or isa) as the harness's main would run
// "MODEL DIR", "MODEL DIR null-workspace" or "MODEL isa" in a process of its own: stdout and
// stderr to DIR/run.log, then its exit status to DIR/status.
constexpr const char* kBatchMain = R"(
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* jobs = std::fopen(argv[1], "r");
  if (jobs == nullptr) return 2;
  const int out = dup(1), err = dup(2);
  char model[32], dir[4096], mode[32], isa[] = "isa", null_workspace[] = "null-workspace";
  while (std::fscanf(jobs, "%31s %4095s %31s", model, dir, mode) == 3) {
    const std::string job = dir, how = mode;
    std::fflush(stdout);
    std::fflush(stderr);
    const int log = open((job + "/run.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0) return 2;
    close(log);
    char* args[] = {argv[0], model, how == "isa" ? isa : dir, null_workspace, nullptr};
    const int rc = stax_harness_main(how == "null-workspace" ? 4 : 3, args);
    std::fflush(stdout);
    std::fflush(stderr);
    if (dup2(out, 1) < 0 || dup2(err, 2) < 0) return 2;
    FILE* status = std::fopen((job + "/status").c_str(), "w");
    if (status == nullptr) return 2;
    std::fprintf(status, "%d\n", rc);
    if (std::fclose(status) != 0) return 2;
  }
  std::fclose(jobs);
  return 0;
}
)";

std::string batch_source(const std::vector<std::string>& names) {
  std::string s = driver::harness_source(names);
  const std::string harness_main = "int main(int argc, char** argv) {";
  const std::size_t at = s.find(harness_main);
  if (at == std::string::npos) throw InternalError("the harness's main is not where the batch expects it");
  s.replace(at, harness_main.size(), "static int stax_harness_main(int argc, char** argv) {");
  return s + kBatchMain;
}

}  // namespace

Batch Batch::build(const std::vector<const codegen::GeneratedCode*>& models, const driver::BuildOptions& opts) {
  Batch b;
  for (std::size_t k = 0; k < models.size(); ++k) {
    driver::write_generated(*models[k], b.dir_.path() / ("model" + std::to_string(k) + ".cpp"), {});
    b.names_.push_back(models[k]->name);
  }
  const fs::path main = b.dir_.path() / "batch.cpp";
  driver::write_file_atomic(main, batch_source(b.names_));
  b.exe_ = b.dir_.path() / "batch";
  b.run_prefix_ = opts.run_prefix;
  driver::build_program(opts, main, b.exe_, b.dir_.path() / "build.log", "the generated code");
  return b;
}

fs::path Batch::job_dir(std::size_t job) const { return dir_.path() / ("j" + std::to_string(job)); }

std::size_t Batch::add_run(std::size_t model, const std::vector<Tensor>& inputs, bool caller_workspace) {
  const std::size_t job = jobs_.size();
  fs::create_directory(job_dir(job));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    driver::write_file_atomic(job_dir(job) / ("in" + std::to_string(i) + ".bin"),
                              std::string(reinterpret_cast<const char*>(t.data()), t.nbytes()));
  }
  jobs_.push_back(std::to_string(model) + (caller_workspace ? " workspace" : " null-workspace"));
  return job;
}

std::size_t Batch::add_isa(std::size_t model) {
  const std::size_t job = jobs_.size();
  fs::create_directory(job_dir(job));
  jobs_.push_back(std::to_string(model) + " isa");
  return job;
}

void Batch::run() {
  while (done_ < jobs_.size()) {
    const std::string first = std::to_string(done_);
    std::string list;
    for (std::size_t k = done_; k < jobs_.size(); ++k) {
      const std::size_t space = jobs_[k].find(' ');
      list += jobs_[k].substr(0, space) + " " + job_dir(k).string() + jobs_[k].substr(space) + "\n";
    }
    const fs::path jobs_file = dir_.path() / ("jobs" + first + ".txt");
    driver::write_file_atomic(jobs_file, list);
    std::vector<std::string> argv = run_prefix_;
    argv.insert(argv.end(), {exe_.string(), jobs_file.string()});
    const driver::ProcessResult p = driver::run_process(argv, dir_.path() / ("batch" + first + ".log"));
    for (; done_ < jobs_.size() && fs::exists(job_dir(done_) / "status"); ++done_) {
      int status = driver::kHarnessUsage;
      std::ifstream(job_dir(done_) / "status") >> status;
      results_.push_back({status, driver::read_file(job_dir(done_) / "run.log")});
    }
    if (done_ < jobs_.size()) {
      // This job ended the process: its status is the process's, its output its own.
      const fs::path log = job_dir(done_) / "run.log";
      results_.push_back({p.exit_code != 0 ? p.exit_code : driver::kHarnessUsage,
                          (fs::exists(log) ? driver::read_file(log) : "") + p.output});
      ++done_;
    } else if (p.exit_code != 0) {
      throw RuntimeFailure("the generated code exited with status " + std::to_string(p.exit_code) +
                           " after its last run: " + p.output);
    }
  }
}

std::vector<Tensor> Batch::outputs(std::size_t job, const graph::Graph& g) const {
  std::vector<Tensor> outputs;
  for (std::size_t o = 0; o < g.outputs.size(); ++o) {
    const graph::Value& v = g[g.outputs[o]];
    Tensor t(v.dtype, v.shape);
    const std::string bytes = driver::read_file(job_dir(job) / ("out" + std::to_string(o) + ".bin"));
    STAX_ASSERT(bytes.size() == t.nbytes(), "harness output of the wrong size");
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(t.data()));
    outputs.push_back(std::move(t));
  }
  return outputs;
}

}  // namespace stax::e2e
