/* The C kernels of hawks_deap.evaluation._compiled, compiled at install: the whole
 * overlap pass and the silhouette of two-dimensional runs, and, above two dimensions, the
 * overlap pairs' pivots (their single-precision filtering products through BLAS's sgemm,
 * whose pointer scipy's cython_blas exports, and the exact test of each block's
 * candidates) and the silhouette from the genes' cached centroid blocks; and the column
 * means of a gene's points (numpy's bits, without its per-row calls).
 *
 * Why C and not numba here: these kernels run in every evaluation of a D = 2 run, which
 * `hawks-deap generate` is by default; a C extension imports in about a millisecond,
 * where importing numba and loading its cached code costs about 0.4 s per process,
 * as much as a whole short run (BENCHMARKS.md, "The overlap and silhouette kernels in
 * C"). The extension is optional: where no compiler is found at install, the package
 * works on its numpy path, with the same values.
 *
 * Exactness: every decision is a predicate on squared distances summed coordinate by
 * coordinate in order from 0.0 (acc += diff * diff), and every operation of the
 * silhouette is that of the numpy path in its order. The build turns off floating-point
 * contraction (no fused multiply-add: setup.py), so the bits are those of the numpy
 * path (hawks_deap/evaluation/_kernels.py, _silhouette.py).
 *
 * Arrays come through the buffer protocol (C-contiguous, checked by the Python caller
 * for dtype: float64, int64, bool), so no numpy headers are needed at build time.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if !defined(HAWKS_DEAP_NO_SSE2) && (defined(__SSE2__) || defined(_M_X64) || \
    (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#include <emmintrin.h>
#define HAVE_SSE2 1
#endif

/* s(T[k], q): (T[k, d] - q[d]) ** 2 summed in order d = 0, 1, ... */
static inline double sq(const double *T, Py_ssize_t k, const double *q, Py_ssize_t dims)
{
    const double *y = T + k * dims;
    double acc = 0.0;
    for (Py_ssize_t d = 0; d < dims; d++) {
        double diff = y[d] - q[d];
        acc += diff * diff;
    }
    return acc;
}

static inline double fmin2(double a, double b) { return b < a ? b : a; }
static inline double fmax2(double a, double b) { return b > a ? b : a; }
static inline Py_ssize_t imax2(Py_ssize_t a, Py_ssize_t b) { return b > a ? b : a; }
static inline Py_ssize_t imin2(Py_ssize_t a, Py_ssize_t b) { return b < a ? b : a; }

/* Scratch arrays kept per thread between calls, grown as needed: a fresh allocation of a
 * few MB per evaluation came from mmap and cost its page faults every time (at N =
 * 100,000 the grid pass took 1.25x as long; BENCHMARKS.md, "The overlap and silhouette
 * kernels in C"). Per thread, so that threads evaluating at once never share one; a
 * thread keeps what its largest call needed (about 50 bytes a point) until it ends. */
#if defined(_MSC_VER)
#define THREAD_LOCAL __declspec(thread)
#else
#define THREAD_LOCAL _Thread_local
#endif
enum { S_CELLS, S_ORDER, S_T, S_LAB, S_LF, S_START, S_PURE, S_B, /* grid, silhouette */
       S_PINT, S_PDBL, S_PQ, S_PG, S_PRH, S_PBYTE, /* pivot_hits */ N_SCRATCH };
static THREAD_LOCAL void *scratch_ptr[N_SCRATCH];
static THREAD_LOCAL size_t scratch_len[N_SCRATCH];

/* Scratch slot `slot` of at least `bytes` bytes (its contents undefined); NULL if out of
 * memory. */
static void *scratch(int slot, size_t bytes)
{
    if (bytes > scratch_len[slot]) {
        size_t grown = bytes + bytes / 4; /* room for the next, slightly larger call */
        void *p = PyMem_RawRealloc(scratch_ptr[slot], grown);
        if (p == NULL)
            return NULL;
        scratch_ptr[slot] = p;
        scratch_len[slot] = grown;
    }
    return scratch_ptr[slot];
}

typedef struct {
    Py_ssize_t a0, a1;
    double lo0, lo1, h, margin;
    int status; /* 0: a grid; 1: one point repeated; 2: an extent is not finite */
} Frame;

/* The grid: axes a0, a1 of largest extent, their lows, the cell side h.
 *
 * Cells of side h on the bounding box: (e0 / h) (e1 / h) <= n and e0 / h, e1 / h <= n,
 * so about one row per cell and at most 2 n + 1 cells; margin bounds the rounding of
 * the cell arithmetic. A coordinate that is not finite gives status 2. */
static int grid_frame(const double *X, Py_ssize_t n, Py_ssize_t dims, Frame *f)
{
    double *lo = PyMem_RawMalloc(2 * dims * sizeof(double));
    if (lo == NULL)
        return -1;
    double *hi = lo + dims;
    for (Py_ssize_t d = 0; d < dims; d++) {
        lo[d] = INFINITY;
        hi[d] = -INFINITY;
    }
    int finite = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        for (Py_ssize_t d = 0; d < dims; d++) {
            double x = X[i * dims + d];
            finite &= isfinite(x) != 0;
            lo[d] = fmin2(lo[d], x);
            hi[d] = fmax2(hi[d], x);
        }
    }
    Py_ssize_t a0 = 0;
    for (Py_ssize_t d = 1; d < dims; d++)
        if (hi[d] - lo[d] > hi[a0] - lo[a0])
            a0 = d;
    Py_ssize_t a1 = a0;
    for (Py_ssize_t d = 0; d < dims; d++)
        if (d != a0 && (a1 == a0 || hi[d] - lo[d] > hi[a1] - lo[a1]))
            a1 = d;
    double e0 = hi[a0] - lo[a0], e1 = hi[a1] - lo[a1], scale = 0.0;
    for (Py_ssize_t d = 0; d < dims; d++)
        scale = fmax2(fmax2(scale, fabs(lo[d])), fabs(hi[d]));
    double h = fmax2(sqrt(e0 * e1 / (double)n), (e0 + e1) / (double)n);
    f->a0 = a0;
    f->a1 = a1;
    f->lo0 = lo[a0];
    f->lo1 = lo[a1];
    f->h = h;
    f->margin = 1e-9 * (scale + e0 + e1);
    f->status = 0;
    if (!(finite && isfinite(h) && isfinite(e0) && isfinite(e1)))
        f->status = 2;
    else if (h == 0.0)
        f->status = 1;
    PyMem_RawFree(lo);
    return 0;
}

typedef struct {
    Py_ssize_t *cx, *cy, *start;
    Py_ssize_t nx, ny;
    double h;
} Cells;

/* Each row's cell (cx, cy), the grid's size, its rows' start per cell, and h.
 *
 * A counting sort: cell c = cx * ny + cy holds rows start[c]:start[c + 1] of the sorted
 * order. Clustered data crowd a few cells of the bounding box: h is refined once, to
 * about two rows an occupied cell (measured best; at most 4 times the cells). */
static int grid_cells(const double *X, Py_ssize_t n, Py_ssize_t dims, const Frame *f,
                      Cells *g)
{
    double h = f->h;
    g->start = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        Py_ssize_t nx = 1, ny = 1;
        for (Py_ssize_t i = 0; i < n; i++) {
            g->cx[i] = (Py_ssize_t)((X[i * dims + f->a0] - f->lo0) / h);
            g->cy[i] = (Py_ssize_t)((X[i * dims + f->a1] - f->lo1) / h);
            nx = imax2(nx, g->cx[i] + 1);
            ny = imax2(ny, g->cy[i] + 1);
        }
        g->start = scratch(S_START, (size_t)(nx * ny + 1) * sizeof(Py_ssize_t));
        if (g->start == NULL)
            return -1;
        memset(g->start, 0, (size_t)(nx * ny + 1) * sizeof(Py_ssize_t));
        for (Py_ssize_t i = 0; i < n; i++)
            g->start[g->cx[i] * ny + g->cy[i] + 1] += 1;
        Py_ssize_t occupied = 0;
        for (Py_ssize_t c = 0; c < nx * ny; c++) {
            occupied += g->start[c + 1] > 0;
            g->start[c + 1] += g->start[c];
        }
        g->nx = nx;
        g->ny = ny;
        g->h = h;
        if (attempt == 1 || n <= 3 * occupied)
            break;
        h *= fmax2(0.5, sqrt(2.0 * (double)occupied / (double)n));
    }
    return 0;
}

/* The grid pass's rows, sorted by cell: T holds them row by row (T[k * dims + d]),
 * except in two dimensions, where it holds the first coordinates, then the second
 * (T[k], T[n + k]), and lf the labels as doubles, so that two rows are tested at once
 * (SSE2: every x86-64 processor has it); lf is NULL where a label has no exact double
 * (beyond 2^53), and the rows are then tested one by one. */
