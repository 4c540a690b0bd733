// The test-only IR interpreter (ir_eval.h).
#include "ir_eval.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "stax/support/error.h"

namespace stax::testing {

namespace {

using ir::Expr;
using ir::ExprOp;

// A scalar of some dtype: floats in f, ints and bools in i.
struct Val {
  double f = 0;
  int64_t i = 0;
};

int64_t wrap(DType dt, int64_t v) {
  if (dt == DType::Int32) return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
  if (dt == DType::Bool) return v != 0;
  return v;
}

double round_to(DType dt, double v) {
  return dt == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v;
}

Val make(DType dt, double f, int64_t i) {
  Val v;
  if (is_floating(dt)) v.f = round_to(dt, f);
  else v.i = wrap(dt, i);
  return v;
}

double as_double(DType dt, Val v) { return is_floating(dt) ? v.f : static_cast<double>(v.i); }

int64_t float_to_int(double f, DType to) {
  const double lo = to == DType::Int32 ? -2147483648.0 : -9223372036854775808.0;
  const double hi = to == DType::Int32 ? 2147483647.0 : 9223372036854775807.0;
  if (std::isnan(f)) return 0;
  if (f <= lo) return to == DType::Int32 ? INT32_MIN : INT64_MIN;
  if (f >= hi) return to == DType::Int32 ? INT32_MAX : INT64_MAX;
  return static_cast<int64_t>(f);
}

Val convert(DType from, DType to, Val v) {
  if (to == DType::Bool) {
    Val r;
    r.i = is_floating(from) ? (v.f != 0 || std::isnan(v.f)) : (v.i != 0);
    return r;
  }
  if (is_floating(to)) return make(to, as_double(from, v), 0);
  if (is_floating(from)) return make(to, 0, float_to_int(v.f, to));
  return make(to, 0, v.i);
}

int64_t int_pow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (exp > 0) {
    if (exp & 1) result *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<int64_t>(result);
}

double float_floordiv(double a, double b) {
  if (b == 0) return a / b;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  double fl;
  if (div != 0) {
    fl = std::floor(div);
    if (div - fl > 0.5) fl += 1.0;
  } else {
    fl = std::copysign(0.0, a / b);
  }
  return fl;
}

double float_remainder(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

class Evaluator {
 public:
  Evaluator(const ir::Program& p, std::vector<Tensor>& store) : p_(p), store_(store) {}

  void set_point(const ir::VarRanges& ranges, const std::vector<int64_t>& values) {
    vars_.clear();
    std::size_t k = 0;
    for (const auto& [v, size] : ranges) vars_[v] = values[k++];
    memo_.clear();
  }
  void set_var(ir::Var v, int64_t value) {
    vars_[v] = value;
    memo_.clear();
  }

  Val eval(const Expr& e) {
    auto it = memo_.find(e.node());
    if (it != memo_.end()) return it->second;
    Val v = compute(e);
    memo_.emplace(e.node(), v);
    return v;
  }

 private:
  int64_t index(const ir::Index& i) {
    return ir::evaluate(i, [&](ir::Var v) {
      auto it = vars_.find(v);
      STAX_ASSERT(it != vars_.end(), "unbound variable " + ir::var_name(v));
      return it->second;
    });
  }

  Val compute(const Expr& e) {
    const DType dt = e.dtype();
    switch (e.op()) {
      case ExprOp::Load: {
        const Tensor& t = store_.at(static_cast<std::size_t>(e.buffer()));
        int64_t at = index(e.index());
        STAX_ASSERT(at >= 0 && at < t.numel(), "load out of bounds: " + ir::to_string(e.index()));
        return is_floating(dt) ? make(dt, t.get_double(at), 0) : make(dt, 0, t.get_int(at));
      }
      case ExprOp::IndirectLoad: {
        const Tensor& t = store_.at(static_cast<std::size_t>(e.buffer()));
        const int64_t p = eval(e.operand(0)).i;
        if (p < 0 || p >= e.extent()) throw RuntimeFailure("index out of range");
        const int64_t at = index(e.index()) + e.stride() * p;
        STAX_ASSERT(at >= 0 && at < t.numel(), "indirect load out of bounds: " + ir::to_string(e.index()));
        return is_floating(dt) ? make(dt, t.get_double(at), 0) : make(dt, 0, t.get_int(at));
      }
      case ExprOp::Constant: return is_floating(dt) ? make(dt, e.float_value(), 0) : make(dt, 0, e.int_value());
      case ExprOp::IndexValue: return make(dt, 0, index(e.index()));
      case ExprOp::Cast: return convert(e.operand(0).dtype(), dt, eval(e.operand(0)));
      case ExprOp::Where: {  // both branches are evaluated (their errors count)
        Val c = eval(e.operand(0)), a = eval(e.operand(1)), b = eval(e.operand(2));
        return c.i ? a : b;
      }
      case ExprOp::Masked: return eval(e.operand(0)).i ? eval(e.operand(1)) : eval(e.operand(2));
      default: break;
    }
    if (ir::expr_op_arity(e.op()) == 1) return unary(e.op(), e.operand(0).dtype(), dt, eval(e.operand(0)));
    return binary(e.op(), e.operand(0).dtype(), dt, eval(e.operand(0)), eval(e.operand(1)));
  }

  static Val unary(ExprOp op, DType in, DType dt, Val a) {
    if (!is_floating(in)) {
      switch (op) {
        case ExprOp::Neg: return make(dt, 0, static_cast<int64_t>(0 - static_cast<uint64_t>(a.i)));
        case ExprOp::Abs: return make(dt, 0, a.i < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a.i)) : a.i);
        case ExprOp::Sign: return make(dt, 0, (a.i > 0) - (a.i < 0));
        case ExprOp::BitwiseNot: return make(dt, 0, in == DType::Bool ? !a.i : ~a.i);
        default: STAX_ASSERT(false, "integer operand of " + std::string(ir::expr_op_name(op)));
      }
    }
    const double x = a.f;
    double r = 0;
    switch (op) {
      case ExprOp::Neg: r = -x; break;
      case ExprOp::Abs: r = std::fabs(x); break;
      case ExprOp::Sign: r = (x > 0) - (x < 0); break;
      case ExprOp::Floor: r = std::floor(x); break;
      case ExprOp::Ceil: r = std::ceil(x); break;
      case ExprOp::Round: r = std::nearbyint(x); break;
      case ExprOp::Trunc: r = std::trunc(x); break;
      case ExprOp::Exp: r = std::exp(x); break;
      case ExprOp::Exp2: r = std::exp2(x); break;
      case ExprOp::Expm1: r = std::expm1(x); break;
      case ExprOp::Log: r = std::log(x); break;
      case ExprOp::Log2: r = std::log2(x); break;
      case ExprOp::Log10: r = std::log10(x); break;
      case ExprOp::Log1p: r = std::log1p(x); break;
      case ExprOp::Sqrt: r = std::sqrt(x); break;
      case ExprOp::Sin: r = std::sin(x); break;
      case ExprOp::Cos: r = std::cos(x); break;
      case ExprOp::Tan: r = std::tan(x); break;
      case ExprOp::Asin: r = std::asin(x); break;
      case ExprOp::Acos: r = std::acos(x); break;
      case ExprOp::Atan: r = std::atan(x); break;
      case ExprOp::Sinh: r = std::sinh(x); break;
      case ExprOp::Cosh: r = std::cosh(x); break;
      case ExprOp::Tanh: r = std::tanh(x); break;
      case ExprOp::Sigmoid: r = 1.0 / (1.0 + std::exp(-x)); break;
      case ExprOp::Erf: r = std::erf(x); break;
      case ExprOp::Erfc: r = std::erfc(x); break;
      case ExprOp::IsNan: return make(dt, 0, std::isnan(x));
      case ExprOp::IsInf: return make(dt, 0, std::isinf(x));
      case ExprOp::IsFinite: return make(dt, 0, std::isfinite(x));
      default: STAX_ASSERT(false, "not a unary op: " + std::string(ir::expr_op_name(op)));
    }
    return make(dt, r, 0);
  }

