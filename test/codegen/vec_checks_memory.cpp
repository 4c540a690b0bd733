// Vector layer: loads, stores and tails of every length; masks and bool memory; tile transposes.
#include "vec_checks.h"

#include <sys/mman.h>
#include <unistd.h>

namespace vec_checks {

namespace {

// Three pages, the outer two inaccessible: a read just before or after the middle page faults.
struct GuardedPage {
  unsigned char* base = nullptr;
  std::size_t page = 0;
  GuardedPage() {
    page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* p = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    base = static_cast<unsigned char*>(p);
    mprotect(base, page, PROT_NONE);
    mprotect(base + 2 * page, page, PROT_NONE);
  }
  ~GuardedPage() {
    if (base != nullptr) munmap(base, 3 * page);
  }
  unsigned char* begin() const { return base + page; }
  unsigned char* end() const { return base + 2 * page; }
};

// load_masked at both edges of a page between guard pages: the lanes off the page are masked
// off, so they read 0 and must not fault.
template <typename T> void masked_loads_of() {
  GuardedPage g;
  CHECK(g.base != nullptr, "mmap of guard pages");
  if (g.base == nullptr) return;
  T* first = reinterpret_cast<T*>(g.begin());
  T* last = reinterpret_cast<T*>(g.end()) - W;
  for (int i = 0; i < W; ++i) first[i] = static_cast<T>(i + 1), last[i] = static_cast<T>(-i - 1);
  for (int k = 0; k <= W; ++k) {
    const V<T> tail = stax_rt::load_masked(last + k, M::first(W - k));     // lanes >= W - k off the page
    const V<T> head = stax_rt::load_masked(first - k, ~M::first(k));       // lanes < k before it
    for (int i = 0; i < W; ++i) {
      CHECK(tail.lane(i) == (i < W - k ? static_cast<T>(-(i + k) - 1) : T(0)), "load_masked at the end, k=%d lane %d", k, i);
      CHECK(head.lane(i) == (i >= k ? static_cast<T>(i - k + 1) : T(0)), "load_masked at the start, k=%d lane %d", k, i);
    }
  }
  // Any pattern of lanes.
  const M odd = stax_rt::cast<bool>(V<int32_t>::iota(0) & V<int32_t>(1));
  const V<T> v = stax_rt::load_masked(first, odd);
  for (int i = 0; i < W; ++i) CHECK(v.lane(i) == (i % 2 == 1 ? static_cast<T>(i + 1) : T(0)), "load_masked odd lanes, lane %d", i);
}

template <typename T> T sentinel() { return static_cast<T>(-77); }

template <typename T> void memory_of() {
  alignas(64) T src[4 * 16];
  alignas(64) T dst[4 * 16];
  for (int i = 0; i < 4 * 16; ++i) src[i] = static_cast<T>(i * 3 + 1);

  // Aligned and unaligned full vectors.
  for (int i = 0; i < 4 * W; ++i) dst[i] = sentinel<T>();
  V<T>::load(src).store(dst);
  V<T>::loadu(src + 1).storeu(dst + W + 1);
  for (int i = 0; i < W; ++i) {
    CHECK(dst[i] == src[i], "load/store lane %d", i);
    CHECK(dst[W + 1 + i] == src[1 + i], "loadu/storeu lane %d", i);
  }
  CHECK(dst[W] == sentinel<T>(), "store wrote past the vector");
  CHECK(dst[2 * W + 1] == sentinel<T>(), "storeu wrote past the vector");

  // Tails: loadu(p, n) reads only n lanes (the rest 0 or fill), storeu(p, n) writes only n.
  for (int n = 0; n <= W; ++n) {
    const V<T> a = V<T>::loadu(src + 3, n);
    const V<T> b = V<T>::loadu(src + 3, n, static_cast<T>(-5));
    for (int i = 0; i < W; ++i) {
      CHECK(a.lane(i) == (i < n ? src[3 + i] : T(0)), "loadu(p, %d) lane %d", n, i);
      CHECK(b.lane(i) == (i < n ? src[3 + i] : T(-5)), "loadu(p, %d, fill) lane %d", n, i);
    }
    for (int i = 0; i < 4 * W; ++i) dst[i] = sentinel<T>();
    V<T>::loadu(src).storeu(dst + 2, n);
    for (int i = 0; i < 4 * W; ++i) {
      const bool written = i >= 2 && i < 2 + n;
      CHECK(dst[i] == (written ? src[i - 2] : sentinel<T>()), "storeu(p, %d) element %d", n, i);
    }
  }

  // A tail at the very end of an allocation: lanes past n are never touched (no fault).
  for (int n = 1; n < W; ++n) {
    T* heap = new T[static_cast<std::size_t>(n)];
    for (int i = 0; i < n; ++i) heap[i] = static_cast<T>(i + 10);
    const V<T> v = V<T>::loadu(heap, n);
    (v + V<T>(T(1))).storeu(heap, n);
    for (int i = 0; i < n; ++i) CHECK(heap[i] == static_cast<T>(i + 11), "tail at the end of a block, n=%d", n);
    delete[] heap;
  }

  // Non-temporal store (aligned), broadcast, iota.
  for (int i = 0; i < 4 * W; ++i) dst[i] = sentinel<T>();
  V<T>::loadu(src + 5).stream(dst + W);
  stax_rt::stream_fence();
  for (int i = 0; i < W; ++i) CHECK(dst[W + i] == src[5 + i], "stream lane %d", i);
  CHECK(dst[W - 1] == sentinel<T>() && dst[2 * W] == sentinel<T>(), "stream wrote outside");
  const V<T> b(static_cast<T>(42));
  const V<T> io = V<T>::iota(static_cast<T>(-3));
  for (int i = 0; i < W; ++i) {
    CHECK(b.lane(i) == T(42), "broadcast lane %d", i);
    CHECK(io.lane(i) == static_cast<T>(i - 3), "iota lane %d", i);
  }

  // Strided reads: a column and a broadcast.
  const V<T> col = stax_rt::load_strided<Isa>(src, 3);
  const V<T> col_tail = stax_rt::load_strided<Isa>(src, 2, W - 1);
  const V<T> bc = stax_rt::load_strided<Isa>(src + 7, 0);
  for (int i = 0; i < W; ++i) {
    CHECK(col.lane(i) == src[3 * i], "load_strided lane %d", i);
    CHECK(col_tail.lane(i) == (i < W - 1 ? src[2 * i] : T(0)), "load_strided tail lane %d", i);
    CHECK(bc.lane(i) == src[7], "load_strided stride 0 lane %d", i);
  }
}


// Every edge value's bits, in every lane, through load/loadu/store/storeu/stream, the tails
// loadu(p, n), loadu(p, n, fill) and storeu(p, n), lane(i), and the broadcast constructor
// (signalling NaNs and payloads included: nothing on the way may be a float operation); iota
// adds the lane number as the scalar add does.
template <typename T> void edge_bits_of() {
  Items<T> items(1);
  Layout<T> in(items.v, 1, items.count, W, 0);
  const int iota_tol = std::is_floating_point_v<T> ? kValue : kBits;
  alignas(64) T buf[16], out[2 * 16 + 1];
  for (int i = 0; i + W <= in.n; i += W) {
    const T* src = in.x[0] + i;
    for (int k = 0; k < W; ++k) buf[k] = src[k];
    V<T>::load(buf).store(out);
    V<T>::loadu(src).storeu(out + W + 1);
    int wrong = 0;
    for (int k = 0; k < W; ++k) wrong += !same_bits(out[k], src[k]) + !same_bits(out[W + 1 + k], src[k]);
    V<T>::loadu(src).stream(out + W);
    stax_rt::stream_fence();
    for (int k = 0; k < W; ++k) wrong += !same_bits(out[W + k], src[k]) + !same_bits(V<T>::loadu(src).lane(k), src[k]);
    for (int n = 0; n <= W; ++n) {
      const T fill = src[(n + 3) % W];
      const V<T> a = V<T>::loadu(src, n), b = V<T>::loadu(src, n, fill);
      for (int k = 0; k < W; ++k) wrong += !same_bits(a.lane(k), k < n ? src[k] : T(0)) + !same_bits(b.lane(k), k < n ? src[k] : fill);
      for (int k = 0; k <= W; ++k) out[k] = ordinary<T>(k);
      V<T>::loadu(src).storeu(out, n);
      for (int k = 0; k <= W; ++k) wrong += !same_bits(out[k], k < n ? src[k] : ordinary<T>(k));
    }
    CHECK(wrong == 0, "%d lanes of the vector at %d lost their bits in a load or a store", wrong, i);
  }
  T e[kMaxEdges];
  const int n = edge_values(e);
  for (int j = 0; j < n; ++j) {
    const V<T> b(e[j]), io = V<T>::iota(e[j]);
    for (int k = 0; k < W; ++k) {
      CHECK(same_bits(b.lane(k), e[j]), "broadcast of %s, lane %d", show(e[j]).s, k);
      const T want = stax_rt::add(e[j], static_cast<T>(k));
      CHECK(agree(io.lane(k), want, iota_tol), "iota(%s), lane %d: %s, want %s", show(e[j]).s, k, show(io.lane(k)).s,
            show(want).s);
    }
  }
}

// Tails that end at the last byte before a guard page: loadu(p, n) and storeu(p, n) touch only
// the n elements (bools too), whose bits they move.
template <typename T> void tails_at_a_page_end() {
  GuardedPage g;
  CHECK(g.base != nullptr, "mmap of guard pages");
  if (g.base == nullptr) return;
  T e[kMaxEdges];
  const int ne = edge_values(e);
  T* end = reinterpret_cast<T*>(g.end());
  bool* bend = reinterpret_cast<bool*>(g.end());
  for (int n = 0; n <= W; ++n) {
    T* p = end - n;
    for (int i = 0; i < n; ++i) p[i] = e[(i + n) % ne];
    const V<T> a = V<T>::loadu(p, n), b = V<T>::loadu(p, n, e[1]);
    for (int i = 0; i < W; ++i) {
      CHECK(same_bits(a.lane(i), i < n ? p[i] : T(0)) && same_bits(b.lane(i), i < n ? p[i] : e[1]),
            "loadu(p, %d) at a page end, lane %d", n, i);
    }
    V<T>::loadu(e + 2).storeu(p, n);
    for (int i = 0; i < n; ++i) CHECK(same_bits(p[i], e[2 + i]), "storeu(p, %d) at a page end, element %d", n, i);
    bool* q = bend - n;
    for (int i = 0; i < n; ++i) q[i] = (i + n) % 3 == 0;
    const M m = M::loadu(q, n);
    for (int i = 0; i < W; ++i) CHECK(m.lane(i) == (i < n && (i + n) % 3 == 0), "Mask::loadu(p, %d) at a page end", n);
    (~m).storeu(q, n);
    for (int i = 0; i < n; ++i) CHECK(q[i] == ((i + n) % 3 != 0), "Mask::storeu(p, %d) at a page end", n);
  }
}

// Stride-2 reads (load_even, its tail and its masked form) against p[2 * i], edge values' bits
// in every lane: at the start of a page between guard pages, and ending at the page's last
// element, so that a read one element past p[2 * W - 2] (or past a tail's last one) faults.
template <typename T> void even_loads_of() {
  GuardedPage g;
  CHECK(g.base != nullptr, "mmap of guard pages");
  if (g.base == nullptr) return;
  T e[kMaxEdges];
  const int ne = edge_values(e);
  T* begin = reinterpret_cast<T*>(g.begin());
  T* end = reinterpret_cast<T*>(g.end());
  const int64_t count = end - begin;
  for (int64_t i = 0; i < count; ++i) begin[i] = e[i % ne];
  const M odd = stax_rt::cast<bool>(V<int32_t>::iota(0) & V<int32_t>(1));
  for (int shift = 0; shift < ne; ++shift) {
    const T* at[2] = {begin + shift, end - (2 * W - 1)};
    for (const T* p : at) {
      const V<T> v = stax_rt::load_even<Isa>(p), m = stax_rt::load_even_masked(p, M::first(W)),
                 o = stax_rt::load_even_masked(p, odd);
      for (int i = 0; i < W; ++i) {
        CHECK(same_bits(v.lane(i), p[2 * i]) && same_bits(m.lane(i), p[2 * i]), "load_even, shift %d, lane %d", shift, i);
        CHECK(same_bits(o.lane(i), i % 2 == 1 ? p[2 * i] : T(0)), "load_even_masked odd lanes, lane %d", i);
      }
      for (int pattern = 0; pattern < 64; ++pattern) {  // lane i on when bit i of a mixed word is
        const unsigned bits = (static_cast<unsigned>(pattern) * 2654435761u) >> 7;
        bool on[16];
        for (int i = 0; i < W; ++i) on[i] = (bits >> i) & 1u;
        const V<T> r = stax_rt::load_even_masked(p, M::loadu(on));
        for (int i = 0; i < W; ++i)
          CHECK(same_bits(r.lane(i), on[i] ? p[2 * i] : T(0)), "load_even_masked, mask %#x, lane %d", bits, i);
      }
    }
  }
  for (int n = 0; n <= W; ++n) {  // the first n lanes, the last one on the page's last element
    const T* p = end - (n > 0 ? 2 * n - 1 : 0);
    const V<T> t = stax_rt::load_even<Isa>(p, n), m = stax_rt::load_even_masked(p, M::first(n));
    for (int i = 0; i < W; ++i) {
      const T want = i < n ? p[2 * i] : T(0);
      CHECK(same_bits(t.lane(i), want) && same_bits(m.lane(i), want), "load_even(p, %d) at a page end, lane %d", n, i);
    }
    // The last n lanes, the first one on the page's first element (a window's left padding).
    const T* q = begin - 2 * (W - n);
    const V<T> h = stax_rt::load_even_masked(q, ~M::first(W - n));
    for (int i = 0; i < W; ++i)
      CHECK(same_bits(h.lane(i), i >= W - n ? q[2 * i] : T(0)), "load_even_masked at a page start, n=%d lane %d", n, i);
  }
}

// lanes_at_least against lane-by-lane comparisons in 128 bits: strides of both signs, starts and
// bounds around every lane's edge, and bounds at the ends of int64 (no overflow on the way).
void lane_ranges() {
  const int64_t strides[] = {-5, -3, -2, -1, 1, 2, 3, 7};
  const int64_t far[] = {INT64_MIN, INT64_MIN + 1, -(int64_t(1) << 40), int64_t(1) << 40, INT64_MAX - 1, INT64_MAX};
  int wrong = 0;
  const auto check = [&](int64_t a, int64_t s, int64_t c, bool strict) {
    const M m = stax_rt::lanes_at_least<Isa>(a, s, c, strict);
    for (int l = 0; l < W; ++l) {
      const __int128 x = static_cast<__int128>(a) + static_cast<__int128>(s) * l;
      wrong += m.lane(l) != (strict ? x > c : x >= c);
    }
  };
  for (int64_t s : strides)
    for (int64_t a = -40; a <= 40; ++a)
      for (int strict = 0; strict < 2; ++strict) {
        for (int64_t c = -45; c <= 45; ++c) check(a, s, c, strict != 0);
        for (int64_t c : far) check(a, s, c, strict != 0);
      }
  CHECK(wrong == 0, "%d lanes of lanes_at_least differ from the comparison", wrong);
}

// transpose_tile against the definition, for shapes around the block size (whole blocks,
// leftover columns, leftover rows, empty), strides wider than the shape, and bit patterns that
// a float operation would change (NaN payloads, -0, denormals): the tile must get the bits.
template <typename T> constexpr int block_size_of() {
#if defined(STAX_ISA_SCALAR)
  return 1;
#elif defined(STAX_ISA_NEON)
  return 4;  // 4 x 4 blocks of every element size (128-bit registers)
#else
  return sizeof(T) == 4 ? 8 : 4;
#endif
}

template <typename T> T element_bits(int64_t r, int64_t c) {
  if constexpr (std::is_floating_point_v<T>) {
    T special[kMaxEdges];
    const int n = edge_values(special);
    if ((r + c) % 3 == 0) return special[(r * 7 + c) % n];
  }
  return static_cast<T>(r * 1000 + c + 1);
}

template <typename T> void transposes_of() {
  static_assert(stax_rt::TransposeBlock<T, Isa>::size == block_size_of<T>(), "block size per element size and set");
  constexpr int64_t kStride = 37, kTileStride = 41;  // wider than any shape below
  static T src[kStride * kStride], dst[kTileStride * kTileStride];
  const int64_t sizes[] = {0, 1, 3, 4, 5, 7, 8, 9, 12, 16, 17, 31, 33};
  for (int64_t rows : sizes) {
    for (int64_t cols : sizes) {
      for (int64_t r = 0; r < kStride; ++r)
        for (int64_t c = 0; c < kStride; ++c) src[r * kStride + c] = element_bits<T>(r, c);
      for (int64_t i = 0; i < kTileStride * kTileStride; ++i) dst[i] = sentinel<T>();
      stax_rt::transpose_tile<Isa>(src, kStride, rows, cols, dst, kTileStride);
      int wrong = 0, outside = 0;
      for (int64_t c = 0; c < kTileStride; ++c) {
        for (int64_t r = 0; r < kTileStride; ++r) {
          const T got = dst[c * kTileStride + r];
          if (r < rows && c < cols) wrong += !same_bits(got, src[r * kStride + c]);
          else outside += !same_bits(got, sentinel<T>());
        }
      }
      CHECK(wrong == 0, "transpose_tile %ld x %ld: %d elements differ from the source", static_cast<long>(rows),
            static_cast<long>(cols), wrong);
      CHECK(outside == 0, "transpose_tile %ld x %ld: %d elements written outside the tile", static_cast<long>(rows),
            static_cast<long>(cols), outside);
    }
  }
  // The block alone, from an unaligned source into an unaligned destination.
  constexpr int64_t b = block_size_of<T>();
  for (int64_t i = 0; i < kTileStride * kTileStride; ++i) dst[i] = sentinel<T>();
  stax_rt::TransposeBlock<T, Isa>::run(src + kStride + 1, kStride, dst + 3, kTileStride);
  for (int64_t r = 0; r < b; ++r)
    for (int64_t c = 0; c < b; ++c)
      CHECK(same_bits(dst[3 + c * kTileStride + r], src[(r + 1) * kStride + c + 1]), "block element (%ld, %ld)",
            static_cast<long>(r), static_cast<long>(c));
  CHECK(same_bits(dst[2], sentinel<T>()) && same_bits(dst[3 + b], sentinel<T>()), "block wrote outside");
}

// bool tiles take the element-wise form.
void transposes_of_bool() {
  static_assert(stax_rt::TransposeBlock<bool, Isa>::size == 1, "bools one at a time");
  bool src[5 * 3], dst[3 * 6];
  for (int i = 0; i < 15; ++i) src[i] = i % 3 == 1 || i == 7;
  for (bool& d : dst) d = true;
  stax_rt::transpose_tile<Isa>(src, 3, 5, 3, dst, 6);
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 6; ++r)
      CHECK(dst[c * 6 + r] == (r < 5 ? src[r * 3 + c] : true), "bool tile (%d, %d)", r, c);
  }
}

