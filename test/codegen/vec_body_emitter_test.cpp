// VecBodyEmitter: lane strides and refusals as tables, the emitted text of a few bodies, and the
// numbers: one generated program computes ~200 bodies (every op of expr.def on every dtype it
// takes, broadcasts, index values, casts, where, cat/pad masks) with BodyEmitter's scalar loop
// and with vector loops (full vectors + scalar tail; vectors with a live-lane tail) for each
// instruction set, and compares them. Inputs end (or start) at a guard page, so a vector load of
// an address the scalar code does not read faults.
//
// Tolerance: bit-identical, NaN payloads included, except bodies with a transcendental (the
// vector and scalar functions are separate 1.0-ULP implementations: SLEEF's, and the vector
// layer's inline float32 exp, erf and tanh; erfc 1.5): there at most 1 ULP apart (erfc 2), or both
// NaN (two composite bodies: 2 ULP, see them). The program is built at -O1 -ffp-contract=off, so the
// compiler fuses no a*b+c in one loop form and not in the other.
#include "vec_body_emitter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "body_emitter.h"
#include "stax/codegen/literals.h"
#include "stax/codegen/prelude.h"

namespace stax::codegen {
namespace {

using ir::Expr;
using ir::ExprOp;
using ir::Index;

// Vector and scalar functions of one accuracy class, over millions of inputs: at most 1 ULP
// apart for the 1.0-ULP functions, 2 for erfc (SLEEF's u15).
constexpr int kTranscendentalUlps = 1, kErfcUlps = 2;

const Index x0 = Index::var(ir::xvar(0));
const Index x1 = Index::var(ir::xvar(1));

// ---- Buffers of the generated program ---------------------------------------------------------

constexpr int64_t kRows = 3, kCols = 37;  // 37: full vectors and a tail for every width

enum class Fill { Values, Divisors, Bits };

struct Buf {
  DType dtype;
  int64_t count;
  bool guard_before;  // the buffer starts at a guard page (else it ends at one)
  Fill fill;
};

// Buffer ids are indices into this table; the program names them in0, in1, ...
const std::vector<Buf>& buffers() {
  static const std::vector<Buf> table = {
      {DType::Float32, kRows * kCols, false, Fill::Values},    // 0
      {DType::Float32, kRows * kCols, false, Fill::Divisors},  // 1
      {DType::Float64, kRows * kCols, false, Fill::Values},    // 2
      {DType::Float64, kRows * kCols, false, Fill::Divisors},  // 3
      {DType::Int32, kRows * kCols, false, Fill::Values},      // 4
      {DType::Int32, kRows * kCols, false, Fill::Divisors},    // 5
      {DType::Int64, kRows * kCols, false, Fill::Values},      // 6
      {DType::Int64, kRows * kCols, false, Fill::Divisors},    // 7
      {DType::Bool, kRows * kCols, false, Fill::Bits},         // 8
      {DType::Bool, kRows * kCols, false, Fill::Values},       // 9
      {DType::Float32, kRows, false, Fill::Values},            // 10: one value a row
      {DType::Int64, kRows, false, Fill::Values},              // 11
      {DType::Bool, kRows, false, Fill::Bits},                 // 12
      // 13-22: pad sources [3, 26] of each dtype, ending at a guard page, then starting at one
      {DType::Float32, kRows * 26, false, Fill::Values},
      {DType::Float64, kRows * 26, false, Fill::Values},
      {DType::Int32, kRows * 26, false, Fill::Values},
      {DType::Int64, kRows * 26, false, Fill::Values},
      {DType::Bool, kRows * 26, false, Fill::Bits},
      {DType::Float32, kRows * 26, true, Fill::Values},
      {DType::Float64, kRows * 26, true, Fill::Values},
      {DType::Int32, kRows * 26, true, Fill::Values},
      {DType::Int64, kRows * 26, true, Fill::Values},
      {DType::Bool, kRows * 26, true, Fill::Bits},
      {DType::Float32, kRows * 20, false, Fill::Values},  // 23: cat's first part [3, 20]
      {DType::Float32, kRows * 17, true, Fill::Values},   // 24: cat's second part [3, 17]
      {DType::Float32, 2 * kCols, false, Fill::Values},   // 25: rows 0 and 1 only
      {DType::Float32, 2, false, Fill::Values},           // 26: one value for rows 0 and 1
  };
  return table;
}

std::string buffer_name(ir::BufferId id) { return "in" + std::to_string(id); }

Expr load(ir::BufferId id, const Index& index) {
  return ir::load(id, buffers().at(static_cast<std::size_t>(id)).dtype, index);
}
// Element (x0, x1) of a [3, 37] buffer, and of a row buffer.
Expr at(ir::BufferId id) { return load(id, Index::constant(kCols) * x0 + x1); }
Expr row(ir::BufferId id) { return load(id, x0); }

Expr un(ExprOp op, const Expr& a) { return ir::unary(op, a); }
Expr bin(ExprOp op, const Expr& a, const Expr& b) { return ir::binary(op, a, b); }

// ---- Unit tables ------------------------------------------------------------------------------

TEST(VecBodyEmitter, LaneStrides) {
  const ir::Var inner = ir::xvar(1);
  EXPECT_EQ(lane_stride(x1, inner), 1);
  EXPECT_EQ(lane_stride(37 * x0 + x1, inner), 1);
  EXPECT_EQ(lane_stride(37 * x0 + x1 - 5, inner), 1);
  EXPECT_EQ(lane_stride(x0 + 64 * x1, inner), 64);
  EXPECT_EQ(lane_stride(36 - x1, inner), -1);
  EXPECT_EQ(lane_stride(x0 * 4, inner), 0);
  EXPECT_EQ(lane_stride(Index::constant(7), inner), 0);
  EXPECT_EQ(lane_stride(ir::floordiv(x0, 2) + x1, inner), 1);
  EXPECT_EQ(lane_stride(ir::floordiv(x1, 2), inner), std::nullopt);
  EXPECT_EQ(lane_stride(ir::mod(x1, 4) + x0, inner), std::nullopt);
  EXPECT_EQ(lane_stride(x0 * x1, inner), std::nullopt);
}

struct Emitted {
  std::string why_not, value, statements;
  std::set<std::string> sections;
  bool fallible = false;
};

Emitted emit_body(const Expr& body, const std::string& isa = "I", const std::string& live = "") {
  Emitted r;
  int temps = 0;
  auto text = [](const Index& e) { return index_cxx(e); };
  auto same = [](const Index& e) { return e; };
  VecBodyEmitter v(buffer_name, text, same, ir::xvar(1), isa, r.sections, temps);
  r.why_not = v.why_not(body);
  if (!r.why_not.empty()) return r;
  CodeWriter out;
  r.value = v.emit(body, out, live);
  r.statements = out.str();
  r.fallible = v.fallible();
  return r;
}

TEST(VecBodyEmitter, LeavesIndexedLoadsToTheScalarLoop) {
  // in0[x1 + 37 * p] with p = in11[x0] checked against 3 rows.
  const Expr g = ir::indirect_load(0, DType::Float32, x1, row(11), 37, 3);
  EXPECT_EQ(emit_body(bin(ExprOp::Add, g, at(0))).why_not, "indexed load of in0 (positions read from data)");
  std::set<std::string> sections;
  int temps = 0;
  CodeWriter out;
  BodyEmitter s(buffer_name, [](const Index& e) { return index_cxx(e); }, sections, temps);
  EXPECT_EQ(s.emit(g, out), "in0[x1 + 37 * stax_rt::checked_index(in11[x0], 3, err)]");
  EXPECT_TRUE(s.fallible());
  EXPECT_EQ(sections.count("index"), 1u);
  EXPECT_TRUE(BodyEmitter::has_checked_division(g));
  // No base and a step of 1: the position alone.
  CodeWriter out2;
  EXPECT_EQ(s.emit(ir::indirect_load(0, DType::Float32, Index::constant(0), row(11), 1, 111), out2),
            "in0[stax_rt::checked_index(in11[x0], 111, err)]");
}

TEST(VecBodyEmitter, RefusesLoadsThatAreNotContiguous) {
  const Expr transposed = load(0, 3 * x1 + x0);
  EXPECT_EQ(emit_body(bin(ExprOp::Add, at(0), transposed)).why_not, "load of in0[x0 + 3 * x1] steps by 3 in x1");
  EXPECT_EQ(emit_body(load(0, ir::floordiv(x1, 2) + 20 * x0)).why_not, "load of in0[20 * x0 + (x1 / 2)] is not linear in x1");
  // Inside a masked body too.
  const Expr mask = bin(ExprOp::Lt, ir::index_value(x1), ir::int_const(DType::Int64, 4));
  EXPECT_FALSE(emit_body(ir::masked(mask, transposed, ir::float_const(DType::Float32, 0))).why_not.empty());
  // Contiguous, broadcast and any index value are accepted.
  EXPECT_EQ(emit_body(bin(ExprOp::Mul, at(0), row(10))).why_not, "");
  EXPECT_EQ(emit_body(ir::index_value(ir::mod(x1, 3))).why_not, "");
}

TEST(VecBodyEmitter, TextOfLoadsBroadcastsAndStores) {
  const Emitted e = emit_body(bin(ExprOp::Add, at(0), row(10)), "stax_rt::IsaAvx2");
  EXPECT_EQ(e.value, "(stax_rt::Vec<float, stax_rt::IsaAvx2>::loadu(in0 + (37 * x0 + x1)) + "
                     "stax_rt::Vec<float, stax_rt::IsaAvx2>(in10[x0]))");
  EXPECT_EQ(e.statements, "");
  EXPECT_EQ(e.sections, (std::set<std::string>{"vec", "vec_avx2"}));
  EXPECT_EQ(emit_body(at(8), "I", "n").value, "stax_rt::Mask<I>::loadu(in8 + (37 * x0 + x1), n)");
  EXPECT_EQ(emit_body(at(0)).sections,
            (std::set<std::string>{"vec", "vec_avx512", "vec_avx2", "vec_neon", "vec_scalar"}));
  EXPECT_EQ(vec_type(DType::Int64, "I"), "stax_rt::Vec<int64_t, I>");
  EXPECT_EQ(vec_type(DType::Bool, "I"), "stax_rt::Mask<I>");
  EXPECT_EQ(vec_store(DType::Float32, "t3", "y + (37 * x0 + x1)"), "t3.storeu(y + (37 * x0 + x1));");
  EXPECT_EQ(vec_store(DType::Float32, "(a + b)", "y + x1", "n"), "(a + b).storeu(y + x1, n);");
  EXPECT_EQ(vec_store(DType::Int32, "-t1", "y + x1"), "(-t1).storeu(y + x1);");
}

TEST(VecBodyEmitter, IndexValuesStepByTheirStride) {
  EXPECT_EQ(emit_body(ir::index_value(37 * x0 + x1)).value, "stax_rt::Vec<int64_t, I>::iota(37 * x0 + x1)");
  EXPECT_EQ(emit_body(ir::index_value(x0, DType::Int32)).value, "stax_rt::Vec<int32_t, I>(static_cast<int32_t>(x0))");
  EXPECT_EQ(emit_body(ir::index_value(3 * x1)).value,
            "(stax_rt::Vec<int64_t, I>(3 * x1) + stax_rt::Vec<int64_t, I>::iota(0) * stax_rt::Vec<int64_t, I>(int64_t{3}))");
  EXPECT_EQ(emit_body(ir::index_value(ir::mod(x1, 3))).value,
            "stax_rt::from_lanes<int64_t, I>([&](int64_t x1) { return x1 % 3; }, x1)");
}

TEST(VecBodyEmitter, MaskedBodiesReadOnlyTheirLanes) {
  // pad: the load runs under `if (any(mask))` as a masked load; the value is selected.
  const Expr i = ir::index_value(x1);
  const Expr mask = bin(ExprOp::BitwiseAnd, bin(ExprOp::Ge, i, ir::int_const(DType::Int64, 3)),
                        bin(ExprOp::Lt, i, ir::int_const(DType::Int64, 29)));
  const Emitted e = emit_body(ir::masked(mask, load(13, 26 * x0 + x1 - 3), ir::float_const(DType::Float32, 0)));
  // The pad's edges as ranges of lanes (lanes_at_least), not W int64 lanes and vector compares.
  EXPECT_EQ(e.statements,
            "const stax_rt::Mask<I> t0 = stax_rt::lanes_at_least<I>(x1, 1, int64_t{3}, false) & "
            "(~stax_rt::lanes_at_least<I>(x1, 1, int64_t{29}, false));\n"
            "stax_rt::Vec<float, I> t1 = stax_rt::Vec<float, I>(0.0f);\n"
            "if (stax_rt::any(t0)) {\n"
            "  t1 = stax_rt::where(t0, stax_rt::load_masked(in13 + (26 * x0 + x1 - 3), t0), t1);\n"
            "}\n");
  EXPECT_EQ(e.value, "t1");
  // A mask that is the same in every lane guards a plain load.
  const Expr rows01 = bin(ExprOp::Lt, ir::index_value(x0), ir::int_const(DType::Int64, 2));
  const Emitted u = emit_body(ir::masked(rows01, at(25), ir::float_const(DType::Float32, -1)));
  EXPECT_NE(u.statements.find("if (stax_rt::any(t0)) {\n  t1 = stax_rt::Vec<float, I>::loadu(in25 + (37 * x0 + x1));\n}"),
            std::string::npos)
      << u.statements;
  // A body that reads nothing is selected without a block.
  const Emitted s = emit_body(ir::masked(mask, ir::float_const(DType::Float32, 2), ir::float_const(DType::Float32, 0)));
  EXPECT_EQ(s.statements.find("if"), std::string::npos) << s.statements;
  // An integer division in a masked body divides the lanes outside it by 1; in a tail, the
  // top-level one checks n lanes.
  const Expr div = bin(ExprOp::FloorDiv, at(4), at(5));
  const Emitted d = emit_body(ir::masked(bin(ExprOp::Ne, at(5), ir::int_const(DType::Int32, 0)), div,
                                         ir::int_const(DType::Int32, 0)));
  EXPECT_TRUE(d.fallible);
  EXPECT_NE(d.statements.find("stax_rt::where(t0, stax_rt::load_masked(in5 + (37 * x0 + x1), t0), stax_rt::Vec<int32_t, I>(1)), err)"),
            std::string::npos)
      << d.statements;
  EXPECT_NE(emit_body(div, "I", "n").value.find(", err, n)"), std::string::npos);
}

TEST(VecBodyEmitter, LocalLoadsAreVectorsOrBroadcasts) {
  std::set<std::string> sections;
  int temps = 0;
  auto text = [](const Index& e) { return index_cxx(e); };
  auto same = [](const Index& e) { return e; };
  VecBodyEmitter v(buffer_name, text, same, ir::xvar(1), "I", sections, temps);
  // in0 at this element is the vector `v0`; in10's row value the scalar `m` (a reduction's).
  v.set_local_loads([](ir::BufferId b, const Index&) { return b == 0 ? "v0" : b == 10 ? "m" : ""; });
  const Expr mask = bin(ExprOp::Lt, ir::index_value(x1), ir::int_const(DType::Int64, 5));
  CodeWriter out;
  const Expr body = bin(ExprOp::Sub, ir::masked(mask, at(0), ir::float_const(DType::Float32, 0)), row(10));
  EXPECT_EQ(v.emit(body, out), "(stax_rt::where(t0, v0, stax_rt::Vec<float, I>(0.0f)) - stax_rt::Vec<float, I>(m))");
  // A masked body of locals reads no memory: no block.
  EXPECT_EQ(out.str(), "const stax_rt::Mask<I> t0 = ~stax_rt::lanes_at_least<I>(x1, 1, int64_t{5}, false);\n");
}

TEST(VecBodyEmitter, ComparisonsOfIndicesAreRangesOfLanes) {
  const Expr c7 = ir::int_const(DType::Int64, 7);
  const auto cmp = [&](ExprOp op, const Expr& a, const Expr& b) { return emit_body(bin(op, a, b)).value; };
  // x >= c and x > c directly, x < c and x <= c as complements; the constant first turns it round.
  EXPECT_EQ(cmp(ExprOp::Gt, ir::index_value(3 * x1 - 2), c7), "stax_rt::lanes_at_least<I>(3 * x1 - 2, 3, int64_t{7}, true)");
  EXPECT_EQ(cmp(ExprOp::Le, ir::index_value(x0 - 2 * x1), c7), "(~stax_rt::lanes_at_least<I>(x0 - 2 * x1, -2, int64_t{7}, true))");
  EXPECT_EQ(cmp(ExprOp::Le, c7, ir::index_value(2 * x1)), "stax_rt::lanes_at_least<I>(2 * x1, 2, int64_t{7}, false)");
  EXPECT_EQ(cmp(ExprOp::Gt, c7, ir::index_value(2 * x1)), "(~stax_rt::lanes_at_least<I>(2 * x1, 2, int64_t{7}, false))");
  // The same in every lane: one scalar comparison.
  EXPECT_EQ(cmp(ExprOp::Lt, ir::index_value(x0 + 1), c7), "stax_rt::Mask<I>(x0 + 1 < int64_t{7})");
  // Not an int64 index against a constant: vector lanes as before.
  EXPECT_EQ(cmp(ExprOp::Lt, ir::index_value(x1, DType::Int32), ir::int_const(DType::Int32, 7)),
            "(stax_rt::Vec<int32_t, I>::iota(static_cast<int32_t>(x1)) < stax_rt::Vec<int32_t, I>(7))");
}

TEST(VecBodyEmitter, StrideTwoLoadsAreShuffledPairs) {
  const Expr even = load(0, 37 * x0 + 2 * x1);
  EXPECT_EQ(emit_body(even).why_not, "");
  EXPECT_EQ(emit_body(even).value, "stax_rt::load_even<I>(in0 + (37 * x0 + 2 * x1))");
  EXPECT_EQ(emit_body(even, "I", "n").value, "stax_rt::load_even<I>(in0 + (37 * x0 + 2 * x1), n)");
  const Expr mask = bin(ExprOp::Ge, ir::index_value(2 * x1 - 1), ir::int_const(DType::Int64, 0));
  const Emitted m = emit_body(ir::masked(mask, load(0, 37 * x0 + 2 * x1 - 1), ir::float_const(DType::Float32, 0)));
  EXPECT_NE(m.statements.find("stax_rt::load_even_masked(in0 + (37 * x0 + 2 * x1 - 1), t0)"), std::string::npos) << m.statements;
  // Bools and other strides stay refused.
  EXPECT_EQ(emit_body(load(8, 2 * x1)).why_not, "load of in8[2 * x1] steps by 2 in x1");
  EXPECT_EQ(emit_body(load(0, 3 * x1)).why_not, "load of in0[3 * x1] steps by 3 in x1");
}

// ---- The generated program --------------------------------------------------------------------

struct Case {
  std::string name;
  Expr body;
  int ulps = 0;  // how far apart the two loop forms may be
};

// The transcendental ops: SLEEF's, or inline in the vector layer (float pow too, below).
const std::set<ExprOp> kTranscendental = {
    ExprOp::Exp,  ExprOp::Exp2, ExprOp::Expm1, ExprOp::Log,  ExprOp::Log2, ExprOp::Log10,   ExprOp::Log1p,
    ExprOp::Sin,  ExprOp::Cos,  ExprOp::Tan,   ExprOp::Asin, ExprOp::Acos, ExprOp::Atan,    ExprOp::Sinh,
    ExprOp::Cosh, ExprOp::Tanh, ExprOp::Erf,   ExprOp::Erfc, ExprOp::Atan2, ExprOp::Sigmoid};

// How far apart the two loop forms of a body with one transcendental may be.
int tolerance(const Expr& body) {
  int ulps = 0;
  for (const Expr& e : ir::topo_order(body)) {
    if (e.op() == ExprOp::Erfc) ulps = std::max(ulps, kErfcUlps);
    const bool sleef = kTranscendental.count(e.op()) != 0 || (e.op() == ExprOp::Pow && is_floating(e.dtype()));
    if (sleef) ulps = std::max(ulps, kTranscendentalUlps);
  }
  return ulps;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < buffers().size(); ++i) names.push_back(buffer_name(static_cast<ir::BufferId>(i)));
  auto add = [&](const Expr& body, int ulps = -1) {
    if (ulps < 0) ulps = tolerance(body);
    out.push_back({ir::to_string(body, names), body, ulps});
  };
  const ExprOp float_unary[] = {
      ExprOp::Neg, ExprOp::Abs, ExprOp::Sign, ExprOp::Floor, ExprOp::Ceil, ExprOp::Round, ExprOp::Trunc,
      ExprOp::Exp, ExprOp::Exp2, ExprOp::Expm1, ExprOp::Log, ExprOp::Log2, ExprOp::Log10, ExprOp::Log1p,
      ExprOp::Sqrt, ExprOp::Sin, ExprOp::Cos, ExprOp::Tan, ExprOp::Asin, ExprOp::Acos, ExprOp::Atan,
      ExprOp::Sinh, ExprOp::Cosh, ExprOp::Tanh, ExprOp::Sigmoid, ExprOp::Erf, ExprOp::Erfc, ExprOp::IsNan,
      ExprOp::IsInf, ExprOp::IsFinite};
  const ExprOp float_binary[] = {ExprOp::Add, ExprOp::Sub, ExprOp::Mul, ExprOp::Div, ExprOp::FloorDiv,
                                 ExprOp::TruncDiv, ExprOp::Remainder, ExprOp::Pow, ExprOp::Maximum,
                                 ExprOp::Minimum, ExprOp::Atan2};
  const ExprOp int_binary[] = {ExprOp::Add, ExprOp::Sub, ExprOp::Mul, ExprOp::FloorDiv, ExprOp::TruncDiv,
                               ExprOp::Remainder, ExprOp::Pow, ExprOp::Maximum, ExprOp::Minimum,
                               ExprOp::BitwiseAnd, ExprOp::BitwiseOr, ExprOp::BitwiseXor};
  const ExprOp compare[] = {ExprOp::Eq, ExprOp::Ne, ExprOp::Lt, ExprOp::Le, ExprOp::Gt, ExprOp::Ge};
  // Values and divisors of each dtype: (a, b) buffer ids.
  const std::pair<ir::BufferId, ir::BufferId> floats[] = {{0, 1}, {2, 3}}, ints[] = {{4, 5}, {6, 7}};
  const std::pair<ir::BufferId, ir::BufferId> all[] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}};

  for (auto [a, b] : floats) {
    for (ExprOp op : float_unary) {
      // The prelude's scalar log1p (SLEEF 3.5's) gives inf above about 1e38 (float) and 1e307
      // (double), where the vector layer's gives log(x); the inputs stay below.
      const Expr x = op == ExprOp::Log1p ? bin(ExprOp::Minimum, at(a), ir::const_of(at(a).dtype(), 1e30)) : at(a);
      add(un(op, x));
    }
    for (ExprOp op : float_binary) add(bin(op, at(a), at(b)));
  }
  for (auto [a, b] : ints) {
    for (ExprOp op : {ExprOp::Neg, ExprOp::Abs, ExprOp::Sign, ExprOp::BitwiseNot}) add(un(op, at(a)));
    for (ExprOp op : int_binary) add(bin(op, at(a), at(b)));
  }
  add(un(ExprOp::BitwiseNot, at(8)));
  for (ExprOp op : {ExprOp::BitwiseAnd, ExprOp::BitwiseOr, ExprOp::BitwiseXor}) add(bin(op, at(8), at(9)));
  for (auto [a, b] : all)
    for (ExprOp op : compare) add(bin(op, at(a), at(b)));
  // Every conversion, and where of every dtype.
  for (auto [a, b] : all) {
    for (DType to : {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Bool})
      if (to != at(a).dtype()) add(ir::cast(at(a), to));
    add(ir::where(at(8), at(a), at(b)));
  }
  // A value compared with itself, an integer division whose result no one takes (both where
  // branches run), shared subexpressions (temporaries), constants of every dtype.
  add(bin(ExprOp::Eq, at(0), at(0)));
  add(ir::where(bin(ExprOp::Ne, at(5), ir::int_const(DType::Int32, 0)), bin(ExprOp::FloorDiv, at(4), at(5)),
                ir::int_const(DType::Int32, -1)));
  {
    const Expr x = at(0), h = bin(ExprOp::Mul, x, ir::float_const(DType::Float32, 0.5));
    const Expr e = un(ExprOp::Erf, bin(ExprOp::Mul, x, ir::float_const(DType::Float32, 0.70710678118654752440)));
    // gelu's shape, with 2 + erf where gelu has 1 + erf: that cancels near erf = -1 and turns
    // the 1-ULP difference of erf into any number of ULPs of the result. Here the sum may round
    // it to 1 ULP and the product to one more.
    add(bin(ExprOp::Mul, h, bin(ExprOp::Add, ir::float_const(DType::Float32, 2), e)), 2 * kTranscendentalUlps);
    const Expr d = bin(ExprOp::Sub, at(0), row(10));
    // e / (e + |d|) with e = exp(d): where |d| >> e the quotient carries e's relative difference,
    // 1 ULP of e, which is up to 2 ULP of the quotient in another binade position.
    add(bin(ExprOp::Div, un(ExprOp::Exp, d), bin(ExprOp::Add, un(ExprOp::Exp, d), un(ExprOp::Abs, d))),
        2 * kTranscendentalUlps);
    const Expr s = bin(ExprOp::Add, at(6), row(11));
    add(bin(ExprOp::Mul, bin(ExprOp::Sub, s, ir::int_const(DType::Int64, 3)), bin(ExprOp::BitwiseXor, s, at(7))));
  }
  add(ir::where(bin(ExprOp::BitwiseAnd, at(8), row(12)), ir::float_const(DType::Float64, -0.0),
                ir::float_const(DType::Float64, std::numeric_limits<double>::infinity())));
  add(bin(ExprOp::BitwiseOr, at(8), ir::bool_const(true)));
  add(bin(ExprOp::Add, at(4), ir::int_const(DType::Int32, std::numeric_limits<int32_t>::min())));
  // Index values: contiguous, invariant, strided, wrapping to int32, and through // and %.
  add(ir::index_value(x1));
  add(ir::index_value(37 * x0 + x1, DType::Int32));
  add(ir::index_value(x0 + 3 * x1));
  add(ir::index_value(x0 * 5 + 2));
  add(ir::index_value(x1 + 2147483640, DType::Int32));
  add(ir::index_value(ir::floordiv(x1 + 5, 3) + 2 * x0));
  add(ir::index_value(ir::mod(x1, 4), DType::Int32));
  // pad [3, 26] -> [3, 37] on each side of a guard page, every dtype: lanes x1 < 3 and x1 >= 29
  // are masked off, and their addresses lie before the first row or after the last.
  const Expr i = ir::index_value(x1);
  auto i64 = [](int64_t v) { return ir::int_const(DType::Int64, v); };
  const Expr inside = bin(ExprOp::BitwiseAnd, bin(ExprOp::Ge, i, i64(3)), bin(ExprOp::Lt, i, i64(29)));
  for (ir::BufferId src = 13; src <= 22; ++src) {
    const DType dt = buffers()[static_cast<std::size_t>(src)].dtype;
    add(ir::masked(inside, load(src, 26 * x0 + x1 - 3), ir::const_of(dt, dt == DType::Bool ? 1 : -2)));
  }
  // cat([3, 20], [3, 17]) along x1, in the shape lowering gives it (and a logical not).
  const Expr first = bin(ExprOp::Lt, i, i64(20)), second = bin(ExprOp::Ge, i, i64(20));
  add(ir::where(second, ir::masked(second, load(24, 17 * x0 + x1 - 20), ir::float_const(DType::Float32, 0)),
                ir::masked(first, load(23, 20 * x0 + x1), ir::float_const(DType::Float32, 0))));
  add(ir::masked(un(ExprOp::BitwiseNot, first), load(24, 17 * x0 + x1 - 20), ir::float_const(DType::Float32, 3)));
  // A mask the same in all lanes (rows 0 and 1 exist), a broadcast under a lane mask, nested
  // masks, an integer division under a mask, and a masked body that reads nothing.
  const Expr rows01 = bin(ExprOp::Lt, ir::index_value(x0), i64(2));
  add(ir::masked(rows01, bin(ExprOp::Add, at(25), at(0)), ir::float_const(DType::Float32, -1)));
  add(ir::masked(bin(ExprOp::BitwiseAnd, rows01, bin(ExprOp::Lt, i, i64(5))),
                 bin(ExprOp::Mul, row(26), at(0)), ir::float_const(DType::Float32, 7)));
  add(ir::masked(bin(ExprOp::Ge, i, i64(3)),
                 bin(ExprOp::Add, ir::masked(bin(ExprOp::Lt, i, i64(29)), load(13, 26 * x0 + x1 - 3),
                                             ir::float_const(DType::Float32, 5)),
                     at(0)),
                 ir::float_const(DType::Float32, 6)));
  add(ir::masked(bin(ExprOp::Ne, at(5), ir::int_const(DType::Int32, 0)), bin(ExprOp::Remainder, at(4), at(5)),
                 ir::int_const(DType::Int32, 9)));
  add(ir::masked(inside, bin(ExprOp::Mul, ir::index_value(x1), i64(2)), i64(-1)));
  return out;
}