  static Val binary(ExprOp op, DType in, DType dt, Val a, Val b) {
    switch (op) {
      case ExprOp::Eq: return make(dt, 0, is_floating(in) ? a.f == b.f : a.i == b.i);
      case ExprOp::Ne: return make(dt, 0, is_floating(in) ? a.f != b.f : a.i != b.i);
      case ExprOp::Lt: return make(dt, 0, is_floating(in) ? a.f < b.f : a.i < b.i);
      case ExprOp::Le: return make(dt, 0, is_floating(in) ? a.f <= b.f : a.i <= b.i);
      case ExprOp::Gt: return make(dt, 0, is_floating(in) ? a.f > b.f : a.i > b.i);
      case ExprOp::Ge: return make(dt, 0, is_floating(in) ? a.f >= b.f : a.i >= b.i);
      default: break;
    }
    if (is_floating(dt)) {
      const double x = a.f, y = b.f;
      double r = 0;
      switch (op) {
        case ExprOp::Add: r = x + y; break;
        case ExprOp::Sub: r = x - y; break;
        case ExprOp::Mul: r = x * y; break;
        case ExprOp::Div: r = x / y; break;
        case ExprOp::FloorDiv: r = float_floordiv(x, y); break;
        case ExprOp::TruncDiv: r = std::trunc(round_to(dt, x / y)); break;
        case ExprOp::Remainder: r = float_remainder(x, y); break;
        case ExprOp::Pow: r = std::pow(x, y); break;
        case ExprOp::Maximum: r = (std::isnan(x) || std::isnan(y)) ? NAN : std::max(x, y); break;
        case ExprOp::Minimum: r = (std::isnan(x) || std::isnan(y)) ? NAN : std::min(x, y); break;
        case ExprOp::Atan2: r = std::atan2(x, y); break;
        default: STAX_ASSERT(false, "not a float binary op: " + std::string(ir::expr_op_name(op)));
      }
      return make(dt, r, 0);
    }
    const int64_t x = a.i, y = b.i;
    const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
    const int64_t min = dt == DType::Int32 ? INT32_MIN : INT64_MIN;
    switch (op) {
      case ExprOp::Add: return make(dt, 0, static_cast<int64_t>(ux + uy));
      case ExprOp::Sub: return make(dt, 0, static_cast<int64_t>(ux - uy));
      case ExprOp::Mul: return make(dt, 0, static_cast<int64_t>(ux * uy));
      case ExprOp::FloorDiv:
      case ExprOp::TruncDiv:
      case ExprOp::Remainder: {
        if (y == 0) throw RuntimeFailure("integer division by zero");
        if (y == -1) {
          if (op == ExprOp::Remainder) return make(dt, 0, 0);
          return make(dt, 0, x == min ? min : -x);
        }
        int64_t q = x / y, r = x % y;
        if (op == ExprOp::TruncDiv) return make(dt, 0, q);
        if (r != 0 && ((r < 0) != (y < 0))) {
          --q;
          r += y;
        }
        return make(dt, 0, op == ExprOp::FloorDiv ? q : r);
      }
      case ExprOp::Pow: return make(dt, 0, int_pow(x, y));
      case ExprOp::Maximum: return make(dt, 0, std::max(x, y));
      case ExprOp::Minimum: return make(dt, 0, std::min(x, y));
      case ExprOp::BitwiseAnd: return make(dt, 0, x & y);
      case ExprOp::BitwiseOr: return make(dt, 0, x | y);
      case ExprOp::BitwiseXor: return make(dt, 0, x ^ y);
      default: STAX_ASSERT(false, "not an int binary op: " + std::string(ir::expr_op_name(op)));
    }
    return Val{};
  }

