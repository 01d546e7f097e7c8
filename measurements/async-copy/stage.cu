// Asynchronous copy into shared memory against a load-store loop, at equal bytes in flight.
//
// Each 256-thread block streams `tiles` 16 KiB tiles of `src` through shared memory: a
// thread stages 4 x 16 bytes of each tile, the block waits, and each thread then sums 4
// elements staged by its neighbour (thread t + 1), so the trip through shared memory is
// needed. Every kernel has exactly one tile (16 KiB) of global reads outstanding per block
// at a time, so a row's bytes in flight per SM are 16 KiB x blocks per SM whatever the
// kernel; what differs is whether the next tile's reads overlap the use of this one, and
// which path they take:
//   stage_plain:  load to registers, store to shared memory, wait, use (no overlap; the
//                 store cannot issue before its load returns);
//   stage_async:  cp.async.cg 16-byte copies global -> shared (no registers), one tile
//                 at a time (commit, wait for all, use: no overlap);
//   stage_regpf:  register prefetch: tile k+1 is loaded into registers while tile k is
//                 used from shared memory, then stored to the other buffer;
//   stage_async2: cp.async into two buffers: tile k+1 is copied while tile k is used;
//   stage_bulk:   Hopper's bulk copy (cp.async.bulk, the TMA's 1D form, no tensor map):
//                 one thread copies each whole tile, completion counted in bytes on an
//                 mbarrier; two buffers, tile k+1 in flight while tile k is used.
// The overlapping three wait for tile k, then (after one block barrier, which also says
// everyone is done with the other buffer) start tile k+1 and use tile k: at most one tile
// in flight, as in the two that do not overlap.

#define THREADS 256
#define PER 4
#define TILE (THREADS * PER)  // 16-byte elements per tile: 16 KiB
#define TILE_BYTES (TILE * 16)

__device__ __forceinline__ unsigned consume(const uint4* s) {
    const unsigned n = (threadIdx.x + 1) % THREADS;
    unsigned acc = 0;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        const uint4 v = s[j * THREADS + n];
        acc += v.x + v.y + v.z + v.w;
    }
    return acc;
}

__device__ __forceinline__ void copy16(uint4* dst, const uint4* src) {
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
}

