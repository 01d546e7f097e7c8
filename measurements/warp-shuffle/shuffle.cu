// Warp shuffle against shared memory for an exchange inside a warp.
//
// Each round, every lane takes the value of lane (lane XOR m), m cycling 1, 2, 4, 8, 16
// (a butterfly, as in a warp reduction), and sets v = 3v + partner's v, in u32 (exact).
//   xchg_shfl: one __shfl_xor_sync per round; the value goes register to register.
//   xchg_smem: store to the warp's 32 words of shared memory, __syncwarp, load the
//              partner's word, __syncwarp (so no lane overwrites a word before it is read).

extern "C" __global__ void xchg_shfl(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                     unsigned rounds) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[gid];
    for (unsigned r = 0; r < rounds; ++r) {
        const unsigned m = 1u << (r % 5);
        v = v * 3u + __shfl_xor_sync(0xffffffffu, v, m);
    }
    out[gid] = v;
}

extern "C" __global__ void xchg_smem(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                     unsigned rounds) {
    __shared__ unsigned words[1024];
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32;
    volatile unsigned* mine = words + (threadIdx.x - lane);
    unsigned v = in[gid];
    for (unsigned r = 0; r < rounds; ++r) {
        const unsigned m = 1u << (r % 5);
        mine[lane] = v;
        __syncwarp();
        const unsigned p = mine[lane ^ m];
        __syncwarp();
        v = v * 3u + p;
    }
    out[gid] = v;
}

// The reference: lane 0 of each warp computes all 32 lanes' values, no exchange at all.
extern "C" __global__ void xchg_reference(const unsigned* in, unsigned* out, unsigned rounds,
                                          unsigned warps) {
    const unsigned w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= warps) return;
    unsigned v[32], n[32];
    for (int l = 0; l < 32; ++l) v[l] = in[w * 32 + l];
    for (unsigned r = 0; r < rounds; ++r) {
        const unsigned m = 1u << (r % 5);
        for (int l = 0; l < 32; ++l) n[l] = v[l] * 3u + v[l ^ m];
        for (int l = 0; l < 32; ++l) v[l] = n[l];
    }
    for (int l = 0; l < 32; ++l) out[w * 32 + l] = v[l];
}
