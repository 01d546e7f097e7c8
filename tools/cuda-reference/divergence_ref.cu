// An independent CUDA C++ timing of the warp-divergence experiment, to check `glossary verify`
// against: nvcc, the runtime API, cudaEvent timing, the same kernel body and launch shape as
// measurements/warp-divergence (2^20 threads in 256-thread blocks, 4096 fused multiply-adds per
// path). Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 divergence_ref.cu -o divergence_ref && ./divergence_ref
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

__device__ __forceinline__ unsigned branch_key(unsigned pattern, unsigned lane, const unsigned* keys, unsigned warp) {
    switch (pattern) {
        case 0: return 0;
        case 1: return lane >> 4;
        case 2: return lane & 1u;
        case 3: return lane;
        default: return keys[warp] & 31u;
    }
}

template <int K>
__device__ __forceinline__ float path(float x, unsigned iters) {
    constexpr float a = 1.0f - (float)(K + 1) * (1.0f / 4096.0f);
    constexpr float b = (float)(K + 1) * (1.0f / 256.0f);
#pragma unroll 4
    for (unsigned i = 0; i < iters; ++i) x = fmaf(x, a, b);
    return x;
}

#define PATH(k) case k: x = path<k>(x, iters); break;

__global__ void lane_branch(const float* __restrict__ x0, const unsigned* __restrict__ keys,
                            float* __restrict__ out, unsigned pattern, unsigned iters) {
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned key = branch_key(pattern, threadIdx.x & 31u, keys, t >> 5);
    float x = x0[t];
    switch (key) {
        PATH(0) PATH(1) PATH(2) PATH(3) PATH(4) PATH(5) PATH(6) PATH(7)
        PATH(8) PATH(9) PATH(10) PATH(11) PATH(12) PATH(13) PATH(14) PATH(15)
        PATH(16) PATH(17) PATH(18) PATH(19) PATH(20) PATH(21) PATH(22) PATH(23)
        PATH(24) PATH(25) PATH(26) PATH(27) PATH(28) PATH(29) PATH(30) PATH(31)
    }
    out[t] = x;
}

int main() {
    const unsigned n = 1u << 20, block = 256, grid = n / block, iters = 4096;
    std::vector<float> hx(n);
    std::vector<unsigned> hk(n / 32);
    for (unsigned i = 0; i < n; ++i) hx[i] = (float)((i * 2654435761u) >> 8) / 16777216.0f;
    for (unsigned w = 0; w < n / 32; ++w) hk[w] = (w * 2246822519u) >> 3;
    float *x0, *out; unsigned* keys;
    CHECK(cudaMalloc(&x0, n * 4)); CHECK(cudaMalloc(&out, n * 4)); CHECK(cudaMalloc(&keys, n / 32 * 4));
    CHECK(cudaMemcpy(x0, hx.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(keys, hk.data(), n / 32 * 4, cudaMemcpyHostToDevice));
    const char* labels[] = {"uniform", "half-warp", "odd-even", "lane", "data-per-warp"};
    cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
    for (unsigned pattern = 0; pattern < 5; ++pattern) {
        for (int i = 0; i < 10; ++i) lane_branch<<<grid, block>>>(x0, keys, out, pattern, iters);
        CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
        // Spot-check against the host: the same fmaf chain, rounded once per step.
        std::vector<float> got(n);
        CHECK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
        for (unsigned t = 0; t < n; t += 9973) {
            unsigned lane = t % 32, key = pattern == 0 ? 0 : pattern == 1 ? lane / 16 : pattern == 2 ? lane % 2
                                        : pattern == 3 ? lane : hk[t / 32] % 32;
            float a = 1.0f - (float)(key + 1) / 4096.0f, b = (float)(key + 1) / 256.0f, x = hx[t];
            for (unsigned i = 0; i < iters; ++i) x = std::fmaf(x, a, b);
            if (x != got[t]) { std::fprintf(stderr, "%s: out[%u] = %.9g, expected %.9g\n", labels[pattern], t, got[t], x); return 1; }
        }
        std::vector<float> ms;
        for (int i = 0; i < 100; ++i) {
            CHECK(cudaEventRecord(s)); lane_branch<<<grid, block>>>(x0, keys, out, pattern, iters); CHECK(cudaEventRecord(e));
            CHECK(cudaEventSynchronize(e)); float t; CHECK(cudaEventElapsedTime(&t, s, e)); ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("warp-divergence %-14s median %.4f ms\n", labels[pattern], ms[ms.size() / 2]);
    }
    return 0;
}