#define LABEL_EXACT ((int64_t)1 << 53)
typedef struct {
    const double *T, *lf;
    const int64_t *lab;
    Py_ssize_t n;
} Rows;

/* s(row k, q), the bits of `sq`: in two dimensions its (0.0 + t0) + t1 is t0 + t1,
 * since t0 >= 0. */
static inline double row_sq(const Rows *R, Py_ssize_t k, const double *q, Py_ssize_t dims)
{
    if (dims == 2) {
        double d0 = R->T[k] - q[0], d1 = R->T[R->n + k] - q[1];
        return d0 * d0 + d1 * d1;
    }
    return sq(R->T, k, q, dims);
}

/* Rows k0:k1 into the smallest positive s from q to its own cluster (li) and to the
 * others. Without branches on the labels (they alternate unpredictably); dims is a
 * constant (two) where grid_flags inlines cell_flags with it. In two dimensions, two
 * rows at a time: the same products, sums and comparisons in each lane, and a minimum
 * does not depend on the order it is taken in, so the same two values
 * (BENCHMARKS.md, "The grid pass two rows at a time"). */
static inline void scan_rows(const Rows *R, Py_ssize_t dims, Py_ssize_t k0, Py_ssize_t k1,
                             const double *q, int64_t li, double *own, double *oth)
{
    double o = *own, f = *oth;
    Py_ssize_t k = k0;
#ifdef HAVE_SSE2
    if (dims == 2 && R->lf != NULL && k1 - k0 >= 2) {
        const double *x = R->T, *y = R->T + R->n, *lf = R->lf;
        const __m128d qx = _mm_set1_pd(q[0]), qy = _mm_set1_pd(q[1]);
        const __m128d lv = _mm_set1_pd((double)li), inf = _mm_set1_pd(INFINITY);
        const __m128d zero = _mm_setzero_pd();
        __m128d vo = inf, vf = inf;
        for (; k + 2 <= k1; k += 2) {
            __m128d dx = _mm_sub_pd(_mm_loadu_pd(x + k), qx);
            __m128d dy = _mm_sub_pd(_mm_loadu_pd(y + k), qy);
            __m128d s = _mm_add_pd(_mm_mul_pd(dx, dx), _mm_mul_pd(dy, dy));
            __m128d pos = _mm_cmpgt_pd(s, zero);
            s = _mm_or_pd(_mm_and_pd(pos, s), _mm_andnot_pd(pos, inf));
            __m128d mine = _mm_cmpeq_pd(_mm_loadu_pd(lf + k), lv);
            vo = _mm_min_pd(vo, _mm_or_pd(_mm_and_pd(mine, s), _mm_andnot_pd(mine, inf)));
            vf = _mm_min_pd(vf, _mm_or_pd(_mm_andnot_pd(mine, s), _mm_and_pd(mine, inf)));
        }
        vo = _mm_min_sd(vo, _mm_unpackhi_pd(vo, vo));
        vf = _mm_min_sd(vf, _mm_unpackhi_pd(vf, vf));
        o = fmin2(o, _mm_cvtsd_f64(vo));
        f = fmin2(f, _mm_cvtsd_f64(vf));
    }
#endif
    for (; k < k1; k++) {
        double s = row_sq(R, k, q, dims);
        s = s > 0.0 ? s : INFINITY;
        int mine = R->lab[k] == li;
        o = fmin2(o, mine ? s : INFINITY);
        f = fmin2(f, mine ? INFINITY : s);
    }
    *own = o;
    *oth = f;
}

/* Smallest positive s from q to its own cluster (li) and to the others.
 *
 * Rings of cells around q's cell (ci, cj), until the gap to the unscanned cells alone,
 * less the margin, exceeds the best s so far: every unscanned y has s >= t_a >= gap^2
 * (the term of one axis never exceeds the sequential sum), so neither minimum can
 * change any more where it matters (ties are scanned: the stop is strict). The rows
 * are sorted by cell, cell c = a * ny + b, so a ring's first and last rows of cells
 * are one run of rows each. */
static inline void ring_scan(const Rows *R, Py_ssize_t dims,
                             const double *q, int64_t li, Py_ssize_t ci, Py_ssize_t cj,
                             const Frame *f, const Cells *g, double *own_out,
                             double *oth_out)
{
    double own = INFINITY, oth = INFINITY;
    const double qa0 = q[f->a0], qa1 = q[f->a1], h = g->h;
    const Py_ssize_t nx = g->nx, ny = g->ny, *start = g->start;
    for (Py_ssize_t ring = 0;; ring++) {
        Py_ssize_t i0 = ci - ring, i1 = ci + ring, j0 = cj - ring, j1 = cj + ring;
        Py_ssize_t b0 = imax2(j0, 0), b1 = imin2(j1, ny - 1);
        for (Py_ssize_t a = imax2(i0, 0); a <= imin2(i1, nx - 1); a++) {
            Py_ssize_t row = a * ny;
            if (a == i0 || a == i1) {
                scan_rows(R, dims, start[row + b0], start[row + b1 + 1], q, li, &own, &oth);
                continue;
            }
            if (j0 >= 0) /* inner rows: both ends only */
                scan_rows(R, dims, start[row + j0], start[row + j0 + 1], q, li, &own, &oth);
            if (j1 < ny)
                scan_rows(R, dims, start[row + j1], start[row + j1 + 1], q, li, &own, &oth);
        }
        if (i0 <= 0 && j0 <= 0 && i1 >= nx - 1 && j1 >= ny - 1)
            break;
        double gap = fmin2(fmin2(fmin2(qa0 - (f->lo0 + (double)i0 * h),
                                       (f->lo0 + (double)(i1 + 1) * h) - qa0),
                                 qa1 - (f->lo1 + (double)j0 * h)),
                           (f->lo1 + (double)(j1 + 1) * h) - qa1) - f->margin;
        if (gap > 0.0 && gap * gap > fmin2(own, oth))
            break;
    }
    *own_out = own;
    *oth_out = oth;
}

/* Whether cell c's 3 x 3 block holds one label only (pure[c]: a row of the cell if all
 * its rows share one label, -1 if they do not, -2 if it is empty). */
static int block_is_pure(const int64_t *lab, const Cells *g, const Py_ssize_t *pure,
                         Py_ssize_t ci, Py_ssize_t cj)
{
    const Py_ssize_t ny = g->ny;
    const int64_t li = lab[pure[ci * ny + cj]];
    for (Py_ssize_t a = imax2(ci - 1, 0); a <= imin2(ci + 1, g->nx - 1); a++) {
        for (Py_ssize_t b = imax2(cj - 1, 0); b <= imin2(cj + 1, ny - 1); b++) {
            Py_ssize_t p = pure[a * ny + b];
            if (p == -1 || (p >= 0 && lab[p] != li))
                return 0;
        }
    }
    return 1;
}

/* The flags of the rows of cell (ci, cj), rows k0:k1 of T (out[order[r]]: row r's flag).
 *
 * Where the cell's 3 x 3 block holds one label only, every foreign point lies outside
 * it, at s >= R^2 with R ring_scan's bound after ring 1: one own point with 0 < s < R^2
 * then proves min own < min foreign, so the row is not flagged, the decision of the full
 * scan. Most points lie inside their cluster, where this looks at a few points instead of
 * the block's tens; the others are scanned in rings. */
static inline void cell_flags(const Rows *Rw, Py_ssize_t dims,
                              Py_ssize_t ci, Py_ssize_t cj, int pure_block, const Frame *f,
                              const Cells *g, const Py_ssize_t *order, uint8_t *out)
{
    const Py_ssize_t nx = g->nx, ny = g->ny, *start = g->start;
    const Py_ssize_t k0 = start[ci * ny + cj], k1 = start[ci * ny + cj + 1];
    const double h = g->h;
    /* the block's outer edges, each the expression of ring_scan's gap for ring 1 */
    const double x0 = f->lo0 + (double)(ci - 1) * h, x1 = f->lo0 + (double)(ci + 2) * h;
    const double y0 = f->lo1 + (double)(cj - 1) * h, y1 = f->lo1 + (double)(cj + 2) * h;
    const int whole = ci - 1 <= 0 && cj - 1 <= 0 && ci + 1 >= nx - 1 && cj + 1 >= ny - 1;
    const Py_ssize_t a0 = imax2(ci - 1, 0), a1 = imin2(ci + 1, nx - 1);
    const Py_ssize_t b0 = imax2(cj - 1, 0), b1 = imin2(cj + 1, ny - 1);
    for (Py_ssize_t r = k0; r < k1; r++) {
        const double q2[2] = {Rw->T[r], Rw->T[dims == 2 ? Rw->n + r : 0]};
        const double *q = dims == 2 ? q2 : Rw->T + r * dims;
        if (pure_block) {
            if (whole)
                continue; /* no foreign point at all: not flagged (out is 0) */
            double R = fmin2(fmin2(fmin2(q[f->a0] - x0, x1 - q[f->a0]), q[f->a1] - y0),
                             y1 - q[f->a1]) - f->margin;
            if (R > 0.0) {
                const double r2 = R * R;
                int found = 0;
                for (Py_ssize_t k = k0; k < k1 && !found; k++) { /* own cell first */
                    double s = row_sq(Rw, k, q, dims);
                    found = s > 0.0 && s < r2;
                }
                for (Py_ssize_t a = a0; a <= a1 && !found; a++) {
                    for (Py_ssize_t k = start[a * ny + b0]; k < start[a * ny + b1 + 1]; k++) {
                        double s = row_sq(Rw, k, q, dims);
                        if (s > 0.0 && s < r2) {
                            found = 1;
                            break;
                        }
                    }
                }
                if (found)
                    continue; /* not flagged */
            }
        }
        double own, oth;
        ring_scan(Rw, dims, q, Rw->lab[r], ci, cj, f, g, &own, &oth);
        out[order[r]] = oth <= own && oth < INFINITY;
    }
}

