// The GEMM of generated code, C = A * B, float32 and float64, over the micro-kernels of
// stax_gemm_kernel.h (design.md, "CPU code"; the BLIS/GotoBLAS structure): B packed into panels
// per KC x NC block (or read as packed by staxc, or read in place when it is row-major and one
// tile covers A's rows), A packed into MR-row panels per MC x KC block, the MC, KC and NC blocks
// sized from the machine's caches, the tiles of C spread over OpenMP threads by rows and columns
// (sharing the packing of B when they split the rows). K is never
// split: every element's sum runs in one order whatever the blocking and the thread count, so
// results are bitwise the same run to run and on any number of threads (stax_gemm_kernel.h).
// Then `matmul`, the entry generated code calls for every dtype. Same section rules as
// stax_prelude.h.
#include "stax_gemm_kernel.h"  // (not emitted) the sections these require, so this header compiles alone

// @section gemm requires gemm_kernel
#ifndef STAX_RT_GEMM
#define STAX_RT_GEMM
namespace {
namespace stax_rt {

// ---- the caches, read once per process ----
// Data cache sizes in bytes, per core for L1 and L2 (L3 as the system reports it).
struct GemmCaches {
  int64_t l1 = 32 << 10, l2 = 512 << 10, l3 = 8 << 20;
};

// Level `level`'s data or unified cache of cpu0 from /sys ("48K" in index*/size), or 0.
inline int64_t gemm_sys_cache(int level) {
  for (int index = 0; index < 8; ++index) {
    char path[96], text[32] = {0};
    int lv = 0;
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
    std::FILE* f = std::fopen(path, "r");
    if (f == nullptr) return 0;
    const bool got_level = std::fscanf(f, "%d", &lv) == 1;
    std::fclose(f);
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
    if (!got_level || lv != level || (f = std::fopen(path, "r")) == nullptr) continue;
    const bool got_type = std::fscanf(f, "%31s", text) == 1;
    std::fclose(f);
    if (!got_type || text[0] == 'I') continue;  // Instruction
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    if ((f = std::fopen(path, "r")) == nullptr) continue;
    long long size = 0;
    char unit = 0;
    const int n = std::fscanf(f, "%lld%c", &size, &unit);
    std::fclose(f);
    if (n < 1) continue;
    return size * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1);
  }
  return 0;
}

inline int64_t gemm_clamp(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : x > hi ? hi : x; }

// sysconf (glibc reads CPUID), then /sys, then the defaults above; clamped to sane sizes.
inline GemmCaches gemm_read_caches() {
  GemmCaches c;
  int64_t size[3] = {0, 0, 0};
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  size[0] = sysconf(_SC_LEVEL1_DCACHE_SIZE);
  size[1] = sysconf(_SC_LEVEL2_CACHE_SIZE);
  size[2] = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  for (int level = 1; level <= 3; ++level)
    if (size[level - 1] <= 0) size[level - 1] = gemm_sys_cache(level);
  if (size[0] > 0) c.l1 = gemm_clamp(size[0], 16 << 10, 256 << 10);
  if (size[1] > 0) c.l2 = gemm_clamp(size[1], 128 << 10, 16 << 20);
  if (size[2] > 0) c.l3 = gemm_clamp(size[2], 1 << 20, int64_t(1) << 32);
  return c;
}

inline const GemmCaches& gemm_caches() {
  static const GemmCaches caches = gemm_read_caches();
  return caches;
}

// ---- blocking ----
// mr, nr: the height A is packed with (the tile's MR, or less for a short A, split evenly) and
// the width of the tiles (NR, or the short tiles' for an A of at most mr_short rows); kc, mc, nc:
// the K, M and N extents of the cache blocks; direct_b: read a row-major B in place.
struct GemmPlan {
  int64_t mr, nr, kc, mc, nc;
  bool direct_b;
};

template <typename T, typename I> struct GemmShape {
  using Tile = GemmTile<T, I>;
  static constexpr int64_t panel = gemm_panel_width<T>(I::width);
  static constexpr int mr = Tile::mr;
  static constexpr int nv = static_cast<int>(panel / I::width);
  static constexpr int64_t nr = panel;
  static constexpr int mr_short = Tile::mr_short < Tile::mr ? Tile::mr_short : Tile::mr;
  static constexpr int nv_short = mr_short > 0 ? Tile::nv_short : nv;
  static constexpr int64_t nr_short = int64_t(nv_short) * I::width;
  static_assert(nr_short % panel == 0, "a short GEMM tile is whole panels of B wide (stax_gemm_pack.h)");
  // The micro-kernels by height (gemm_tiles) for a plan's width, reading B packed at run time
  // (panels one tile wide) or ahead (`ahead`: panels of `panel` columns).
  static const GemmTileFn<T>* tiles(int64_t width, bool ahead) {
    constexpr int short_rows = mr_short > 0 ? mr_short : 1;
    using ShortRows = std::make_integer_sequence<int, short_rows>;
    if (mr_short > 0 && width == nr_short && ahead) return gemm_tiles<T, I, nv_short, nv>(ShortRows());
    if (mr_short > 0 && width == nr_short) return gemm_tiles<T, I, nv_short, nv_short>(ShortRows());
    return gemm_tiles<T, I, nv, nv>(std::make_integer_sequence<int, mr>());
  }
};

// The blocks for an M x N x K product (`b_columns`: B's columns are contiguous, B transposed).
// KC: the kc x NR micro-panel of B, reused by every tile of an MC block, as large as L1 (more of
// it streams from L2 at no cost on current cores, and a longer KC reloads C less often); MC: the
// mc x kc block of A as large as L2; NC: the kc x nc block of B in a share of L3 or, when A is
// short (at most two tiles high, so B is read once) and B transposed, in half of L2, so that the
// panels transposed into it are still there when the tiles read them (a row-major B packs best
// by whole rows, one stream each). When one tile covers every row of A, a row-major B is read in
// place (each element once: packing would only add a copy); with two tiles the second would read
// B again, from memory when B's row stride is a multiple of 4 KiB (its rows then share a few
// cache sets), so B is packed. Measured on Zen 5 (48 KiB L1, 1 MiB L2), one thread: KC 384 /
// MC 680 for float on AVX-512 against 192 / 512 and 512 / 512 within the noise; prefetching the
// next tile of C, as BLIS does, lost 5 to 10%; one row against a 4096 x 4096 B, 8.3 ms in place
// against 10.7 ms packed; sixteen rows, 21 against 17 flops a cycle with NC 4096 rather than 320
// for a row-major B, 21 against 17 with NC 320 rather than 4096 for a transposed one.
template <typename T, typename I>
inline GemmPlan gemm_plan(int64_t M, int64_t N, int64_t K, bool b_columns = false,
                          const GemmCaches& caches = gemm_caches()) {
  using S = GemmShape<T, I>;
  const int64_t bytes = sizeof(T);
  GemmPlan p;
  const int64_t panels = (M + S::mr - 1) / S::mr;
  const bool short_a = panels <= 2;
  p.mr = short_a ? (M + panels - 1) / panels : S::mr;
  p.nr = M <= S::mr_short ? S::nr_short : S::nr;
  p.kc = gemm_clamp(caches.l1 / (S::nr * bytes) / 16 * 16, 64, 1024);
  if (K < p.kc + p.kc / 4) p.kc = K > 0 ? K : 1;  // one block rather than a short second one
  p.mc = gemm_clamp(caches.l2 / (p.kc * bytes) / p.mr * p.mr, p.mr, 128 * p.mr);
  const int64_t l3 = caches.l3 < (32 << 20) ? caches.l3 : 32 << 20;
  const int64_t b_block = short_a && b_columns ? caches.l2 / 2 : l3 / 4;
  p.nc = gemm_clamp(b_block / (p.kc * bytes) / p.nr * p.nr, p.nr, 128 * p.nr);
  p.direct_b = panels == 1;
  (void)N;
  return p;
}

// ---- the operands ----
// A matrix by element strides: element (r, c) at p[r * rs + c * cs].
template <typename T> struct GemmMatrix {
  const T* p;
  int64_t rs, cs;
};

// B: a matrix, or (`packed` not null) the whole K x N matrix already in the layout of
// gemm_pack_b with panels of GemmShape<T, I>::panel = gemm_panel_width<T>(I::width) columns.
template <typename T> struct GemmB {
  GemmMatrix<T> m;
  const T* packed;
};

// The epilogue of a GEMM: a functor called as ep(i0, i1, j0, j1, c, ldc) once for every block
// [i0, i1) x [j0, j1) of C (rows and columns of this product) once its values are final, with c
// pointing at element (i0, j0) and ldc its row stride. The blocks cover C exactly once; each is
// one micro-kernel's tile (at most MR x NR, or a short tile's size, transposed when C has one
// column and is computed as C^T), still in L1 when the functor runs, on the thread that computed
// it (blocks of different threads run concurrently). It may rewrite the block in place (bias,
// activation, residual add) and must not touch C outside it.
struct GemmNoEpilogue {
  template <typename T> void operator()(int64_t, int64_t, int64_t, int64_t, T*, int64_t) const {}
};

// An epilogue behind one indirect call per tile: the entries below pass a kernel's lambda to the
// GEMM (or the convolution) through it, so that the GEMM's templates are instantiated once per
// dtype and instruction set rather than once per kernel (each lambda is a type of its own; a
// model of a hundred convolutions would otherwise compile a hundred copies of them). The call
// costs nothing next to a tile's MR x NR x KC multiply-adds. `Args` are the epilogue's leading
// positions: none (ep(i0, i1, j0, j1, c, ldc)) or one (a batch position or an image).
template <typename T, int Args> struct EpilogueRef;
template <typename T> struct EpilogueRef<T, 0> {
  const void* ctx;
  void (*fn)(const void*, int64_t, int64_t, int64_t, int64_t, T*, int64_t);
  template <typename E>
  explicit EpilogueRef(const E& e)
      : ctx(&e), fn([](const void* x, int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* c, int64_t ldc) {
          (*static_cast<const E*>(x))(i0, i1, j0, j1, c, ldc);
        }) {}
  void operator()(int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* c, int64_t ldc) const {
    fn(ctx, i0, i1, j0, j1, c, ldc);
  }
};
template <typename T> struct EpilogueRef<T, 1> {
  const void* ctx;
  void (*fn)(const void*, int64_t, int64_t, int64_t, int64_t, int64_t, T*, int64_t);
  template <typename E>
  explicit EpilogueRef(const E& e)
      : ctx(&e), fn([](const void* x, int64_t at, int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* c, int64_t ldc) {
          (*static_cast<const E*>(x))(at, i0, i1, j0, j1, c, ldc);
        }) {}
  void operator()(int64_t at, int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* c, int64_t ldc) const {
    fn(ctx, at, i0, i1, j0, j1, c, ldc);
  }
};

// Per-thread packing buffers, kept across calls (a GEMM then allocates nothing in steady state).
struct GemmBuffer {
  void* p = nullptr;
  std::size_t size = 0;
  GemmBuffer() = default;
  GemmBuffer(const GemmBuffer&) = delete;
  GemmBuffer& operator=(const GemmBuffer&) = delete;
  ~GemmBuffer() { ::operator delete(p, std::align_val_t(64)); }
  // At least `bytes`, 64-byte aligned; null when the allocation fails.
  void* get(std::size_t bytes) {
    if (bytes <= size) return p;
    ::operator delete(p, std::align_val_t(64));
    p = ::operator new(bytes, std::align_val_t(64), std::nothrow);
    size = p != nullptr ? bytes : 0;
    return p;
  }
};
// 0 and 1: the packed blocks of A and B (a convolution's shifted path: A and its block of C);
// 2: the shifted input of a convolution (stax_conv_shift.h); 3: the C^T of a convolution computed
// transposed (conv_swap_run).
inline GemmBuffer& gemm_buffer(int which) {
  static thread_local GemmBuffer buffers[4];
  return buffers[which];
}

// This thread's number in the enclosing parallel region, and the region's threads (0 of 1 outside
// one, or without OpenMP).
struct GemmTeam {
  int t, threads;
};
inline GemmTeam gemm_team() {
#ifdef _OPENMP
  return {omp_get_thread_num(), omp_get_num_threads()};
#else
  return {0, 1};
#endif
}

// Chunks [0, n) of a team's work. Thread t of `threads` first takes its own run of them in order
// ([n t / threads, n (t + 1) / threads): a static split's share, whose input the same split of
// the layer before left in its core's caches), then helps the others, taking the next untaken
// chunk of each run in turn. A static share alone waits for the slowest thread: on a 2-vCPU
// virtual machine one of them often runs well behind the other for a while (the host's other
// work), and ResNet-18's 14 x 14 and 7 x 7 layers took 13% less time on 2 threads on average
// with their panels dealt out (conv_swap_taps). Built before the parallel region, shared by the
// team; take() from any number of threads (a team smaller than `threads` leaves whole runs to
// the others' help).
class GemmChunks {
 public:
  GemmChunks(int64_t n, int threads) : n_(n), runs_(threads < 1 ? 1 : threads < kRuns ? threads : kRuns) {
    for (int r = 0; r < kRuns; ++r) taken_[r] = 0;
  }
  int64_t size() const { return n_; }
  // Thread t's next chunk, or -1 once every chunk is taken.
  int64_t take(int t) {
    for (int i = 0; i < runs_; ++i) {
      const int r = (t + i) % runs_;
      int64_t k;
#pragma omp atomic capture
      k = taken_[r]++;
      const int64_t c = n_ * r / runs_ + k;
      if (c < n_ * (r + 1) / runs_) return c;
    }
    return -1;
  }

