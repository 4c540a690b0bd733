// Lowering: validated graph -> loop IR buffers (design.md, "Lowering"; the chapter's §6).
//
// Needs: a graph from the front end after expand_composites (no Composite-category node; an
// internal error otherwise). Gives: a verified ir::Program (stax/ir/program.h):
//   - views (reshape permute transpose expand unsqueeze squeeze flatten slice select) never copy:
//     they rewrite the index of the loads (a reshape of a non-contiguous view uses // and %);
//   - cat and pad are Masked loads;
//   - type promotion is explicit: every Cast is in the body, Python scalars are constants of the
//     node's compute dtype;
//   - a pointwise producer is inlined into its consumers unless materialized (design.md rules:
//     graph output; read by a reduction, scan or extern through a non-identity index; more than
//     one user and an expensive op (CPU rule 1, §6.6: exp, sigmoid, tanh, erf, log, pow, ...);
//     more than one user and more than 4 buffers read or a large body);
//   - pools are reductions over their window (Max over a masked load with -inf outside the
//     input; Sum, then a pointwise divide by the divisor of each output position); their
//     producers are stored (windows overlap);
//   - embedding, index_select and gather are stored buffers of IndirectLoads: the data read
//     where it is stored (through views keeping one stride along the indexed dim, else a dense
//     copy), each position checked;
//   - conv1d and conv2d are Extern buffers (ir::Conv) over their whole input, weight and bias,
//     each a stored buffer (a producer is stored; a view keeping the dense layout is read in
//     place, another view is copied);
//   - reductions, scans and externs are always buffers; mean = sum then divide; var/std = mean,
//     then sum of squared deviations, then divide by max(0, N - correction) (and sqrt);
//     logsumexp = max, then sum(exp(x - m)) with m = 0 where the max is infinite, log + m;
//   - outputs that are inputs, constants or repeated refer to the same buffer; an output that is
//     a view keeping the dense layout of a stored value (a reshape) refers to that buffer;
//   - dead nodes are dropped, except integer division/remainder and indexing nodes: they may
//     fail, as in eager PyTorch, so each is stored in a buffer that nothing reads (a side effect
//     the scheduler must keep).
#pragma once

#include "stax/graph/graph.h"
#include "stax/ir/program.h"

namespace stax::lowering {

ir::Program lower(const graph::Graph& g);

}  // namespace stax::lowering
