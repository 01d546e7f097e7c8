// An independent CUDA C++ timing of the warp-shuffle experiment, to check `glossary verify`
// against: nvcc, the runtime API, cudaEvent timing, the same kernels and launch shapes as
// measurements/warp-shuffle (4096 butterfly rounds; full: 8 x 256-thread blocks per SM,
// one: one warp per SM). Build and run on the node:
//   nvcc -O3 -std=c++17 -arch=sm_90 warp_shuffle_ref.cu -o warp_shuffle_ref && ./warp_shuffle_ref
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

__global__ void xchg_shfl(const unsigned* __restrict__ in, unsigned* __restrict__ out, unsigned rounds) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[gid];
    for (unsigned r = 0; r < rounds; ++r) v = v * 3u + __shfl_xor_sync(0xffffffffu, v, 1u << (r % 5));
    out[gid] = v;
}

__global__ void xchg_smem(const unsigned* __restrict__ in, unsigned* __restrict__ out, unsigned rounds) {
    __shared__ unsigned words[1024];
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    volatile unsigned* mine = words + (threadIdx.x - lane);
    unsigned v = in[gid];
    for (unsigned r = 0; r < rounds; ++r) {
        mine[lane] = v;
        __syncwarp();
        const unsigned p = mine[lane ^ (1u << (r % 5))];
        __syncwarp();
        v = v * 3u + p;
    }
    out[gid] = v;
}

int main() {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const unsigned rounds = 4096, max_threads = sms * 8 * 256;
    std::vector<unsigned> h(max_threads);
    unsigned long long st = 45;
    for (auto& v : h) { st = st * 6364136223846793005ull + 1442695040888963407ull; v = (unsigned)(st >> 32); }
    unsigned *in, *out;
    CHECK(cudaMalloc(&in, max_threads * 4ull)); CHECK(cudaMalloc(&out, max_threads * 4ull));
    CHECK(cudaMemcpy(in, h.data(), max_threads * 4ull, cudaMemcpyHostToDevice));
    cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
    for (int via = 0; via < 2; ++via) {
        for (int full = 1; full >= 0; --full) {
            const unsigned block = full ? 256 : 32, grid = full ? sms * 8 : sms, threads = grid * block;
            auto launch = [&] {
                if (via == 0) xchg_shfl<<<grid, block>>>(in, out, rounds);
                else xchg_smem<<<grid, block>>>(in, out, rounds);
            };
            launch();
            CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());
            std::vector<unsigned> got(threads);
            CHECK(cudaMemcpy(got.data(), out, threads * 4ull, cudaMemcpyDeviceToHost));
            for (unsigned w = 0; w < threads / 32; w += 97) {  // the host's butterfly, every 97th warp
                unsigned v[32], n[32];
                for (int l = 0; l < 32; ++l) v[l] = h[w * 32 + l];
                for (unsigned r = 0; r < rounds; ++r) {
                    for (int l = 0; l < 32; ++l) n[l] = v[l] * 3u + v[l ^ (1u << (r % 5))];
                    for (int l = 0; l < 32; ++l) v[l] = n[l];
                }
                for (int l = 0; l < 32; ++l)
                    if (v[l] != got[w * 32 + l]) { std::fprintf(stderr, "wrong out[%u]\n", w * 32 + l); return 1; }
            }
            for (int k = 0; k < 50; ++k) launch();
            CHECK(cudaDeviceSynchronize());
            std::vector<float> ms;
            for (int k = 0; k < 100; ++k) {
                CHECK(cudaEventRecord(s)); launch(); CHECK(cudaEventRecord(e));
                CHECK(cudaEventSynchronize(e)); float t; CHECK(cudaEventElapsedTime(&t, s, e)); ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            const double med = ms[ms.size() / 2];
            std::printf("warp-shuffle %s-%s median %.4f ms  %.2f ns per round\n", via == 0 ? "shfl" : "smem",
                        full ? "full" : "one", med, med * 1e6 / rounds);
        }
    }
    return 0;
}