/* Overlap flags of every row of X: its nearest neighbour lies in another cluster.
 * Returns -1 on a memory error, 0 with *ok = 0 if a coordinate or an extent is not
 * finite (the flags are then meaningless), 0 with *ok = 1 otherwise. */
static int grid_flags(const double *X, Py_ssize_t n, Py_ssize_t dims, const int64_t *codes,
                      uint8_t *out, int *ok)
{
    memset(out, 0, (size_t)n);
    *ok = 1;
    if (n == 0)
        return 0;
    Frame f;
    if (grid_frame(X, n, dims, &f) < 0)
        return -1;
    if (f.status) {
        *ok = f.status == 1;
        return 0;
    }
    int rc = -1;
    Cells g = {NULL, NULL, NULL, 0, 0, 0.0};
    Py_ssize_t *order = NULL, *pure = NULL;
    double *T = NULL, *lf = NULL;
    int64_t *lab = NULL;
    int exact = 1; /* every label an exact double */
    g.cx = scratch(S_CELLS, 2 * n * sizeof(Py_ssize_t));
    order = scratch(S_ORDER, n * sizeof(Py_ssize_t));
    T = scratch(S_T, n * dims * sizeof(double));
    lab = scratch(S_LAB, n * sizeof(int64_t));
    if (dims == 2) /* the two-rows-at-a-time scan's labels (Rows) */
        lf = scratch(S_LF, n * sizeof(double));
    if (g.cx == NULL || order == NULL || T == NULL || lab == NULL || (dims == 2 && !lf))
        goto done;
    g.cy = g.cx + n;
    if (grid_cells(X, n, dims, &f, &g) < 0)
        goto done;
    const Py_ssize_t cells = g.nx * g.ny;
    pure = scratch(S_PURE, cells * sizeof(Py_ssize_t));
    if (pure == NULL)
        goto done;
    memcpy(pure, g.start, cells * sizeof(Py_ssize_t)); /* each cell's next free row */
    for (Py_ssize_t i = 0; i < n; i++)
        order[pure[g.cx[i] * g.ny + g.cy[i]]++] = i;
    for (Py_ssize_t r = 0; r < n; r++) {
        lab[r] = codes[order[r]];
        if (dims == 2) { /* by column, labels as doubles (Rows) */
            T[r] = X[order[r] * 2];
            T[n + r] = X[order[r] * 2 + 1];
            lf[r] = (double)lab[r];
            exact &= lab[r] <= LABEL_EXACT && lab[r] >= -LABEL_EXACT;
        } else {
            memcpy(T + r * dims, X + order[r] * dims, dims * sizeof(double));
        }
    }
    const Rows rows = {T, exact ? lf : NULL, lab, n};
    for (Py_ssize_t c = 0; c < cells; c++) { /* block_is_pure's pure */
        Py_ssize_t k0 = g.start[c], k1 = g.start[c + 1];
        pure[c] = k0 == k1 ? -2 : k0;
        for (Py_ssize_t k = k0 + 1; k < k1; k++) {
            if (lab[k] != lab[k0]) {
                pure[c] = -1;
                break;
            }
        }
    }
    for (Py_ssize_t ci = 0; ci < g.nx; ci++) {
        for (Py_ssize_t cj = 0; cj < g.ny; cj++) {
            Py_ssize_t p = pure[ci * g.ny + cj];
            if (p == -2)
                continue;
            int pure_block = p >= 0 && block_is_pure(lab, &g, pure, ci, cj);
            if (dims == 2) /* the sum unrolled */
                cell_flags(&rows, 2, ci, cj, pure_block, &f, &g, order, out);
            else
                cell_flags(&rows, dims, ci, cj, pure_block, &f, &g, order, out);
        }
    }
    rc = 0;
done:
    return rc;
}

/* (c0 - x_i0)^2 + (c1 - x_i1)^2: two terms, so the bits of any summation order. */
static inline double sq2(const double *X, Py_ssize_t i, double c0, double c1)
{
    double e0 = c0 - X[2 * i], e1 = c1 - X[2 * i + 1];
    return e0 * e0 + e1 * e1;
}

/* s(i) of a point at squared distance d_own from its cluster's centroid, with b(i) = b,
 * in a cluster of n >= 2 points whose scatter is `scatter`: a = (d_own n + scatter) /
 * (n - 1), s = (b - a) / max(a, b), 0 where that maximum is not positive; each the
 * operation of the numpy path (_silhouette.py) in its order. */
static inline double silhouette_value(double d_own, double b, double n, double scatter)
{
    double a = d_own * n;
    a += scatter;
    a /= n - 1.0;
    double denom = fmax2(a, b);
    return denom > 0.0 ? (b - a) / denom : 0.0;
}

/* Per-point squared-Euclidean silhouette s(i) in two dimensions, closed form.
 *
 * Slot m holds rows offs[m]:offs[m + 1] of X. b(i) = min_{m != own} (d_m(i) + spread[m]),
 * then s(i) (`silhouette_value`; 0 for a point alone in its slot). b: scratch for n
 * values. */
static void silhouette_2d(const double *X, Py_ssize_t n, const int64_t *offs, Py_ssize_t k,
                          const double *centroids, const double *spread,
                          const double *scatter, const double *counts, double *b,
                          double *out)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        b[i] = INFINITY;
        out[i] = 0.0; /* the distance to its own centroid first, then s(i) */
    }
    for (Py_ssize_t m = 0; m < k; m++) {
        double c0 = centroids[2 * m], c1 = centroids[2 * m + 1], sp = spread[m];
        Py_ssize_t lo = offs[m], hi = offs[m + 1];
        for (Py_ssize_t i = 0; i < lo; i++)
            b[i] = fmin2(b[i], sq2(X, i, c0, c1) + sp);
        for (Py_ssize_t i = hi; i < n; i++)
            b[i] = fmin2(b[i], sq2(X, i, c0, c1) + sp);
        if (counts[m] < 2.0)
            continue; /* s = 0 for a point alone in its cluster */
        for (Py_ssize_t i = lo; i < hi; i++)
            out[i] = sq2(X, i, c0, c1);
    }
    for (Py_ssize_t m = 0; m < k; m++) {
        if (counts[m] < 2.0)
            continue;
        for (Py_ssize_t i = offs[m]; i < offs[m + 1]; i++)
            out[i] = silhouette_value(out[i], b[i], counts[m], scatter[m]);
    }
}

/* Column means of P (n x dims, n >= 1, dims >= 2) into out: numpy's P.mean(axis=0) bit
 * for bit. On a C-ordered array with two columns or more, numpy's reduction over axis 0
 * adds whole rows in order to 0.0 (its inner loop runs over a row's columns), then
 * divides by n; at (5000, 2) it spends about 10 ns a row in that loop's calls. (With one
 * column the data are contiguous along the reduction and numpy sums pairwise.) */
static void col_means(const double *P, Py_ssize_t n, Py_ssize_t dims, double *out)
{
    for (Py_ssize_t d = 0; d < dims; d++)
        out[d] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const double *row = P + i * dims;
        for (Py_ssize_t d = 0; d < dims; d++)
            out[d] += row[d];
    }
    for (Py_ssize_t d = 0; d < dims; d++)
        out[d] /= (double)n;
}

/* A gene's mean-free points in two dimensions and what the cache keeps of them:
 * p0 = z diag(sqrt(v)) R^T, each coordinate 0.0 + (t0 + t1) (the bits of numpy.einsum in
 * `products.shape_points`: it adds the two products, then the sum to its 0.0 output),
 * c0 = col_means(p0), and sq[i] = |p0_i - c0|^2, again 0.0 + (e0 e0 + e1 e1) (the
 * einsum of `_cache.Shape`). One call instead of seven numpy calls a new shape. */