 private:
  static constexpr int kRuns = 64;
  int64_t n_;
  int runs_;
  int64_t taken_[kRuns];
};

// ---- the tiles of one KC block ----
// Columns [j0, ...) of a KC block of B as the tiles read them: panels of `width` columns at
// `panel_stride` from each other with rows `ks` apart, or (in_place) a row-major B itself.
template <typename T> struct GemmBBlock {
  const T* base;
  int64_t j0, panel_stride, ks, width;
  bool in_place;
  const T* at(int64_t j) const {
    const int64_t d = j - j0;
    return in_place ? base + d : base + d / width * panel_stride + d % width;
  }
};

// Rows [m0, m1) x columns [j0, j0 + nb) of C over the KC block (pc, kb) of B: A packed by MC
// blocks into abuf, then every tile, B strip by strip (a strip stays in L1 while the tiles of an
// MC block pass over it). `last`: the block is K's last, the tiles are final, the epilogue runs.
// `tail` takes the last, partial strip of a B read in place, so that no read passes column N.
template <typename T, typename I, typename E>
inline void gemm_rows(const GemmPlan& plan, GemmMatrix<T> A, const GemmBBlock<T>& bb, int64_t pc, int64_t kb,
                      bool last, T* c, int64_t ldc, int64_t m0, int64_t m1, int64_t j0, int64_t nb, const E& ep,
                      T* abuf, T* tail) {
  const bool ahead = !bb.in_place && bb.width != plan.nr;
  const GemmTileFn<T>* tiles = GemmShape<T, I>::tiles(plan.nr, ahead);
  // A wide tile of a short A reads several panels packed ahead: the last strip, with fewer
  // panels than that, runs panel by panel on the tiles one panel wide, reading nothing past B.
  constexpr int64_t P = GemmShape<T, I>::panel;
  const GemmTileFn<T>* panel_tiles = GemmShape<T, I>::tiles(P, false);
  for (int64_t ic = m0; ic < m1; ic += plan.mc) {
    const int64_t mb = plan.mc < m1 - ic ? plan.mc : m1 - ic;
    gemm_pack_a_fast<T, I>(A.p + ic * A.rs + pc * A.cs, A.rs, A.cs, mb, kb, plan.mr, abuf);
    for (int64_t jr = 0; jr < nb; jr += plan.nr) {
      const int n = static_cast<int>(plan.nr < nb - jr ? plan.nr : nb - jr);
      const int64_t j = j0 + jr;
      const T* bp = bb.at(j);
      int64_t bks = bb.ks;
      if (bb.in_place && n < plan.nr) {
        if (ic == m0) gemm_pack_b_fast<T, I>(bp, bb.ks, 1, kb, n, plan.nr, tail);
        bp = tail, bks = plan.nr;
      }
      for (int64_t ir = 0; ir < mb; ir += plan.mr) {
        const int m = static_cast<int>(plan.mr < mb - ir ? plan.mr : mb - ir);
        T* ct = c + (ic + ir) * ldc + j;
        if (ahead && (n + P - 1) / P * P < plan.nr) {
          for (int64_t q = 0; q * P < n; ++q)
            panel_tiles[m - 1](kb, abuf + ir * kb, plan.mr, bp + q * bb.panel_stride, bks, bb.panel_stride, ct + q * P,
                               ldc, static_cast<int>(n - q * P < P ? n - q * P : P), pc > 0);
        } else {
          tiles[m - 1](kb, abuf + ir * kb, plan.mr, bp, bks, bb.panel_stride, ct, ldc, n, pc > 0);
        }
        if (last) ep(ic + ir, ic + ir + m, j, j + n, ct, ldc);
      }
    }
  }
}

// ---- one thread's block of C: rows [m0, m1), columns [n0, n1), packing its own B ----
template <typename T, typename I, typename E>
inline void gemm_block(const GemmPlan& plan, GemmMatrix<T> A, const GemmB<T>& B, T* c, int64_t ldc, int64_t K,
                       int64_t m0, int64_t m1, int64_t n0, int64_t n1, const E& ep, T* abuf, T* bbuf) {
  const int64_t P = plan.nr, Pa = GemmShape<T, I>::panel;
  const bool in_place = B.packed == nullptr && plan.direct_b && B.m.cs == 1;
  for (int64_t jc = n0; jc < n1; jc += plan.nc) {
    const int64_t nb = plan.nc < n1 - jc ? plan.nc : n1 - jc;
    for (int64_t pc = 0; pc < K; pc += plan.kc) {
      const int64_t kb = plan.kc < K - pc ? plan.kc : K - pc;
      GemmBBlock<T> bb{bbuf, jc, P * kb, P, P, false};
      if (B.packed != nullptr) {
        bb = {B.packed + pc * Pa, 0, Pa * K, Pa, Pa, false};  // whole-matrix panels: absolute columns
      } else if (in_place) {
        bb = {B.m.p + pc * B.m.rs, 0, 0, B.m.rs, 0, true};
      } else {
        gemm_pack_b_fast<T, I>(B.m.p + pc * B.m.rs + jc * B.m.cs, B.m.rs, B.m.cs, kb, nb, P, bbuf);
      }
      gemm_rows<T, I>(plan, A, bb, pc, kb, pc + kb == K, c, ldc, m0, m1, jc, nb, ep, abuf, bbuf);
    }
  }
}

// ---- the same for `team` threads that share the columns [0, N) and split the rows: thread t
// packs panels t, t + team, ... of each KC x NC block of B into the shared `bshared`, all wait,
// each computes its rows, all wait again before the next block is packed. B is then packed once
// in all rather than once per thread. Every thread runs every block (and so every barrier).
template <typename T, typename I, typename E>
inline void gemm_block_shared(const GemmPlan& plan, GemmMatrix<T> A, const GemmMatrix<T>& B, T* c, int64_t ldc,
                              int64_t N, int64_t K, int64_t m0, int64_t m1, const E& ep, T* abuf, T* bshared,
                              int t, int team) {
  const int64_t P = plan.nr;
  for (int64_t jc = 0; jc < N; jc += plan.nc) {
    const int64_t nb = plan.nc < N - jc ? plan.nc : N - jc;
    for (int64_t pc = 0; pc < K; pc += plan.kc) {
      const int64_t kb = plan.kc < K - pc ? plan.kc : K - pc;
      for (int64_t q = t; q * P < nb; q += team) {
        const int64_t w = nb - q * P < P ? nb - q * P : P;
        gemm_pack_b_fast<T, I>(B.p + pc * B.rs + (jc + q * P) * B.cs, B.rs, B.cs, kb, w, P, bshared + q * P * kb);
      }
#pragma omp barrier
      const GemmBBlock<T> bb{bshared, jc, P * kb, P, P, false};
      gemm_rows<T, I>(plan, A, bb, pc, kb, pc + kb == K, c, ldc, m0, m1, jc, nb, ep, abuf, nullptr);
#pragma omp barrier
    }
  }
}

// ---- threads ----
inline int64_t gemm_tile_count(const GemmPlan& plan, int64_t M, int64_t N) {
  return ((M + plan.mr - 1) / plan.mr) * ((N + plan.nr - 1) / plan.nr);
}

// Rows and columns of threads: tm * tn = threads, chosen to minimize the largest thread's
// multiply-adds per k (its mi x ni tiles of mr x nr) plus the elements it packs per k (its mi * mr
// rows of A and ni * nr columns of B); on a tie, the most columns of threads. Splitting the
// columns measured as fast or faster on every shape of the GEMM table (2 threads: 512 x 4096 x
// 1024 12.9-14.3 ms against 14.7-14.8 with the rows split and B's packing shared, square 2048
// 50-56 against 54-58): each thread packs only its own columns of B, with no barrier between.
// B packed ahead (`b_packed`: a constant weight) costs nothing per call, so its columns do not
// count: BERT's 128 x 256 x 1024 and 128 x 1024 x 256 products and the MLP's 512 x 4096 x 1024
// ran 1-9% faster on 2 threads with their rows split (min of 30 calls on Zen 3: 0.386 against
// 0.422 ms, 0.358 / 0.361, 25.9 / 26.4), each thread packing only its rows of A.
struct GemmGrid {
  int tm, tn;
};
inline GemmGrid gemm_grid(int64_t mt, int64_t nt, int64_t mr, int64_t nr, int threads, bool b_packed = false) {
  GemmGrid best{threads, 1};
  int64_t best_cost = -1;
  for (int tn = threads; tn >= 1; --tn) {
    if (threads % tn != 0) continue;
    const int tm = threads / tn;
    const int64_t mi = (mt + tm - 1) / tm, ni = (nt + tn - 1) / tn;
    const int64_t cost = mi * ni * mr * nr + mi * mr + (b_packed ? 0 : ni * nr);
    if (best_cost < 0 || cost < best_cost) best = {tm, tn}, best_cost = cost;
  }
  return best;
}

// Thread t's block of an M x N product over `threads` (gemm_grid; `b_packed` as there) in tiles
// of mr x nr: rows [m0, m1), columns [n0, n1) (empty when the thread has none), and the grid.
struct GemmThreadBlock {
  GemmGrid g;
  int64_t m0, m1, n0, n1;
};
inline GemmThreadBlock gemm_thread_block(int64_t M, int64_t N, int64_t mr, int64_t nr, int t, int threads,
                                         bool b_packed = false) {
  const int64_t mt = (M + mr - 1) / mr, nt = (N + nr - 1) / nr;
  const GemmGrid g = gemm_grid(mt, nt, mr, nr, threads, b_packed);
  const int r = t / g.tn, c = t % g.tn;
  const int64_t m_end = mt * (r + 1) / g.tm * mr, n_end = nt * (c + 1) / g.tn * nr;
  return {g, mt * r / g.tm * mr, m_end < M ? m_end : M, nt * c / g.tn * nr, n_end < N ? n_end : N};
}

// Threads worth using: each gets at least 2^21 multiply-adds (10 us of one AVX-512 core, about
// what waking a sleeping thread costs under OMP_WAIT_POLICY=passive) and one tile. A product of
// fewer than 32 rows counts as 32: each element of B then feeds fewer than 32 multiply-adds, and
// streaming B from L3 or memory, not the arithmetic, sets its time (a classifier's 1 x 2048 x
// 1000 product, 8 MB of weights: 0.26 ms on one thread, 0.14 on two).
inline int gemm_threads(int64_t M, int64_t N, int64_t K, int64_t tiles) {
#ifdef _OPENMP
  const int64_t by_work = (M < 32 ? 32 : M) * N * K >> 21;
  int64_t p = omp_get_max_threads();
  if (p > by_work) p = by_work;
  if (p > tiles) p = tiles;
  return p < 1 ? 1 : static_cast<int>(p);
#else
  (void)M, (void)N, (void)K, (void)tiles;
  return 1;
#endif
}

// One thread's block with buffers of its own (or, when they cannot be allocated, small blocks
// packed on the stack: the same results).
template <typename T, typename I, typename E>
inline void gemm_block_alone(const GemmPlan& plan, GemmMatrix<T> A, const GemmB<T>& B, T* c, int64_t ldc, int64_t K,
                             int64_t m0, int64_t m1, int64_t n0, int64_t n1, const E& ep, T* abuf, T* bbuf) {
  using S = GemmShape<T, I>;
  if (m0 >= m1 || n0 >= n1) return;
  if (abuf != nullptr && bbuf != nullptr) return gemm_block<T, I>(plan, A, B, c, ldc, K, m0, m1, n0, n1, ep, abuf, bbuf);
  alignas(64) T a_small[S::mr * 64];
  alignas(64) T b_small[S::nr_short * 64];
  GemmPlan small = plan;
  small.kc = 64, small.mc = plan.mr, small.nc = plan.nr;
  gemm_block<T, I>(small, A, B, c, ldc, K, m0, m1, n0, n1, ep, a_small, b_small);
}

// C = A * B with an explicit plan and thread count (the entries below pick them). C is M x N with
// row stride ldc and unit column stride. Threads split C by gemm_grid; when they split only the
// rows and B is packed at run time and large (2^20 elements or more: packing it once per thread
// would cost more than the two barriers per block, which a sleeping thread makes slow under
// OMP_WAIT_POLICY=passive), they share its packing (gemm_block_shared).
template <typename T, typename I, typename E>
inline void gemm_run(const GemmPlan& plan, int threads, GemmMatrix<T> A, const GemmB<T>& B, T* c, int64_t ldc,
                     int64_t M, int64_t N, int64_t K, const E& ep) {
  const std::size_t abytes = sizeof(T) * static_cast<std::size_t>((plan.mc + plan.mr - 1) / plan.mr * plan.mr * plan.kc);
  const std::size_t bbytes = sizeof(T) * static_cast<std::size_t>((plan.nc + plan.nr) * plan.kc);
  const bool share_b = B.packed == nullptr && !(plan.direct_b && B.m.cs == 1) && K * N >= (int64_t(1) << 20);
  T* shared_b = nullptr;
  bool short_of_memory = false;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const GemmTeam team = gemm_team();
    const int t = team.t, nthreads = team.threads;
    const GemmThreadBlock tb = gemm_thread_block(M, N, plan.mr, plan.nr, t, nthreads, B.packed != nullptr);
    const GemmGrid g = tb.g;
    const int64_t m0 = tb.m0, m1 = tb.m1, n0 = tb.n0, n1 = tb.n1;
    T* abuf = static_cast<T*>(gemm_buffer(0).get(abytes));
    if (share_b && nthreads > 1 && g.tn == 1) {  // the same decision in every thread
      if (t == 0) shared_b = static_cast<T*>(gemm_buffer(1).get(bbytes));
      if (abuf == nullptr) {
#pragma omp atomic write
        short_of_memory = true;
      }
#pragma omp barrier
      if (shared_b != nullptr && !short_of_memory) {
        gemm_block_shared<T, I>(plan, A, B.m, c, ldc, N, K, m0, m1, ep, abuf, shared_b, t, nthreads);
      } else {
        gemm_block_alone<T, I>(plan, A, B, c, ldc, K, m0, m1, n0, n1, ep, abuf,
                               static_cast<T*>(gemm_buffer(1).get(bbytes)));
      }
    } else {
      gemm_block_alone<T, I>(plan, A, B, c, ldc, K, m0, m1, n0, n1, ep, abuf,
                             static_cast<T*>(gemm_buffer(1).get(bbytes)));
    }
  }
}

