// What `staxc compile` leaves on disk, for builds and CI: the generated files and a Make-style
// depfile written together, or, with --check, compared with what is already there.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "stax/codegen/codegen.h"

namespace stax::driver {

struct OutputFiles {
  std::filesystem::path source;   // -o OUT.cpp ("-": stdout)
  std::filesystem::path header;   // --header OUT.h (empty: none)
  std::filesystem::path depfile;  // --depfile FILE (empty: none)
};

// A Make-style depfile: "T1 T2: D1 D2 ...", one dependency a line after the first, each path
// escaped as Make and Ninja read it (a space as "\ ", '#' as "\#", '$' as "$$").
std::string make_depfile(const std::vector<std::filesystem::path>& targets,
                         const std::vector<std::filesystem::path>& dependencies);

// The staxc binary itself (/proc/self/exe), a dependency of everything it writes.
std::filesystem::path current_executable();

// Writes the source, the header and the depfile (naming the source and header as its targets
// and `inputs` then the staxc binary as their dependencies) all together or none of them.
void write_outputs(const codegen::GeneratedCode& code, const OutputFiles& files,
                   const std::vector<std::filesystem::path>& inputs);

// One generated file that is not on disk as staxc would write it.
struct StaleFile {
  std::filesystem::path path;
  std::string report;  // "missing", or the first differing lines as a small unified diff
};

// --check: the source and the header compared byte for byte with the files on disk; nothing is
// written. Empty when every file is up to date.
std::vector<StaleFile> check_outputs(const codegen::GeneratedCode& code, const OutputFiles& files);

// The report of one file: "--- PATH (on disk)", "+++ PATH (staxc)", "@@ line N @@" and up to
// `context` lines of each side from the first that differs; or "PATH: missing ...".
std::string describe_difference(const std::filesystem::path& path, const std::string& on_disk,
                                const std::string& expected, int context = 3);

}  // namespace stax::driver
