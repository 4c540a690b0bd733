// C++ for the body of a buffer (a value-expression DAG, stax/ir/expr.h) at W consecutive values
// of a kernel's innermost loop variable, in the vector layer's types (runtime/stax_vec.h; §8.1 of
// the design chapter, design.md "CPU code"). It is the vector twin of BodyEmitter: the same
// nodes become the same temporaries, and every lane equals what BodyEmitter's code computes at
// that value of the loop variable, bit for bit except where a transcendental goes through SLEEF's
// vector function instead of its scalar one (both at most 1.0 ULP from the exact result, erfc
// 1.5 ULP; and log1p above about 1e38, where the prelude's scalar one gives inf), so a vector
// loop and its scalar tail agree. (Bit for bit as long as the C++ compiler fuses a*b + c into an
// fma in both forms or in neither: -ffp-contract=off guarantees it.)
//
// Lanes. Lane l is the iteration at `inner` = (the value of the kernel's variable of `inner`) + l.
// Loads are vector loads where the index steps by 1 from lane to lane, broadcasts where it does
// not depend on `inner`, and two loads and a shuffle where it steps by 2 (stax_rt::load_even: a
// pooling window of stride 2, a slice ::2; not bools); anything else (a transposed or strided
// read) is refused by why_not, since the 2-D tiled form reads it better than W scalar loads; so
// is an indexed load (positions read from data), left to the scalar loop. Index values step by any amount,
// or are computed lane by lane when `inner` sits inside a // or %.
//
// Masked nodes (cat, pad) never read an address the scalar code would not read. Their body runs
// inside `if (stax_rt::any(active))`, where `active` holds the lanes on which the body counts
// (the node's mask, and the masks of the Masked nodes around it): a broadcast load in the body is
// then one that some lane's scalar iteration performs; a vector load is a masked load
// (stax_rt::load_masked) that leaves the lanes outside `active` unread; an integer division
// divides those lanes by 1, so they never set the error flag. A mask that does not depend on
// `inner` is the same in every lane: its body reads plainly inside the `if`.
//
// Tails. emit() with `live_lanes` (the C++ text of n, 1 <= n <= W) computes a loop's last,
// partial vector: only lanes [0, n) are iterations. Loads then read n elements, divisions check
// n lanes, and vec_store with the same n writes n elements; no address past the loop's end is
// read or written. Without it every lane is an iteration (a full vector; the loop's remainder
// then runs BodyEmitter's scalar code, or a last vector with live_lanes).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "code_writer.h"
#include "stax/ir/expr.h"
#include "stax/support/dtype.h"

namespace stax::codegen {

using ir::lane_stride;

class VecBodyEmitter {
 public:
  // `buffer_name`, `index_text`, `sections`, `temp_counter`: as BodyEmitter's (`index_text`
  // gives the scalar text of an index of the body rewritten onto the kernel's loop variables,
  // which the text names ir::var_name(v), as index_cxx does). `rewrite` gives that rewritten
  // Index itself, from which lane_stride tells contiguous from broadcast. `inner`: the kernel's
  // innermost loop variable (after rewriting), the one the lanes step. `isa_tag`: the C++ type
  // naming the instruction set ("stax_rt::IsaAvx2", "stax_rt::IsaNative", or a short alias or a
  // template parameter the kernel declares, which keeps lines short). The prelude sections of
  // the tag's set are added to `sections` (all three sets for any other name).
  VecBodyEmitter(std::function<std::string(ir::BufferId)> buffer_name,
                 std::function<std::string(const ir::Index&)> index_text,
                 std::function<ir::Index(const ir::Index&)> rewrite, ir::Var inner,
                 std::string isa_tag, std::set<std::string>& sections, int& temp_counter);

  // Empty when `body` can be emitted in vector form, else why not, one line for a comment in
  // the kernel ("load of in0[64 * x1 + x0] steps by 64 in x1"). The one refusal: a load whose
  // index is neither contiguous nor invariant in `inner` nor steps by 2 (lane_stride not 0, 1
  // or 2; a bool one not 0 or 1).
  std::string why_not(const ir::Expr& body) const;

  // Writes the statements computing `root` to `out` and returns the C++ text of its vector
  // value: a stax_rt::Vec<T, ISA>, or a stax_rt::Mask<ISA> for bool. `live_lanes`: see Tails
  // above ("" for a full vector). Needs why_not(root) to be empty.
  std::string emit(const ir::Expr& root, CodeWriter& out, const std::string& live_lanes = "");

