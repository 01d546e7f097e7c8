// Shared-memory bank conflicts: a warp reads one 32-bit word per lane from shared memory,
// lane l at word l * stride, over and over.
//
// Shared memory is split into 32 banks, 4 bytes wide; word w lives in bank w % 32. A warp
// request whose lanes hit distinct banks (or the same word) is served in one pass; lanes
// that hit different words of one bank are served one pass per word. With lane l at word
// l * stride:
//   stride 1      32 banks, no conflict
//   stride 2^k    32 / 2^k banks, 2^k-way conflict (stride 32: every lane in bank 0)
//   stride 33     the padded layout (a 32-wide row plus one word): lane l lands in bank l
//
// The tile holds 32 x 33 words, enough for every stride here (31 * 33 < 32 * 33). It is
// filled from `in`, then each thread reads its word `reps` times through a volatile
// pointer, so every iteration issues a real shared load (the compiler may not keep the
// word in a register). Loads are independent of each other; only the running sum depends
// on them, so the loop measures the shared-memory pipe's throughput, not its latency.
//
// The grid is sized by the experiment so that every SM holds the same number of warps:
// time / (reps * warps per SM) is then the time one SM spends per warp-wide access.

#define TILE_WORDS (32 * 33)

extern "C" __global__ void smem_stride_read(const unsigned* __restrict__ in,
                                            unsigned* __restrict__ out, unsigned stride,
                                            unsigned reps) {
    __shared__ unsigned tile[TILE_WORDS];
    for (unsigned i = threadIdx.x; i < TILE_WORDS; i += blockDim.x) {
        tile[i] = in[i];
    }
    __syncthreads();
    const unsigned lane = threadIdx.x & 31u;
    const unsigned word = lane * stride;
    volatile unsigned* v = tile;
    unsigned acc = 0;
#pragma unroll 16
    for (unsigned r = 0; r < reps; ++r) {
        acc += v[word];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// The reference: no shared memory at all. Each thread's sum is its word of `in` times reps
// (mod 2^32, as unsigned arithmetic wraps in both kernels). Same launch shape.
extern "C" __global__ void smem_stride_read_ref(const unsigned* __restrict__ in,
                                                unsigned* __restrict__ out, unsigned stride,
                                                unsigned reps) {
    const unsigned lane = threadIdx.x % 32u;
    out[blockIdx.x * blockDim.x + threadIdx.x] = in[lane * stride] * reps;
}
