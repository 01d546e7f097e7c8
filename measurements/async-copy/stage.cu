// Asynchronous copy into shared memory (cp.async) against a plain load-store loop.
//
// Each 256-thread block streams `tiles` 16 KiB tiles of `src` through shared memory: a
// thread stages 4 x 16 bytes of each tile, the block waits, and each thread then sums 4
// elements staged by its neighbour (thread t + 1), so the trip through shared memory is
// needed. Three ways to stage:
//   stage_plain:  load to registers, store to shared memory (the load must arrive before
//                 the store issues, and the block waits for the slowest);
//   stage_async:  cp.async.cg 16-byte copies global -> shared (no registers), one tile at a
//                 time (commit, wait for all);
//   stage_async2: the same with two buffers: tile k+1 is copied while tile k is summed.

#define THREADS 256
#define PER 4
#define TILE (THREADS * PER)  // 16-byte elements per tile: 16 KiB

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
    stage_async2(const uint4* __restrict__ src, unsigned* __restrict__ out, unsigned tiles) {
    __shared__ uint4 buf[2][TILE];
    const uint4* base = src + (unsigned long long)blockIdx.x * tiles * TILE;
    unsigned acc = 0;
    issue(buf[0], base);
    for (unsigned k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) {
            issue(buf[(k + 1) & 1], base + (unsigned long long)(k + 1) * TILE);
            asm volatile("cp.async.wait_group 1;" ::: "memory");  // tile k has landed
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        acc += consume(buf[k & 1]);
        // Everyone is done with buf[k & 1] before the next round copies tile k + 2 into it.
        __syncthreads();
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