// prefetch_span only hints: over a whole page between guard pages, from an unaligned start, and
// for nothing, it neither faults nor changes a byte.
void prefetches() {
  GuardedPage g;
  CHECK(g.base != nullptr, "mmap of guard pages");
  if (g.base == nullptr) return;
  for (std::size_t i = 0; i < g.page; ++i) g.begin()[i] = static_cast<unsigned char>(i * 13);
  const auto* f = reinterpret_cast<const float*>(g.begin());
  const int64_t floats = static_cast<int64_t>(g.page / sizeof(float));
  stax_rt::prefetch_span(f, floats);
  stax_rt::prefetch_span(f + 3, floats - 3);
  stax_rt::prefetch_span(g.begin() + 1, static_cast<int64_t>(g.page) - 1);
  stax_rt::prefetch_span(f + floats, 0);
  int changed = 0;
  for (std::size_t i = 0; i < g.page; ++i) changed += g.begin()[i] != static_cast<unsigned char>(i * 13);
  CHECK(changed == 0, "prefetch_span changed %d bytes", changed);
}
// ---- masks: every operation on lane patterns against the bools of each lane ----
// The patterns: all 2^W for up to 8 lanes; else none, all, alternating, every single lane and
// every single hole, and pseudo-random ones.
int mask_patterns(uint32_t* out) {
  const uint32_t full = W >= 32 ? 0xffffffffu : (1u << W) - 1u;
  int n = 0;
  if (W <= 8) {
    for (uint32_t p = 0; p <= full; ++p) out[n++] = p;
    return n;
  }
  out[n++] = 0, out[n++] = full, out[n++] = 0x55555555u & full, out[n++] = 0xaaaaaaaau & full;
  for (int i = 0; i < W; ++i) out[n++] = 1u << i, out[n++] = full & ~(1u << i);
  Lcg rng(23);
  while (n < 256) out[n++] = static_cast<uint32_t>(rng.next()) & full;
  return n;
}
M mask_of(uint32_t p) {
  bool b[16];
  for (int i = 0; i < W; ++i) b[i] = ((p >> i) & 1) != 0;
  return M::loadu(b);
}
bool bit(uint32_t p, int i) { return ((p >> i) & 1) != 0; }

