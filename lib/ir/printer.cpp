// The --dump-ir text.
#include "stax/ir/printer.h"

#include <map>
#include <sstream>

namespace stax::ir {

namespace {

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t k = 0; k < names.size(); ++k) s += (k ? ", " : "") + names[k];
  return s;
}

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

std::string loops_line(const Buffer& b) {
  std::string s = "  loops";
  std::vector<Var> xs = b.output_vars(), rs = b.reduce_vars();
  if (xs.empty() && rs.empty()) return s + " (none)\n";
  for (std::size_t k = 0; k < xs.size(); ++k)
    s += (k ? ", " : " ") + var_name(xs[k]) + " < " + std::to_string(b.shape[k]);
  if (!rs.empty()) {
    s += xs.empty() ? " |" : " |";
    for (std::size_t k = 0; k < rs.size(); ++k)
      s += (k ? ", " : " ") + var_name(rs[k]) + " < " + std::to_string(b.reduce_ranges[k]);
  }
  return s + "\n";
}

// Body as numbered temporaries; constants and index values print inline.
std::string body_text(const std::vector<std::string>& names, const Expr& body) {
  std::ostringstream os;
  std::map<const ExprNode*, std::string> temp;  // lookup only; output follows topo order
  auto ref = [&](const Expr& e) -> std::string {
    auto it = temp.find(e.node());
    if (it != temp.end()) return it->second;
    return to_string(e, names);
  };
  int next = 0;
  for (const Expr& e : topo_order(body)) {
    if (e.op() == ExprOp::Constant || e.op() == ExprOp::IndexValue) continue;
    std::string name("t");
    name += std::to_string(next++);
    os << "  " << name << " = ";
    if (e.op() == ExprOp::Load) {
      os << "load " << names.at(static_cast<std::size_t>(e.buffer())) << '['
         << to_string(e.index()) << ']';
    } else if (e.op() == ExprOp::IndirectLoad) {
      os << "iload " << names.at(static_cast<std::size_t>(e.buffer())) << '[' << to_string(e.index())
         << " + " << e.stride() << "*checked(" << ref(e.operand(0)) << ", " << e.extent() << ")]";
    } else {
      os << expr_op_name(e.op());
      if (e.op() == ExprOp::Cast) os << '<' << dtype_name(e.dtype()) << '>';
      os << '(';
      for (std::size_t k = 0; k < e.operands().size(); ++k) os << (k ? ", " : "") << ref(e.operands()[k]);
      os << ')';
    }
    os << "  : " << dtype_name(e.dtype()) << '\n';
    temp[e.node()] = name;
  }
  os << "  return " << ref(body) << '\n';
  return os.str();
}

std::string operand_text(const std::vector<std::string>& names, const MatmulOperand& o) {
  return names.at(static_cast<std::size_t>(o.buffer)) + " offset " + std::to_string(o.offset) + " batch strides " +
         ints(o.batch_strides) + " row stride " + std::to_string(o.row_stride) + " col stride " +
         std::to_string(o.col_stride);
}

std::string buffer_block(const std::vector<std::string>& names, const Buffer& b) {
  std::ostringstream os;
  os << b.name << ": " << dtype_name(b.dtype) << shape_str(b.shape) << " = "
     << buffer_kind_name(b.kind);
  switch (b.kind) {
    case BufferKind::Input: os << ' ' << b.input_index << '\n'; return os.str();
    case BufferKind::Constant: os << '\n'; return os.str();
    case BufferKind::Pointwise: break;
    case BufferKind::Reduction: os << ' ' << reduce_op_name(b.reduce_op); break;
    case BufferKind::Scan: os << ' ' << scan_op_name(b.scan_op) << " dim " << b.scan_dim; break;
    case BufferKind::Extern: os << ' ' << extern_op_name(b.extern_op); break;
  }
  os << "  (" << join_names(b.origins) << ")\n";
  if (b.kind == BufferKind::Extern && b.extern_op == ExternOp::Conv) {
    const Conv& c = b.conv;
    auto name = [&names](BufferId id) { return names.at(static_cast<std::size_t>(id)); };
    os << "  input " << name(c.input) << " [" << c.n << ", " << c.c << ", " << c.h << ", " << c.w << "] weight "
       << name(c.weight) << " [" << c.cout << ", " << c.c / c.groups << ", " << c.kh << ", " << c.kw << "] bias "
       << (c.bias >= 0 ? name(c.bias) : std::string("none")) << '\n';
    os << "  out [" << c.n << ", " << c.cout << ", " << c.oh << ", " << c.ow << "] stride " << c.sh << ", " << c.sw
       << " padding " << c.ph << ", " << c.pw << " dilation " << c.dh << ", " << c.dw << " groups " << c.groups << '\n';
    return os.str();
  }
  if (b.kind == BufferKind::Extern) {
    const Matmul& m = b.matmul;
    os << "  batch " << ints(m.batch) << " m " << m.m << " k " << m.k << " n " << m.n << '\n';
    os << "  a = " << operand_text(names, m.a) << '\n';
    os << "  b = " << operand_text(names, m.b) << '\n';
    return os.str();
  }
  os << loops_line(b);
  os << body_text(names, b.body);
  return os.str();
}

}  // namespace

std::string dump_buffer(const Program& p, const Buffer& b) { return buffer_block(p.buffer_names(), b); }

std::string dump_ir(const Program& p) {
  std::ostringstream os;
  os << "program " << p.name << '\n';
  const std::vector<std::string> names = p.buffer_names();
  for (const Buffer& b : p.buffers) os << buffer_block(names, b);
  os << "outputs";
  for (const ProgramOutput& o : p.outputs) os << (o.index ? ", " : " ") << p[o.buffer].name;
  os << '\n';
  return os.str();
}

}  // namespace stax::ir
