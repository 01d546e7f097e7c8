// An independent CUDA C++ timing of the bank-conflicts experiment, to check `glossary verify`
// against: nvcc, the runtime API, cudaEvent timing, the same kernel body and launch shape as
// measurements/bank-conflicts (8 resident 256-thread blocks on each of the SMs, 8192 shared
// loads per thread). Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 bank_conflicts_ref.cu -o bank_conflicts_ref && ./bank_conflicts_ref
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

constexpr unsigned TILE_WORDS = 32 * 33;

__global__ void smem_stride_read(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                 unsigned stride, unsigned reps) {
    __shared__ unsigned tile[TILE_WORDS];
    for (unsigned i = threadIdx.x; i < TILE_WORDS; i += blockDim.x) tile[i] = in[i];
    __syncthreads();
    const unsigned word = (threadIdx.x & 31u) * stride;
    volatile unsigned* v = tile;
    unsigned acc = 0;
#pragma unroll 16
    for (unsigned r = 0; r < reps; ++r) acc += v[word];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main() {
    int sms = 0; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned block = 256, blocks_per_sm = 8, grid = sms * blocks_per_sm, reps = 8192;
    const unsigned warps_per_sm = blocks_per_sm * block / 32;
    std::vector<unsigned> h(TILE_WORDS);
    for (unsigned i = 0; i < TILE_WORDS; ++i) h[i] = i * 2654435761u;
    unsigned *in, *out;
    CHECK(cudaMalloc(&in, TILE_WORDS * 4)); CHECK(cudaMalloc(&out, (size_t)grid * block * 4));
    CHECK(cudaMemcpy(in, h.data(), TILE_WORDS * 4, cudaMemcpyHostToDevice));
    cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
    for (unsigned stride : {1u, 2u, 4u, 8u, 16u, 32u, 33u}) {
        for (int i = 0; i < 20; ++i) smem_stride_read<<<grid, block>>>(in, out, stride, reps);
        CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
        std::vector<unsigned> got((size_t)grid * block);
        CHECK(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
        for (size_t t = 0; t < got.size(); t += 4099)
            if (got[t] != h[(t % 32) * stride] * reps) { std::fprintf(stderr, "stride %u: wrong out[%zu]\n", stride, t); return 1; }
        std::vector<float> ms;
        for (int i = 0; i < 100; ++i) {
            CHECK(cudaEventRecord(s)); smem_stride_read<<<grid, block>>>(in, out, stride, reps); CHECK(cudaEventRecord(e));
            CHECK(cudaEventSynchronize(e)); float t; CHECK(cudaEventElapsedTime(&t, s, e)); ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        std::printf("bank-conflicts stride %-2u median %.4f ms  %.3f ns per warp access per SM\n", stride, med,
                    med * 1e6 / ((double)reps * warps_per_sm));
    }
    return 0;
}