static void shape_2d(const double *z, Py_ssize_t n, const double *v, const double *R,
                     double *p0, double *c0, double *sq)
{
    const double s0 = sqrt(v[0]), s1 = sqrt(v[1]);
    for (Py_ssize_t i = 0; i < n; i++) {
        const double a = z[2 * i] * s0, b = z[2 * i + 1] * s1;
        p0[2 * i] = 0.0 + (a * R[0] + b * R[1]);
        p0[2 * i + 1] = 0.0 + (a * R[2] + b * R[3]);
    }
    col_means(p0, n, 2, c0);
    for (Py_ssize_t i = 0; i < n; i++) {
        const double e0 = p0[2 * i] - c0[0], e1 = p0[2 * i + 1] - c0[1];
        sq[i] = 0.0 + (e0 * e0 + e1 * e1);
    }
}

/* ---- Above two dimensions: the silhouette from each gene's cached distance block ---- */

/* out[i] = s(point i, c) for the n points of PT (dims x n: column i is point i), each
 * summed coordinate by coordinate in order: the bits of scipy's cdist "sqeuclidean",
 * which sums each pair in that order too. On processors with AVX2 (checked at the first
 * call, where gcc or clang builds for x86), sixteen points at a time in four quadruples
 * of lanes, each lane its own sum in the same order, so the same bits (measured faster
 * than the same loop on SSE2 pairs and than the scalar loop below; BENCHMARKS.md, "The
 * silhouette's blocks in C"). */
#if !defined(HAWKS_DEAP_NO_SSE2) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define HAVE_AVX2_TARGET 1
__attribute__((target("avx2"))) static Py_ssize_t sq_points_t_avx2(
    const double *PT, Py_ssize_t n, Py_ssize_t dims, const double *c, double *out)
{
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
        for (Py_ssize_t d = 0; d < dims; d++) {
            const double *row = PT + d * n + i;
            const __m256d cd = _mm256_set1_pd(c[d]);
            __m256d t0 = _mm256_sub_pd(_mm256_loadu_pd(row), cd);
            __m256d t1 = _mm256_sub_pd(_mm256_loadu_pd(row + 4), cd);
            __m256d t2 = _mm256_sub_pd(_mm256_loadu_pd(row + 8), cd);
            __m256d t3 = _mm256_sub_pd(_mm256_loadu_pd(row + 12), cd);
            s0 = _mm256_add_pd(s0, _mm256_mul_pd(t0, t0));
            s1 = _mm256_add_pd(s1, _mm256_mul_pd(t1, t1));
            s2 = _mm256_add_pd(s2, _mm256_mul_pd(t2, t2));
            s3 = _mm256_add_pd(s3, _mm256_mul_pd(t3, t3));
        }
        _mm256_storeu_pd(out + i, s0);
        _mm256_storeu_pd(out + i + 4, s1);
        _mm256_storeu_pd(out + i + 8, s2);
        _mm256_storeu_pd(out + i + 12, s3);
    }
    return i;
}
static int has_avx2 = -1; /* unknown yet (a race on it writes the same value) */
#endif

static void sq_points_t(const double *PT, Py_ssize_t n, Py_ssize_t dims, const double *c,
                        double *out)
{
    Py_ssize_t i = 0;
#ifdef HAVE_AVX2_TARGET
    if (has_avx2 < 0)
        has_avx2 = __builtin_cpu_supports("avx2") != 0;
    if (has_avx2)
        i = sq_points_t_avx2(PT, n, dims, c, out);
#endif
    for (; i + 4 <= n; i += 4) { /* four independent sums: their latencies overlap */
        double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
        for (Py_ssize_t d = 0; d < dims; d++) {
            const double *row = PT + d * n + i, cd = c[d];
            double t0 = row[0] - cd, t1 = row[1] - cd, t2 = row[2] - cd, t3 = row[3] - cd;
            a0 += t0 * t0;
            a1 += t1 * t1;
            a2 += t2 * t2;
            a3 += t3 * t3;
        }
        out[i] = a0;
        out[i + 1] = a1;
        out[i + 2] = a2;
        out[i + 3] = a3;
    }
    for (; i < n; i++) {
        double acc = 0.0;
        for (Py_ssize_t d = 0; d < dims; d++) {
            double t = PT[d * n + i] - c[d];
            acc += t * t;
        }
        out[i] = acc;
    }
}

/* Per-point squared-Euclidean silhouette of a genotype from its genes' distance blocks.
 *
 * Gene j holds n = sizes[j] points, PT[j] (dims x n, transposed), its block ctx[j]
 * (k x n: row m the points' s to centroid m, its own row +inf) and own[j] (n: s to its
 * own centroid). Rows m with mask[j * k + m] are measured first (m = j: own[j], and the
 * row set to +inf). Then, into out (the genes' points in order), b(i) = min_m
 * (ctx[j][m, i] + spread[m]) and s(i) (`silhouette_value`; 0 for a point alone in its
 * gene). */
static void silhouette_genes(Py_ssize_t k, Py_ssize_t dims, const double *const *PT,
                             const int64_t *sizes, double *const *ctx, double *const *own,
                             const uint8_t *mask, const double *centroids,
                             const double *spread, const double *scatter,
                             const double *counts, double *out)
{
    for (Py_ssize_t j = 0; j < k; j++) {
        const Py_ssize_t n = (Py_ssize_t)sizes[j];
        double *block = ctx[j], *o = out;
        out += n;
        for (Py_ssize_t m = 0; m < k; m++) {
            if (!mask[j * k + m])
                continue;
            if (m != j) {
                sq_points_t(PT[j], n, dims, centroids + m * dims, block + m * n);
                continue;
            }
            sq_points_t(PT[j], n, dims, centroids + m * dims, own[j]);
            for (Py_ssize_t i = 0; i < n; i++)
                block[m * n + i] = INFINITY;
        }
        if (counts[j] < 2.0) {
            for (Py_ssize_t i = 0; i < n; i++)
                o[i] = 0.0; /* s = 0 for a point alone in its cluster */
            continue;
        }
        for (Py_ssize_t i = 0; i < n; i++)
            o[i] = INFINITY; /* b(i) first, then s(i) */
        for (Py_ssize_t m = 0; m < k; m++) {
            const double *row = block + m * n, sp = spread[m];
            for (Py_ssize_t i = 0; i < n; i++)
                o[i] = fmin2(o[i], row[i] + sp);
        }
        for (Py_ssize_t i = 0; i < n; i++)
            o[i] = silhouette_value(own[j][i], o[i], counts[j], scatter[j]);
    }
}

/* ---- Above two dimensions: the exact test of the overlap pairs' filtering blocks. ---- */

/* Single-precision operands of the filtering products (hawks_deap.evaluation._kernels,
 * dense_operands): Q = (float)(X - c) and qn = |X - c|^2 in double (any summation order:
 * the filter's margin covers it). Returns the largest |X - c|, or inf where a value is not
 * finite (Q is then meaningless and the caller keeps double operands). */
static double operands32(const double *X, Py_ssize_t n, Py_ssize_t dims, const double *c,
                         float *Q, double *qn)
{
    double scale = 0.0;
    int finite = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (Py_ssize_t d = 0; d < dims; d++) {
            double v = X[i * dims + d] - c[d], av = fabs(v);
            finite &= av <= DBL_MAX;
            /* out of float's range the conversion is undefined: such operands are
             * discarded by the caller anyway */
            Q[i * dims + d] = av <= FLT_MAX ? (float)v : 0.0f;
            acc += v * v;
            scale = fmax2(scale, av);
        }
        qn[i] = acc;
    }
    return finite ? scale : INFINITY;
}

/* The exact test of the candidates of one filtering block (dense_hits).
 *
 * G (a x b, float) holds the products x_i.y_l of the single-precision operands, nr and nc
 * their squared norms; candidate (i, l) when A = nr[i] + nc[l] - 2 G[i, l] is at most
 * lim_r[i] (the row may be captured; lim_r NULL: rows are not tested) or lim_c[l] (the
 * column may be): the limits bound A over every pair with s <= o (dense_limits). Each
 * candidate is measured exactly, s(X[rows[i]], X[cols[l]]) summed in order, and
 * 0 < s <= o_r[i] sets rows_hit[i, seg[l]], 0 < s <= o_c[l] sets cols_hit[l]. */