// The product of K = 0 terms: zeros (then the epilogue).
template <typename T, typename E> inline void gemm_zero(T* c, int64_t ldc, int64_t M, int64_t N, const E& ep) {
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) c[i * ldc + j] = T(0);
  ep(int64_t(0), M, int64_t(0), N, c, ldc);
}

// An epilogue of C^T seen as one of C (the product computed transposed when N is 1).
template <typename E> struct GemmTransposedEpilogue {
  const E& ep;
  template <typename T> void operator()(int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* c, int64_t) const {
    ep(j0, j1, i0, i1, c, int64_t(1));
  }
};

// C (M x N, row stride ldc) = A (M x K) * B (K x N), A and B by element strides, for T float or
// double on instruction set I; `ep` as GemmNoEpilogue describes.
template <typename T, typename I, typename E = GemmNoEpilogue>
inline void gemm(const T* a, int64_t a_rs, int64_t a_cs, const T* b, int64_t b_rs, int64_t b_cs, T* c, int64_t ldc,
                 int64_t M, int64_t N, int64_t K, const E& ep = E()) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) return gemm_zero(c, ldc, M, N, ep);
  if (N == 1 && M > 1 && ldc == 1) {  // a matrix-vector product: C^T = B^T A^T has one row and M columns
    const GemmPlan plan = gemm_plan<T, I>(1, M, K, a_cs == 1);
    const GemmB<T> bt{{a, a_cs, a_rs}, nullptr};
    return gemm_run<T, I>(plan, gemm_threads(1, M, K, gemm_tile_count(plan, 1, M)), GemmMatrix<T>{b, b_cs, b_rs},
                          bt, c, M, 1, M, K, GemmTransposedEpilogue<E>{ep});
  }
  const GemmPlan plan = gemm_plan<T, I>(M, N, K, b_rs == 1 && b_cs != 1);
  const int64_t tiles = gemm_tile_count(plan, M, N);
  gemm_run<T, I>(plan, gemm_threads(M, N, K, tiles), GemmMatrix<T>{a, a_rs, a_cs}, GemmB<T>{{b, b_rs, b_cs}, nullptr},
                 c, ldc, M, N, K, ep);
}

