// Einsum (opset 12 on), as torch.onnx.export writes torch.einsum, torch.outer and hand-written
// attention ("bhqd,bhkd->bhqk"). Each operand's labels that no later operand and not the output
// need are summed out; then the operands are contracted left to right, each pair as one batched
// `matmul` of their permuted and reshaped operands (batch labels: in both and needed later;
// contracted: in both and not needed; free: in one only), and the result permuted to the
// output's order. An ellipsis stands for the same broadcast dims in every term, aligned at the
// right as numpy does. A label repeated within one term (a diagonal or trace) is refused.
#include <algorithm>
#include <cctype>
#include <map>

#include "map_util.h"

namespace stax::importer::detail {

namespace {

using Labels = std::string;  // one char per dim; an ellipsis's dims get the chars from '\x01' up

// An operand or intermediate result: its expression, its labels and its dims.
struct Term {
  Json node;
  Labels labels;
  Shape shape;
};

// The terms of "a,b->c" (or "a,b", whose output is every label used once, in alphabetical order,
// after the ellipsis's), the ellipsis expanded against each operand's rank.
struct Equation {
  std::vector<Labels> inputs;
  Labels output;
};

Labels expand_ellipsis(const NodeCtx& c, const std::string& term, int64_t rank, int64_t ell_dims, bool is_output) {
  std::size_t dots = term.find("...");
  std::string explicit_labels = term;
  if (dots != std::string::npos) explicit_labels.erase(dots, 3);
  for (char ch : explicit_labels)
    if (!std::isalpha(static_cast<unsigned char>(ch)))
      c.fail("equation term '" + term + "' holds '" + std::string(1, ch) + "': labels are letters");
  if (dots == std::string::npos) {
    if (!is_output && static_cast<int64_t>(explicit_labels.size()) != rank)
      c.fail("equation term '" + term + "' has " + std::to_string(explicit_labels.size()) +
             " labels for an input of rank " + std::to_string(rank));
    return explicit_labels;
  }
  int64_t own = is_output ? ell_dims : rank - static_cast<int64_t>(explicit_labels.size());
  if (own < 0) c.fail("equation term '" + term + "' has more labels than its input's rank " + std::to_string(rank));
  Labels ell;
  for (int64_t d = ell_dims - own; d < ell_dims; ++d) ell.push_back(static_cast<char>(1 + d));
  return term.substr(0, dots) + ell + term.substr(dots + 3);
}

Equation parse_equation(const NodeCtx& c) {
  std::string eq = c.attr_string("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  std::size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t start = 0;;) {
    std::size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != c.num_inputs())
    c.fail("equation '" + eq + "' has " + std::to_string(terms.size()) + " terms for " +
           std::to_string(c.num_inputs()) + " inputs");
  int64_t ell_dims = 0;
  for (std::size_t i = 0; i < terms.size(); ++i)
    if (terms[i].find("...") != std::string::npos)
      ell_dims = std::max<int64_t>(ell_dims, c.rank(i) - static_cast<int64_t>(terms[i].size() - 3));
  Equation e;
  std::map<char, int> uses;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    e.inputs.push_back(expand_ellipsis(c, terms[i], c.rank(i), ell_dims, false));
    Labels sorted = e.inputs.back();
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      c.fail("equation term '" + terms[i] + "' repeats a label (a diagonal), which is not supported");
    for (char ch : sorted) ++uses[ch];
  }
  if (arrow != std::string::npos) {
    e.output = expand_ellipsis(c, eq.substr(arrow + 2), 0, ell_dims, true);
  } else {  // implicit output: the ellipsis's dims, then the labels used once, sorted
    for (auto [ch, n] : uses)
      if (ch < 'A' || n == 1) e.output.push_back(ch);
  }
  for (char ch : e.output)
    if (uses.count(ch) == 0) c.fail("output label '" + std::string(1, ch) + "' is in no input of '" + eq + "'");
  return e;
}

int64_t position(const Labels& labels, char ch) { return static_cast<int64_t>(labels.find(ch)); }

// t's labels not in `keep` summed out (int32 sums cast back: PyTorch's sum of int32 is int64).
Term sum_out(Term t, const Labels& keep, DType dtype) {
  std::vector<int64_t> dims;
  Labels labels;
  Shape shape;
  for (std::size_t d = 0; d < t.labels.size(); ++d) {
    if (keep.find(t.labels[d]) == std::string::npos) dims.push_back(static_cast<int64_t>(d));
    else labels.push_back(t.labels[d]), shape.push_back(t.shape[d]);
  }
  if (dims.empty()) return t;
  Json node = with(op_node("sum", {std::move(t.node)}), {{"dim", dims}, {"keepdim", false}});
  if (dtype == DType::Int32) node = with(op_node("to", {std::move(node)}), {{"dtype", "int32"}});
  return Term{std::move(node), labels, shape};
}

// t's dims in the order of `order` (a permutation of its labels).
Term permute_to(Term t, const Labels& order) {
  if (t.labels == order) return t;
  std::vector<int64_t> perm;
  Shape shape;
  for (char ch : order) {
    perm.push_back(position(t.labels, ch));
    shape.push_back(t.shape[static_cast<std::size_t>(perm.back())]);
  }
  return Term{with(op_node("permute", {std::move(t.node)}), {{"dims", perm}}), order, shape};
}

int64_t size_of(const Term& t, char ch) { return t.shape[static_cast<std::size_t>(position(t.labels, ch))]; }

// a and b contracted over their shared labels not in `keep`: one batched matmul.
Term contract(const NodeCtx& c, Term a, Term b, const Labels& keep) {
  Labels batch, inner, a_free, b_free;
  for (char ch : a.labels) {
    bool shared = b.labels.find(ch) != std::string::npos;
    (shared ? (keep.find(ch) != std::string::npos ? batch : inner) : a_free).push_back(ch);
  }
  for (char ch : b.labels)
    if (a.labels.find(ch) == std::string::npos) b_free.push_back(ch);
  for (char ch : inner)
    if (size_of(a, ch) != size_of(b, ch))
      c.fail("label '" + std::string(1, ch) + "' is summed over dims of sizes " + std::to_string(size_of(a, ch)) +
             " and " + std::to_string(size_of(b, ch)));
  a = permute_to(std::move(a), batch + a_free + inner);
  b = permute_to(std::move(b), batch + inner + b_free);
  auto product = [](const Term& t, std::size_t from, std::size_t n) {
    int64_t p = 1;
    for (std::size_t d = from; d < from + n; ++d) p *= t.shape[d];
    return p;
  };
  const std::size_t nb = batch.size();
  Shape a_shape(a.shape.begin(), a.shape.begin() + static_cast<std::ptrdiff_t>(nb));
  Shape b_shape(b.shape.begin(), b.shape.begin() + static_cast<std::ptrdiff_t>(nb));
  a_shape.push_back(product(a, nb, a_free.size()));
  a_shape.push_back(product(a, nb + a_free.size(), inner.size()));
  b_shape.push_back(product(b, nb, inner.size()));
  b_shape.push_back(product(b, nb + inner.size(), b_free.size()));
  // The product is [batch..., M, N]; the free dims it flattened come back as they were.
  Shape out = broadcast(c, Shape(a_shape.begin(), a_shape.end() - 2), Shape(b_shape.begin(), b_shape.end() - 2));
  out.insert(out.end(), a.shape.begin() + static_cast<std::ptrdiff_t>(nb), a.shape.end() - static_cast<std::ptrdiff_t>(inner.size()));
  out.insert(out.end(), b.shape.begin() + static_cast<std::ptrdiff_t>(nb + inner.size()), b.shape.end());
  Json node = op_node("matmul", {reshape_node(std::move(a.node), a_shape), reshape_node(std::move(b.node), b_shape)});
  if (a_free.size() != 1 || b_free.size() != 1) node = reshape_node(std::move(node), out);
  return Term{std::move(node), batch + a_free + b_free, out};
}

void map_einsum(NodeCtx& c) {
  if (c.num_inputs() == 0) c.fail("Einsum needs at least one input");
  const DType dt = c.dtype(0);
  for (std::size_t i = 1; i < c.num_inputs(); ++i)
    if (c.dtype(i) != dt) c.fail("inputs of different types");
  const Equation e = parse_equation(c);
  if (c.num_inputs() == 1 && e.output == e.inputs[0]) return c.set_alias(0, 0);
  std::vector<Term> terms;
  for (std::size_t i = 0; i < c.num_inputs(); ++i) terms.push_back(Term{c.arg(i), e.inputs[i], c.shape(i)});
  // What is needed after operand i: the output's labels and those of the operands after it.
  auto needed_after = [&](std::size_t i) {
    Labels keep = e.output;
    for (std::size_t j = i + 1; j < terms.size(); ++j) keep += e.inputs[j];
    return keep;
  };
  Term acc = sum_out(std::move(terms[0]), needed_after(0), dt);
  for (std::size_t i = 1; i < terms.size(); ++i) {
    const Labels keep = needed_after(i);
    Term next = sum_out(std::move(terms[i]), keep + acc.labels, dt);
    acc = contract(c, std::move(acc), std::move(next), keep);
  }
  acc = permute_to(sum_out(std::move(acc), e.output, dt), e.output);
  c.set_node(0, std::move(acc.node), dt, acc.shape);
}

}  // namespace

void add_einsum_mapper(MapperTable& table) { table["Einsum"] = map_einsum; }

}  // namespace stax::importer::detail
