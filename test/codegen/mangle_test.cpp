#include "stax/codegen/mangle.h"

#include <gtest/gtest.h>

namespace stax::codegen {
namespace {

TEST(Mangle, ReadableIdentifiers) {
  EXPECT_EQ(mangle("x"), "x");
  EXPECT_EQ(mangle("x.1"), "x_1");
  EXPECT_EQ(mangle("conv-out"), "conv_out");
  EXPECT_EQ(mangle("a..b"), "a_b");  // never a double underscore
  EXPECT_EQ(mangle("s#2"), "s_2");
  EXPECT_EQ(mangle("1x"), "v1x");
  EXPECT_EQ(mangle("_hidden"), "v_hidden");
  EXPECT_EQ(mangle("-"), "v");
  EXPECT_EQ(mangle("weight_2"), "weight_2");
}

TEST(Mangle, KeywordsAndLibraryNamesGetATrailingUnderscore) {
  EXPECT_EQ(mangle("and"), "and_");
  EXPECT_EQ(mangle("int"), "int_");
  EXPECT_EQ(mangle("float"), "float_");
  EXPECT_EQ(mangle("return"), "return_");
  EXPECT_EQ(mangle("std"), "std_");
  EXPECT_EQ(mangle("int64_t"), "int64_t_");
  EXPECT_EQ(mangle("linux"), "linux_");
  EXPECT_EQ(mangle("x0"), "x0_");   // a loop variable of generated code
  EXPECT_EQ(mangle("t12"), "t12_"); // a temporary
  EXPECT_EQ(mangle("s0"), "s0_");   // the start of a streamed loop
  EXPECT_EQ(mangle("next"), "next_");    // the row a kernel prefetches
  EXPECT_EQ(mangle("ahead"), "ahead_");  // the rows a column reduction prefetches
  EXPECT_EQ(mangle("EOF"), "v_EOF");
  EXPECT_EQ(mangle("NULL"), "v_NULL");
  EXPECT_EQ(mangle("X"), "v_X");
  EXPECT_EQ(mangle("Xy"), "Xy");
}

TEST(Mangle, ReservedPredicate) {
  EXPECT_TRUE(is_reserved_identifier("while"));
  EXPECT_TRUE(is_reserved_identifier("a__b"));
  EXPECT_TRUE(is_reserved_identifier("_x"));
  EXPECT_TRUE(is_reserved_identifier("r3"));
  EXPECT_TRUE(is_reserved_identifier("size_t"));
  EXPECT_TRUE(is_reserved_identifier("M_PI"));
  EXPECT_FALSE(is_reserved_identifier("x"));
  EXPECT_FALSE(is_reserved_identifier("t"));
  EXPECT_FALSE(is_reserved_identifier("x0_"));
  EXPECT_FALSE(is_reserved_identifier("buf1"));
}

TEST(Mangle, NameTableIsCollisionFreeAndDeterministic) {
  NameTable t;
  EXPECT_EQ(t.claim("x.1"), "x_1");
  EXPECT_EQ(t.claim("x_1"), "x_1_2");
  EXPECT_EQ(t.claim("x-1"), "x_1_3");
  EXPECT_EQ(t.claim("and"), "and_");
  EXPECT_EQ(t.claim("and_"), "and_2");
  EXPECT_EQ(t.claim("EOF"), "v_EOF");
  EXPECT_EQ(t.claim("v_EOF"), "v_EOF_2");
  EXPECT_TRUE(t.taken("x_1_2"));
  NameTable again;
  EXPECT_EQ(again.claim("x.1"), "x_1");
  EXPECT_EQ(again.claim("x_1"), "x_1_2");
}

}  // namespace
}  // namespace stax::codegen