// The same with B already packed: gemm_pack_b(B, ..., K, N, gemm_panel_width<T>(I::width),
// packed_b), which staxc calls at compile time for a constant B, once per instruction set.
template <typename T, typename I, typename E = GemmNoEpilogue>
inline void gemm_prepacked(const T* a, int64_t a_rs, int64_t a_cs, const T* packed_b, T* c, int64_t ldc, int64_t M,
                           int64_t N, int64_t K, const E& ep = E()) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) return gemm_zero(c, ldc, M, N, ep);
  const GemmPlan plan = gemm_plan<T, I>(M, N, K);
  const int64_t tiles = gemm_tile_count(plan, M, N);
  gemm_run<T, I>(plan, gemm_threads(M, N, K, tiles), GemmMatrix<T>{a, a_rs, a_cs},
                 GemmB<T>{{nullptr, 0, 0}, packed_b}, c, ldc, M, N, K, ep);
}

// Batched products with broadcast batch dims: for every index x of the batch shape (rank dims),
// C_x = A_x * B_x, A_x at a + sum_d x_d * a_bs[d] (a stride 0 broadcasts), B_x likewise, C_x at
// c + flat(x) * c_bs. Many small products run in parallel over the batches, one thread each;
// large ones one after the other, each over every thread. `ep` is called as ep(x_flat, i0, i1,
// j0, j1, c, ldc) on the blocks of C_x.
template <typename E> struct GemmBatchEpilogue {
  const E& ep;
  int64_t batch;
  template <typename T> void operator()(int64_t i0, int64_t i1, int64_t j0, int64_t j1, T* c, int64_t ldc) const {
    ep(batch, i0, i1, j0, j1, c, ldc);
  }
};
struct GemmNoBatchEpilogue {
  template <typename T> void operator()(int64_t, int64_t, int64_t, int64_t, int64_t, T*, int64_t) const {}
};

