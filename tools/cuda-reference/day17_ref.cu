// An independent CUDA C++ timing of the Day 17 launches (measurements/day17-registers),
// to check `glossary verify` against: nvcc instead of NVRTC, the runtime API, cudaEvent
// timing with a fixed sample count. The kernel source is the experiment's own file,
// included, so both time the same code; the registers and local (spill) bytes printed are
// nvcc's, from cudaFuncGetAttributes. Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v day17_ref.cu -o day17_ref && ./day17_ref
// `./day17_ref --once` launches each budget once and times nothing (for Nsight Compute).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "../../measurements/day17-registers/tile.cu"

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

typedef void (*Kernel)(const float*, const float*, float*, unsigned int, unsigned int);
struct Budget { const char* label; Kernel k; };

int main(int argc, char** argv) {
    const bool once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
    const unsigned int block = 256, grid = 1320, threads = block * grid, k_steps = 512;
    std::vector<float> hx((size_t)TILE * threads), hw((size_t)TILE * k_steps);
    for (size_t i = 0; i < hx.size(); ++i) hx[i] = 0.5f + (float)((i * 2654435761u) % 1000) / 1000.0f;
    for (size_t i = 0; i < hw.size(); ++i) hw[i] = (float)((i * 40503u) % 2001) / 1000.0f - 1.0f;
    float *x, *w, *out;
    const size_t out_n = (size_t)TILE * TILE * threads;
    CHECK(cudaMalloc(&x, hx.size() * 4));
    CHECK(cudaMalloc(&w, hw.size() * 4));
    CHECK(cudaMalloc(&out, out_n * 4));
    CHECK(cudaMemcpy(x, hx.data(), hx.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(w, hw.data(), hw.size() * 4, cudaMemcpyHostToDevice));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

    const Budget budgets[] = {{"free", tile_b0}, {"lb3", tile_b3}, {"lb4", tile_b4},
                              {"lb6", tile_b6}, {"lb8", tile_b8}};
    std::vector<float> first, got(out_n);
    for (const Budget& b : budgets) {
        if (once) {
            b.k<<<grid, block>>>(x, w, out, k_steps, threads);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            continue;
        }
        // Correctness first: every budget must match the first bit for bit (same fmaf order),
        // and the first must match the CPU within float rounding on a sample of threads.
        CHECK(cudaMemset(out, 0xff, out_n * 4));
        b.k<<<grid, block>>>(x, w, out, k_steps, threads);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got.data(), out, out_n * 4, cudaMemcpyDeviceToHost));
        if (first.empty()) {
            first = got;
            for (unsigned int t = 0; t < threads; t += 997) {
                for (int i = 0; i < TILE; ++i)
                    for (int j = 0; j < TILE; ++j) {
                        float acc = 0.0f;
                        for (unsigned int k = 0; k < k_steps; ++k)
                            acc = std::fmaf(hx[(size_t)i * threads + t], hw[k * TILE + j], acc);
                        const float g = got[(size_t)(i * TILE + j) * threads + t];
                        if (g != acc) {
                            std::fprintf(stderr, "%s: thread %u acc[%d][%d] = %g, CPU %g\n", b.label, t, i, j, g, acc);
                            return 1;
                        }
                    }
            }
        } else if (std::memcmp(first.data(), got.data(), out_n * 4) != 0) {
            std::fprintf(stderr, "%s: output differs from the first budget's\n", b.label);
            return 1;
        }
        for (int i = 0; i < 30; ++i) b.k<<<grid, block>>>(x, w, out, k_steps, threads);
        CHECK(cudaDeviceSynchronize());
        cudaEvent_t s, e;
        CHECK(cudaEventCreate(&s));
        CHECK(cudaEventCreate(&e));
        std::vector<float> ms;
        for (int i = 0; i < 100; ++i) {
            CHECK(cudaEventRecord(s));
            b.k<<<grid, block>>>(x, w, out, k_steps, threads);
            CHECK(cudaEventRecord(e));
            CHECK(cudaEventSynchronize(e));
            float t;
            CHECK(cudaEventElapsedTime(&t, s, e));
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        cudaFuncAttributes attr;
        CHECK(cudaFuncGetAttributes(&attr, b.k));
        int per_sm = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, b.k, block, 0));
        const double fma = (double)threads * TILE * TILE * k_steps;
        std::printf("%-5s regs %3d local %4zu B blocks/SM %d occupancy %5.1f%% waves %5.2f median %.4f ms  %.2f TFLOP/s\n",
                    b.label, attr.numRegs, attr.localSizeBytes, per_sm, 100.0 * per_sm * block / 2048.0,
                    (double)grid / ((double)per_sm * sms), med, 2.0 * fma / (med * 1e-3) / 1e12);
    }
    return 0;
}
