#include "order_check.h"

#include <functional>
#include <map>
#include <optional>
#include <set>

namespace stax::scheduler::testing {

namespace {

using ir::Expr;
using ir::ExprOp;

// The value of a mask (an expression of index values, constants, comparisons and logic), or
// nothing for anything else.
std::optional<int64_t> eval_mask(const Expr& e, const std::function<int64_t(ir::Var)>& var) {
  auto arg = [&](std::size_t i) { return eval_mask(e.operand(i), var); };
  switch (e.op()) {
    case ExprOp::IndexValue: return ir::evaluate(e.index(), var);
    case ExprOp::Constant: return e.int_value();
    case ExprOp::Cast: return arg(0);
    case ExprOp::BitwiseNot: {
      auto a = arg(0);
      if (!a) return std::nullopt;
      return e.dtype() == DType::Bool ? int64_t(!*a) : ~*a;
    }
    case ExprOp::Lt: case ExprOp::Le: case ExprOp::Gt: case ExprOp::Ge: case ExprOp::Eq: case ExprOp::Ne:
    case ExprOp::BitwiseAnd: case ExprOp::BitwiseOr: case ExprOp::Add: case ExprOp::Sub: {
      auto a = arg(0), b = arg(1);
      if (!a || !b) return std::nullopt;
      switch (e.op()) {
        case ExprOp::Lt: return int64_t(*a < *b);
        case ExprOp::Le: return int64_t(*a <= *b);
        case ExprOp::Gt: return int64_t(*a > *b);
        case ExprOp::Ge: return int64_t(*a >= *b);
        case ExprOp::Eq: return int64_t(*a == *b);
        case ExprOp::Ne: return int64_t(*a != *b);
        case ExprOp::BitwiseAnd: return *a & *b;
        case ExprOp::BitwiseOr: return *a | *b;
        case ExprOp::Add: return *a + *b;
        default: return *a - *b;
      }
    }
    default: return std::nullopt;
  }
}

// The loads of a body with the masks around each.
struct MaskedLoad {
  ir::BufferId buffer;
  ir::Index index;
  std::vector<Expr> masks;
};

void collect(const Expr& e, std::vector<Expr>& masks, std::vector<MaskedLoad>& out, std::set<std::pair<const void*, std::size_t>>& seen) {
  if (!seen.insert({e.node(), masks.size()}).second) return;
  if (e.op() == ExprOp::Load) {
    out.push_back(MaskedLoad{e.buffer(), e.index(), masks});
    return;
  }
  if (e.op() == ExprOp::Masked) {
    collect(e.operand(0), masks, out, seen);
    masks.push_back(e.operand(0));
    collect(e.operand(1), masks, out, seen);
    masks.pop_back();
    collect(e.operand(2), masks, out, seen);
    return;
  }
  for (const Expr& o : e.operands()) collect(o, masks, out, seen);
}

std::vector<MaskedLoad> masked_loads(const Expr& body) {
  std::vector<MaskedLoad> out;
  std::vector<Expr> masks;
  std::set<std::pair<const void*, std::size_t>> seen;
  collect(body, masks, out, seen);
  return out;
}

// Calls f for every point of the nest `sizes` (row-major).
void for_each_point(const std::vector<int64_t>& sizes, const std::function<void(const std::vector<int64_t>&)>& f) {
  for (int64_t s : sizes)
    if (s <= 0) return;
  std::vector<int64_t> pt(sizes.size(), 0);
  while (true) {
    f(pt);
    std::size_t k = sizes.size();
    while (k > 0) {
      --k;
      if (++pt[k] < sizes[k]) break;
      pt[k] = 0;
      if (k == 0) return;
    }
    if (sizes.empty()) return;
  }
}

class Simulator {
 public:
  Simulator(const ir::Program& p) : p_(p) {
    for (const ir::Buffer& b : p.buffers)
      done_.emplace_back(static_cast<std::size_t>(b.numel()), !b.is_computed());
  }

  std::string run(const Schedule& s) {
    for (const Kernel& k : s.kernels) {
      if (k.loop_groups.empty()) {
        whole_kernel(k);
      } else {
        // A GEMM's epilogue runs on its product's tiles, once the product (over all K) is there.
        if (k.kind == KernelKind::Epilogue) extern_node(k.nodes.front());
        for_each_point(k.outer, [&](const std::vector<int64_t>& o) { outer_iteration(k, o); });
      }
      if (!error_.empty()) return "kernel " + k.name + ": " + error_;
    }
    return {};
  }

 private:
  void read(ir::BufferId b, int64_t at, const std::string& who) {
    if (!error_.empty()) return;
    const std::vector<bool>& d = done_[static_cast<std::size_t>(b)];
    if (at < 0 || at >= static_cast<int64_t>(d.size())) {
      error_ = who + " reads " + p_[b].name + " out of bounds at " + std::to_string(at);
      return;
    }
    if (!d[static_cast<std::size_t>(at)])
      error_ = who + " reads " + p_[b].name + "[" + std::to_string(at) + "] before it is computed";
  }

  void loads_at(const std::string& who, const ir::Buffer& buf, const std::function<int64_t(ir::Var)>& var) {
    for (const MaskedLoad& l : loads(buf)) {
      bool active = true;
      for (const Expr& m : l.masks) {
        std::optional<int64_t> v = eval_mask(m, var);
        if (v && !*v) active = false;
      }
      if (active) read(l.buffer, ir::evaluate(l.index, var), who);
    }
  }

