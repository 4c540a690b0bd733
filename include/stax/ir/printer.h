// The readable text of a lowered program (`staxc --dump-ir FILE`): one block per buffer with
// its kind, dtype, shape, loop ranges, index expressions and body, the graph nodes it computes,
// then the outputs. Deterministic: the same program always gives the same bytes.
//
//   buf1: float32[64, 1] = reduction sum  (s)
//     loops x0 < 64, x1 < 1 | r0 < 128
//     t0 = load x[128*x0 + r0]
//     return t0
//
// Shared subexpressions are printed once as numbered temporaries t0, t1, ... in operand-first
// order; temporaries are numbered per buffer.
#pragma once

#include <string>

#include "stax/ir/program.h"

namespace stax::ir {

std::string dump_ir(const Program& p);
// One buffer's block (as in dump_ir).
std::string dump_buffer(const Program& p, const Buffer& b);

}  // namespace stax::ir