__device__ __forceinline__ void issue(uint4* buf, const uint4* tile) {
#pragma unroll
    for (int j = 0; j < PER; ++j) copy16(buf + j * THREADS + threadIdx.x, tile + j * THREADS + threadIdx.x);
    asm volatile("cp.async.commit_group;" ::: "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS)
    stage_plain(const uint4* __restrict__ src, unsigned* __restrict__ out, unsigned tiles) {
    __shared__ uint4 buf[TILE];
    const uint4* base = src + (unsigned long long)blockIdx.x * tiles * TILE;
    unsigned acc = 0;
    for (unsigned k = 0; k < tiles; ++k) {
#pragma unroll
        for (int j = 0; j < PER; ++j)
            buf[j * THREADS + threadIdx.x] = base[(unsigned long long)k * TILE + j * THREADS + threadIdx.x];
        __syncthreads();
        acc += consume(buf);
        __syncthreads();
    }
    out[blockIdx.x * THREADS + threadIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    stage_async(const uint4* __restrict__ src, unsigned* __restrict__ out, unsigned tiles) {
    __shared__ uint4 buf[TILE];
    const uint4* base = src + (unsigned long long)blockIdx.x * tiles * TILE;
    unsigned acc = 0;
    for (unsigned k = 0; k < tiles; ++k) {
        issue(buf, base + (unsigned long long)k * TILE);
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        __syncthreads();
        acc += consume(buf);
        __syncthreads();
    }
    out[blockIdx.x * THREADS + threadIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    stage_regpf(const uint4* __restrict__ src, unsigned* __restrict__ out, unsigned tiles) {
    __shared__ uint4 buf[2][TILE];
    const uint4* base = src + (unsigned long long)blockIdx.x * tiles * TILE + threadIdx.x;
    uint4 next[PER];
#pragma unroll
    for (int j = 0; j < PER; ++j) next[j] = base[j * THREADS];
    unsigned acc = 0;
    for (unsigned k = 0; k < tiles; ++k) {
        // Waits for tile k's loads. buf[k & 1] was last read in round k - 2, which every
        // thread finished before the barrier of round k - 1.
#pragma unroll
        for (int j = 0; j < PER; ++j) buf[k & 1][j * THREADS + threadIdx.x] = next[j];
        __syncthreads();
        if (k + 1 < tiles) {
#pragma unroll
            for (int j = 0; j < PER; ++j) next[j] = base[(unsigned long long)(k + 1) * TILE + j * THREADS];
        }
        acc += consume(buf[k & 1]);
    }
    out[blockIdx.x * THREADS + threadIdx.x] = acc;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    stage_async2(const uint4* __restrict__ src, unsigned* __restrict__ out, unsigned tiles) {
    __shared__ uint4 buf[2][TILE];
    const uint4* base = src + (unsigned long long)blockIdx.x * tiles * TILE;
    unsigned acc = 0;
    issue(buf[0], base);
    for (unsigned k = 0; k < tiles; ++k) {
        asm volatile("cp.async.wait_group 0;" ::: "memory");  // tile k has landed (this thread's part)
        // Everyone's part of tile k has landed, and everyone is done with buf[(k + 1) & 1]
        // (read in round k - 1) before tile k + 1 is copied into it.
        __syncthreads();
        if (k + 1 < tiles) issue(buf[(k + 1) & 1], base + (unsigned long long)(k + 1) * TILE);
        acc += consume(buf[k & 1]);
    }
    out[blockIdx.x * THREADS + threadIdx.x] = acc;
}

// mbarrier helpers (PTX ISA, "Parallel Synchronization and Communication: mbarrier").
__device__ __forceinline__ void bulk_tile(unsigned dst, const uint4* src, unsigned bar) {
    // The barrier's one arrival, expecting TILE_BYTES; the copy's bytes complete it.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(TILE_BYTES)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
        "l"(src), "r"(TILE_BYTES), "r"(bar)
        : "memory");
}

__device__ __forceinline__ void bulk_wait(unsigned bar, unsigned parity) {
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT;\n"
        "}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS)
    stage_bulk(const uint4* __restrict__ src, unsigned* __restrict__ out, unsigned tiles) {
    __shared__ __align__(128) uint4 buf[2][TILE];
    __shared__ __align__(8) unsigned long long bars[2];
    const uint4* base = src + (unsigned long long)blockIdx.x * tiles * TILE;
    const unsigned b0 = (unsigned)__cvta_generic_to_shared(&bars[0]);
    const unsigned b1 = (unsigned)__cvta_generic_to_shared(&bars[1]);
    const unsigned s0 = (unsigned)__cvta_generic_to_shared(buf[0]);
    const unsigned s1 = (unsigned)__cvta_generic_to_shared(buf[1]);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b0) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b1) : "memory");
        // The initialised barriers are visible to the async proxy (the bulk copies).
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) bulk_tile(s0, base, b0);
    unsigned acc = 0;
    for (unsigned k = 0; k < tiles; ++k) {
        // Buffer k & 1's barrier completes its phase (k / 2) & 1 when tile k has landed.
        bulk_wait(k & 1 ? b1 : b0, (k >> 1) & 1);
        // Everyone is done with buf[(k + 1) & 1] (read in round k - 1) before tile k + 1
        // is copied into it.
        __syncthreads();
        if (threadIdx.x == 0 && k + 1 < tiles)
            bulk_tile(k & 1 ? s0 : s1, base + (unsigned long long)(k + 1) * TILE, k & 1 ? b0 : b1);
        acc += consume(buf[k & 1]);
    }
    out[blockIdx.x * THREADS + threadIdx.x] = acc;
}

// The reference: the same sums read straight from global memory as 4-byte words.
extern "C" __global__ void stage_reference(const unsigned* src, unsigned* out, unsigned tiles) {
    const unsigned n = (threadIdx.x + 1) % THREADS;
    unsigned acc = 0;
    for (unsigned k = 0; k < tiles; ++k) {
        for (int j = 0; j < PER; ++j) {
            const unsigned long long e =
                ((unsigned long long)blockIdx.x * tiles + k) * TILE + j * THREADS + n;
            acc += src[4 * e] + src[4 * e + 1] + src[4 * e + 2] + src[4 * e + 3];
        }
    }
    out[blockIdx.x * THREADS + threadIdx.x] = acc;
}