// Fills of the inputs: specials every fifth element, the rest from a small generator.
const char* kProgramSupport = R"(
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sys/mman.h>
#include <unistd.h>

namespace {

uint64_t lcg_state = 12345;
double lcg() {  // uniform in [-4, 4)
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(lcg_state >> 11) / 9007199254740992.0 * 8.0 - 4.0;
}

template <typename T> T special(int64_t k) {
  const double inf = std::numeric_limits<double>::infinity();
  const double list[] = {0.0, -0.0, inf, -inf, std::nan(""), 0.5, -0.5, 1.5, 2.5, -2.5, 1e30, -1e30, 3e38,
                         1e-40, 2147483648.0, -2147483649.0, 9.3e18, 1.0, -1.0, 100.0, 1e300};
  return static_cast<T>(list[k % static_cast<int64_t>(sizeof list / sizeof list[0])]);
}

template <typename T> T value(int64_t k, bool divisor) {
  if constexpr (std::is_floating_point_v<T>) {
    if (k % 5 == 0) return special<T>(k / 5 + (divisor ? 7 : 0));
    return static_cast<T>(lcg());
  } else if constexpr (std::is_same_v<T, bool>) {
    return (k * 7 + (divisor ? 3 : 0)) % 5 < 2;
  } else {
    const T extremes[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(-1), T(0)};
    if (divisor) return k % 13 == 0 ? T(-1) : static_cast<T>((k * 7) % 9 - 4);  // zeros at k = 7 (mod 9)
    if (k % 13 == 0) return extremes[(k / 13) % 4];
    return static_cast<T>(std::floor(lcg() * 2));
  }
}

// n elements at the end (or the start) of pages between inaccessible ones.
template <typename T> T* guarded(int64_t n, bool at_start, bool divisor) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  const std::size_t pages = (bytes + page - 1) / page;
  void* m = mmap(nullptr, (pages + 2) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) std::abort();
  unsigned char* base = static_cast<unsigned char*>(m);
  mprotect(base, page, PROT_NONE);
  mprotect(base + (pages + 1) * page, page, PROT_NONE);
  T* p = reinterpret_cast<T*>(at_start ? base + page : base + (pages + 1) * page - bytes);
  for (int64_t k = 0; k < n; ++k) p[k] = value<T>(k, divisor);
  return p;
}

