// An independent CUDA C++ timing of the memory-coalescing experiment, to check `glossary
// verify` against: nvcc, the runtime API, cudaEvent timing, the same kernel body and launch
// shape as measurements/memory-coalescing (2^28 32-bit words, 16 loads per thread, 256-thread
// blocks). Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 coalescing_ref.cu -o coalescing_ref && ./coalescing_ref
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

constexpr int PER_THREAD = 16;

__global__ void strided_sum(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                            unsigned outputs, unsigned stride, unsigned offset) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= outputs) return;
    unsigned w[PER_THREAD];
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) w[j] = in[offset + stride * (t + (unsigned)j * outputs)];
    unsigned acc = 0;
#pragma unroll
    for (int j = 0; j < PER_THREAD; ++j) acc += w[j];
    out[t] = acc;
}

int main() {
    const unsigned n = 1u << 28;
    std::vector<unsigned> h(n + 32);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (unsigned)((i * 2654435761ull) >> 7);
    unsigned *in, *out;
    CHECK(cudaMalloc(&in, h.size() * 4)); CHECK(cudaMalloc(&out, (n / PER_THREAD) * 4));
    CHECK(cudaMemcpy(in, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    struct Row { const char* label; unsigned stride, offset; } rows[] = {
        {"s1", 1, 0}, {"s1-off1", 1, 1}, {"s2", 2, 0}, {"s4", 4, 0}, {"s8", 8, 0}, {"s16", 16, 0}, {"s32", 32, 0}};
    cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
    for (auto& r : rows) {
        const unsigned outputs = n / r.stride / PER_THREAD;
        const unsigned block = 256, grid = (outputs + block - 1) / block;
        for (int i = 0; i < 50; ++i) strided_sum<<<grid, block>>>(in, out, outputs, r.stride, r.offset);
        CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
        // Spot-check three outputs against the host before timing.
        std::vector<unsigned> got(outputs);
        CHECK(cudaMemcpy(got.data(), out, outputs * 4ull, cudaMemcpyDeviceToHost));
        for (unsigned t : {0u, outputs / 2, outputs - 1}) {
            unsigned acc = 0;
            for (unsigned j = 0; j < PER_THREAD; ++j) acc += h[r.offset + (size_t)r.stride * (t + (size_t)j * outputs)];
            if (acc != got[t]) { std::fprintf(stderr, "%s: out[%u] = %u, expected %u\n", r.label, t, got[t], acc); return 1; }
        }
        std::vector<float> ms;
        for (int i = 0; i < 300; ++i) {
            CHECK(cudaEventRecord(s)); strided_sum<<<grid, block>>>(in, out, outputs, r.stride, r.offset); CHECK(cudaEventRecord(e));
            CHECK(cudaEventSynchronize(e)); float t; CHECK(cudaEventElapsedTime(&t, s, e)); ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        const double useful = 4.0 * outputs * PER_THREAD;
        std::printf("coalescing %-8s median %.4f ms  %.1f GB/s useful\n", r.label, med, useful / (med * 1e-3) / 1e9);
    }
    return 0;
}
