// Memory coalescing: how much of what DRAM delivers a warp actually uses when its 32 lanes
// read addresses `stride` elements apart.
//
// Every configuration reads a 2^28-element (1 GiB) array of 32-bit words, far larger than
// the H200's L2, so every sector comes from DRAM once. A configuration with stride s reads
// every s-th word: thread t of the grid sums the words at
//     offset + s * (t + j * outputs),  j = 0 .. PER_THREAD-1,
// so the 32 lanes of a warp are s words apart in each load instruction, and consecutive
// loads of one thread are a whole grid's worth apart (no reuse within a thread). The
// useful bytes are the words read (4 each); the bytes DRAM delivers, and the sectors each
// warp request touches, are what ncu counts.
//
// `offset = 1` at stride 1 is the misaligned case: each warp's 128 bytes straddle two
// 128-byte lines, five 32-byte sectors instead of four.
//
// The sums are 32-bit unsigned, so the check against the reference is exact. Each thread
// writes one word per PER_THREAD words read (1/16 of the useful bytes, the same share at
// every stride).

#define PER_THREAD 16

extern "C" __global__ void strided_sum(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                       unsigned outputs, unsigned stride, unsigned offset) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= outputs) {
        return;
    }
    // Issue all PER_THREAD loads before the first add: 16 independent requests per thread.
    unsigned words[PER_THREAD];
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
        words[j] = in[offset + stride * (t + (unsigned)j * outputs)];
    }
    unsigned acc = 0;
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) {
        acc += words[j];
    }
    out[t] = acc;
}

// The reference: the same sums written the plain way (64-bit indices, a grid-stride loop
// over outputs, a rolled inner loop). Every configuration's `out` must equal it exactly.
extern "C" __global__ void strided_sum_ref(const unsigned* in, unsigned* out, unsigned outputs,
                                           unsigned stride, unsigned offset) {
    for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         t < outputs; t += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned acc = 0;
        for (unsigned long long j = 0; j < PER_THREAD; ++j) {
            acc += in[offset + (unsigned long long)stride * (t + j * outputs)];
        }
        out[t] = acc;
    }
}