  // Loads that read a value kept in a local variable instead of memory (as BodyEmitter's
  // set_local_loads): `local(buffer, index)` returns the variable's name, or "" for a load from
  // memory. A local read at an index invariant in `inner` holds one value (a reduction's result)
  // and is broadcast; one read at a contiguous index holds this vector's lanes (a Vec or Mask of
  // the same instruction set, computed earlier in the same loop body).
  void set_local_loads(std::function<std::string(ir::BufferId, const ir::Index&)> local) {
    local_load_ = std::move(local);
  }

  // Loads from a buffer that lives at another address than buffer_name/index_text say (a fused
  // kernel's row-local array): `address(buffer, index)` returns the pointer's name and the text
  // of the index into it, or nothing for the usual address. The lanes step as the index given
  // to `rewrite` does.
  void set_load_address(
      std::function<std::optional<std::pair<std::string, std::string>>(ir::BufferId, const ir::Index&)> address) {
    address_ = std::move(address);
  }

  // True once a checked (integer) division has been emitted: the kernel needs `int err`, which
  // a zero divisor in a lane that counts sets (as BodyEmitter's code does).
  bool fallible() const { return fallible_; }

 private:
  // `root`: the value is stored or assigned as a whole, so a long text needs no temporary.
  std::string text_of(const ir::Expr& e, CodeWriter& out, bool root = false);
  std::string lane_range_text(const ir::Expr& e) const;
  std::string temp_of(const ir::Expr& e, CodeWriter& out);  // forces a temporary
  std::string op_text(const ir::Expr& e, const std::vector<std::string>& args);
  std::string load_text(const ir::Expr& e);
  std::string local_of(const ir::Expr& load) const;  // "" for a load from memory
  std::string index_value_text(const ir::Expr& e);
  std::string masked_text(const ir::Expr& e, CodeWriter& out, bool root);
  std::string masked_lanes() const;
  bool shared(const ir::Expr& e) const { return info_.at(e.node()).uses > 1; }
  std::string declare(const ir::Expr& e, const std::string& text, CodeWriter& out);
  std::string vtype(DType dt) const;
  const std::string* lookup(const ir::ExprNode* n) const;

  std::function<std::string(ir::BufferId)> buffer_name_;
  std::function<std::string(const ir::Index&)> index_text_;
  std::function<ir::Index(const ir::Index&)> rewrite_;
  std::function<std::string(ir::BufferId, const ir::Index&)> local_load_;
  std::function<std::optional<std::pair<std::string, std::string>>(ir::BufferId, const ir::Index&)> address_;
  ir::Var inner_;
  std::string isa_;
  std::set<std::string>& sections_;
  int& temp_counter_;
  bool fallible_ = false;
  std::string live_;  // live_lanes of the current emit
  // What emit() learns of each node of the body before writing it.
  struct NodeInfo {
    int uses = 0;
    bool varies = false;   // depends on `inner` (else the same in every lane)
    bool reads = false;    // a Load from memory in the node or its operands
    bool divides = false;  // a checked integer division in the node or its operands
    std::optional<int64_t> stride;  // Load and IndexValue: lane_stride of the index
  };
  std::map<const ir::ExprNode*, NodeInfo> info_;
  // Temporaries visible at the current point: one frame per open if-block of a Masked body.
  std::vector<std::map<const ir::ExprNode*, std::string>> scopes_;
  // The active lanes of each open Masked body ("" when every lane counts), innermost last.
  std::vector<std::string> active_;
};

// "stax_rt::Vec<float, stax_rt::IsaAvx2>", and "stax_rt::Mask<stax_rt::IsaAvx2>" for bool.
std::string vec_type(DType dt, const std::string& isa_tag);

// The statement storing vector value `v` of dtype `dt` at `ptr_plus_index`
// ("v.storeu(buf + (64 * x0 + x1));"); with `live_lanes`, only the first n elements.
std::string vec_store(DType dt, const std::string& v, const std::string& ptr_plus_index,
                      const std::string& live_lanes = "");

// The same as a non-temporal store (`v.stream(p)`: p aligned to 64 bytes, not bool).
std::string vec_stream(const std::string& v, const std::string& ptr_plus_index);

}  // namespace stax::codegen