  const ir::Program& p_;
  std::vector<Tensor>& store_;
  std::map<ir::Var, int64_t> vars_;
  std::unordered_map<const ir::ExprNode*, Val> memo_;
};

// Calls f(values) for every point of `sizes`, row-major.
template <typename F>
void for_each_point(const std::vector<int64_t>& sizes, F&& f) {
  std::vector<int64_t> at(sizes.size(), 0);
  for (int64_t s : sizes)
    if (s == 0) return;
  while (true) {
    f(at);
    std::size_t d = sizes.size();
    while (d > 0) {
      --d;
      if (++at[d] < sizes[d]) break;
      at[d] = 0;
      if (d == 0) return;
    }
    if (sizes.empty()) return;
  }
}

void store(Tensor& t, int64_t at, DType dt, Val v) {
  if (is_floating(dt)) t.set_double(at, v.f);
  else t.set_int(at, v.i);
}

void run_reduction(const ir::Buffer& b, Evaluator& ev, Tensor& out) {
  const DType dt = b.dtype, bt = b.body.dtype();
  std::vector<ir::Var> xs = b.output_vars(), rs = b.reduce_vars();
  int64_t flat = 0;
  for_each_point(b.shape, [&](const std::vector<int64_t>& x) {
    double facc = 0;
    uint64_t iacc = 0;
    bool bacc = false, first = true, nan_seen = false;
    double best = 0;
    int64_t ibest = 0, best_pos = 0, pos = 0;
    switch (b.reduce_op) {
      case ir::ReduceOp::Prod: facc = 1; iacc = 1; break;
      case ir::ReduceOp::All: bacc = true; break;
      default: break;
    }
    for_each_point(b.reduce_ranges, [&](const std::vector<int64_t>& r) {
      for (std::size_t k = 0; k < xs.size(); ++k) ev.set_var(xs[k], x[k]);
      for (std::size_t k = 0; k < rs.size(); ++k) ev.set_var(rs[k], r[k]);
      Val v = ev.eval(b.body);
      const bool fl = is_floating(bt);
      switch (b.reduce_op) {
        case ir::ReduceOp::Sum: fl ? facc += v.f : iacc += static_cast<uint64_t>(v.i); break;
        case ir::ReduceOp::Prod: fl ? facc *= v.f : iacc *= static_cast<uint64_t>(v.i); break;
        case ir::ReduceOp::Any: bacc = bacc || v.i; break;
        case ir::ReduceOp::All: bacc = bacc && v.i; break;
        case ir::ReduceOp::Max:
        case ir::ReduceOp::Min:
        case ir::ReduceOp::ArgMax:
        case ir::ReduceOp::ArgMin: {
          const bool is_max = b.reduce_op == ir::ReduceOp::Max || b.reduce_op == ir::ReduceOp::ArgMax;
          if (nan_seen) break;
          if (fl && std::isnan(v.f)) {
            nan_seen = true;
            best = v.f;
            best_pos = pos;
            break;
          }
          bool better = first || (fl ? (is_max ? v.f > best : v.f < best) : (is_max ? v.i > ibest : v.i < ibest));
          if (better) {
            best = v.f;
            ibest = v.i;
            best_pos = pos;
          }
          first = false;
          break;
        }
      }
      ++pos;
    });
    Val res;
    switch (b.reduce_op) {
      case ir::ReduceOp::Sum:
      case ir::ReduceOp::Prod: res = make(dt, facc, static_cast<int64_t>(iacc)); break;
      case ir::ReduceOp::Any:
      case ir::ReduceOp::All: res.i = bacc; break;
      case ir::ReduceOp::Max:
      case ir::ReduceOp::Min: res = make(dt, best, ibest); break;
      case ir::ReduceOp::ArgMax:
      case ir::ReduceOp::ArgMin: res.i = best_pos; break;
    }
    store(out, flat++, dt, res);
  });
}

void run_scan(const ir::Buffer& b, Evaluator& ev, Tensor& out) {
  std::vector<ir::Var> xs = b.output_vars();
  const auto d = static_cast<std::size_t>(b.scan_dim);
  const bool fl = is_floating(b.dtype);
  int64_t flat = 0;
  for_each_point(b.shape, [&](const std::vector<int64_t>& x) {
    double facc = b.scan_op == ir::ScanOp::Prod ? 1 : 0;
    uint64_t iacc = b.scan_op == ir::ScanOp::Prod ? 1 : 0;
    for (int64_t t = 0; t <= x[d]; ++t) {
      for (std::size_t k = 0; k < xs.size(); ++k) ev.set_var(xs[k], k == d ? t : x[k]);
      Val v = ev.eval(b.body);
      if (b.scan_op == ir::ScanOp::Sum) fl ? facc += v.f : iacc += static_cast<uint64_t>(v.i);
      else fl ? facc *= v.f : iacc *= static_cast<uint64_t>(v.i);
    }
    store(out, flat++, b.dtype, make(b.dtype, facc, static_cast<int64_t>(iacc)));
  });
}

void run_matmul(const ir::Buffer& b, const std::vector<Tensor>& st, Tensor& out) {
  const ir::Matmul& m = b.matmul;
  const Tensor& A = st.at(static_cast<std::size_t>(m.a.buffer));
  const Tensor& B = st.at(static_cast<std::size_t>(m.b.buffer));
  const bool fl = is_floating(b.dtype);
  int64_t flat = 0;
  for_each_point(m.batch, [&](const std::vector<int64_t>& bi) {
    int64_t oa = m.a.offset, ob = m.b.offset;
    for (std::size_t k = 0; k < bi.size(); ++k) {
      oa += bi[k] * m.a.batch_strides[k];
      ob += bi[k] * m.b.batch_strides[k];
    }
    for (int64_t i = 0; i < m.m; ++i) {
      for (int64_t j = 0; j < m.n; ++j) {
        double facc = 0;
        uint64_t iacc = 0;
        for (int64_t k = 0; k < m.k; ++k) {
          int64_t ia = oa + i * m.a.row_stride + k * m.a.col_stride;
          int64_t ib = ob + k * m.b.row_stride + j * m.b.col_stride;
          if (fl) facc += A.get_double(ia) * B.get_double(ib);
          else iacc += static_cast<uint64_t>(A.get_int(ia)) * static_cast<uint64_t>(B.get_int(ib));
        }
        store(out, flat++, b.dtype, make(b.dtype, facc, static_cast<int64_t>(iacc)));
      }
    }
  });
}

// ir::Conv by its definition (stax/ir/program.h), summed in double.
void run_conv(const ir::Buffer& b, const std::vector<Tensor>& st, Tensor& out) {
  const ir::Conv& c = b.conv;
  const Tensor& x = st.at(static_cast<std::size_t>(c.input));
  const Tensor& w = st.at(static_cast<std::size_t>(c.weight));
  const int64_t cin = c.c / c.groups, cout = c.cout / c.groups;
  int64_t flat = 0;
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t o = 0; o < c.cout; ++o)
      for (int64_t y = 0; y < c.oh; ++y)
        for (int64_t z = 0; z < c.ow; ++z) {
          double acc = c.bias >= 0 ? st.at(static_cast<std::size_t>(c.bias)).get_double(o) : 0.0;
          for (int64_t ci = 0; ci < cin; ++ci)
            for (int64_t a = 0; a < c.kh; ++a)
              for (int64_t e = 0; e < c.kw; ++e) {
                const int64_t ih = y * c.sh - c.ph + a * c.dh, iw = z * c.sw - c.pw + e * c.dw;
                if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
                const int64_t ic = o / cout * cin + ci;
                acc += x.get_double(((n * c.c + ic) * c.h + ih) * c.w + iw) *
                       w.get_double(((o * cin + ci) * c.kh + a) * c.kw + e);
              }
          store(out, flat++, b.dtype, make(b.dtype, acc, 0));
        }
}

}  // namespace

