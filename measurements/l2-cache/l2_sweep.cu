// The L2 cliff: the same number of 16-byte reads from a working set of `mask + 1` 16-byte
// elements (a power of two), swept from 1 MiB to 1 GiB.
//
// Thread t of a grid of T threads reads element (t + k * T) mod (mask + 1) for
// k = 0 .. reads_per_thread-1: consecutive lanes read consecutive 16-byte elements (each
// warp load is 512 contiguous bytes), and the grid as a whole sweeps the working set again
// and again. The total bytes read do not depend on the working set; only how often each
// byte is re-read does. Loads go through __ldcg (cache in L2, not L1), so what is measured
// is L2 against DRAM, not the SMs' L1s.
//
// The sum is 32-bit unsigned, so the check against the reference is exact.

extern "C" __global__ void l2_sweep(const uint4* __restrict__ ws, unsigned* __restrict__ out,
                                    unsigned mask, unsigned reads_per_thread) {
    const unsigned threads = gridDim.x * blockDim.x;
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
#pragma unroll 8
    for (unsigned k = 0; k < reads_per_thread; ++k) {
        // Unsigned arithmetic wraps mod 2^32, a multiple of mask + 1, so the mask is exact.
        const uint4 v = __ldcg(ws + ((t + k * threads) & mask));
        acc += v.x + v.y + v.z + v.w;
    }
    out[t] = acc;
}

// The reference: 32-bit loads through the ordinary path, 64-bit index arithmetic, a modulo.
extern "C" __global__ void l2_sweep_ref(const unsigned* ws, unsigned* out, unsigned mask,
                                        unsigned reads_per_thread) {
    const unsigned long long threads = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long elements = (unsigned long long)mask + 1;
    unsigned acc = 0;
    for (unsigned long long k = 0; k < reads_per_thread; ++k) {
        const unsigned long long e = (t + k * threads) % elements;
        for (int w = 0; w < 4; ++w) {
            acc += ws[4 * e + w];
        }
    }
    out[t] = acc;
}
