// An independent CUDA C++ timing of the Day 10 launches (measurements/day10-block-size),
// to check `glossary verify` against: nvcc instead of NVRTC, the runtime API instead of
// the driver API, cudaEvent timing with a fixed sample count instead of verify's stopping
// rule. The kernel source is the experiment's own file, included, so both time the same
// code. Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v day10_ref.cu -o day10_ref && ./day10_ref
// `./day10_ref --once` launches each block size once and times nothing: the run Nsight
// Compute watches for the Day 42 exports.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "../../measurements/day10-block-size/smooth3.cu"

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

int main(int argc, char** argv) {
    const bool once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
    const unsigned int n = 1u << 27;
    std::vector<float> h(n);
    for (unsigned int i = 0; i < n; ++i) h[i] = (float)((i * 2654435761u) % 1000) / 250.0f - 2.0f;
    float *x, *y;
    CHECK(cudaMalloc(&x, (size_t)n * 4));
    CHECK(cudaMalloc(&y, (size_t)n * 4));
    CHECK(cudaMemcpy(x, h.data(), (size_t)n * 4, cudaMemcpyHostToDevice));

    int min_grid = 0, suggested = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &suggested, smooth3, 0, 0));
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, smooth3));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    if (!once)
        std::printf("smooth3: %d registers, %zu local bytes; cudaOccupancyMaxPotentialBlockSize: block %d, min grid %d\n",
                    attr.numRegs, attr.localSizeBytes, suggested, min_grid);

    const int blocks[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024};
    std::vector<float> out(n);
    for (int block : blocks) {
        const unsigned int grid = (n + block - 1) / block;
        if (once) {
            smooth3<<<grid, block>>>(x, y, n);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            continue;
        }
        // Correctness first, against the CPU, on every element.
        CHECK(cudaMemset(y, 0xff, (size_t)n * 4));
        smooth3<<<grid, block>>>(x, y, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out.data(), y, (size_t)n * 4, cudaMemcpyDeviceToHost));
        for (unsigned int i = 0; i < n; ++i) {
            const float l = h[i == 0 ? 0 : i - 1], r = h[i + 1 < n ? i + 1 : n - 1];
            const float want = 0.25f * l + 0.5f * h[i] + 0.25f * r;
            if (std::fabs(out[i] - want) > 1e-6f * (1.0f + std::fabs(want))) {
                std::fprintf(stderr, "block %d: y[%u] = %g, want %g\n", block, i, out[i], want);
                return 1;
            }
        }
        for (int i = 0; i < 200; ++i) smooth3<<<grid, block>>>(x, y, n);
        CHECK(cudaDeviceSynchronize());
        cudaEvent_t s, e;
        CHECK(cudaEventCreate(&s));
        CHECK(cudaEventCreate(&e));
        std::vector<float> ms;
        for (int i = 0; i < 300; ++i) {
            CHECK(cudaEventRecord(s));
            smooth3<<<grid, block>>>(x, y, n);
            CHECK(cudaEventRecord(e));
            CHECK(cudaEventSynchronize(e));
            float t;
            CHECK(cudaEventElapsedTime(&t, s, e));
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        int per_sm = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, smooth3, block, 0));
        std::printf("b%-5d grid %8u blocks/SM %2d occupancy %5.1f%% waves %8.2f median %.4f ms  %.1f GB/s\n",
                    block, grid, per_sm, 100.0 * per_sm * block / 2048.0,
                    (double)grid / ((double)per_sm * sms), med, 8.0 * n / (med * 1e-3) / 1e9);
    }
    return 0;
}
