// Day 10: one kernel, thirteen block sizes.
//
// A three-point smoothing stencil, y[i] = x[i-1]/4 + x[i]/2 + x[i+1]/4 with the ends
// clamped, one element per thread. The grid covers the array exactly once whatever the
// block size, so the only thing a configuration changes is how the same threads are
// grouped into blocks: how many blocks fit on an SM, how many warps that makes, and how
// the last, partly filled block and wave fall.
//
// Each element of x is read from DRAM once; the neighbours a thread also reads are the
// elements its neighbouring threads load, so they come from L1. Bytes moved per element:
// one float read, one float written.

extern "C" __global__ void smooth3(const float* __restrict__ x, float* __restrict__ y,
                                   unsigned int n) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    const float left = x[i == 0 ? 0 : i - 1];
    const float right = x[i + 1 < n ? i + 1 : n - 1];
    y[i] = 0.25f * left + 0.5f * x[i] + 0.25f * right;
}

// The reference every block size is checked against, written the plain way: one element
// per thread with the edge cases spelled out, launched at a fixed 256-thread block.
extern "C" __global__ void smooth3_reference(const float* __restrict__ x,
                                             float* __restrict__ y, unsigned int n) {
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    float left = x[i];
    float right = x[i];
    if (i > 0) {
        left = x[i - 1];
    }
    if (i + 1 < n) {
        right = x[i + 1];
    }
    y[i] = 0.25f * left + 0.5f * x[i] + 0.25f * right;
}
