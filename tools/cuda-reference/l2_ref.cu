// An independent CUDA C++ timing of the L2 experiment, to check `glossary verify` against:
// nvcc, the runtime API, cudaEvent timing, the same kernel body and launch shape as
// measurements/l2-cache (8 resident 256-thread blocks per SM, 1024 16-byte reads per thread
// from a working set of 1 MiB to 1 GiB). Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 l2_ref.cu -o l2_ref && ./l2_ref
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

__global__ void l2_sweep(const uint4* __restrict__ ws, unsigned* __restrict__ out, unsigned mask, unsigned reads_per_thread) {
    const unsigned threads = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned acc = 0;
#pragma unroll 8
    for (unsigned k = 0; k < reads_per_thread; ++k) {
        const uint4 v = __ldcg(ws + ((t + k * threads) & mask));
        acc += v.x + v.y + v.z + v.w;
    }
    out[t] = acc;
}

int main() {
    int sms = 0, l2 = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    const unsigned block = 256, grid = sms * 8, reads = 1024, threads = grid * block;
    const size_t max_bytes = 1ull << 30;
    std::vector<unsigned> h(max_bytes / 4);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (unsigned)((i * 2654435761ull) >> 5);
    unsigned* ws; unsigned* out;
    CHECK(cudaMalloc(&ws, max_bytes)); CHECK(cudaMalloc(&out, threads * 4ull));
    CHECK(cudaMemcpy(ws, h.data(), max_bytes, cudaMemcpyHostToDevice));
    std::printf("L2 %d bytes (%.1f MiB), %d SMs\n", l2, l2 / 1048576.0, sms);
    cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
    for (unsigned mib = 1; mib <= 1024; mib *= 2) {
        const unsigned mask = mib * 65536u - 1;  // 16-byte elements in mib MiB, minus one
        for (int i = 0; i < 20; ++i) l2_sweep<<<grid, block>>>((const uint4*)ws, out, mask, reads);
        CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
        std::vector<unsigned> got(threads);
        CHECK(cudaMemcpy(got.data(), out, threads * 4ull, cudaMemcpyDeviceToHost));
        for (unsigned t = 0; t < threads; t += 7919) {
            unsigned acc = 0;
            for (unsigned long long k = 0; k < reads; ++k) {
                size_t el = (t + k * threads) % (mask + 1ull);
                acc += h[4 * el] + h[4 * el + 1] + h[4 * el + 2] + h[4 * el + 3];
            }
            if (acc != got[t]) { std::fprintf(stderr, "%u MiB: wrong out[%u]\n", mib, t); return 1; }
        }
        std::vector<float> ms;
        for (int i = 0; i < 100; ++i) {
            CHECK(cudaEventRecord(s)); l2_sweep<<<grid, block>>>((const uint4*)ws, out, mask, reads); CHECK(cudaEventRecord(e));
            CHECK(cudaEventSynchronize(e)); float t; CHECK(cudaEventElapsedTime(&t, s, e)); ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        std::printf("l2-cache ws %5u MiB median %.4f ms  %.1f GB/s\n", mib, med, 16.0 * threads * reads / (med * 1e-3) / 1e9);
    }
    return 0;
}