  const std::vector<MaskedLoad>& loads(const ir::Buffer& b) {
    auto it = loads_.find(b.id);
    if (it == loads_.end()) it = loads_.emplace(b.id, masked_loads(b.body)).first;
    return it->second;
  }

  // An extern reads its operands whole and writes its buffer whole.
  void extern_node(const KernelNode& n) {
    for (ir::BufferId op : ir::extern_operands(p_[n.buffer]))
      for (int64_t i = 0; i < p_[op].numel(); ++i) read(op, i, n.name);
    std::vector<bool>& d = done_[static_cast<std::size_t>(n.buffer)];
    d.assign(d.size(), true);
  }

  void whole_kernel(const Kernel& k) {
    for (const KernelNode& n : k.nodes) {
      const ir::Buffer& b = p_[n.buffer];
      if (b.kind == ir::BufferKind::Extern) {
        extern_node(n);
        continue;
      } else {  // a scan reads, over the whole domain, what its body loads
        std::vector<int64_t> sizes(b.shape.begin(), b.shape.end());
        for_each_point(sizes, [&](const std::vector<int64_t>& pt) {
          loads_at(n.name, b, [&](ir::Var v) { return pt.at(static_cast<std::size_t>(v.id)); });
        });
      }
      std::vector<bool>& d = done_[static_cast<std::size_t>(n.buffer)];
      d.assign(d.size(), true);
    }
  }

  // Original loop variable values of node n at kernel point (x, r).
  std::function<int64_t(ir::Var)> vars_of(const KernelNode& n, const std::vector<int64_t>& x, const std::vector<int64_t>& r) {
    return [&n, x, r](ir::Var v) {
      const ir::Index& e = n.loops.reindex.at(v);
      return ir::evaluate(e, [&](ir::Var k) {
        return k.kind == ir::VarKind::X ? x.at(static_cast<std::size_t>(k.id)) : r.at(static_cast<std::size_t>(k.id));
      });
    };
  }

  void outer_iteration(const Kernel& k, const std::vector<int64_t>& o) {
    for (const LoopGroup& g : k.loop_groups) {
      for_each_point(g.inner, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> x = o;
        x.insert(x.end(), i.begin(), i.end());
        if (!g.reduction) {
          for (int idx : g.nodes) {
            const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
            const ir::Buffer& b = p_[n.buffer];
            auto var = vars_of(n, x, {});
            loads_at(n.name, b, var);
            write(n, ir::evaluate(b.write_index(), var));
          }
          return;
        }
        for_each_point(g.reduce, [&](const std::vector<int64_t>& r) {
          for (int idx : g.nodes) {
            const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
            loads_at(n.name, p_[n.buffer], vars_of(n, x, r));
          }
        });
        for (int idx : g.nodes) {
          const KernelNode& n = k.nodes[static_cast<std::size_t>(idx)];
          std::vector<int64_t> zero(g.reduce.size(), 0);
          write(n, ir::evaluate(p_[n.buffer].write_index(), vars_of(n, x, zero)));
        }
      });
    }
  }

  void write(const KernelNode& n, int64_t at) {
    std::vector<bool>& d = done_[static_cast<std::size_t>(n.buffer)];
    if (at < 0 || at >= static_cast<int64_t>(d.size())) {
      if (error_.empty()) error_ = n.name + " writes out of bounds at " + std::to_string(at);
      return;
    }
    if (d[static_cast<std::size_t>(at)] && error_.empty())
      error_ = n.name + " writes " + p_[n.buffer].name + "[" + std::to_string(at) + "] twice";
    d[static_cast<std::size_t>(at)] = true;
  }

  const ir::Program& p_;
  std::vector<std::vector<bool>> done_;
  std::map<ir::BufferId, std::vector<MaskedLoad>> loads_;
  std::string error_;
};

}  // namespace

std::string check_structure(const ir::Program& p, const Schedule& s) {
  std::map<ir::BufferId, int> seen;
  for (std::size_t ki = 0; ki < s.kernels.size(); ++ki) {
    const Kernel& k = s.kernels[ki];
    for (const KernelNode& n : k.nodes)
      if (seen.count(n.buffer)) return "buffer " + p[n.buffer].name + " in two kernels";
      else seen[n.buffer] = static_cast<int>(ki);
    if (k.nodes.size() > 1 && k.loop_groups.empty()) return k.name + ": several nodes without loops";
    for (const LoopGroup& g : k.loop_groups)
      for (int idx : g.nodes) {
        const KernelNode& n = k.nodes.at(static_cast<std::size_t>(idx));
        std::vector<int64_t> x = k.outer;
        x.insert(x.end(), g.inner.begin(), g.inner.end());
        if (n.loops.x != x || n.loops.r != g.reduce) return k.name + ": " + n.name + "'s loops are not the kernel's";
        if ((n.kind == NodeKind::Reduction) != g.reduction) return k.name + ": mixed loop group";
        for (ir::Var v : p[n.buffer].loop_vars())
          if (!n.loops.reindex.count(v)) return k.name + ": " + n.name + " has no expression for " + ir::var_name(v);
      }
  }
  for (const ir::Buffer& b : p.buffers)
    if (b.is_computed() && !seen.count(b.id)) {
      bool dead = false;
      for (const SchedulerNode& n : s.nodes) dead = dead || n.buffer == b.id;
      if (dead) return "buffer " + b.name + " is in no kernel";
    }
  return {};
}

std::string check_order(const ir::Program& p, const Schedule& s) {
  Simulator sim(p);
  return sim.run(s);
}

}  // namespace stax::scheduler::testing