std::vector<Tensor> run_ir(const ir::Program& p, const std::vector<Tensor>& inputs,
                           const std::vector<Shape>& output_shapes) {
  std::vector<Tensor> st;
  Evaluator ev(p, st);
  for (const ir::Buffer& b : p.buffers) {
    switch (b.kind) {
      case ir::BufferKind::Input:
        STAX_ASSERT(static_cast<std::size_t>(b.input_index) < inputs.size(), "missing input");
        st.push_back(inputs[static_cast<std::size_t>(b.input_index)]);
        continue;
      case ir::BufferKind::Constant: st.push_back(b.data); continue;
      default: break;
    }
    Tensor out(b.dtype, b.shape);
    switch (b.kind) {
      case ir::BufferKind::Pointwise: {
        int64_t flat = 0;
        std::vector<ir::Var> xs = b.output_vars();
        for_each_point(b.shape, [&](const std::vector<int64_t>& x) {
          for (std::size_t k = 0; k < xs.size(); ++k) ev.set_var(xs[k], x[k]);
          if (xs.empty()) ev.set_point({}, {});
          store(out, flat++, b.dtype, ev.eval(b.body));
        });
        break;
      }
      case ir::BufferKind::Reduction: run_reduction(b, ev, out); break;
      case ir::BufferKind::Scan: run_scan(b, ev, out); break;
      case ir::BufferKind::Extern:
        if (b.extern_op == ir::ExternOp::Conv) run_conv(b, st, out);
        else run_matmul(b, st, out);
        break;
      default: break;
    }
    st.push_back(std::move(out));
  }
  std::vector<Tensor> outs;
  for (const ir::ProgramOutput& o : p.outputs) {
    const Tensor& t = st.at(static_cast<std::size_t>(o.buffer));
    Shape shape = static_cast<std::size_t>(o.index) < output_shapes.size()
                      ? output_shapes[static_cast<std::size_t>(o.index)]
                      : t.shape();
    Tensor r(t.dtype(), shape);
    STAX_ASSERT(r.nbytes() == t.nbytes(), "output buffer of the wrong size");
    if (t.nbytes() > 0) std::memcpy(r.data(), t.data(), t.nbytes());
    outs.push_back(std::move(r));
  }
  return outs;
}

}  // namespace stax::testing
