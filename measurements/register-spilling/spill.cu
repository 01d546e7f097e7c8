// Register spilling: one kernel with 96 accumulators live across its loop, compiled with
// ever tighter register caps (--maxrregcount), so ptxas has to keep more and more of them
// in local memory.
//
// Thread t keeps acc[0..95]; each step loads 8 broadcast weights and updates every
// accumulator with one fmaf: acc[j] = fmaf(x[j % 8], w[(j / 8) % 8], acc[j]). About 110
// registers hold it all; under that, accumulators spill, and every step reloads and
// stores them (local memory: L1, then L2).
//
// acc[j] starts at j: accumulators j and j + 64 get the same updates, and equal starts
// would let the compiler keep one register for both.
//
// Output acc[j] of thread t goes to out[j * threads + t] (coalesced). The reference has one
// thread per (t, j) and the same fmaf steps in the same order: bit for bit.

#define NACC 96

extern "C" __global__ void spill(const float* __restrict__ x, const float* __restrict__ w,
                                 float* __restrict__ out, unsigned k_steps, unsigned threads) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    float xv[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) xv[i] = x[8 * t + i];
    float acc[NACC];
#pragma unroll
    for (int j = 0; j < NACC; ++j) acc[j] = (float)j;
    for (unsigned s = 0; s < k_steps; ++s) {
        float wv[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) wv[i] = w[8 * s + i];
#pragma unroll
        for (int j = 0; j < NACC; ++j) acc[j] = fmaf(xv[j % 8], wv[(j / 8) % 8], acc[j]);
    }
#pragma unroll
    for (int j = 0; j < NACC; ++j) out[j * threads + t] = acc[j];
}

extern "C" __global__ void spill_reference(const float* x, const float* w, float* out,
                                           unsigned k_steps, unsigned threads) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= NACC * threads) return;
    const unsigned j = i / threads, t = i % threads;
    const float xv = x[8 * t + j % 8];
    float acc = (float)j;
    for (unsigned s = 0; s < k_steps; ++s) acc = fmaf(xv, w[8 * s + (j / 8) % 8], acc);
    out[i] = acc;
}