struct MaskBinary {
  const char* name;
  M (*vf)(M, M);
  bool (*sf)(bool, bool);
};
constexpr MaskBinary kMaskBinary[] = {
    {"&", [](M a, M b) { return a & b; }, [](bool a, bool b) { return a && b; }},
    {"|", [](M a, M b) { return a | b; }, [](bool a, bool b) { return a || b; }},
    {"^", [](M a, M b) { return a ^ b; }, [](bool a, bool b) { return a != b; }},
    {"&=", [](M a, M b) { return a &= b; }, [](bool a, bool b) { return a && b; }},
    {"|=", [](M a, M b) { return a |= b; }, [](bool a, bool b) { return a || b; }},
    {"==", [](M a, M b) { return a == b; }, [](bool a, bool b) { return a == b; }},
    {"!=", [](M a, M b) { return a != b; }, [](bool a, bool b) { return a != b; }},
    {"<", [](M a, M b) { return a < b; }, [](bool a, bool b) { return a < b; }},
    {"<=", [](M a, M b) { return a <= b; }, [](bool a, bool b) { return a <= b; }},
    {">", [](M a, M b) { return a > b; }, [](bool a, bool b) { return a > b; }},
    {">=", [](M a, M b) { return a >= b; }, [](bool a, bool b) { return a >= b; }},
};

