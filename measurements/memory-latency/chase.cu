// Memory latency by pointer chase: one thread follows a single random cycle through a
// working set, `i = next[i]`, so every load's address depends on the previous load's
// value and no two loads overlap. Time per step is the latency of one dependent load
// (plus the one integer multiply-add that turns the index into an address, a few cycles).
//
// `next` is filled by verify (`fill: {cycle: STRIDE}`): the nodes sit STRIDE elements
// (128 bytes, one cache line) apart, so each step touches a new line, and the order is a
// seeded random permutation, so no prefetcher can guess the next line.
//
// chase_bypass0 loads through L1 (ld.global.ca); chase_bypass1 bypasses L1 (ld.global.cg) so a
// working set that fits in L2 is served by L2. The final index and the sum of the visited
// indexes are written out: the check compares them with the reference, and the compiler
// cannot drop the loop.
//
// The walk goes on from launch to launch: it starts at `at[0]` and leaves its last index
// there. A launch takes far fewer steps than a large working set has nodes, and a walk
// restarted at node 0 every launch would revisit the same few thousand lines, which stay
// in L2; continued, it reaches every node of the cycle in turn. The reference reads `at[0]`
// too but leaves it, so the checked launch starts where the reference did.

extern "C" __global__ void chase_bypass0(const unsigned* __restrict__ next, unsigned* __restrict__ at,
                                      unsigned* __restrict__ out, unsigned steps) {
    unsigned i = at[0], sum = 0;
    for (unsigned s = 0; s < steps; ++s) {
        i = __ldca(next + i);
        sum += i;
    }
    out[0] = i;
    out[1] = sum;
    at[0] = i;
}

extern "C" __global__ void chase_bypass1(const unsigned* __restrict__ next, unsigned* __restrict__ at,
                                      unsigned* __restrict__ out, unsigned steps) {
    unsigned i = at[0], sum = 0;
    for (unsigned s = 0; s < steps; ++s) {
        i = __ldcg(next + i);
        sum += i;
    }
    out[0] = i;
    out[1] = sum;
    at[0] = i;
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
