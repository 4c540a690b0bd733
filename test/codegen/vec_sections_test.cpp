// The vector layer as staxc embeds it: identical to the repository header, split into sections
// whose requirements pull in the prelude's, and compilable on its own for every instruction set.
#include "stax/codegen/prelude.h"

#include "stax/support/isa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>
#include <fstream>
#include <sstream>

namespace stax::codegen {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(VecSections, EmbeddedTextIsTheRepositoryHeader) {
  for (const std::string& path : runtime_files()) {
    const std::string file = read(std::string(STAX_SOURCE_DIR) + "/lib/codegen/runtime/" + path);
    ASSERT_FALSE(file.empty()) << path;
    EXPECT_EQ(runtime_source(path), file) << path;
  }
}

// The files in section order: the prelude, the base, one file per record of the ISA table (in
// table order, each holding the section vec_<name>), then what is written over all sets, then the
// GEMM's three files and the convolutions' three.
TEST(VecSections, NamesInFileOrderAndPreludeNamesUnchanged) {
  const std::vector<std::string> files = runtime_files();
  ASSERT_EQ(files.size(), isa_table().size() + 9);
  EXPECT_EQ(files.front(), "stax_prelude.h");
  EXPECT_EQ(files[1], "stax_vec_base.h");
  EXPECT_EQ(files[isa_table().size() + 2], "stax_vec.h");
  const std::vector<std::string> gemm(files.end() - 6, files.end());
  EXPECT_EQ(gemm, (std::vector<std::string>{"stax_gemm_pack.h", "stax_gemm_kernel.h", "stax_gemm.h", "stax_conv.h",
                                            "stax_conv_shift.h", "stax_conv_wino.h"}));
  EXPECT_EQ(section_names("stax_gemm_pack.h"), std::vector<std::string>{"gemm_pack"});
  EXPECT_EQ(section_names("stax_gemm_kernel.h"), std::vector<std::string>{"gemm_kernel"});
  EXPECT_EQ(section_names("stax_gemm.h"), (std::vector<std::string>{"gemm", "matmul"}));
  EXPECT_EQ(section_names("stax_conv.h"), std::vector<std::string>{"conv"});
  EXPECT_EQ(section_names("stax_conv_shift.h"), std::vector<std::string>{"conv_shift"});
  EXPECT_EQ(section_names("stax_conv_wino.h"), std::vector<std::string>{"conv_wino"});
  EXPECT_EQ(section_names("stax_vec_base.h"), std::vector<std::string>{"vec_config"});
  for (std::size_t i = 0; i < isa_table().size(); ++i) {
    const IsaRecord& r = isa_table()[i];
    EXPECT_EQ(files[i + 2], r.runtime);
    EXPECT_EQ(section_names(r.runtime), std::vector<std::string>{r.section()}) << r.name;
  }
  const std::vector<std::string> common = {"vec", "vec_transpose"};
  EXPECT_EQ(section_names("stax_vec.h"), common);
  const std::vector<std::string> prelude = prelude_section_names();
  ASSERT_FALSE(prelude.empty());
  EXPECT_EQ(prelude.front(), "includes");
  for (const std::string& name : common)
    EXPECT_EQ(std::find(prelude.begin(), prelude.end(), name), prelude.end()) << name;
}

TEST(VecSections, RequirementsPullInThePreludeFirst) {
  const std::string text = prelude_text({"vec", "vec_avx2"});
  for (const char* guard : {"STAX_RT_CORE", "STAX_RT_MATH", "STAX_RT_ACTIVATION", "STAX_RT_REDUCE",
                            "STAX_RT_INTDIV", "STAX_RT_VEC_CONFIG", "STAX_RT_VEC_AVX2", "STAX_RT_VEC"})
    EXPECT_NE(text.find(std::string("#define ") + guard + "\n"), std::string::npos) << guard;
  EXPECT_EQ(text.find("#define STAX_RT_VEC_AVX512"), std::string::npos);
  EXPECT_EQ(text.find("#define STAX_RT_WRAPPER"), std::string::npos);
  EXPECT_EQ(text.find("@section"), std::string::npos);
  // The preamble's #include of the prelude header is not part of any section.
  EXPECT_EQ(text.find("#include \"stax_prelude.h\""), std::string::npos);
  // Prelude sections before the vector layer, in file order.
  EXPECT_LT(text.find("#define STAX_RT_MATH"), text.find("#define STAX_RT_VEC_CONFIG"));
  EXPECT_LT(text.find("#define STAX_RT_VEC_AVX2"), text.find("#define STAX_RT_VEC\n"));
}

// No section of either header carries the vector layer's preamble (its comment and the include
// that lets the header compile alone), the prelude's last section included.
TEST(VecSections, PreambleBelongsToNoSection) {
  std::set<std::string> all;
  for (const std::string& name : prelude_section_names()) all.insert(name);
  for (const std::string& path : runtime_files())
    for (const std::string& name : section_names(path)) all.insert(name);
  const std::string text = prelude_text(all);
  EXPECT_EQ(text.find("stax_prelude.h\""), std::string::npos);
  EXPECT_EQ(text.find("The vector layer of generated code"), std::string::npos);
  for (const std::string& name : prelude_section_names())
    EXPECT_EQ(prelude_section(name).find("The vector layer"), std::string::npos) << name;
}

// A kernel against the emitted text: y = exp(x - max) over a row with a masked tail, built with
// g++ -Wall -Wextra -Werror for each instruction set (pinned, native) and run where the CPU can.
class VecCompile : public ::testing::TestWithParam<const char*> {};

TEST_P(VecCompile, EmittedTextBuildsWarningFree) {
  const std::string flags = GetParam();
  const std::string dir = std::string(STAX_BINARY_DIR) + "/test/codegen";
  const std::string tag = std::to_string(std::hash<std::string>()(flags) % 100000);
  const std::string src = dir + "/vec_emitted_" + tag + ".cpp";
  {
    std::ofstream out(src);
    out << prelude_text({"vec", "vec_avx512", "vec_avx2", "vec_scalar"}) << R"(
#include <cstdio>
int main() {
  using V = stax_rt::Vec<float, stax_rt::IsaNative>;
  float x[37], y[37];
  for (int i = 0; i < 37; ++i) x[i] = static_cast<float>(i % 5);
  V m(-stax_rt::inf<float>());
  int i = 0;
  for (; i + V::size <= 37; i += V::size) m = stax_rt::maximum(m, V::loadu(x + i));
  m = stax_rt::maximum(m, V::loadu(x + i, 37 - i, -stax_rt::inf<float>()));
  const V mx(stax_rt::reduce_max(m));
  for (i = 0; i + V::size <= 37; i += V::size) stax_rt::exp(V::loadu(x + i) - mx).storeu(y + i);
  stax_rt::exp(V::loadu(x + i, 37 - i) - mx).storeu(y + i, 37 - i);
  std::printf("%s %d %.6f %.6f\n", stax_rt::IsaNative::name, V::size, static_cast<double>(y[4]), static_cast<double>(y[36]));
  return 0;
}
)";
  }
  const std::string exe = dir + "/vec_emitted_" + tag;
  const std::string log = exe + ".log";
  const std::string cmd = "g++ -std=c++17 -O2 -fopenmp -Wall -Wextra -Werror " + flags + " -o " + exe + " " + src +
                          " -lsleef > " + log + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << read(log);
  const bool runnable = flags.find("avx512") == std::string::npos || __builtin_cpu_supports("avx512f");
  if (!runnable) GTEST_SKIP() << "built; this CPU cannot run AVX-512";
  ASSERT_EQ(std::system((exe + " > " + log + " 2>&1").c_str()), 0);
  const std::string output = read(log);
  // x = i % 5, so max = 4: y[4] = exp(0) = 1 and y[36] = exp(1 - 4).
  EXPECT_NE(output.find(" 1.000000 0.049787"), std::string::npos) << output;
}

INSTANTIATE_TEST_SUITE_P(Isa, VecCompile,
                         ::testing::Values("-DSTAX_ISA_SCALAR", "-mavx2 -mfma -DSTAX_ISA_AVX2",
                                           "-mavx512f -mavx512dq -mavx2 -mfma -DSTAX_ISA_AVX512", "-march=native"));

}  // namespace
}  // namespace stax::codegen