// where(m, a, b) on vectors of edge values and their casts from the mask: lanes picked bit for bit.
template <typename T> void mask_selects(uint32_t p) {
  T e[kMaxEdges];
  const int n = edge_values(e);
  const M m = mask_of(p);
  const V<T> a = V<T>::loadu(e), b = V<T>::loadu(e + n - W), s = stax_rt::where(m, a, b), c = stax_rt::cast<T>(m);
  for (int i = 0; i < W; ++i) {
    CHECK(same_bits(s.lane(i), bit(p, i) ? e[i] : e[n - W + i]), "where(mask 0x%x, ...) lane %d", p, i);
    CHECK(same_bits(c.lane(i), bit(p, i) ? T(1) : T(0)), "cast of mask 0x%x, lane %d", p, i);
  }
}

void mask_operations() {
  static uint32_t pat[256];
  const int n = mask_patterns(pat);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    const M a = mask_of(pat[i]);
    bool out[16];
    a.storeu(out);
    bool any = false, all = true;
    for (int l = 0; l < W; ++l) {
      const bool x = bit(pat[i], l);
      wrong += a.lane(l) != x || out[l] != x || (~a).lane(l) == x || stax_rt::bitwise_not(a).lane(l) == x;
      any = any || x, all = all && x;
    }
    wrong += stax_rt::any(a) != any || stax_rt::all(a) != all;
    mask_selects<float>(pat[i]);
    mask_selects<double>(pat[i]);
    mask_selects<int32_t>(pat[i]);
    mask_selects<int64_t>(pat[i]);
    for (int j = 0; j < n; j += (n > 64 ? 7 : 1)) {
      const M b = mask_of(pat[j]);
      for (const MaskBinary& op : kMaskBinary) {
        const M r = op.vf(a, b);
        for (int l = 0; l < W; ++l) wrong += r.lane(l) != op.sf(bit(pat[i], l), bit(pat[j], l));
      }
      const M c = mask_of(pat[(i + 3 * j + 1) % n]);
      const M w = stax_rt::where(c, a, b);
      for (int l = 0; l < W; ++l) wrong += w.lane(l) != (c.lane(l) ? bit(pat[i], l) : bit(pat[j], l));
    }
  }
  CHECK(wrong == 0, "%d mask lanes differ from the bools' operations", wrong);
}

}  // namespace

