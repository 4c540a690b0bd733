// Op names and categories, generated from ops.def.
#include "stax/graph/graph.h"

#include <cmath>

namespace stax::graph {

std::string_view op_name(Op op) {
  switch (op) {
#define STAX_OP(E, name, cat) \
  case Op::E: return name;
#include "stax/graph/ops.def"
#undef STAX_OP
  }
  return "?";
}

OpCategory op_category(Op op) {
  switch (op) {
#define STAX_OP(E, name, cat) \
  case Op::E: return OpCategory::cat;
#include "stax/graph/ops.def"
#undef STAX_OP
  }
  return OpCategory::Unary;
}

std::optional<Op> parse_op(std::string_view name) {
#define STAX_OP(E, str, cat) \
  if (name == str) return Op::E;
#include "stax/graph/ops.def"
#undef STAX_OP
  return std::nullopt;
}

double Scalar::as_double() const {
  switch (kind) {
    case Kind::Bool: return b ? 1.0 : 0.0;
    case Kind::Int: return static_cast<double>(i);
    case Kind::Float: return f;
  }
  return 0.0;
}

int64_t Scalar::as_int() const {
  switch (kind) {
    case Kind::Bool: return b ? 1 : 0;
    case Kind::Int: return i;
    case Kind::Float: return static_cast<int64_t>(f);
  }
  return 0;
}

bool Scalar::operator==(const Scalar& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::Bool: return b == o.b;
    case Kind::Int: return i == o.i;
    case Kind::Float: return f == o.f || (std::isnan(f) && std::isnan(o.f));
  }
  return false;
}

bool is_pow_by_float_literal(const Value& v, double e) {
  if (v.kind != ValueKind::Node || v.op != Op::Pow || !is_floating(v.compute_dtype)) return false;
  const Arg& ex = v.args.at(1);
  return v.args.at(0).is_value() && ex.is_scalar() && ex.scalar.kind == Scalar::Kind::Float &&
         ex.scalar.f == e;
}

ValueId Graph::find(std::string_view name) const {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name) return static_cast<ValueId>(i);
  return kNoValue;
}

}  // namespace stax::graph
