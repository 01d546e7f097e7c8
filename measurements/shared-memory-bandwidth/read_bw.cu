// Shared-memory read bandwidth beside L1's and L2's, the same reads from three places.
//
// Each block owns a 16 KiB region of `data` (1024 16-byte elements) and every thread
// reads it over and over, 16 bytes at a time: in round i thread t reads element
// (t + 32 i) mod 1024, so a warp's 32 reads are 32 consecutive elements (no bank conflict,
// four 128-byte wavefronts) and the addresses change every round (nothing to hoist).
//   read_smem: the region is copied into shared memory once, then read from there;
//   read_l1:   read from global memory through L1 (ld.global.ca): two blocks' 32 KiB per
//              SM stay in the SM's L1;
//   read_l2:   read from global memory bypassing L1 (ld.global.cg): the grid's 4 MiB stay
//              in L2.
// The words are summed (u32, wrapping), so every version must match the reference exactly.

extern "C" __global__ void read_smem(const uint4* __restrict__ data, unsigned* __restrict__ out,
                                     unsigned rounds) {
    __shared__ uint4 tile[1024];
    const uint4* region = data + blockIdx.x * 1024;
    for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x) tile[i] = region[i];
    __syncthreads();
    unsigned acc = 0;
#pragma unroll 8
    for (unsigned i = 0; i < rounds; ++i) {
        const uint4 v = tile[(threadIdx.x + i * 32) & 1023];
        acc += v.x + v.y + v.z + v.w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void read_l1(const uint4* __restrict__ data, unsigned* __restrict__ out,
                                   unsigned rounds) {
    const uint4* region = data + blockIdx.x * 1024;
    unsigned acc = 0;
#pragma unroll 8
    for (unsigned i = 0; i < rounds; ++i) {
        const uint4 v = __ldca(region + ((threadIdx.x + i * 32) & 1023));
        acc += v.x + v.y + v.z + v.w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void read_l2(const uint4* __restrict__ data, unsigned* __restrict__ out,
                                   unsigned rounds) {
    const uint4* region = data + blockIdx.x * 1024;
    unsigned acc = 0;
#pragma unroll 8
    for (unsigned i = 0; i < rounds; ++i) {
        const uint4 v = __ldcg(region + ((threadIdx.x + i * 32) & 1023));
        acc += v.x + v.y + v.z + v.w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// The reference: the same sums with ordinary 4-byte loads.
extern "C" __global__ void read_reference(const unsigned* data, unsigned* out, unsigned rounds,
                                          unsigned block) {
    const unsigned b = blockIdx.x, t = threadIdx.x;
    unsigned acc = 0;
    for (unsigned i = 0; i < rounds; ++i) {
        const unsigned e = b * 1024 + ((t + i * 32) & 1023);
        acc += data[4 * e] + data[4 * e + 1] + data[4 * e + 2] + data[4 * e + 3];
    }
    out[b * block + t] = acc;
}
