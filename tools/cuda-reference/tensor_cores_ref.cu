// nvcc-arch: sm_90a
// An independent CUDA C++ timing of the tensor-cores experiment's new rows (wgmma bf16 and
// FP8, FP8 mma.sync) and its mma.sync bf16 row, to check `glossary verify` against: nvcc
// and the runtime API in place of NVRTC and the driver API, its own inputs, its own
// host-side check of every output element (exact: the inputs are small integers),
// cudaEvent timing (50 warm-up launches, the median of 100). The kernels are the
// experiment's own tensor.cu, included, so both time the same code; the launch shapes are
// the experiment's. wgmma needs the arch-specific target (the first line tells
// tools/device/references.sh). Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90a tensor_cores_ref.cu -o tensor_cores_ref && ./tensor_cores_ref
// Prints one line per row: "tensor-cores <label> median X ms ...".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#include "../../measurements/tensor-cores/tensor.cu"

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

typedef void (*Kernel)(const int*, const int*, float*, unsigned);

struct Row {
    const char* label;
    Kernel kernel;
    unsigned blocks_per_sm, block, tm, tn, tk, rounds, reps, base;
    bool warpgroups;  // one tile per 128-thread block (wgmma), else one per warp
};

int main() {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    // As measurements/tensor-cores/experiment.yaml: C = reps x (A x B) + base per tile.
    const Row rows[] = {
        {"mma-bf16", tc_mma_bf16, 8, 128, 16, 8, 16, 4096, 4 * 4096, 6, false},
        {"mma-fp8", tc_mma_fp8, 8, 128, 16, 8, 32, 4095, 4, 6, false},
        {"wgmma-bf16", tc_wgmma_bf16, 2, 128, 64, 256, 16, 1023, 4, 0, true},
        {"wgmma-fp8", tc_wgmma_fp8, 2, 128, 64, 256, 32, 1023, 4, 0, true},
    };
    cudaEvent_t s, e;
    CHECK(cudaEventCreate(&s));
    CHECK(cudaEventCreate(&e));
    unsigned long long st = 42;
    for (const Row& r : rows) {
        const unsigned blocks = sms * r.blocks_per_sm;
        const unsigned tiles = r.warpgroups ? blocks : blocks * r.block / 32;
        const size_t na = (size_t)tiles * r.tm * r.tk, nb = (size_t)tiles * r.tn * r.tk,
                     nc = (size_t)tiles * r.tm * r.tn;
        std::vector<int> ha(na), hb(nb);
        for (auto* v : {&ha, &hb}) {
            for (int& x : *v) { st = st * 6364136223846793005ull + 1442695040888963407ull; x = (int)((st >> 33) % 5) - 2; }
        }
        int *a, *b;
        float* c;
        CHECK(cudaMalloc(&a, na * 4));
        CHECK(cudaMalloc(&b, nb * 4));
        CHECK(cudaMalloc(&c, nc * 4));
        CHECK(cudaMemcpy(a, ha.data(), na * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(b, hb.data(), nb * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(c, 0xff, nc * 4));
        r.kernel<<<blocks, r.block>>>(a, b, c, r.rounds);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<float> got(nc);
        CHECK(cudaMemcpy(got.data(), c, nc * 4, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < nc; ++i) {
            const size_t t = i / (r.tm * r.tn), m = i % (r.tm * r.tn) / r.tn, n = i % r.tn;
            long long dot = 0;
            for (unsigned k = 0; k < r.tk; ++k)
                dot += (long long)ha[t * r.tm * r.tk + m * r.tk + k] * hb[t * r.tn * r.tk + n * r.tk + k];
            const float want = (float)((long long)r.reps * dot + r.base);
            if (got[i] != want) {
                std::fprintf(stderr, "%s: C[%zu] (tile %zu, row %zu, column %zu) = %g, want %g\n", r.label, i, t, m, n,
                             got[i], want);
                return 1;
            }
        }
        for (int k = 0; k < 50; ++k) r.kernel<<<blocks, r.block>>>(a, b, c, r.rounds);
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms;
        for (int k = 0; k < 100; ++k) {
            CHECK(cudaEventRecord(s));
            r.kernel<<<blocks, r.block>>>(a, b, c, r.rounds);
            CHECK(cudaEventRecord(e));
            CHECK(cudaEventSynchronize(e));
            float t;
            CHECK(cudaEventElapsedTime(&t, s, e));
            ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        const double flops = 2.0 * r.tm * r.tn * r.tk * 4 * r.rounds * tiles;
        std::printf("tensor-cores %s median %.4f ms  %.1f TFLOP/s\n", r.label, med, flops / (med * 1e9));
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
        CHECK(cudaFree(c));
    }
    return 0;
}
