// Day 45: an axpy-style kernel, out[i] = a * x[i] + y[i] in fp32, at fixed work per
// element while resident blocks per SM are dialled down.
//
// Each block covers one contiguous chunk of blockDim.x * EPT elements, and the grid covers
// the array exactly once (no grid-stride loop), so waves are meaningful. Thread t of a
// block handles elements t, t + blockDim.x, ..., so each load instruction is coalesced
// across the warp. A thread issues all 2 * EPT loads (x and y for each of its elements)
// before it uses any of them: those are the loads in flight the experiment counts.
//
// The result goes to a third array, not back into y, so the check can poison it first;
// the bytes moved per element are the same 12 (read x, read y, write one float).
//
// `never_read` is the occupancy dial: verify launches with enough dynamic shared memory
// to leave the target number of blocks resident per SM. No thread touches it.

extern __shared__ float never_read[];

template <int EPT>
__device__ __forceinline__ void axpy_body(float a, const float* __restrict__ x,
                                          const float* __restrict__ y,
                                          float* __restrict__ out, unsigned long long n) {
    const unsigned long long base =
        (unsigned long long)blockIdx.x * blockDim.x * EPT + threadIdx.x;
    float xs[EPT];
    float ys[EPT];
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
        const unsigned long long i = base + (unsigned long long)j * blockDim.x;
        if (i < n) {
            xs[j] = x[i];
            ys[j] = y[i];
        }
    }
#pragma unroll
    for (int j = 0; j < EPT; ++j) {
        const unsigned long long i = base + (unsigned long long)j * blockDim.x;
        if (i < n) {
            out[i] = a * xs[j] + ys[j];
        }
    }
}

extern "C" __global__ void axpy_ept1(float a, const float* __restrict__ x,
                                     const float* __restrict__ y, float* __restrict__ out,
                                     unsigned long long n) {
    axpy_body<1>(a, x, y, out, n);
}

extern "C" __global__ void axpy_ept2(float a, const float* __restrict__ x,
                                     const float* __restrict__ y, float* __restrict__ out,
                                     unsigned long long n) {
    axpy_body<2>(a, x, y, out, n);
}

extern "C" __global__ void axpy_ept4(float a, const float* __restrict__ x,
                                     const float* __restrict__ y, float* __restrict__ out,
                                     unsigned long long n) {
    axpy_body<4>(a, x, y, out, n);
}

extern "C" __global__ void axpy_ept8(float a, const float* __restrict__ x,
                                     const float* __restrict__ y, float* __restrict__ out,
                                     unsigned long long n) {
    axpy_body<8>(a, x, y, out, n);
}

// The reference every configuration is checked against: one element per thread, no
// dial, nothing clever. It runs on the same seeded inputs before each check.
extern "C" __global__ void axpy_reference(float a, const float* __restrict__ x,
                                          const float* __restrict__ y,
                                          float* __restrict__ out, unsigned long long n) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i] + y[i];
    }
}
