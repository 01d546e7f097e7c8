// An independent CUDA C++ timing of the async-copy experiment, to check `glossary verify`
// against: nvcc and the runtime API in place of NVRTC and the driver API, its own inputs,
// its own host-side check of every output word, cudaEvent timing (50 warm-up launches,
// the median of 100). The kernels are the experiment's own stage.cu, included, so both
// time the same code; the launch shapes are the experiment's (256-thread blocks, per_sm x
// SMs of them, 512 / per_sm tiles of 16 KiB each, 1 GiB in all). Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 async_copy_ref.cu -o async_copy_ref && ./async_copy_ref
// Prints one line per row: "async-copy <label> median X ms ...".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#include "../../measurements/async-copy/stage.cu"

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

typedef void (*Stage)(const uint4*, unsigned*, unsigned);

int main() {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    // The largest grid (per_sm 4) and the same total for every row: sms x 512 tiles.
    const size_t words = (size_t)sms * 512 * TILE * 4;
    std::vector<unsigned> h(words);
    unsigned long long st = 48;
    for (auto& v : h) { st = st * 6364136223846793005ull + 1442695040888963407ull; v = (unsigned)(st >> 32); }
    unsigned* src;
    unsigned* out;
    CHECK(cudaMalloc(&src, words * 4));
    CHECK(cudaMalloc(&out, (size_t)sms * 4 * THREADS * 4));
    CHECK(cudaMemcpy(src, h.data(), words * 4, cudaMemcpyHostToDevice));
    cudaEvent_t s, e;
    CHECK(cudaEventCreate(&s));
    CHECK(cudaEventCreate(&e));
    const struct { const char* name; Stage k; } stages[] = {
        {"plain", stage_plain}, {"async", stage_async}, {"regpf", stage_regpf},
        {"async2", stage_async2}, {"bulk", stage_bulk}};
    for (unsigned per_sm : {1u, 4u}) {
        const unsigned blocks = sms * per_sm, tiles = 512 / per_sm;
        // What every kernel must leave: thread t of block b sums, over its block's tiles,
        // the 4 words of each element its neighbour (t + 1) staged.
        std::vector<unsigned> want((size_t)blocks * THREADS);
        for (unsigned b = 0; b < blocks; ++b) {
            for (unsigned t = 0; t < THREADS; ++t) {
                const unsigned n = (t + 1) % THREADS;
                unsigned acc = 0;
                for (unsigned k = 0; k < tiles; ++k) {
                    for (unsigned j = 0; j < PER; ++j) {
                        const size_t el = ((size_t)b * tiles + k) * TILE + j * THREADS + n;
                        acc += h[4 * el] + h[4 * el + 1] + h[4 * el + 2] + h[4 * el + 3];
                    }
                }
                want[(size_t)b * THREADS + t] = acc;
            }
        }
        for (const auto& row : stages) {
            CHECK(cudaMemset(out, 0xff, (size_t)blocks * THREADS * 4));
            row.k<<<blocks, THREADS>>>((const uint4*)src, out, tiles);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            std::vector<unsigned> got(want.size());
            CHECK(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < got.size(); ++i) {
                if (got[i] != want[i]) {
                    std::fprintf(stderr, "%s-b%u: out[%zu] = %u, want %u\n", row.name, per_sm, i, got[i], want[i]);
                    return 1;
                }
            }
            for (int k = 0; k < 50; ++k) row.k<<<blocks, THREADS>>>((const uint4*)src, out, tiles);
            CHECK(cudaDeviceSynchronize());
            std::vector<float> ms;
            for (int k = 0; k < 100; ++k) {
                CHECK(cudaEventRecord(s));
                row.k<<<blocks, THREADS>>>((const uint4*)src, out, tiles);
                CHECK(cudaEventRecord(e));
                CHECK(cudaEventSynchronize(e));
                float t;
                CHECK(cudaEventElapsedTime(&t, s, e));
                ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            const double med = ms[ms.size() / 2];
            std::printf("async-copy %s-b%u median %.4f ms  %.0f GB/s\n", row.name, per_sm, med,
                        (double)words * 4 / (med * 1e6));
        }
    }
    return 0;
}
