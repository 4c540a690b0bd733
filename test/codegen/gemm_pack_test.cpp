// The GEMM's packing layout as staxc sees it: the runtime header stax_gemm_pack.h included on its
// own in C++20 (what the code generator does to pack constant weights at compile time), and its
// embedded section standing alone in generated code.
#include "stax_gemm_pack.h"

#include <gtest/gtest.h>

#include <vector>

#include "stax/codegen/prelude.h"

namespace stax::codegen {
namespace {

static_assert(stax_rt::gemm_panel_width<float>(16) == 32 && stax_rt::gemm_panel_width<double>(16) == 16);
static_assert(stax_rt::gemm_panel_width<float>(8) == 16 && stax_rt::gemm_panel_width<float>(1) == 2);
static_assert(stax_rt::gemm_packed_b_size(5, 70, 64) == 5 * 128);
static_assert(stax_rt::gemm_packed_a_size(15, 3, 14) == 28 * 3);

TEST(GemmPack, PanelsOfBAreRowsOfPContiguousElements) {
  const int64_t K = 3, N = 70, P = 64;
  std::vector<float> b(K * N);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i + 1);
  std::vector<float> packed(stax_rt::gemm_packed_b_size(K, N, P), -1.0f);
  stax_rt::gemm_pack_b(b.data(), N, int64_t(1), K, N, P, packed.data());
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < 128; ++j) {
      const float want = j < N ? b[k * N + j] : 0.0f;
      EXPECT_EQ(packed[(j / P) * P * K + k * P + j % P], want) << k << ", " << j;
    }
  // The same B stored transposed packs to the same bytes.
  std::vector<float> bt(K * N), again(packed.size(), -1.0f);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) bt[j * K + k] = b[k * N + j];
  stax_rt::gemm_pack_b(bt.data(), int64_t(1), K, K, N, P, again.data());
  EXPECT_EQ(packed, again);
}

TEST(GemmPack, PanelsOfAAreColumnsOfMrElements) {
  const int64_t M = 5, K = 4, mr = 3;
  std::vector<double> a(M * K);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i) + 0.5;
  std::vector<double> packed(stax_rt::gemm_packed_a_size(M, K, mr), -1.0);
  stax_rt::gemm_pack_a(a.data(), K, int64_t(1), M, K, mr, packed.data());
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t k = 0; k < K; ++k)
      EXPECT_EQ(packed[(i / mr) * mr * K + k * mr + i % mr], i < M ? a[i * K + k] : 0.0) << i << ", " << k;
}

TEST(GemmPack, SectionNeedsNothingButTheIncludes) {
  const std::string text = prelude_text({"gemm_pack"});
  EXPECT_NE(text.find("#define STAX_RT_GEMM_PACK"), std::string::npos);
  EXPECT_EQ(text.find("#define STAX_RT_CORE"), std::string::npos);
  // The includes section names every ISA's intrinsics header; the packing itself uses none.
  const std::string section = text.substr(text.find("#define STAX_RT_GEMM_PACK"));
  EXPECT_EQ(section.find("_mm"), std::string::npos);
  EXPECT_EQ(section.find("#include"), std::string::npos);
  // The GEMM pulls in the vector layer and the packing; matmul pulls in the GEMM.
  const std::string mm = prelude_text({"matmul"});
  for (const char* guard : {"STAX_RT_GEMM_PACK", "STAX_RT_GEMM_KERNEL", "STAX_RT_GEMM\n", "STAX_RT_MATMUL", "STAX_RT_VEC\n"})
    EXPECT_NE(mm.find(std::string("#define ") + guard), std::string::npos) << guard;
}

}  // namespace
}  // namespace stax::codegen
