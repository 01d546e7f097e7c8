// An independent CUDA C++ timing of the roofline experiment, to check `glossary verify`
// against: nvcc, the runtime API, cudaEvent timing, the same kernel body and launch shape
// as measurements/roofline (2^27 floats, 256-thread blocks of 4 elements per thread, K
// dependent FMAs per element, K = 1 ... 512). Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 roofline_ref.cu -o roofline_ref && ./roofline_ref
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

template <int K>
__global__ void roof(const float* __restrict__ x, float* __restrict__ y, unsigned n, float a, float b) {
    const unsigned base = blockIdx.x * blockDim.x * 4 + threadIdx.x;
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) { const unsigned i = base + j * blockDim.x; v[j] = i < n ? x[i] : 0.0f; }
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
        for (int j = 0; j < 4; ++j) v[j] = fmaf(v[j], a, b);
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) { const unsigned i = base + j * blockDim.x; if (i < n) y[i] = v[j]; }
}

template <int K>
void row(const float* x, float* y, unsigned n, const std::vector<float>& hx, cudaEvent_t s, cudaEvent_t e) {
    const unsigned block = 256, grid = (n + block * 4 - 1) / (block * 4);
    roof<K><<<grid, block>>>(x, y, n, 0.5f, 0.25f);
    CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), y, n * 4ull, cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < n; i += 9973) {
        float v = hx[i];
        for (int k = 0; k < K; ++k) v = std::fmaf(v, 0.5f, 0.25f);
        if (v != got[i]) { std::fprintf(stderr, "k%d: wrong y[%u]\n", K, i); std::exit(1); }
    }
    for (int k = 0; k < 50; ++k) roof<K><<<grid, block>>>(x, y, n, 0.5f, 0.25f);
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int k = 0; k < 100; ++k) {
        CHECK(cudaEventRecord(s)); roof<K><<<grid, block>>>(x, y, n, 0.5f, 0.25f); CHECK(cudaEventRecord(e));
        CHECK(cudaEventSynchronize(e)); float t; CHECK(cudaEventElapsedTime(&t, s, e)); ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    std::printf("roofline k%-3d median %.4f ms  %.2f TFLOP/s  %.0f GB/s\n", K, med, 2.0 * K * n / (med * 1e9),
                8.0 * n / (med * 1e6));
}

int main() {
    const unsigned n = 1u << 27;
    std::vector<float> hx(n);
    unsigned long long st = 41;
    for (auto& v : hx) { st = st * 6364136223846793005ull + 1442695040888963407ull; v = (float)((st >> 40) / 16777216.0 * 2 - 1); }
    float *x, *y;
    CHECK(cudaMalloc(&x, n * 4ull)); CHECK(cudaMalloc(&y, n * 4ull));
    CHECK(cudaMemcpy(x, hx.data(), n * 4ull, cudaMemcpyHostToDevice));
    cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
    row<1>(x, y, n, hx, s, e); row<2>(x, y, n, hx, s, e); row<4>(x, y, n, hx, s, e);
    row<8>(x, y, n, hx, s, e); row<16>(x, y, n, hx, s, e); row<32>(x, y, n, hx, s, e);
    row<40>(x, y, n, hx, s, e); row<48>(x, y, n, hx, s, e); row<56>(x, y, n, hx, s, e);
    row<64>(x, y, n, hx, s, e); row<72>(x, y, n, hx, s, e); row<80>(x, y, n, hx, s, e);
    row<96>(x, y, n, hx, s, e); row<112>(x, y, n, hx, s, e); row<128>(x, y, n, hx, s, e);
    row<160>(x, y, n, hx, s, e); row<192>(x, y, n, hx, s, e); row<256>(x, y, n, hx, s, e);
    row<512>(x, y, n, hx, s, e);
    return 0;
}
