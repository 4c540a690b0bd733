#include "stax/driver/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "stax/support/error.h"

extern char** environ;

namespace stax::driver {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "staxc-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw UserError("cannot create a temporary directory in " + fs::temp_directory_path().string() +
                    " (" + std::strerror(errno) + ")");
  path_ = pattern;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  if (std::getenv("STAXC_KEEP_TEMP") != nullptr) {
    spdlog::info("kept temporary directory {}", path_.string());
    return;
  }
  std::error_code ec;
  fs::remove_all(path_, ec);
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this == &other) return *this;
  if (!path_.empty()) {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  path_ = std::move(other.path_);
  other.path_.clear();
  return *this;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file.string() + ": cannot read (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& log_file) {
  STAX_ASSERT(!argv.empty(), "run_process without a program");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw UserError("cannot run " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw UserError("waiting for " + argv[0] + ": " + std::strerror(errno));
  }
  ProcessResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  else r.exit_code = -1;
  r.output = read_file(log_file);
  // posix_spawnp reports a missing program through the child's exit status 127.
  if (r.exit_code == 127 && r.output.empty()) throw UserError("cannot run " + argv[0] + ": not found");
  return r;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) {
    if (!s.empty()) s += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      s += a;
      continue;
    }
    s += '\'';
    for (char c : a) {
      if (c == '\'') s += "'\\''";
      else s += c;
    }
    s += '\'';
  }
  return s;
}

namespace {

fs::path temporary_for(const fs::path& file) {
  fs::path tmp = file;
  tmp += ".tmp." + std::to_string(static_cast<long>(::getpid()));
  return tmp;
}

// Writes `text` to the temporary of `file`; UserError (and no temporary left) on failure.
void write_temporary(const fs::path& file, const std::string& text) {
  fs::path tmp = temporary_for(file);
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw UserError(file.string() + ": cannot write (" + std::strerror(errno) + ")");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw UserError(file.string() + ": write error");
  }
}

void remove_temporaries(const std::vector<std::pair<fs::path, const std::string*>>& files) {
  for (const auto& f : files) {
    std::error_code ignored;
    fs::remove(temporary_for(f.first), ignored);
  }
}

}  // namespace

void write_file_atomic(const fs::path& file, const std::string& text) {
  write_files_atomic({{file, &text}});
}

void write_files_atomic(const std::vector<std::pair<fs::path, const std::string*>>& files) {
  try {
    for (const auto& [file, text] : files) write_temporary(file, *text);
  } catch (const UserError&) {
    remove_temporaries(files);
    throw;
  }
  // Renamed in order; should one rename fail, the files renamed before it are removed again, so
  // that no set of files that belong together is left half new.
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    fs::rename(temporary_for(files[i].first), files[i].first, ec);
    if (!ec) continue;
    remove_temporaries(files);
    for (std::size_t k = 0; k < i; ++k) {
      std::error_code ignored;
      fs::remove(files[k].first, ignored);
    }
    throw UserError(files[i].first.string() + ": cannot write (" + ec.message() + ")");
  }
}

}  // namespace stax::driver