static void dense_scan(const float *G, Py_ssize_t a, Py_ssize_t b, const double *nr,
                       const double *nc, const double *lim_r, const double *lim_c,
                       const double *X, Py_ssize_t dims, const int64_t *rows,
                       const int64_t *cols, const double *o_r, const double *o_c,
                       const int64_t *seg, Py_ssize_t n_seg, uint8_t *rows_hit,
                       uint8_t *cols_hit)
{
    for (Py_ssize_t i = 0; i < a; i++) {
        const float *g = G + i * b;
        const double ni = nr[i], lr = lim_r != NULL ? lim_r[i] : -INFINITY;
        const double *x = X + rows[i] * dims;
        for (Py_ssize_t l = 0; l < b; l++) {
            double A = (ni + nc[l]) - 2.0 * (double)g[l];
            if (!(A <= lr) && !(A <= lim_c[l]))
                continue;
            double s = sq(X, cols[l], x, dims);
            if (!(s > 0.0))
                continue;
            if (lim_r != NULL && s <= o_r[i])
                rows_hit[i * n_seg + seg[l]] = 1;
            if (s <= o_c[l])
                cols_hit[l] = 1;
        }
    }
}

/* ---- The overlap pairs' exact test above two dimensions, every pivot in one call ---- */

/* BLAS's sgemm, Fortran interface with 32-bit integers (scipy.linalg.cython_blas's). */
typedef void (*sgemm_t)(const char *, const char *, const int *, const int *, const int *,
                        const float *, const float *, const int *, const float *,
                        const int *, const float *, float *, const int *);

/* Largest scratch a thread keeps after a pivot_hits call: below it, the arrays are
 * reused by the next pass (fresh ones cost their page faults, as in the grid pass);
 * above it (a batch's table can hold 2^18 points), they are freed. */
#define PSCRATCH_KEEP ((size_t)1 << 25)

/* Free the pivot_hits scratch slots larger than PSCRATCH_KEEP. */
static void pscratch_trim(void)
{
    for (int s = S_PINT; s <= S_PBYTE; s++) {
        if (scratch_len[s] > PSCRATCH_KEEP) {
            PyMem_RawFree(scratch_ptr[s]);
            scratch_ptr[s] = NULL;
            scratch_len[s] = 0;
        }
    }
}

/* The single-precision filter's limit for s <= o: o scale + norm (n + n_other) + tiny,
 * the terms of _kernels.limit_terms32 (dense_limits), passed in by the caller. */
typedef struct {
    double scale, norm, tiny;
} Limit;

static inline double limit32(double o, double n, double n_other, Limit t)
{
    return o * t.scale + t.norm * (n + n_other) + t.tiny;
}

/* Gather rows idx of Q (float32, dims columns) into out, their norms into nq and their
 * thresholds into o; returns the largest norm. */
static double gather(const float *Q, const double *qn, const double *own, Py_ssize_t dims,
                     const int64_t *idx, Py_ssize_t m, float *out, double *nq, double *o)
{
    double top = 0.0;
    for (Py_ssize_t i = 0; i < m; i++) {
        memcpy(out + i * dims, Q + idx[i] * dims, (size_t)dims * sizeof(float));
        nq[i] = qn[idx[i]];
        o[i] = own[idx[i]];
        top = fmax2(top, nq[i]);
    }
    return top;
}

/* G = A B^T (a x b, row-major) for A (a x dims) and B (b x dims), row-major. */
static void product(sgemm_t sgemm, const float *A, Py_ssize_t a, const float *B, Py_ssize_t b,
                    Py_ssize_t dims, float *G)
{
    const int m = (int)b, nn = (int)a, k = (int)dims;
    const float one = 1.0f, zero = 0.0f;
    /* column-major: G^T (b x a) = B (dims x b)^T A (dims x a) */
    sgemm("T", "N", &m, &nn, &k, &one, B, &k, A, &k, &zero, G, &m);
}

/* Rows rows[0:a] against columns cols[0:b] by blocks of at most `block` elements (one
 * product and one dense_scan each). Returns -1 if out of memory. */
static int scan_blocks(sgemm_t sgemm, const float *Qr, const double *nr, const double *lim_r,
                       const double *o_r, const int64_t *rows, Py_ssize_t a, const float *Qc,
                       const double *nc, const double *lim_c, const double *o_c,
                       const int64_t *cols, const int64_t *seg, Py_ssize_t b,
                       Py_ssize_t n_seg, const double *X, Py_ssize_t dims, Py_ssize_t block,
                       uint8_t *rows_hit, uint8_t *cols_hit)
{
    Py_ssize_t step = imax2(1, block / b);
    step = imin2(step, a);
    float *G = scratch(S_PG, (size_t)(step * b) * sizeof(float));
    if (G == NULL)
        return -1;
    for (Py_ssize_t s = 0; s < a; s += step) {
        Py_ssize_t e = imin2(a, s + step);
        product(sgemm, Qr + s * dims, e - s, Qc, b, dims, G);
        dense_scan(G, e - s, b, nr + s, nc, lim_r != NULL ? lim_r + s : NULL, lim_c, X, dims,
                   rows + s, cols, lim_r != NULL ? o_r + s : NULL, o_c, seg, n_seg,
                   rows_hit != NULL ? rows_hit + s * n_seg : NULL, cols_hit);
    }
    return 0;
}

/* The exact test of every candidate of an overlap pass (_overlap._dense_side_hits, which
 * is the same algorithm in numpy): candidate c is table row point[c] of gene q_c[c],
 * tested against the other gene of pair pair_c[c] (genes J, M; gene g's rows are
 * offs[g]:offs[g + 1]); hit[c] = 1 iff some row y of that gene has 0 < s(x, y) <=
 * own[x]. Pairs are covered greedily by pivot genes (the gene in most uncovered pairs,
 * the first on a tie); per pivot, its candidate rows against every row of its partners
 * with candidates settle both directions, then its other rows against the partners'
 * candidates. Returns -1 if out of memory. */
