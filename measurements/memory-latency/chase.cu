// Memory latency by pointer chase: one thread follows a single random cycle through a
// working set, so every load's address depends on the previous load's value and no two
// loads overlap. Time per step is the latency of one dependent load.
//
// `next` is filled by verify (`fill: {cycle: 32}`): the nodes sit 32 u32 elements (128
// bytes, one cache line) apart, so each step touches a new line, and the order is a seeded
// random permutation, so no prefetcher can guess the next line.
//
// Two ways to walk it:
// - chase32: `i = next[i]` on the u32 indexes. Each step also turns the index into an
//   address (a multiply-add, IMAD.WIDE) before the load can issue: a few cycles of integer
//   arithmetic on the dependent path, which the 32-bit chases of most papers include.
// - chase64: `p = *p` on 64-bit pointers. `to_pointers` (an untimed launch that runs once)
//   writes beside each node's index the address of the next node, so a step is the load
//   alone. The pair of rows at one size measures what the index arithmetic costs.
// Every chase kernel takes the arguments of the loaded one (one launch line serves all).
// `_bypass0` loads through L1 (ld.global.ca); `_bypass1` bypasses L1 (ld.global.cg), so a
// working set that fits in L2 is served by L2.
//
// The walk goes on from launch to launch: it starts at node index `at[0]` and leaves its
// last index there. A launch takes far fewer steps than a large working set has nodes; a
// walk restarted at node 0 every launch would revisit the same few thousand lines, which
// stay in L2; continued, it reaches every node of the cycle in turn. The final index and
// the sum of the visited indexes are written out: the check compares them with the
// reference (which reads `at[0]` but leaves it), and the compiler cannot drop the loop.
//
// chase64_bypass1_load1: the same walk by thread 0 of block 0 while every other block streams
// 16-byte loads over `stream` (larger than L2, so from DRAM) until the walk is done: the
// latency a load sees when the memory system is busy, against the idle rows. The walker
// bumps `at[1]` when it finishes; a streaming block stops at the next check after that
// (every pass over its share of `stream`), or after `max_passes` passes, so no launch can
// hang if the walker finished before a block started.

typedef unsigned long long u64;

extern "C" __global__ void to_pointers(const unsigned* __restrict__ next, u64* __restrict__ ptr,
                                       unsigned nodes) {
    unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nodes) {
        unsigned j = k * 32;                       // this node's u32 index
        ptr[j / 2] = (u64)(ptr + next[j] / 2);     // the next node's 64-bit slot
    }
}

template <int BYPASS>
__device__ __forceinline__ unsigned ld32(const unsigned* p) {
    return BYPASS ? __ldcg(p) : __ldca(p);
}
template <int BYPASS>
__device__ __forceinline__ u64 ld64(const u64* p) {
    return BYPASS ? __ldcg((const unsigned long long*)p) : __ldca((const unsigned long long*)p);
}

template <int BYPASS>
__device__ void chase32(const unsigned* __restrict__ next, unsigned* __restrict__ at,
                        unsigned* __restrict__ out, unsigned steps) {
    unsigned i = at[0], sum = 0;
    for (unsigned s = 0; s < steps; ++s) {
        i = ld32<BYPASS>(next + i);
        sum += i;
    }
    out[0] = i;
    out[1] = sum;
    at[0] = i;
}

template <int BYPASS>
__device__ void chase64(const u64* __restrict__ ptr, unsigned* __restrict__ at,
                        unsigned* __restrict__ out, unsigned steps) {
    const u64 base = (u64)ptr;
    const u64* p = ptr + at[0] / 2;
    unsigned sum = 0;
    for (unsigned s = 0; s < steps; ++s) {
        p = (const u64*)ld64<BYPASS>(p);
        sum += (unsigned)(((u64)p - base) >> 2);   // the index, off the dependent path
    }
    unsigned i = (unsigned)(((u64)p - base) >> 2);
    out[0] = i;
    out[1] = sum;
    at[0] = i;
}

extern "C" __global__ void chase32_bypass0_load0(const unsigned* next, const u64* ptr, unsigned* at,
                                           unsigned* out, unsigned steps, const uint4*,
                                           unsigned long long, unsigned*, unsigned) {
    chase32<0>(next, at, out, steps);
}
extern "C" __global__ void chase32_bypass1_load0(const unsigned* next, const u64* ptr, unsigned* at,
                                           unsigned* out, unsigned steps, const uint4*,
                                           unsigned long long, unsigned*, unsigned) {
    chase32<1>(next, at, out, steps);
}
extern "C" __global__ void chase64_bypass0_load0(const unsigned* next, const u64* ptr, unsigned* at,
                                           unsigned* out, unsigned steps, const uint4*,
                                           unsigned long long, unsigned*, unsigned) {
    chase64<0>(ptr, at, out, steps);
}
extern "C" __global__ void chase64_bypass1_load0(const unsigned* next, const u64* ptr, unsigned* at,
                                           unsigned* out, unsigned steps, const uint4*,
                                           unsigned long long, unsigned*, unsigned) {
    chase64<1>(ptr, at, out, steps);
}

extern "C" __global__ void chase64_bypass1_load1(const unsigned* next, const u64* ptr, unsigned* at,
                                          unsigned* out, unsigned steps, const uint4* stream,
                                          unsigned long long stream_vecs, unsigned* sink,
                                          unsigned max_passes) {
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) {
            chase64<1>(ptr, at, out, steps);
            __threadfence();
            atomicAdd(at + 1, 1u);
        }
        return;
    }
    const volatile unsigned* done = at + 1;
    const unsigned start = *done;
    const unsigned long long threads = (unsigned long long)(gridDim.x - 1) * blockDim.x;
    const unsigned long long t = (unsigned long long)(blockIdx.x - 1) * blockDim.x + threadIdx.x;
    unsigned acc = 0;
    for (unsigned pass = 0; pass < max_passes; ++pass) {
        for (unsigned long long v = t; v < stream_vecs; v += threads) {
            uint4 x = __ldcg(stream + v);
            acc ^= x.x ^ x.y ^ x.z ^ x.w;
        }
        if (*done != start) break;
    }
    sink[t] = acc;
}

// The reference: the same walk with ordinary loads and 64-bit index arithmetic.
extern "C" __global__ void chase_reference(const unsigned* next, const unsigned* at, unsigned* out,
                                           unsigned steps) {
    unsigned long long i = at[0];
    unsigned sum = 0;
    for (unsigned s = 0; s < steps; ++s) {
        i = next[i];
        sum += (unsigned)i;
    }
    out[0] = (unsigned)i;
    out[1] = sum;
}
