// Running other programs (the C++ compiler, built harnesses) and the files around them: a
// temporary folder removed on scope exit, and text files written atomically.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace stax::driver {

// A fresh folder under the system's temporary directory ("staxc-XXXXXX"), removed with its
// contents by the destructor (unless STAXC_KEEP_TEMP is set in the environment, for debugging:
// then its path is logged and it stays).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct ProcessResult {
  int exit_code = 0;     // the exit status, or 128 + the signal number when killed by a signal
  std::string output;    // stdout and stderr, interleaved
};

// Runs argv[0] (searched in PATH) with the given arguments, stdin from /dev/null, stdout and
// stderr captured (through `log_file`, which is overwritten). UserError when it cannot start.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& log_file);

// `argv` as a shell-like line for messages ("g++ -O2 -o 'a b' x.cpp").
std::string command_line(const std::vector<std::string>& argv);

// Writes `text` to `file` through a temporary file in the same folder and a rename, so `file`
// is never left partial. UserError naming the file when it cannot be written.
void write_file_atomic(const std::filesystem::path& file, const std::string& text);

// Writes several files so that either all of them are written or none: each goes to a
// temporary beside it first, and only when every temporary is complete are they renamed into
// place, in order. UserError naming the file that cannot be written.
void write_files_atomic(const std::vector<std::pair<std::filesystem::path, const std::string*>>& files);

// The whole content of a file (UserError when unreadable).
std::string read_file(const std::filesystem::path& file);

}  // namespace stax::driver