template <typename T, typename I, typename E = GemmNoBatchEpilogue>
inline void gemm_batched(int rank, const int64_t* shape, const T* a, const int64_t* a_bs, int64_t a_rs, int64_t a_cs,
                         const T* b, const int64_t* b_bs, int64_t b_rs, int64_t b_cs, T* c, int64_t c_bs, int64_t ldc,
                         int64_t M, int64_t N, int64_t K, const E& ep = E()) {
  int64_t batches = 1;
  for (int d = 0; d < rank; ++d) batches *= shape[d];
  if (batches <= 0 || M <= 0 || N <= 0) return;
  const GemmPlan plan = gemm_plan<T, I>(M, N, K, b_rs == 1 && b_cs != 1);
  const int64_t tiles = gemm_tile_count(plan, M, N);
  // Threads within one product, and over the batches (one batch per thread at a time): across
  // the batches when that uses more threads, or when each product is small (~4M multiply-adds:
  // a parallel region per product would cost more than the imbalance of whole batches).
  const int inner = gemm_threads(M, N, K, tiles);
  const int outer = gemm_threads(batches * M, N, K, batches);
  const bool across = outer > 1 && (outer > inner || M * N * K < (int64_t(1) << 22));
  auto one = [&](int64_t x, int threads) {
    int64_t ao = 0, bo = 0, rest = x;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t i = rest % shape[d];
      rest /= shape[d];
      ao += i * a_bs[d];
      bo += i * b_bs[d];
    }
    T* cx = c + x * c_bs;
    const GemmBatchEpilogue<E> bep{ep, x};
    if (K <= 0) return gemm_zero(cx, ldc, M, N, bep);
    gemm_run<T, I>(plan, threads, GemmMatrix<T>{a + ao, a_rs, a_cs}, GemmB<T>{{b + bo, b_rs, b_cs}, nullptr}, cx, ldc,
                   M, N, K, bep);
  };
  if (!across) {
    for (int64_t x = 0; x < batches; ++x) one(x, inner);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(outer)
  for (int64_t x = 0; x < batches; ++x) one(x, 1);
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_GEMM

// @section matmul requires gemm
#ifndef STAX_RT_MATMUL
#define STAX_RT_MATMUL
namespace {
namespace stax_rt {

// acc + a * b: wrapping for ints, logical for bool.
template <typename T> inline T matmul_mac(T acc, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return acc || (a && b);
  else return add(acc, mul(a, b));
}

// C = A * B for int32, int64 and bool: exact (ints wrap, as PyTorch's do in practice), in simple
// loops blocked over M and N so that a tile of sums and a strip of B stay in L1.
template <typename T>
inline void matmul_loops(const T* a, int64_t a_sm, int64_t a_sk, const T* b, int64_t b_sk, int64_t b_sn, T* c,
                         int64_t M, int64_t N, int64_t K) {
  constexpr int64_t kBM = 16, kBN = 64;
  const int64_t mblocks = (M + kBM - 1) / kBM, nblocks = (N + kBN - 1) / kBN;
  const bool large = M * N * K >= (int64_t(1) << 18);
#pragma omp parallel for collapse(2) schedule(static) if (large)
  for (int64_t bm = 0; bm < mblocks; ++bm) {
    for (int64_t bn = 0; bn < nblocks; ++bn) {
      const int64_t m0 = bm * kBM, n0 = bn * kBN;
      const int64_t m1 = m0 + kBM < M ? m0 + kBM : M, n1 = n0 + kBN < N ? n0 + kBN : N;
      T acc[kBM][kBN];
      for (int64_t i = 0; i < m1 - m0; ++i)
        for (int64_t j = 0; j < n1 - n0; ++j) acc[i][j] = T(0);
      for (int64_t k = 0; k < K; ++k) {
        for (int64_t i = m0; i < m1; ++i) {
          const T aik = a[i * a_sm + k * a_sk];
          const T* brow = b + k * b_sk;
          for (int64_t j = n0; j < n1; ++j) acc[i - m0][j - n0] = matmul_mac(acc[i - m0][j - n0], aik, brow[j * b_sn]);
        }
      }
      for (int64_t i = m0; i < m1; ++i)
        for (int64_t j = n0; j < n1; ++j) c[i * N + j] = acc[i - m0][j - n0];
    }
  }
}

// What generated code calls for each matrix product: C[M, N] (dense, row-major) = A[M, K] *
// B[K, N], A and B with element strides (a transposed or sliced operand comes as its strides).
// float and double run the GEMM on the widest instruction set the compiler targets (or the one
// the translation unit pins), the other dtypes the loops above.
template <typename T>
inline void matmul(const T* a, int64_t a_sm, int64_t a_sk, const T* b, int64_t b_sk, int64_t b_sn, T* c, int64_t M,
                   int64_t N, int64_t K) {
  if constexpr (std::is_floating_point_v<T>) gemm<T, IsaNative>(a, a_sm, a_sk, b, b_sk, b_sn, c, N, M, N, K);
  else matmul_loops(a, a_sm, a_sk, b, b_sk, b_sn, c, M, N, K);
}

// The same for float and double with an epilogue, ep(i0, i1, j0, j1, c, ldc) on each tile of C
// once it is final (GemmNoEpilogue describes it): the pointwise work staxc fuses into the product.
template <typename T, typename E>
inline void matmul_epilogue(const T* a, int64_t a_sm, int64_t a_sk, const T* b, int64_t b_sk, int64_t b_sn, T* c,
                            int64_t M, int64_t N, int64_t K, const E& ep) {
  static_assert(std::is_floating_point_v<T>, "an epilogue runs on the GEMM of float and double");
  gemm<T, IsaNative>(a, a_sm, a_sk, b, b_sk, b_sn, c, N, M, N, K, EpilogueRef<T, 0>(ep));
}

// The same with B packed by staxc at compile time for instruction set I (gemm_pack_b with panels
// of gemm_panel_width<T>(I::width) columns), optionally with an epilogue.
template <typename T, typename I, typename E = GemmNoEpilogue>
inline void matmul_prepacked(const T* a, int64_t a_sm, int64_t a_sk, const T* packed_b, T* c, int64_t M, int64_t N,
                             int64_t K, const E& ep = E()) {
  static_assert(std::is_floating_point_v<T>, "staxc packs the B of float and double products");
  if constexpr (std::is_same_v<E, GemmNoEpilogue>) gemm_prepacked<T, I>(a, a_sm, a_sk, packed_b, c, N, M, N, K, ep);
  else gemm_prepacked<T, I>(a, a_sm, a_sk, packed_b, c, N, M, N, K, EpilogueRef<T, 0>(ep));
}

// A constant B packed once for the life of the process on the instruction set the compiler
// targets (gemm_pack_b_fast into gemm_panel_width<T>(IsaNative::width) columns): what generated
// code calls, in the initializer of a function-local static, for a constant B under --isa native,
// whose panel width staxc does not know. Null when memory runs out (B is then packed per call).
template <typename T>
inline const T* matmul_pack_b_native(const T* b, int64_t b_sk, int64_t b_sn, int64_t K, int64_t N) {
  static_assert(std::is_floating_point_v<T>, "the B of float and double products is packed");
  const int64_t P = gemm_panel_width<T>(IsaNative::width);
  const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(gemm_packed_b_size(K, N, P));
  T* out = static_cast<T*>(::operator new(bytes, std::align_val_t(64), std::nothrow));
  if (out != nullptr) gemm_pack_b_fast<T, IsaNative>(b, b_sk, b_sn, K, N, P, out);
  return out;
}

// A product whose B is a constant packed once by matmul_pack_b_native (`packed`), or, when that
// found no memory (null), read from `b` and packed per call.
template <typename T, typename E = GemmNoEpilogue>
inline void matmul_packed_once(const T* a, int64_t a_sm, int64_t a_sk, const T* b, int64_t b_sk, int64_t b_sn,
                               const T* packed, T* c, int64_t M, int64_t N, int64_t K, const E& ep = E()) {
  if (packed != nullptr) return matmul_prepacked<T, IsaNative>(a, a_sm, a_sk, packed, c, M, N, K, ep);
  if constexpr (std::is_same_v<E, GemmNoEpilogue>) matmul<T>(a, a_sm, a_sk, b, b_sk, b_sn, c, M, N, K);
  else matmul_epilogue<T>(a, a_sm, a_sk, b, b_sk, b_sn, c, M, N, K, ep);
}

// C[x..., M, N] = A_x * B_x for every position x of the batch shape (`rank` dims of `shape`),
// A_x at a + sum_d x_d * a_bs[d] (stride 0 broadcasts), B_x likewise, C dense. float and double
// run gemm_batched (many small products in parallel, one thread each; large ones each over all
// threads) with `ep` called as ep(x_flat, i0, i1, j0, j1, c, ldc); the other dtypes the loops.
template <typename T, typename E = GemmNoBatchEpilogue>
inline void matmul_batched(int rank, const int64_t* shape, const T* a, const int64_t* a_bs, int64_t a_sm,
                           int64_t a_sk, const T* b, const int64_t* b_bs, int64_t b_sk, int64_t b_sn, T* c,
                           int64_t M, int64_t N, int64_t K, const E& ep = E()) {
  if constexpr (std::is_floating_point_v<T>) {
    if constexpr (std::is_same_v<E, GemmNoBatchEpilogue>)
      gemm_batched<T, IsaNative>(rank, shape, a, a_bs, a_sm, a_sk, b, b_bs, b_sk, b_sn, c, M * N, N, M, N, K, ep);
    else
      gemm_batched<T, IsaNative>(rank, shape, a, a_bs, a_sm, a_sk, b, b_bs, b_sk, b_sn, c, M * N, N, M, N, K,
                                 EpilogueRef<T, 1>(ep));
  } else {
    int64_t batches = 1;
    for (int d = 0; d < rank; ++d) batches *= shape[d];
    for (int64_t x = 0; x < batches; ++x) {
      int64_t ao = 0, bo = 0, rest = x;
      for (int d = rank - 1; d >= 0; --d) {
        ao += rest % shape[d] * a_bs[d];
        bo += rest % shape[d] * b_bs[d];
        rest /= shape[d];
      }
      matmul_loops(a + ao, a_sm, a_sk, b + bo, b_sk, b_sn, c + x * M * N, M, N, K);
    }
    (void)ep;
  }
}

}  // namespace stax_rt
}  // namespace
#endif  // STAX_RT_MATMUL
// @end-sections