void check_memory() {
  static_assert(V<float>::size == W && V<double>::size == W && V<int32_t>::size == W && V<int64_t>::size == W &&
                    M::size == W,
                "one lane count per instruction set");
  memory_of<float>();
  memory_of<double>();
  memory_of<int32_t>();
  memory_of<int64_t>();
  masked_loads_of<float>();
  masked_loads_of<double>();
  masked_loads_of<int32_t>();
  masked_loads_of<int64_t>();
  even_loads_of<float>();
  even_loads_of<double>();
  even_loads_of<int32_t>();
  even_loads_of<int64_t>();
  lane_ranges();
  transposes_of<float>();
  transposes_of<double>();
  transposes_of<int32_t>();
  transposes_of<int64_t>();
  transposes_of_bool();
  prefetches();
  edge_bits_of<float>();
  edge_bits_of<double>();
  edge_bits_of<int32_t>();
  edge_bits_of<int64_t>();
  tails_at_a_page_end<float>();
  tails_at_a_page_end<double>();
  tails_at_a_page_end<int32_t>();
  tails_at_a_page_end<int64_t>();
}

void check_masks() {
  // first(n), lane, any/all, the logical operators.
  for (int n = 0; n <= W; ++n) {
    const M m = M::first(n);
    for (int i = 0; i < W; ++i) CHECK(m.lane(i) == (i < n), "first(%d) lane %d", n, i);
    CHECK(stax_rt::any(m) == (n > 0), "any(first(%d))", n);
    CHECK(stax_rt::all(m) == (n == W), "all(first(%d))", n);
  }
  for (int k = 0; k < W; ++k) {
    // Exactly lane k: lanes [0, k+1) minus lanes [0, k).
    const M only = M::first(k + 1) & ~M::first(k);
    CHECK(stax_rt::any(only) && (W == 1 || !stax_rt::all(only)), "single lane %d", k);
    for (int i = 0; i < W; ++i) {
      CHECK(only.lane(i) == (i == k), "single lane %d, lane %d", k, i);
      CHECK((only ^ M(true)).lane(i) == (i != k), "xor, lane %d", i);
      CHECK((only | M::first(1)).lane(i) == (i == k || i == 0), "or, lane %d", i);
      CHECK((only == M::first(k + 1)).lane(i) == (i >= k), "mask ==, lane %d", i);
      CHECK((only != M::first(k + 1)).lane(i) == (i < k), "mask !=, lane %d", i);
      CHECK(stax_rt::where(M::first(1), M(true), only).lane(i) == (i == 0 || i == k), "where of masks, lane %d", i);
    }
  }
  CHECK(!stax_rt::any(M(false)) && stax_rt::all(M(true)), "constant masks");
  mask_operations();

  // Order of bools: every pair of lane values (a = lane bit 0, b = lane bit 1 of the lane number).
  const V<int32_t> lanes = V<int32_t>::iota(0);
  const M a = stax_rt::cast<bool>(lanes & V<int32_t>(1)), b = stax_rt::cast<bool>(lanes & V<int32_t>(2));
  const M lt = a < b, le = a <= b, gt = a > b, ge = a >= b;
  for (int i = 0; i < W; ++i) {
    const bool p = (i & 1) != 0, q = (i & 2) != 0;
    CHECK(lt.lane(i) == (p < q) && le.lane(i) == (p <= q) && gt.lane(i) == (p > q) && ge.lane(i) == (p >= q),
          "mask order of %d, %d", int(p), int(q));
  }

  // Bool memory (bytes 0/1): loads and stores, tails touch n bytes only.
  bool in[16];
  for (int i = 0; i < W; ++i) in[i] = i % 3 != 0;
  for (int n = 0; n <= W; ++n) {
    const M m = M::loadu(in, n);
    for (int i = 0; i < W; ++i) CHECK(m.lane(i) == (i < n && i % 3 != 0), "Mask::loadu(p, %d) lane %d", n, i);
    unsigned char out[16 + 8];
    std::memset(out, 0x55, sizeof out);
    M::loadu(in).storeu(reinterpret_cast<bool*>(out), n);
    for (int i = 0; i < W + 8; ++i) {
      const unsigned char want = i < n ? static_cast<unsigned char>(i % 3 != 0) : 0x55;
      CHECK(out[i] == want, "Mask::storeu(p, %d) byte %d is %d", n, i, out[i]);
    }
  }

  // Bool memory under a mask, at the edges of a guarded page.
  GuardedPage g;
  CHECK(g.base != nullptr, "mmap of guard pages");
  if (g.base == nullptr) return;
  bool* first = reinterpret_cast<bool*>(g.begin());
  bool* last = reinterpret_cast<bool*>(g.end()) - W;
  for (int i = 0; i < W; ++i) first[i] = last[i] = i % 3 != 1;
  for (int k = 0; k <= W; ++k) {
    const M tail = stax_rt::load_masked(last + k, M::first(W - k));
    const M head = stax_rt::load_masked(first - k, ~M::first(k));
    for (int i = 0; i < W; ++i) {
      CHECK(tail.lane(i) == (i < W - k && (i + k) % 3 != 1), "bool load_masked at the end, k=%d lane %d", k, i);
      CHECK(head.lane(i) == (i >= k && (i - k) % 3 != 1), "bool load_masked at the start, k=%d lane %d", k, i);
    }
  }
}

}  // namespace vec_checks
