// Warp shuffle: the exchange against shared memory, the shuffle unit's own rate, and a
// warp reduction by a shuffle tree against __reduce_add_sync.
//
// Every kernel takes (in, out, rounds); thread gid's chain j reads in[j * threads + gid]
// and writes out[j * threads + gid]. All arithmetic is u32, so every answer is exact and
// the reference (lane 0 of each warp computing all 32 lanes) must match bit for bit.
//
// Each kernel is warp_<via>_c<chains>, as the experiment names it.
//
// warp_shfl_c1, warp_smem_c1: each round, every lane takes the value of lane (lane XOR m), m cycling
//   1, 2, 4, 8, 16 (a butterfly, as in a warp reduction), and sets v = 3v + partner's v:
//   by one __shfl_xor_sync, or through the warp's own 32 words of shared memory (store,
//   __syncwarp, load the partner's word, __syncwarp so no lane overwrites a word before it
//   is read). The mask changes every round, so each round pays for `r % 5` and a shift:
//   these rows time a round of a reduction-like loop, not the shuffle unit.
// warp_tput_cC: the shuffle unit's rate. C independent chains per thread, each with its own
//   constant lane mask (1 << (j % 5)), the round loop unrolled 8 deep, so each shuffle
//   costs one SHFL and one IADD (v = shfl(v) + a per-lane constant, which keeps the values
//   from collapsing: a symmetric combine of the pair would make both lanes equal) and the
//   loop's own instructions are spread over 8 C shuffles.
// warp_tree_cC, warp_redux_cC: a warp sum of each of C independent chains per round, by five
//   __shfl_xor_sync + add steps, or by one __reduce_add_sync (sm_80+: the REDUX
//   instruction, integer only); then v = sum + the per-lane constant.

#define FULL 0xffffffffu

// The per-lane constant of chain j: distinct across lanes and chains, odd.
__device__ __forceinline__ unsigned lane_constant(unsigned lane, unsigned j) {
    return ((lane * 0x9E3779B9u) ^ (j * 0x85EBCA6Bu)) | 1u;
}

extern "C" __global__ void warp_shfl_c1(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                   unsigned rounds) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[gid];
    for (unsigned r = 0; r < rounds; ++r) {
        const unsigned m = 1u << (r % 5);
        v = v * 3u + __shfl_xor_sync(FULL, v, m);
    }
    out[gid] = v;
}

extern "C" __global__ void warp_smem_c1(const unsigned* __restrict__ in, unsigned* __restrict__ out,
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

// How deep the round loop of the throughput kernels is unrolled; `rounds` must be a
// multiple of it (the experiment's rounds are).
#define UNROLL 8

template <int C>
__device__ __forceinline__ void tput_body(const unsigned* __restrict__ in,
                                          unsigned* __restrict__ out, unsigned rounds) {
    const unsigned threads = gridDim.x * blockDim.x;
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32;
    unsigned v[C], c[C];
#pragma unroll
    for (int j = 0; j < C; ++j) {
        v[j] = in[j * threads + gid];
        c[j] = lane_constant(lane, j);
    }
    for (unsigned r = 0; r < rounds; r += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
            for (int j = 0; j < C; ++j) {
                v[j] = __shfl_xor_sync(FULL, v[j], 1u << (j % 5)) + c[j];
            }
        }
    }
#pragma unroll
    for (int j = 0; j < C; ++j) out[j * threads + gid] = v[j];
}

extern "C" __global__ void warp_tput_c1(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                   unsigned rounds) {
    tput_body<1>(in, out, rounds);
}
extern "C" __global__ void warp_tput_c4(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                   unsigned rounds) {
    tput_body<4>(in, out, rounds);
}
extern "C" __global__ void warp_tput_c8(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                   unsigned rounds) {
    tput_body<8>(in, out, rounds);
}

template <int C, bool REDUX>
__device__ __forceinline__ void reduce_body(const unsigned* __restrict__ in,
                                            unsigned* __restrict__ out, unsigned rounds) {
    const unsigned threads = gridDim.x * blockDim.x;
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32;
    unsigned v[C], c[C];
#pragma unroll
    for (int j = 0; j < C; ++j) {
        v[j] = in[j * threads + gid];
        c[j] = lane_constant(lane, j);
    }
    for (unsigned r = 0; r < rounds; r += UNROLL) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
            for (int j = 0; j < C; ++j) {
                unsigned s;
                if (REDUX) {
                    s = __reduce_add_sync(FULL, v[j]);
                } else {
                    s = v[j];
#pragma unroll
                    for (unsigned off = 16; off > 0; off /= 2) s += __shfl_xor_sync(FULL, s, off);
                }
                v[j] = s + c[j];
            }
        }
    }
#pragma unroll
    for (int j = 0; j < C; ++j) out[j * threads + gid] = v[j];
}

extern "C" __global__ void warp_tree_c1(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                   unsigned rounds) {
    reduce_body<1, false>(in, out, rounds);
}
extern "C" __global__ void warp_tree_c4(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                   unsigned rounds) {
    reduce_body<4, false>(in, out, rounds);
}
extern "C" __global__ void warp_redux_c1(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                    unsigned rounds) {
    reduce_body<1, true>(in, out, rounds);
}
extern "C" __global__ void warp_redux_c4(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                    unsigned rounds) {
    reduce_body<4, true>(in, out, rounds);
}

// The reference: lane 0 of each warp computes all 32 lanes of every chain, no exchange at
// all. op 0: the butterfly exchange (warp_shfl_c1 and warp_smem_c1); op 1: the throughput chains;
// op 2: the warp sums (tree and redux alike: a sum mod 2^32 does not depend on its order).
extern "C" __global__ void shuffle_reference(const unsigned* in, unsigned* out, unsigned rounds,
                                             unsigned warps, unsigned op, unsigned chains) {
    const unsigned w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= warps) return;
    const unsigned threads = warps * 32;
    for (unsigned j = 0; j < chains; ++j) {
        unsigned v[32], n[32];
        for (int l = 0; l < 32; ++l) v[l] = in[j * threads + w * 32 + l];
        for (unsigned r = 0; r < rounds; ++r) {
            if (op == 0) {
                const unsigned m = 1u << (r % 5);
                for (int l = 0; l < 32; ++l) n[l] = v[l] * 3u + v[l ^ m];
            } else if (op == 1) {
                const unsigned m = 1u << (j % 5);
                for (int l = 0; l < 32; ++l) n[l] = v[l ^ m] + lane_constant(l, j);
            } else {
                unsigned s = 0;
                for (int l = 0; l < 32; ++l) s += v[l];
                for (int l = 0; l < 32; ++l) n[l] = s + lane_constant(l, j);
            }
            for (int l = 0; l < 32; ++l) v[l] = n[l];
        }
        for (int l = 0; l < 32; ++l) out[j * threads + w * 32 + l] = v[l];
    }
}
