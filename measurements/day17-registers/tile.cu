// Day 17: a kernel that wants many registers, compiled at several register budgets.
//
// Each thread owns an 8 x 8 tile of accumulators, the inner loop of a register-blocked
// matrix product:
//
//     acc[i][j] += x[i] * w[k][j]        for k = 0 .. k_steps-1
//
// x holds 8 values per thread (read once, coalesced across the warp); w holds 8
// coefficients per step that every thread reads (a broadcast). All 64 accumulators stay
// live across the whole loop, with the 8 x and 8 w values beside them, so the compiler
// wants about 90 registers per thread. The same body is compiled as five kernels that
// differ only in their __launch_bounds__: each asks for a number of resident 256-thread
// blocks per SM, and the compiler must fit the registers per thread into 65,536 / (256 x
// that number), spilling what does not fit to local memory.
//
// The arithmetic (one fmaf per accumulator per step, in the same order) is the same in
// every kernel, so every budget must produce bit-identical outputs.

#define TILE 8

__device__ __forceinline__ void tile_body(const float* __restrict__ x,
                                          const float* __restrict__ w,
                                          float* __restrict__ out, unsigned int k_steps,
                                          unsigned int threads) {
    const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) {
        return;
    }
    float xv[TILE];
#pragma unroll
    for (int i = 0; i < TILE; ++i) {
        xv[i] = x[i * threads + t];
    }
    float acc[TILE][TILE];
#pragma unroll
    for (int i = 0; i < TILE; ++i) {
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            acc[i][j] = 0.0f;
        }
    }
    for (unsigned int k = 0; k < k_steps; ++k) {
        float wv[TILE];
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            wv[j] = w[k * TILE + j];
        }
#pragma unroll
        for (int i = 0; i < TILE; ++i) {
#pragma unroll
            for (int j = 0; j < TILE; ++j) {
                acc[i][j] = fmaf(xv[i], wv[j], acc[i][j]);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < TILE; ++i) {
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            out[(i * TILE + j) * threads + t] = acc[i][j];
        }
    }
}

// Kernel names end in the blocks per SM that __launch_bounds__ asks for; 0 means no
// bound at all. No budget: the compiler takes what the loop needs.
extern "C" __global__ void tile_b0(const float* __restrict__ x, const float* __restrict__ w,
                                     float* __restrict__ out, unsigned int k_steps,
                                     unsigned int threads) {
    tile_body(x, w, out, k_steps, threads);
}

// 3 blocks of 256 threads per SM: at most 65,536 / 768 = 85 registers, 80 after rounding.
extern "C" __global__ void __launch_bounds__(256, 3)
    tile_b3(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out,
             unsigned int k_steps, unsigned int threads) {
    tile_body(x, w, out, k_steps, threads);
}

// 4 blocks: at most 64 registers.
extern "C" __global__ void __launch_bounds__(256, 4)
    tile_b4(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out,
             unsigned int k_steps, unsigned int threads) {
    tile_body(x, w, out, k_steps, threads);
}

// 6 blocks: at most 42 registers, 40 after rounding.
extern "C" __global__ void __launch_bounds__(256, 6)
    tile_b6(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out,
             unsigned int k_steps, unsigned int threads) {
    tile_body(x, w, out, k_steps, threads);
}

// 8 blocks, every warp slot of the SM: at most 32 registers.
extern "C" __global__ void __launch_bounds__(256, 8)
    tile_b8(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out,
             unsigned int k_steps, unsigned int threads) {
    tile_body(x, w, out, k_steps, threads);
}

// The reference every budget is checked against: one thread per output element, the same
// fmaf chain over k, so a correct budget matches it bit for bit. No register pressure here.
extern "C" __global__ void tile_reference(const float* __restrict__ x,
                                          const float* __restrict__ w,
                                          float* __restrict__ out, unsigned int k_steps,
                                          unsigned int threads) {
    const unsigned long long e = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (unsigned long long)TILE * TILE * threads) {
        return;
    }
    const unsigned int t = (unsigned int)(e % threads);
    const unsigned int ij = (unsigned int)(e / threads);
    const unsigned int i = ij / TILE;
    const unsigned int j = ij % TILE;
    const float xi = x[i * threads + t];
    float acc = 0.0f;
    for (unsigned int k = 0; k < k_steps; ++k) {
        acc = fmaf(xi, w[k * TILE + j], acc);
    }
    out[ij * threads + t] = acc;
}
