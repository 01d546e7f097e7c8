// A kernel that wants more registers than any cap: LIVE values stay live across a loop
// whose every step reads two others, so under --maxrregcount=N the compiler uses all N it
// is allowed (spilling the rest). The sweep never launches it; it only asks the driver how
// many blocks of it fit on an SM, and records the register count the driver reports.

#define LIVE 288

extern "C" __global__ void pressure(const float* __restrict__ in, float* __restrict__ out,
                                    int rounds) {
    const int stride = gridDim.x * blockDim.x;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v[LIVE];
#pragma unroll
    for (int k = 0; k < LIVE; ++k) {
        v[k] = in[t + k * stride];
    }
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int k = 0; k < LIVE; ++k) {
            v[k] = fmaf(v[k], v[(k + 1) % LIVE], v[(k + 37) % LIVE]);
        }
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < LIVE; ++k) {
        s = fmaf(s, 1.0001f, v[k]);
    }
    out[t] = s;
}
