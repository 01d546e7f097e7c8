// Warp divergence: the same arithmetic behind a 32-way branch, with a key that decides
// how many of the branch's paths the lanes of one warp take.
//
// `pattern` picks the key each thread branches on:
//   0 uniform     every lane takes path 0
//   1 half-warp   lanes 0-15 take path 0, lanes 16-31 path 1           (two paths per warp)
//   2 odd-even    even lanes take path 0, odd lanes path 1              (two paths per warp)
//   3 lane        lane l takes path l                                   (32 paths per warp)
//   4 data        a key read from memory, the same for all 32 lanes of a warp but different
//                 from warp to warp                                     (one path per warp)
//
// Every path does the same work: `iters` dependent fused multiply-adds x = x * a_k + b_k
// with its own constants. The constants differ so that the compiler cannot merge the 32
// paths into one; each path is its own loop. A warp whose lanes take n different paths
// runs n of these loops one after the other, with the other lanes masked off.
//
// a_k = 1 - (k+1) / 4096 and b_k = (k+1) / 256 are exact in fp32, and fmaf rounds once, so
// the reference below (one loop with the constants computed at run time) gives the same
// bits.

__device__ __forceinline__ unsigned branch_key(unsigned pattern, unsigned lane,
                                               const unsigned* __restrict__ warp_keys,
                                               unsigned warp) {
    switch (pattern) {
        case 0:
            return 0;
        case 1:
            return lane >> 4;
        case 2:
            return lane & 1u;
        case 3:
            return lane;
        default:
            return warp_keys[warp] & 31u;
    }
}

template <int K>
__device__ __forceinline__ float path(float x, unsigned iters) {
    constexpr float a = 1.0f - (float)(K + 1) * (1.0f / 4096.0f);
    constexpr float b = (float)(K + 1) * (1.0f / 256.0f);
#pragma unroll 4
    for (unsigned i = 0; i < iters; ++i) {
        x = fmaf(x, a, b);
    }
    return x;
}

#define PATH(k)               \
    case k:                   \
        x = path<k>(x, iters); \
        break;

extern "C" __global__ void lane_branch(const float* __restrict__ x0,
                                       const unsigned* __restrict__ warp_keys,
                                       float* __restrict__ out, unsigned pattern,
                                       unsigned iters) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned key = branch_key(pattern, threadIdx.x & 31u, warp_keys, t >> 5);
    float x = x0[t];
    switch (key) {
        PATH(0) PATH(1) PATH(2) PATH(3) PATH(4) PATH(5) PATH(6) PATH(7)
        PATH(8) PATH(9) PATH(10) PATH(11) PATH(12) PATH(13) PATH(14) PATH(15)
        PATH(16) PATH(17) PATH(18) PATH(19) PATH(20) PATH(21) PATH(22) PATH(23)
        PATH(24) PATH(25) PATH(26) PATH(27) PATH(28) PATH(29) PATH(30) PATH(31)
    }
    out[t] = x;
}

// The reference: no branch on the key, the constants computed from it at run time.
extern "C" __global__ void lane_branch_ref(const float* __restrict__ x0,
                                           const unsigned* __restrict__ warp_keys,
                                           float* __restrict__ out, unsigned pattern,
                                           unsigned iters) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = t % 32u;
    unsigned key = 0;
    if (pattern == 1) key = lane < 16 ? 0 : 1;
    if (pattern == 2) key = lane % 2;
    if (pattern == 3) key = lane;
    if (pattern >= 4) key = warp_keys[t / 32] % 32;
    const float a = 1.0f - (float)(key + 1) * (1.0f / 4096.0f);
    const float b = (float)(key + 1) * (1.0f / 256.0f);
    float x = x0[t];
    for (unsigned i = 0; i < iters; ++i) {
        x = fmaf(x, a, b);
    }
    out[t] = x;
}
