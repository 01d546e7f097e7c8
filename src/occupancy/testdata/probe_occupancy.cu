// Probe used to record this folder's H200 fixtures (see README.md here).
// axpy_smem: a light kernel whose occupancy is dialled by dynamic shared memory.
// reg_heavy: keeps 40 values live per thread so registers become the cap.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void axpy_smem(float a, const float* x, float* y, int n) {
    extern __shared__ float s[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { s[threadIdx.x] = x[i]; y[i] = a * s[threadIdx.x] + y[i]; }
}

__global__ void reg_heavy(const float* x, float* y, int n) {
    float acc[40];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
#pragma unroll
    for (int j = 0; j < 40; j++) acc[j] = x[(i + j * 977) % n];
#pragma unroll
    for (int r = 0; r < 8; r++) {
#pragma unroll
        for (int j = 0; j < 40; j++) acc[j] = acc[j] * acc[(j + r + 1) % 40] + 1.0f;
    }
    float t = 0;
#pragma unroll
    for (int j = 0; j < 40; j++) t += acc[j];
    y[i] = t;
}

int main() {
    int n = 1 << 24;
    float *x, *y;
    cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
    cudaMemset(x, 0, n * 4); cudaMemset(y, 0, n * 4);
    cudaFuncSetAttribute(axpy_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000);
    cudaFuncAttributes a;
    cudaFuncGetAttributes(&a, reg_heavy);
    fprintf(stderr, "reg_heavy numRegs=%d\n", a.numRegs);
    cudaFuncGetAttributes(&a, axpy_smem);
    fprintf(stderr, "axpy_smem numRegs=%d\n", a.numRegs);
    struct L { int grid, block; size_t dyn; } ls[] = {
        {(n + 255) / 256, 256, 1024}, {(n + 255) / 256, 256, 60000}, {100, 1000, 4000}};
    for (auto l : ls) {
        int nb;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, axpy_smem, l.block, l.dyn);
        fprintf(stderr, "driver axpy_smem block=%d dyn=%zu blocks_per_sm=%d\n", l.block, l.dyn, nb);
        axpy_smem<<<l.grid, l.block, l.dyn>>>(2.f, x, y, n);
    }
    int nb;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, reg_heavy, 256, 0);
    fprintf(stderr, "driver reg_heavy block=256 dyn=0 blocks_per_sm=%d\n", nb);
    reg_heavy<<<200, 256>>>(x, y, n);
    cudaError_t e = cudaDeviceSynchronize();
    fprintf(stderr, "sync=%s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