template <typename T> bool same(T a, T b, int ulps, double& worst) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::memcmp(&a, &b, sizeof(T)) == 0) return true;
    if (ulps == 0) return false;
    if (a != a || b != b) return a != a && b != b;
    if (std::isinf(a) || std::isinf(b) || std::signbit(a) != std::signbit(b)) return false;
    using U = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
    U ia, ib;
    std::memcpy(&ia, &a, sizeof(T));
    std::memcpy(&ib, &b, sizeof(T));
    const double d = std::fabs(static_cast<double>(ia) - static_cast<double>(ib));
    if (d > worst) worst = d;
    return d <= ulps;
  } else {
    (void)ulps, (void)worst;
    return a == b;
  }
}

int failures = 0, comparisons = 0;

// Runs f and the scalar reference into fresh outputs and compares every element and the flag.
template <typename T> void check(const char* name, int ulps, void (*reference)(void*, int&),
                                 void (*f)(void*, int&), const char* isa, const char* mode) {
  const int64_t n = )" "%ROWS% * %COLS%" R"(;
  T want[n], got[n];
  std::memset(static_cast<void*>(want), 0xA5, sizeof want);
  std::memset(static_cast<void*>(got), 0x5A, sizeof got);
  int want_err = 0, got_err = 0;
  double worst = 0;
  reference(want, want_err);
  f(got, got_err);
  ++comparisons;
  bool ok = want_err == got_err;
  if (!ok) std::printf("FAIL %s [%s, %s]: err %d, scalar %d\n", name, isa, mode, got_err, want_err);
  for (int64_t k = 0; k < n; ++k) {
    if (same(got[k], want[k], ulps, worst)) continue;
    if (ok) std::printf("FAIL %s [%s, %s]: element %lld is %.17g, scalar %.17g\n", name, isa, mode,
                        static_cast<long long>(k), static_cast<double>(got[k]), static_cast<double>(want[k]));
    ok = false;
  }
  failures += !ok;
  if (ok && worst > 0) std::printf("%s [%s, %s]: %g ULP apart\n", name, isa, mode, worst);
}

}  // namespace
)";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// The program: inputs, per case a scalar reference and the two vector loop forms over the
// template parameter I, then main, which checks each instruction set the build targets.
std::string program(const std::vector<Case>& all) {
  std::set<std::string> sections;
  CodeWriter out;
  int temps = 0;
  auto text = [](const Index& e) { return index_cxx(e); };
  auto same = [](const Index& e) { return e; };
  const std::string rows = std::to_string(kRows), cols = std::to_string(kCols);
  const std::string loop0 = "for (int64_t x0 = 0; x0 < " + rows + "; ++x0)";
  for (std::size_t k = 0; k < all.size(); ++k) {
    const Case& c = all[k];
    const DType dt = c.body.dtype();
    const std::string T = cxx_type(dt), id = std::to_string(k), store = "out + (" + cols + " * x0 + x1)";
    auto scalar_body = [&](CodeWriter& w) {
      BodyEmitter s(buffer_name, text, sections, temps);
      const std::string v = s.emit(c.body, w);
      w.line("out[" + cols + " * x0 + x1] = " + bare(v) + ";");
    };
    auto vector_body = [&](CodeWriter& w, const std::string& live) {
      VecBodyEmitter v(buffer_name, text, same, ir::xvar(1), "I", sections, temps);
      EXPECT_EQ(v.why_not(c.body), "") << c.name;
      const std::string value = v.emit(c.body, w, live);
      w.line(vec_store(dt, value, store, live));
    };
    // A function over the rows, its row loop open; `close_function` closes both.
    auto open_function = [&](const std::string& head) {
      out.open(head + "(void* out_, int& err)");
      out.line(T + "* out = static_cast<" + T + "*>(out_);");
      out.line("(void)err;");
      out.open(loop0);
    };
    auto close_function = [&] {
      out.close();
      out.close();
    };
    out.line("// " + c.name);
    open_function("void scalar_" + id);
    out.open("for (int64_t x1 = 0; x1 < " + cols + "; ++x1)");
    scalar_body(out);
    out.close();
    close_function();
    open_function("template <typename I> void vector_" + id);
    out.line("int64_t x1 = 0;");
    out.open("for (; x1 + I::width <= " + cols + "; x1 += I::width)");
    vector_body(out, "");
    out.close();
    out.open("for (; x1 < " + cols + "; ++x1)");
    scalar_body(out);
    out.close();
    close_function();
    open_function("template <typename I> void tail_" + id);
    out.open("for (int64_t x1 = 0; x1 < " + cols + "; x1 += I::width)");
    out.line("const int n = " + cols + " - x1 < I::width ? static_cast<int>(" + cols + " - x1) : I::width;");
    vector_body(out, "n");
    out.close();
    close_function();
    out.blank();
  }
  // Checks of one instruction set.
  out.open("template <typename I> void check_isa()");
  for (std::size_t k = 0; k < all.size(); ++k) {
    const std::string id = std::to_string(k), T = cxx_type(all[k].body.dtype());
    const std::string ulps = std::to_string(all[k].ulps);
    const std::string args = string_literal(all[k].name) + ", " + ulps + ", scalar_" + id + ", ";
    out.line("check<" + T + ">(" + args + "vector_" + id + "<I>, I::name, \"vector + scalar tail\");");
    out.line("if (I::width > 1) check<" + T + ">(" + args + "tail_" + id + "<I>, I::name, \"live-lane tail\");");
  }
  out.close();

  std::string src = prelude_text(sections) + replace_all(replace_all(kProgramSupport, "%ROWS%", rows), "%COLS%", cols);
  src += "\nnamespace {\n";
  for (std::size_t i = 0; i < buffers().size(); ++i) {
    const Buf& b = buffers()[i];
    src += "const " + cxx_type(b.dtype) + "* const " + buffer_name(static_cast<ir::BufferId>(i)) + " = guarded<" +
           cxx_type(b.dtype) + ">(" + std::to_string(b.count) + ", " + (b.guard_before ? "true" : "false") + ", " +
           (b.fill == Fill::Divisors ? "true" : "false") + ");\n";
  }
  src += out.str() + "}  // namespace\n\nint main() {\n";
  src += "#if STAX_VEC_HAS_AVX512\n  check_isa<stax_rt::IsaAvx512>();\n#else\n";
  src += "  check_isa<stax_rt::IsaAvx2>();\n  check_isa<stax_rt::IsaScalar>();\n#endif\n";
  src += "  std::printf(\"%d comparisons, %d failed\\n\", comparisons, failures);\n  return failures == 0 ? 0 : 1;\n}\n";
  return src;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Builds the program with `flags` and runs it when `runnable`.
void build_and_run(const std::string& tag, const std::string& flags, bool runnable) {
  const std::vector<Case> all = cases();
  ASSERT_GT(all.size(), 200u);
  const std::string dir = std::string(STAX_BINARY_DIR) + "/test/codegen";
  const std::string src = dir + "/vec_body_" + tag + ".cpp", exe = dir + "/vec_body_" + tag;
  const std::string log = exe + ".log";
  {
    std::ofstream f(src);
    f << program(all);
  }
  const std::string cmd = "g++ -std=c++17 -O1 -ffp-contract=off -Wall -Wextra -Werror " + flags + " -o " + exe + " " +
                          src + " -lsleef > " + log + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << read(log).substr(0, 20000);
  if (!runnable) GTEST_SKIP() << "built; this CPU cannot run it";
  const int status = std::system((exe + " > " + log + " 2>&1").c_str());
  const std::string output = read(log);
  EXPECT_EQ(status, 0) << output.substr(0, 20000);
  // Every case ran in both loop forms for each set (one form for the scalar set, W = 1).
  const std::size_t forms = tag == "avx512" ? 2 : 3;
  EXPECT_NE(output.find(std::to_string(forms * all.size()) + " comparisons, 0 failed"), std::string::npos) << output;
  std::printf("%s", output.c_str());
}

TEST(VecBodyEmitterNumbers, Avx2AndScalar) {
  __builtin_cpu_init();
  const bool runnable = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  build_and_run("avx2", "-mavx2 -mfma", runnable);
}

TEST(VecBodyEmitterNumbers, Avx512) {
  __builtin_cpu_init();
  const bool runnable = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  build_and_run("avx512", "-mavx512f -mavx512dq -mavx2 -mfma", runnable);
}

}  // namespace
}  // namespace stax::codegen
