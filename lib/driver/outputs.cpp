#include "stax/driver/outputs.h"

#include <algorithm>
#include <iostream>
#include <system_error>
#include <utility>

#include "stax/driver/compile.h"
#include "stax/driver/process.h"
#include "stax/support/error.h"

namespace stax::driver {

namespace fs = std::filesystem;

namespace {

// A path as Make reads it in a rule: spaces and '#' escaped with a backslash, '$' doubled.
std::string make_escape(const std::string& path) {
  std::string s;
  for (char c : path) {
    if (c == ' ' || c == '#') s += '\\';
    if (c == '$') s += '$';
    s += c;
  }
  return s;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Lines [from, from + count) of `lines` with `mark` before each.
void append_lines(std::string& out, const std::vector<std::string>& lines, std::size_t from, int count, char mark) {
  for (std::size_t i = from; i < lines.size() && i < from + static_cast<std::size_t>(count); ++i)
    out += mark + lines[i] + '\n';
}

bool file_exists(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace

std::string make_depfile(const std::vector<fs::path>& targets, const std::vector<fs::path>& dependencies) {
  std::string s;
  for (const fs::path& t : targets) s += (s.empty() ? "" : " ") + make_escape(t.string());
  s += ":";
  for (const fs::path& d : dependencies) s += " \\\n  " + make_escape(d.string());
  return s + "\n";
}

fs::path current_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw UserError("cannot find the staxc binary for the depfile (/proc/self/exe: " + ec.message() + ")");
  return exe;
}

void write_outputs(const codegen::GeneratedCode& code, const OutputFiles& files, const std::vector<fs::path>& inputs) {
  if (files.source == "-" && !code.weights.empty())
    throw UserError("the model has constants too large to print as literals (" + std::to_string(code.weights.size()) +
                    " bytes go into FILE.cpp" + codegen::kWeightsSuffix +
                    " beside the source): write the source to a file with -o FILE.cpp, or raise "
                    "--weights-threshold above the largest constant");
  std::string depfile;
  if (!files.depfile.empty()) {
    if (files.source == "-") throw UserError("--depfile needs an output file: -o - writes to stdout");
    std::vector<fs::path> targets{files.source};
    if (!code.weights.empty()) targets.push_back(weights_path(files.source));
    if (!files.header.empty()) targets.push_back(files.header);
    std::vector<fs::path> deps = inputs;
    deps.push_back(current_executable());
    depfile = make_depfile(targets, deps);
  }
  std::vector<std::pair<fs::path, const std::string*>> out;
  if (!code.weights.empty() && files.source != "-") out.emplace_back(weights_path(files.source), &code.weights);
  if (!files.header.empty()) out.emplace_back(files.header, &code.header);
  if (files.source != "-") out.emplace_back(files.source, &code.source);
  // The depfile last: a build that sees it sees the files it names as targets.
  if (!files.depfile.empty()) out.emplace_back(files.depfile, &depfile);
  write_files_atomic(out);
  if (files.source == "-") {
    std::cout << code.source;
    std::cout.flush();
  }
}

std::string describe_difference(const fs::path& path, const std::string& on_disk, const std::string& expected,
                                 int context) {
  const std::vector<std::string> have = split_lines(on_disk);
  const std::vector<std::string> want = split_lines(expected);
  std::size_t first = 0;
  while (first < have.size() && first < want.size() && have[first] == want[first]) ++first;
  // The lines after the difference that both sides end with are not part of it.
  std::size_t have_end = have.size(), want_end = want.size();
  while (have_end > first && want_end > first && have[have_end - 1] == want[want_end - 1]) {
    --have_end;
    --want_end;
  }
  std::string s = "--- " + path.string() + " (on disk, " + std::to_string(have.size()) + " lines)\n";
  s += "+++ " + path.string() + " (staxc, " + std::to_string(want.size()) + " lines)\n";
  s += "@@ line " + std::to_string(first + 1) + " @@\n";
  if (first == have_end && first == want_end)
    s += " (the lines are equal; the files differ in their final newline)\n";
  append_lines(s, have, first, static_cast<int>(std::min<std::size_t>(have_end - first, context)), '-');
  append_lines(s, want, first, static_cast<int>(std::min<std::size_t>(want_end - first, context)), '+');
  return s;
}

std::vector<StaleFile> check_outputs(const codegen::GeneratedCode& code, const OutputFiles& files) {
  if (files.source == "-") throw UserError("--check compares files: -o - names none");
  std::vector<std::pair<fs::path, const std::string*>> wanted{{files.source, &code.source}};
  if (!files.header.empty()) wanted.emplace_back(files.header, &code.header);
  std::vector<StaleFile> stale;
  for (const auto& [path, text] : wanted) {
    if (!file_exists(path)) {
      stale.push_back({path, path.string() + ": missing (staxc would write " +
                                 std::to_string(std::count(text->begin(), text->end(), '\n')) + " lines)\n"});
      continue;
    }
    std::string on_disk = read_file(path);
    if (on_disk != *text) stale.push_back({path, describe_difference(path, on_disk, *text)});
  }
  // The weights file: raw bytes, compared whole.
  if (!code.weights.empty()) {
    const fs::path w = weights_path(files.source);
    if (!file_exists(w)) stale.push_back({w, w.string() + ": missing (staxc would write " + std::to_string(code.weights.size()) + " bytes)\n"});
    else if (read_file(w) != code.weights) stale.push_back({w, w.string() + ": the weights differ\n"});
  }
  return stale;
}

}  // namespace stax::driver
