// Independent check of measurements/kernel-launch-overhead with its own harness (plain
// CUDA runtime, cudaEvent timing, median of 60 samples after a warm-up): the same tiny
// kernel, the same spin ahead of each sample, the same launch counts. Prints one line per
// row, "<experiment> <label> median X ms", the time of one sample (all its launches), as
// tools/device/compare-references.py reads it, plus the host's enqueue time per launch.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); std::exit(1); } } while (0)

__global__ void tiny(unsigned* __restrict__ out, unsigned tag) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tag ^ i;
}

__global__ void spin(unsigned long long* spun, unsigned long long cycles) {
    const long long start = clock64();
    long long now = start;
    while ((unsigned long long)(now - start) < cycles) now = clock64();
    if (threadIdx.x == 0) spun[0] = (unsigned long long)(now - start);
}

struct Row { const char* label; int per_sample; bool graph; bool queued; bool full; };

int main() {
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned* out;
    unsigned long long* spun;
    CK(cudaMalloc(&out, sizeof(unsigned) * sms * 4 * 256));
    CK(cudaMalloc(&spun, 8));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const Row rows[] = {
        {"one-1b", 1, false, false, false},          {"stream-1b", 1000, false, false, false},
        {"queued-1b", 256, false, true, false},      {"queued1000-1b", 1000, false, true, false},
        {"graph-1b", 1000, true, true, false},       {"one-full", 1, false, false, true},
        {"stream-full", 1000, false, false, true},   {"queued-full", 256, false, true, true},
        {"queued1000-full", 1000, false, true, true}, {"graph-full", 1000, true, true, true},
    };
    const unsigned long long spin_cycles = 20000000ull;  // as the experiment: 10 ms at 1980 MHz
    for (const Row& r : rows) {
        const int blocks = r.full ? sms * 4 : 1, block = r.full ? 256 : 32;
        cudaGraphExec_t exec = nullptr;
        if (r.graph) {
            cudaGraph_t g;
            CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
            for (int i = 0; i < r.per_sample; ++i) tiny<<<blocks, block, 0, s>>>(out, 2654435761u);
            CK(cudaStreamEndCapture(s, &g));
            CK(cudaGraphInstantiate(&exec, g, 0));
            CK(cudaGraphDestroy(g));
        }
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        std::vector<float> ms;
        std::vector<double> host_us;
        for (int it = 0; it < 70; ++it) {
            spin<<<1, 32, 0, s>>>(spun, r.queued ? spin_cycles : 0);
            CK(cudaEventRecord(a, s));
            auto h0 = std::chrono::steady_clock::now();
            if (r.graph) CK(cudaGraphLaunch(exec, s));
            else for (int i = 0; i < r.per_sample; ++i) tiny<<<blocks, block, 0, s>>>(out, 2654435761u);
            auto h1 = std::chrono::steady_clock::now();
            CK(cudaEventRecord(b, s));
            CK(cudaEventSynchronize(b));
            float t;
            CK(cudaEventElapsedTime(&t, a, b));
            if (it >= 10) {
                ms.push_back(t);
                host_us.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count() / r.per_sample);
            }
        }
        CK(cudaGetLastError());
        std::sort(ms.begin(), ms.end());
        std::sort(host_us.begin(), host_us.end());
        const float med = (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
        const double hmed = (host_us[host_us.size() / 2 - 1] + host_us[host_us.size() / 2]) / 2;
        std::printf("kernel-launch-overhead %-15s median %.4f ms  %.3f us per launch on the GPU  %.3f us host per launch\n",
                    r.label, med, 1e3 * med / r.per_sample, hmed);
        if (exec) CK(cudaGraphExecDestroy(exec));
    }
    return 0;
}
