// An independent CUDA C++ timing of the Day 45 launches, to check `glossary verify`
// against: the runtime API, nvcc, cudaEvent timing, the same dial rule (smallest dynamic
// shared memory that leaves the target blocks per SM). Build on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 day45_ref.cu -o day45_ref && ./day45_ref
// `./day45_ref --once` launches each configuration once and times nothing: the run Nsight
// Compute watches for the Day 42 exports.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

template <int EPT>
__global__ void axpy(float a, const float* __restrict__ x, const float* __restrict__ y,
                     float* __restrict__ out, unsigned long long n) {
    extern __shared__ float never_read[];
    unsigned long long base = (unsigned long long)blockIdx.x * blockDim.x * EPT + threadIdx.x;
    float xs[EPT], ys[EPT];
#pragma unroll
    for (int j = 0; j < EPT; ++j) { auto i = base + (unsigned long long)j * blockDim.x; if (i < n) { xs[j] = x[i]; ys[j] = y[i]; } }
#pragma unroll
    for (int j = 0; j < EPT; ++j) { auto i = base + (unsigned long long)j * blockDim.x; if (i < n) out[i] = a * xs[j] + ys[j]; }
}

static bool g_once = false;

struct Row { const char* label; int ept; int target; };

template <int EPT>
void run(const Row& r, const float* x, const float* y, float* out, unsigned long long n) {
    auto k = axpy<EPT>;
    const int block = 512;
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    int optin = 0; CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    auto blocks_at = [&](int smem) { int b = 0; CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, block, smem)); return b; };
    int smem = 0;
    if (r.target > 0 && blocks_at(0) > r.target) {
        int lo = 0, hi = optin;
        while (hi - lo > 1) { int mid = lo + (hi - lo) / 2; if (blocks_at(mid) > r.target) lo = mid; else hi = mid; }
        smem = hi;
    }
    unsigned grid = (unsigned)((n + (unsigned long long)block * EPT - 1) / ((unsigned long long)block * EPT));
    if (g_once) {
        k<<<grid, block, smem>>>(0.75f, x, y, out, n);
        CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
        return;
    }
    for (int i = 0; i < 200; ++i) k<<<grid, block, smem>>>(0.75f, x, y, out, n);
    CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
    cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
    std::vector<float> ms;
    for (int i = 0; i < 500; ++i) {
        CHECK(cudaEventRecord(s)); k<<<grid, block, smem>>>(0.75f, x, y, out, n); CHECK(cudaEventRecord(e));
        CHECK(cudaEventSynchronize(e)); float t; CHECK(cudaEventElapsedTime(&t, s, e)); ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    double med = ms[ms.size() / 2];
    std::printf("%-8s smem %6d blocks/SM %d median %.4f ms  %.1f GB/s\n", r.label, smem, blocks_at(smem), med, 12.0 * n / (med * 1e-3) / 1e9);
}

int main(int argc, char** argv) {
    g_once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
    const unsigned long long n = 1ull << 27;
    std::vector<float> h(n);
    for (unsigned long long i = 0; i < n; ++i) h[i] = 0.25f + (float)((i * 2654435761ull) % 1000) / 600.0f;
    float *x, *y, *out;
    CHECK(cudaMalloc(&x, n * 4)); CHECK(cudaMalloc(&y, n * 4)); CHECK(cudaMalloc(&out, n * 4));
    CHECK(cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, h.data(), n * 4, cudaMemcpyHostToDevice));
    Row rows[] = {{"tlp1", 1, 0}, {"tlp1-b3", 1, 3}, {"tlp1-b2", 1, 2}, {"tlp1-b1", 1, 1}, {"ilp2-b2", 2, 2},
                  {"ilp2-b1", 2, 1}, {"ilp4", 4, 0}, {"ilp4-b2", 4, 2}, {"ilp4-b1", 4, 1}, {"ilp8-b1", 8, 1}};
    for (auto& r : rows) {
        switch (r.ept) {
            case 1: run<1>(r, x, y, out, n); break;
            case 2: run<2>(r, x, y, out, n); break;
            case 4: run<4>(r, x, y, out, n); break;
            default: run<8>(r, x, y, out, n); break;
        }
    }
    return 0;
}
