// An independent CUDA C++ timing of the memory-latency experiment, to check `glossary
// verify` against: nvcc, the runtime API, cudaEvent timing, the same chase kernels and
// working sets as measurements/memory-latency (one thread, nodes one 128-byte line apart in
// a random single cycle, the walk continued from launch to launch). Its own permutation
// (std::mt19937_64, Sattolo), so agreement says the latency is the hardware's, not the
// order's. Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 memory_latency_ref.cu -o memory_latency_ref && ./memory_latency_ref
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

template <bool BYPASS_L1>
__global__ void chase(const unsigned* __restrict__ next, unsigned* __restrict__ at, unsigned* __restrict__ out,
                      unsigned steps) {
    unsigned i = at[0], sum = 0;
    for (unsigned s = 0; s < steps; ++s) {
        i = BYPASS_L1 ? __ldcg(next + i) : __ldca(next + i);
        sum += i;
    }
    out[0] = i;
    out[1] = sum;
    at[0] = i;
}

struct Row { const char* label; unsigned long long kib; bool bypass; unsigned steps; };

int main() {
    const Row rows[] = {{"l1-16k", 16, false, 65536},      {"l2-512k", 512, true, 32768},
                        {"l2-4m", 4096, true, 32768},      {"l2-32m", 32768, true, 32768},
                        {"dram-256m", 262144, true, 16384}, {"dram-1g", 1048576, true, 16384}};
    std::mt19937_64 rng(40);
    unsigned *at, *out;
    CHECK(cudaMalloc(&at, 4)); CHECK(cudaMalloc(&out, 8));
    cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
    for (const Row& r : rows) {
        const size_t elements = r.kib * 256, nodes = elements / 32;
        // Sattolo: a uniformly random permutation with a single cycle.
        std::vector<unsigned> perm(nodes);
        for (size_t k = 0; k < nodes; ++k) perm[k] = (unsigned)k;
        for (size_t k = nodes - 1; k > 0; --k) std::swap(perm[k], perm[rng() % k]);
        std::vector<unsigned> h(elements, 0);
        for (size_t k = 0; k < nodes; ++k) h[k * 32] = perm[k] * 32;
        unsigned* next;
        CHECK(cudaMalloc(&next, elements * 4));
        CHECK(cudaMemcpy(next, h.data(), elements * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(at, 0, 4));
        auto launch = [&] {
            if (r.bypass) chase<true><<<1, 1>>>(next, at, out, r.steps);
            else chase<false><<<1, 1>>>(next, at, out, r.steps);
        };
        // Check: the walk from node 0 against the host's.
        launch();
        CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
        unsigned got[2]; CHECK(cudaMemcpy(got, out, 8, cudaMemcpyDeviceToHost));
        unsigned i = 0, sum = 0;
        for (unsigned k = 0; k < r.steps; ++k) { i = h[i]; sum += i; }
        if (got[0] != i || got[1] != sum) { std::fprintf(stderr, "%s: wrong walk\n", r.label); return 1; }
        // Warm-up of about 200 ms, then 100 samples.
        for (int k = 0; k < 20; ++k) launch();
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms;
        for (int k = 0; k < 100; ++k) {
            CHECK(cudaEventRecord(s)); launch(); CHECK(cudaEventRecord(e));
            CHECK(cudaEventSynchronize(e)); float t; CHECK(cudaEventElapsedTime(&t, s, e)); ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        std::printf("memory-latency %-9s median %.4f ms  %.1f ns per load\n", r.label, med, med * 1e6 / r.steps);
        CHECK(cudaFree(next));
    }
    return 0;
}