static int pivot_hits(const float *Q, const double *qn, const double *X, const double *own,
                      Py_ssize_t n, Py_ssize_t dims, const int64_t *offs, Py_ssize_t n_genes,
                      const int64_t *J, const int64_t *M, Py_ssize_t n_pairs,
                      const int64_t *pair_c, const int64_t *q_c, const int64_t *point,
                      Py_ssize_t n_cand, Limit lim, Py_ssize_t block, sgemm_t sgemm,
                      uint8_t *hit)
{
    size_t n_int = (size_t)(3 * n_genes + 1 + 10 * n_pairs + 2 + n_cand + 8 * n);
    int64_t *ib = scratch(S_PINT, n_int * sizeof(int64_t));
    double *db = scratch(S_PDBL, (size_t)(9 * n + 1) * sizeof(double));
    float *qb = scratch(S_PQ, (size_t)(2 * n * dims + 1) * sizeof(float));
    uint8_t *bb = scratch(S_PBYTE, (size_t)(3 * n + 1));
    if (ib == NULL || db == NULL || qb == NULL || bb == NULL)
        return -1;
    int64_t *count = ib, *adj_start = count + n_genes, *adj = adj_start + n_genes + 1;
    int64_t *fill = adj + 2 * n_pairs, *pof = fill + n_genes, *piv = pof + n_pairs;
    int64_t *pair_start = piv + n_pairs, *pair_list = pair_start + n_pairs + 1;
    int64_t *place = pair_list + n_pairs, *cand_start = place + n_pairs;
    int64_t *cand_list = cand_start + n_pairs + 1, *seg_of_pos = cand_list + n_cand;
    int64_t *col_base = seg_of_pos + n_pairs, *row_index = col_base + n_pairs;
    int64_t *rows = row_index + n, *rest = rows + n, *cols = rest + n, *cseg = cols + n;
    int64_t *cc = cseg + n, *ccols = cc + n, *cseg2 = ccols + n;
    double *nr = db, *o_r = nr + n, *lim_r = o_r + n, *nc = lim_r + n, *o_c = nc + n;
    double *lim_c = o_c + n, *nc2 = lim_c + n, *oc2 = nc2 + n, *lim_c2 = oc2 + n;
    float *Qr = qb, *Qc = qb + n * dims;
    uint8_t *live = bb, *cols_hit = live + n, *tmp = cols_hit + n;

    /* the pivots: adjacency of genes to pairs, then the greedy cover */
    memset(count, 0, (size_t)n_genes * sizeof(int64_t));
    for (Py_ssize_t p = 0; p < n_pairs; p++) {
        count[J[p]]++;
        count[M[p]]++;
        pof[p] = -1;
    }
    adj_start[0] = 0;
    for (Py_ssize_t g = 0; g < n_genes; g++) {
        adj_start[g + 1] = adj_start[g] + count[g];
        fill[g] = adj_start[g];
    }
    for (Py_ssize_t p = 0; p < n_pairs; p++) {
        adj[fill[J[p]]++] = p;
        adj[fill[M[p]]++] = p;
    }
    Py_ssize_t n_piv = 0, left = n_pairs;
    while (left > 0) {
        Py_ssize_t best = 0;
        for (Py_ssize_t g = 1; g < n_genes; g++)
            if (count[g] > count[best])
                best = g;
        for (int64_t i = adj_start[best]; i < adj_start[best + 1]; i++) {
            int64_t p = adj[i];
            if (pof[p] >= 0)
                continue;
            pof[p] = n_piv;
            count[J[p]]--;
            count[M[p]]--;
            left--;
        }
        piv[n_piv++] = best;
    }
    /* pairs and candidates grouped by pivot, each group in its original order */
    memset(pair_start, 0, (size_t)(n_piv + 1) * sizeof(int64_t));
    memset(cand_start, 0, (size_t)(n_piv + 1) * sizeof(int64_t));
    for (Py_ssize_t p = 0; p < n_pairs; p++)
        pair_start[pof[p] + 1]++;
    for (Py_ssize_t c = 0; c < n_cand; c++)
        cand_start[pof[pair_c[c]] + 1]++;
    for (Py_ssize_t k = 0; k < n_piv; k++) {
        pair_start[k + 1] += pair_start[k];
        cand_start[k + 1] += cand_start[k];
    }
    for (Py_ssize_t k = 0; k < n_piv; k++)
        fill[k] = pair_start[k]; /* (fill has n_genes >= n_piv entries) */
    for (Py_ssize_t p = 0; p < n_pairs; p++) {
        int64_t at = fill[pof[p]]++;
        pair_list[at] = p;
        place[p] = at - pair_start[pof[p]];
    }
    for (Py_ssize_t k = 0; k < n_piv; k++)
        fill[k] = cand_start[k];
    for (Py_ssize_t c = 0; c < n_cand; c++)
        cand_list[fill[pof[pair_c[c]]]++] = c;

    for (Py_ssize_t k = 0; k < n_piv; k++) {
        const int64_t *cand = cand_list + cand_start[k];
        const Py_ssize_t n_k = cand_start[k + 1] - cand_start[k];
        if (n_k == 0)
            continue;
        const int64_t pivot = piv[k], p0 = offs[pivot], n0 = offs[pivot + 1] - p0;
        const int64_t *group = pair_list + pair_start[k];
        const Py_ssize_t g_size = pair_start[k + 1] - pair_start[k];
        /* columns: every row of the partners with candidates, in the group's order */
        for (Py_ssize_t i = 0; i < g_size; i++)
            seg_of_pos[i] = -1;
        for (Py_ssize_t i = 0; i < n_k; i++)
            seg_of_pos[place[pair_c[cand[i]]]] = 0;
        Py_ssize_t n_act = 0, b = 0;
        for (Py_ssize_t i = 0; i < g_size; i++) {
            if (seg_of_pos[i] < 0)
                continue;
            int64_t p = group[i], g = J[p] == pivot ? M[p] : J[p];
            seg_of_pos[i] = n_act;
            col_base[i] = b;
            for (int64_t r = offs[g]; r < offs[g + 1]; r++) {
                cols[b] = r;
                cseg[b++] = n_act;
            }
            n_act++;
        }
        /* rows: the pivot's rows that are candidates, then (below) the others */
        memset(live, 0, (size_t)n0);
        for (Py_ssize_t i = 0; i < n_k; i++)
            if (q_c[cand[i]] == pivot)
                live[point[cand[i]] - p0] = 1;
        Py_ssize_t a = 0, n_rest = 0;
        for (int64_t r = 0; r < n0; r++) {
            if (live[r]) {
                row_index[r] = a;
                rows[a++] = p0 + r;
            } else {
                rest[n_rest++] = p0 + r;
            }
        }
        memset(cols_hit, 0, (size_t)b);
        uint8_t *rows_hit = scratch(S_PRH, (size_t)(a * n_act + 1));
        if (rows_hit == NULL)
            return -1;
        if (a > 0) {
            memset(rows_hit, 0, (size_t)(a * n_act));
            double top_c = gather(Q, qn, own, dims, cols, b, Qc, nc, o_c);
            double top_r = gather(Q, qn, own, dims, rows, a, Qr, nr, o_r);
            for (Py_ssize_t l = 0; l < b; l++)
                lim_c[l] = limit32(o_c[l], nc[l], top_r, lim);
            for (Py_ssize_t i = 0; i < a; i++)
                lim_r[i] = limit32(o_r[i], nr[i], top_c, lim);
            if (scan_blocks(sgemm, Qr, nr, lim_r, o_r, rows, a, Qc, nc, lim_c, o_c, cols, cseg,
                            b, n_act, X, dims, block, rows_hit, cols_hit) < 0)
                return -1;
        }
        /* the partners' candidates against the pivot's other rows */
        Py_ssize_t m = 0;
        for (Py_ssize_t i = 0; i < n_k; i++) {
            int64_t c = cand[i];
            if (q_c[c] != pivot)
                cc[m++] = col_base[place[pair_c[c]]] + (point[c] - offs[q_c[c]]);
        }
        if (m > 0 && n_rest > 0) {
            for (Py_ssize_t i = 0; i < m; i++) {
                ccols[i] = cols[cc[i]];
                cseg2[i] = cseg[cc[i]];
            }
            double top_r = gather(Q, qn, own, dims, rest, n_rest, Qr, nr, o_r);
            gather(Q, qn, own, dims, ccols, m, Qc, nc2, oc2);
            for (Py_ssize_t i = 0; i < m; i++)
                lim_c2[i] = limit32(oc2[i], nc2[i], top_r, lim);
            memset(tmp, 0, (size_t)m);
            if (scan_blocks(sgemm, Qr, nr, NULL, NULL, rest, n_rest, Qc, nc2, lim_c2, oc2, ccols,
                            cseg2, m, n_act, X, dims, block, NULL, tmp) < 0)
                return -1;
            for (Py_ssize_t i = 0; i < m; i++)
                cols_hit[cc[i]] |= tmp[i];
        }
        for (Py_ssize_t i = 0; i < n_k; i++) {
            int64_t c = cand[i], pos = place[pair_c[c]];
            if (q_c[c] == pivot)
                hit[c] = rows_hit[row_index[point[c] - p0] * n_act + seg_of_pos[pos]];
            else
                hit[c] = cols_hit[col_base[pos] + (point[c] - offs[q_c[c]])];
        }
    }
    return 0;
}

/* ---- Python bindings: shapes come as arguments, the buffers' sizes are checked. ---- */

