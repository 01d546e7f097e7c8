// The L2 cliff, two ways: the same number of 16-byte reads per thread from a working set
// of `elements` 16-byte elements (any count: no power of two needed), in one of two
// access patterns.
//
// pattern 0, a cyclic sweep of the whole grid: thread t of a grid of T threads reads
// element (t + k * T) mod elements for k = 0 .. reads_per_thread-1. Consecutive lanes read
// consecutive elements (each warp load is 512 contiguous bytes) and the grid as a whole
// sweeps the working set again and again, so every element is re-read only after the
// whole working set has been read: the textbook case where a least-recently-used cache
// one byte too small misses every time.
//
// pattern 1, a streaming sweep per block: the working set is cut into gridDim.x
// contiguous slices of floor(elements / gridDim.x) elements, and block b re-reads its
// own slice: its thread j reads element b * slice + (j + k * blockDim.x) mod slice. Each
// block's slice is re-read as soon as the block has read it, and the blocks resident at
// one time touch only their own slices. (The last elements mod gridDim.x elements, under
// one slice, are not read.)
//
// The index is a modulo, kept as a running remainder: i < span and step < span, so one
// conditional subtraction keeps it exact for any span. Loads go through __ldcg (cache in
// L2, not L1), so what is measured is L2 against DRAM, not the SMs' L1s. The sum is 32-bit
// unsigned, so the check against the reference is exact.

extern "C" __global__ void l2_read(const uint4* __restrict__ ws, unsigned* __restrict__ out,
                                   unsigned elements, unsigned reads_per_thread,
                                   unsigned pattern) {
    const unsigned threads = gridDim.x * blockDim.x;
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned base, span, i, step;
    if (pattern == 0) {
        base = 0;
        span = elements;
        i = t % span;
        step = threads % span;
    } else {
        span = max(elements / gridDim.x, 1u);
        base = blockIdx.x * span;
        i = threadIdx.x % span;
        step = blockDim.x % span;
    }
    const uint4* slice = ws + base;
    unsigned acc = 0;
#pragma unroll 8
    for (unsigned k = 0; k < reads_per_thread; ++k) {
        const uint4 v = __ldcg(slice + i);
        acc += v.x + v.y + v.z + v.w;
        i += step;
        if (i >= span) {
            i -= span;
        }
    }
    out[t] = acc;
}

// The reference: 32-bit loads through the ordinary path, 64-bit index arithmetic and a
// modulo per read, the patterns as defined above.
extern "C" __global__ void l2_read_ref(const unsigned* ws, unsigned* out, unsigned elements,
                                       unsigned reads_per_thread, unsigned pattern) {
    const unsigned long long threads = (unsigned long long)gridDim.x * blockDim.x;
    const unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long slice = elements / gridDim.x;
    if (slice == 0) {
        slice = 1;
    }
    unsigned acc = 0;
    for (unsigned long long k = 0; k < reads_per_thread; ++k) {
        const unsigned long long e =
            pattern == 0 ? (t + k * threads) % elements
                         : blockIdx.x * slice + (threadIdx.x + k * blockDim.x) % slice;
        for (int w = 0; w < 4; ++w) {
            acc += ws[4 * e + w];
        }
    }
    out[t] = acc;
}