static int check_size(Py_buffer *buf, Py_ssize_t items, Py_ssize_t itemsize, const char *name)
{
    if (buf->len != items * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes, expected %zd", name, buf->len,
                     items * itemsize);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(py_grid_flags_doc,
"grid_flags(X, codes, out, n, dims) -> bool\n\n"
"Overlap flags of the n rows of X (float64, n x dims, C order) with cluster codes\n"
"(int64) into out (n bytes): 1 where a row's nearest neighbour lies in another\n"
"cluster. False if a coordinate or extent is not finite (out is then meaningless).");

static PyObject *py_grid_flags(PyObject *self, PyObject *args)
{
    Py_buffer X, codes, out;
    Py_ssize_t n, dims;
    if (!PyArg_ParseTuple(args, "y*y*w*nn", &X, &codes, &out, &n, &dims))
        return NULL;
    PyObject *result = NULL;
    int rc = 0, ok = 1;
    if (n < 0 || dims < 1 || check_size(&X, n * dims, 8, "X") < 0 ||
        check_size(&codes, n, 8, "codes") < 0 || check_size(&out, n, 1, "out") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rc = grid_flags(X.buf, n, dims, codes.buf, out.buf, &ok);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyBool_FromLong(ok);
done:
    PyBuffer_Release(&X);
    PyBuffer_Release(&codes);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(py_silhouette_2d_doc,
"silhouette_2d(X, offs, centroids, spread, scatter, counts, out, n, k)\n\n"
"Per-point squared-Euclidean silhouette of the n rows of X (float64, n x 2) into out\n"
"(float64, n); slot m holds rows offs[m]:offs[m + 1] (int64, k + 1), with centroid\n"
"centroids[m], spread, scatter and counts (float64, k each).");

static PyObject *py_silhouette_2d(PyObject *self, PyObject *args)
{
    Py_buffer X, offs, centroids, spread, scatter, counts, out;
    Py_ssize_t n, k;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*w*nn", &X, &offs, &centroids, &spread,
                          &scatter, &counts, &out, &n, &k))
        return NULL;
    PyObject *result = NULL;
    if (n < 0 || k < 0 || check_size(&X, 2 * n, 8, "X") < 0 ||
        check_size(&offs, k + 1, 8, "offs") < 0 ||
        check_size(&centroids, 2 * k, 8, "centroids") < 0 ||
        check_size(&spread, k, 8, "spread") < 0 || check_size(&scatter, k, 8, "scatter") < 0 ||
        check_size(&counts, k, 8, "counts") < 0 || check_size(&out, n, 8, "out") < 0)
        goto done;
    const int64_t *o = offs.buf;
    for (Py_ssize_t m = 0; m < k; m++) {
        if (o[m] < 0 || o[m] > o[m + 1] || o[m + 1] > n) {
            PyErr_SetString(PyExc_ValueError, "offs: not non-decreasing within [0, n]");
            goto done;
        }
    }
    double *b = scratch(S_B, (size_t)(n > 0 ? n : 1) * sizeof(double));
    if (b == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    silhouette_2d(X.buf, n, o, k, centroids.buf, spread.buf, scatter.buf, counts.buf, b,
                  out.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&X);
    PyBuffer_Release(&offs);
    PyBuffer_Release(&centroids);
    PyBuffer_Release(&spread);
    PyBuffer_Release(&scatter);
    PyBuffer_Release(&counts);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(py_silhouette_genes_doc,
"silhouette_genes(PT, ctx, own, sizes, mask, centroids, spread, scatter, counts, out,\n"
"                 k, dims)\n\n"
"Per-point squared-Euclidean silhouette from the k genes' distance blocks into out\n"
"(float64, sum of sizes): see silhouette_genes in _native.c. PT, ctx, own: lists of k\n"
"float64 arrays (dims x n_j, k x n_j written, n_j written); sizes (int64, k); mask\n"
"(uint8, k x k); centroids (float64, k x dims); spread, scatter, counts (float64, k).");

static PyObject *py_silhouette_genes(PyObject *self, PyObject *args)
{
    PyObject *lists[3];
    Py_buffer sizes, mask, centroids, spread, scatter, counts, out;
    Py_ssize_t k, dims;
    if (!PyArg_ParseTuple(args, "O!O!O!y*y*y*y*y*y*w*nn", &PyList_Type, &lists[0],
                          &PyList_Type, &lists[1], &PyList_Type, &lists[2], &sizes, &mask,
                          &centroids, &spread, &scatter, &counts, &out, &k, &dims))
        return NULL;
    PyObject *result = NULL;
    Py_buffer *bufs = NULL;
    const double **PT = NULL;
    double **ctx = NULL, **own = NULL;
    Py_ssize_t held = 0, total = 0;
    if (k < 0 || dims < 1 || check_size(&sizes, k, 8, "sizes") < 0 ||
        check_size(&mask, k * k, 1, "mask") < 0 ||
        check_size(&centroids, k * dims, 8, "centroids") < 0 ||
        check_size(&spread, k, 8, "spread") < 0 || check_size(&scatter, k, 8, "scatter") < 0 ||
        check_size(&counts, k, 8, "counts") < 0)
        goto done;
    for (int l = 0; l < 3; l++) {
        if (PyList_GET_SIZE(lists[l]) != k) {
            PyErr_Format(PyExc_ValueError, "%s: %zd arrays, expected %zd",
                         l == 0 ? "PT" : l == 1 ? "ctx" : "own", PyList_GET_SIZE(lists[l]), k);
            goto done;
        }
    }
    bufs = PyMem_Calloc(3 * (size_t)(k > 0 ? k : 1), sizeof(Py_buffer));
    PT = PyMem_Calloc((size_t)(k > 0 ? k : 1), sizeof(double *));
    ctx = PyMem_Calloc((size_t)(k > 0 ? k : 1), sizeof(double *));
    own = PyMem_Calloc((size_t)(k > 0 ? k : 1), sizeof(double *));
    if (bufs == NULL || PT == NULL || ctx == NULL || own == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const int64_t *sz = sizes.buf;
    for (Py_ssize_t j = 0; j < k; j++) {
        if (sz[j] < 0) {
            PyErr_SetString(PyExc_ValueError, "sizes: negative");
            goto done;
        }
        total += sz[j];
        const Py_ssize_t items[3] = {dims * sz[j], k * sz[j], sz[j]};
        const char *names[3] = {"PT[j]", "ctx[j]", "own[j]"};
        for (int l = 0; l < 3; l++) {
            Py_buffer *b = &bufs[held];
            if (PyObject_GetBuffer(PyList_GET_ITEM(lists[l], j), b,
                                   l == 0 ? PyBUF_SIMPLE : PyBUF_WRITABLE) < 0)
                goto done;
            held++;
            if (check_size(b, items[l], 8, names[l]) < 0)
                goto done;
        }
        PT[j] = bufs[held - 3].buf;
        ctx[j] = bufs[held - 2].buf;
        own[j] = bufs[held - 1].buf;
    }
    if (check_size(&out, total, 8, "out") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    silhouette_genes(k, dims, PT, sz, ctx, own, mask.buf, centroids.buf, spread.buf,
                     scatter.buf, counts.buf, out.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    for (Py_ssize_t h = 0; h < held; h++)
        PyBuffer_Release(&bufs[h]);
    PyMem_Free(bufs);
    PyMem_Free(PT);
    PyMem_Free(ctx);
    PyMem_Free(own);
    Py_buffer *const parsed[] = {&sizes, &mask, &centroids, &spread, &scatter, &counts, &out};
    for (size_t p = 0; p < sizeof(parsed) / sizeof(parsed[0]); p++)
        PyBuffer_Release(parsed[p]);
    return result;
}

PyDoc_STRVAR(py_col_means_doc,
"col_means(P, out, n, dims)\n\n"
"Column means of P (float64, n x dims, C order, n >= 1, dims >= 2) into out (float64,\n"
"dims): the bits of numpy's P.mean(axis=0).");

static PyObject *py_col_means(PyObject *self, PyObject *args)
{
    Py_buffer P, out;
    Py_ssize_t n, dims;
    if (!PyArg_ParseTuple(args, "y*w*nn", &P, &out, &n, &dims))
        return NULL;
    PyObject *result = NULL;
    if (n < 1 || dims < 2 || check_size(&P, n * dims, 8, "P") < 0 ||
        check_size(&out, dims, 8, "out") < 0)
        goto done;
    col_means(P.buf, n, dims, out.buf);
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&P);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(py_shape_2d_doc,
"shape_2d(z, v, R, p0, c0, sq, n)\n\n"
"A two-dimensional gene's mean-free points p0 = z diag(sqrt(v)) R^T (float64, n x 2,\n"
"C order, n >= 1; v: 2, R: 2 x 2 C order), their column means c0 (2) and each point's\n"
"squared distance to them sq (n): the bits of numpy's shape_points, mean(axis=0) and\n"
"einsum.");

static PyObject *py_shape_2d(PyObject *self, PyObject *args)
{
    Py_buffer z, v, R, p0, c0, sq;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*w*n", &z, &v, &R, &p0, &c0, &sq, &n))
        return NULL;
    PyObject *result = NULL;
    if (n < 1 || check_size(&z, 2 * n, 8, "z") < 0 || check_size(&v, 2, 8, "v") < 0 ||
        check_size(&R, 4, 8, "R") < 0 || check_size(&p0, 2 * n, 8, "p0") < 0 ||
        check_size(&c0, 2, 8, "c0") < 0 || check_size(&sq, n, 8, "sq") < 0)
        goto done;
    shape_2d(z.buf, n, v.buf, R.buf, p0.buf, c0.buf, sq.buf);
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&z);
    PyBuffer_Release(&v);
    PyBuffer_Release(&R);
    PyBuffer_Release(&p0);
    PyBuffer_Release(&c0);
    PyBuffer_Release(&sq);
    return result;
}

PyDoc_STRVAR(py_operands32_doc,
"operands32(X, c, Q, qn, n, dims) -> float\n\n"
"Q = float32(X - c) (n x dims) and qn = |X - c|^2 (float64, n) for the n rows of X\n"
"(float64, C order) and the centre c (float64, dims); returns the largest |X - c|, inf\n"
"where a value is not finite (Q is then meaningless).");

static PyObject *py_operands32(PyObject *self, PyObject *args)
{
    Py_buffer X, c, Q, qn;
    Py_ssize_t n, dims;
    if (!PyArg_ParseTuple(args, "y*y*w*w*nn", &X, &c, &Q, &qn, &n, &dims))
        return NULL;
    PyObject *result = NULL;
    double scale = 0.0;
    if (n < 0 || dims < 1 || check_size(&X, n * dims, 8, "X") < 0 ||
        check_size(&c, dims, 8, "c") < 0 || check_size(&Q, n * dims, 4, "Q") < 0 ||
        check_size(&qn, n, 8, "qn") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    scale = operands32(X.buf, n, dims, c.buf, Q.buf, qn.buf);
    Py_END_ALLOW_THREADS
    result = PyFloat_FromDouble(scale);
done:
    PyBuffer_Release(&X);
    PyBuffer_Release(&c);
    PyBuffer_Release(&Q);
    PyBuffer_Release(&qn);
    return result;
}

PyDoc_STRVAR(py_dense_scan_doc,
"dense_scan(G, nr, nc, lim_r, lim_c, X, rows, cols, o_r, o_c, seg, rows_hit, cols_hit,\n"
"           a, b, n, dims, n_seg, test_rows)\n\n"
"The exact test of the candidates of a filtering block G (float32, a x b): see\n"
"dense_scan in _native.c. X (float64, n x dims); rows, cols, seg (int64, a, b, b);\n"
"nr, lim_r, o_r (float64, a); nc, lim_c, o_c (float64, b); rows_hit (bool, a x n_seg)\n"
"and cols_hit (bool, b) are set, never cleared. test_rows false: lim_r and o_r unused.");

static PyObject *py_dense_scan(PyObject *self, PyObject *args)
{
    Py_buffer G, nr, nc, lim_r, lim_c, X, rows, cols, o_r, o_c, seg, rows_hit, cols_hit;
    Py_ssize_t a, b, n, dims, n_seg;
    int test_rows;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*y*w*w*nnnnnp", &G, &nr, &nc, &lim_r,
                          &lim_c, &X, &rows, &cols, &o_r, &o_c, &seg, &rows_hit, &cols_hit,
                          &a, &b, &n, &dims, &n_seg, &test_rows))
        return NULL;
    PyObject *result = NULL;
    if (a < 0 || b < 0 || n < 0 || dims < 1 || n_seg < 0 ||
        check_size(&G, a * b, 4, "G") < 0 || check_size(&nr, a, 8, "nr") < 0 ||
        check_size(&nc, b, 8, "nc") < 0 || check_size(&lim_c, b, 8, "lim_c") < 0 ||
        check_size(&X, n * dims, 8, "X") < 0 || check_size(&rows, a, 8, "rows") < 0 ||
        check_size(&cols, b, 8, "cols") < 0 || check_size(&o_c, b, 8, "o_c") < 0 ||
        check_size(&seg, b, 8, "seg") < 0 || check_size(&cols_hit, b, 1, "cols_hit") < 0 ||
        (test_rows && (check_size(&lim_r, a, 8, "lim_r") < 0 ||
                       check_size(&o_r, a, 8, "o_r") < 0 ||
                       check_size(&rows_hit, a * n_seg, 1, "rows_hit") < 0)))
        goto done;
    const int64_t *r = rows.buf, *cl = cols.buf, *sg = seg.buf;
    for (Py_ssize_t i = 0; i < a; i++) {
        if (r[i] < 0 || r[i] >= n) {
            PyErr_SetString(PyExc_ValueError, "rows: an index outside [0, n)");
            goto done;
        }
    }
    for (Py_ssize_t l = 0; l < b; l++) {
        if (cl[l] < 0 || cl[l] >= n || sg[l] < 0 || sg[l] >= n_seg) {
            PyErr_SetString(PyExc_ValueError, "cols or seg: an index out of range");
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    dense_scan(G.buf, a, b, nr.buf, nc.buf, test_rows ? lim_r.buf : NULL, lim_c.buf, X.buf,
               dims, r, cl, o_r.buf, o_c.buf, sg, n_seg, rows_hit.buf, cols_hit.buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&G);
    PyBuffer_Release(&nr);
    PyBuffer_Release(&nc);
    PyBuffer_Release(&lim_r);
    PyBuffer_Release(&lim_c);
    PyBuffer_Release(&X);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&cols);
    PyBuffer_Release(&o_r);
    PyBuffer_Release(&o_c);
    PyBuffer_Release(&seg);
    PyBuffer_Release(&rows_hit);
    PyBuffer_Release(&cols_hit);
    return result;
}

PyDoc_STRVAR(py_pivot_hits_doc,
"pivot_hits(Q, qn, X, own, offs, J, M, pair_c, q_c, point, hit, sgemm, n, dims, n_genes,\n"
"           n_pairs, n_cand, (scale, norm, tiny), block)\n\n"
"The exact test of the candidates of an overlap pass: see pivot_hits in _native.c.\n"
"Q (float32, n x dims) and qn (float64, n) the filter's operands, X (float64, n x dims),\n"
"own (float64, n); offs (int64, n_genes + 1); J, M (int64, n_pairs); pair_c, q_c, point\n"
"(int64, n_cand); hit (bool, n_cand) is written; sgemm a capsule of BLAS's sgemm\n"
"(scipy.linalg.cython_blas); (scale, norm, tiny) the filter's limit terms\n"
"(_kernels.limit_terms32); block the largest filtering block, in elements.");

static PyObject *py_pivot_hits(PyObject *self, PyObject *args)
{
    Py_buffer Q, qn, X, own, offs, J, M, pair_c, q_c, point, hit;
    PyObject *cap;
    Py_ssize_t n, dims, n_genes, n_pairs, n_cand, block;
    Limit lim;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*y*y*y*y*w*Onnnnn(ddd)n", &Q, &qn, &X, &own, &offs,
                          &J, &M, &pair_c, &q_c, &point, &hit, &cap, &n, &dims, &n_genes,
                          &n_pairs, &n_cand, &lim.scale, &lim.norm, &lim.tiny, &block))
        return NULL;
    PyObject *result = NULL;
    int rc = 0;
    sgemm_t sgemm = NULL;
    if (n < 0 || n >= INT32_MAX || dims < 1 || dims >= INT32_MAX || n_genes < 1 ||
        n_pairs < 0 || n_cand < 0 || block < 1 ||
        check_size(&Q, n * dims, 4, "Q") < 0 || check_size(&qn, n, 8, "qn") < 0 ||
        check_size(&X, n * dims, 8, "X") < 0 || check_size(&own, n, 8, "own") < 0 ||
        check_size(&offs, n_genes + 1, 8, "offs") < 0 || check_size(&J, n_pairs, 8, "J") < 0 ||
        check_size(&M, n_pairs, 8, "M") < 0 || check_size(&pair_c, n_cand, 8, "pair_c") < 0 ||
        check_size(&q_c, n_cand, 8, "q_c") < 0 || check_size(&point, n_cand, 8, "point") < 0 ||
        check_size(&hit, n_cand, 1, "hit") < 0)
        goto done;
    if (!PyCapsule_CheckExact(cap) ||
        (sgemm = (sgemm_t)PyCapsule_GetPointer(cap, PyCapsule_GetName(cap))) == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "sgemm: not a capsule of a function");
        goto done;
    }
    const int64_t *o = offs.buf, *j = J.buf, *m = M.buf, *pc = pair_c.buf, *qc = q_c.buf;
    const int64_t *pt = point.buf;
    if (o[0] < 0 || o[n_genes] > n) {
        PyErr_SetString(PyExc_ValueError, "offs: outside [0, n]");
        goto done;
    }
    for (Py_ssize_t g = 0; g < n_genes; g++) {
        if (o[g] > o[g + 1]) {
            PyErr_SetString(PyExc_ValueError, "offs: decreasing");
            goto done;
        }
    }
    for (Py_ssize_t p = 0; p < n_pairs; p++) {
        if (j[p] < 0 || j[p] >= n_genes || m[p] < 0 || m[p] >= n_genes || j[p] == m[p]) {
            PyErr_SetString(PyExc_ValueError, "J, M: a gene out of range, or a pair of one gene");
            goto done;
        }
    }
    for (Py_ssize_t c = 0; c < n_cand; c++) {
        if (pc[c] < 0 || pc[c] >= n_pairs || (qc[c] != j[pc[c]] && qc[c] != m[pc[c]]) ||
            pt[c] < o[qc[c]] || pt[c] >= o[qc[c] + 1]) {
            PyErr_SetString(PyExc_ValueError,
                            "pair_c, q_c, point: a candidate outside its pair or gene");
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    rc = pivot_hits(Q.buf, qn.buf, X.buf, own.buf, n, dims, o, n_genes, j, m, n_pairs, pc, qc,
                    pt, n_cand, lim, block, sgemm, hit.buf);
    pscratch_trim();
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&Q);
    PyBuffer_Release(&qn);
    PyBuffer_Release(&X);
    PyBuffer_Release(&own);
    PyBuffer_Release(&offs);
    PyBuffer_Release(&J);
    PyBuffer_Release(&M);
    PyBuffer_Release(&pair_c);
    PyBuffer_Release(&q_c);
    PyBuffer_Release(&point);
    PyBuffer_Release(&hit);
    return result;
}

static PyMethodDef methods[] = {
    {"grid_flags", py_grid_flags, METH_VARARGS, py_grid_flags_doc},
    {"silhouette_2d", py_silhouette_2d, METH_VARARGS, py_silhouette_2d_doc},
    {"silhouette_genes", py_silhouette_genes, METH_VARARGS, py_silhouette_genes_doc},
    {"col_means", py_col_means, METH_VARARGS, py_col_means_doc},
    {"shape_2d", py_shape_2d, METH_VARARGS, py_shape_2d_doc},
    {"operands32", py_operands32, METH_VARARGS, py_operands32_doc},
    {"dense_scan", py_dense_scan, METH_VARARGS, py_dense_scan_doc},
    {"pivot_hits", py_pivot_hits, METH_VARARGS, py_pivot_hits_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native",
    "The overlap and silhouette kernels in C (see _native.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
