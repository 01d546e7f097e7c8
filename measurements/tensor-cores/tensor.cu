// Tensor cores against FMA units, the same multiply-adds both ways.
//
// Every warp owns a 16x16 tile of A (row-major) and a 16x8 tile of B (stored column by
// column: Bt[n][k]) and computes C = A x B again and again: R rounds, four independent
// accumulator sets per round (so the pipe never waits on one result), 4 x 2048
// multiply-adds per warp per round.
//   tc_mma_bf16, tc_mma_f16: one `mma.sync.aligned.m16n8k16` (inline PTX) per set and
//     round, inputs bf16 or f16, accumulator f32.
//   tc_fma: the same 2048 multiply-adds per set and round as fmaf on the FP32 pipes: each
//     thread computes the four C elements the mma fragment gives it (64 FMAs).
//
// The inputs are small integers (-2..2, stored as i32 and converted in the kernel, exact
// in bf16 and f16) and set j starts at j, so every partial sum is an integer well under
// 2^24 and exact in f32 whatever the order: the three kernels and the reference must agree
// bit for bit. Different starting values per set also keep the compiler from merging the
// four FMA sets into one.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16"): lane = 4g + t;
//   A regs: {A[g][2t..2t+1]}, {A[g+8][2t..2t+1]}, {A[g][2t+8..2t+9]}, {A[g+8][2t+8..2t+9]}
//   B regs: {B[2t..2t+1][g]}, {B[2t+8..2t+9][g]}
//   C:      C[g][2t], C[g][2t+1], C[g+8][2t], C[g+8][2t+1]

__device__ __forceinline__ unsigned bf16_bits(int v) {
    // A small integer's float has a zero low half: its top 16 bits are its bf16, exactly.
    return __float_as_uint((float)v) >> 16;
}

__device__ __forceinline__ unsigned f16_bits(int v) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"((float)v));
    return h;
}

template <bool BF16>
__device__ __forceinline__ unsigned pack(const int* p) {
    return BF16 ? (bf16_bits(p[0]) | (bf16_bits(p[1]) << 16))
                : (f16_bits(p[0]) | (f16_bits(p[1]) << 16));
}

template <bool BF16>
__device__ __forceinline__ void mma(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
    if (BF16) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
            : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

__device__ __forceinline__ void store_c(float* out, unsigned warp, unsigned g, unsigned t,
                                        const float (&c)[4][4]) {
    float* o = out + warp * 128;
    o[g * 8 + 2 * t] = (c[0][0] + c[1][0]) + (c[2][0] + c[3][0]);
    o[g * 8 + 2 * t + 1] = (c[0][1] + c[1][1]) + (c[2][1] + c[3][1]);
    o[(g + 8) * 8 + 2 * t] = (c[0][2] + c[1][2]) + (c[2][2] + c[3][2]);
    o[(g + 8) * 8 + 2 * t + 1] = (c[0][3] + c[1][3]) + (c[2][3] + c[3][3]);
}

template <bool BF16>
__device__ __forceinline__ void mma_body(const int* __restrict__ a_in, const int* __restrict__ b_in,
                                         float* __restrict__ out, unsigned rounds) {
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int* A = a_in + warp * 256;
    const int* Bt = b_in + warp * 128;
    const unsigned a[4] = {pack<BF16>(A + g * 16 + 2 * t), pack<BF16>(A + (g + 8) * 16 + 2 * t),
                           pack<BF16>(A + g * 16 + 2 * t + 8),
                           pack<BF16>(A + (g + 8) * 16 + 2 * t + 8)};
    const unsigned b[2] = {pack<BF16>(Bt + g * 16 + 2 * t), pack<BF16>(Bt + g * 16 + 2 * t + 8)};
    float c[4][4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) c[j][e] = (float)j;
    }
    for (unsigned r = 0; r < rounds; ++r) {
#pragma unroll
        for (int j = 0; j < 4; ++j) mma<BF16>(c[j], a, b);
    }
    store_c(out, warp, g, t, c);
}

extern "C" __global__ void tc_mma_bf16(const int* __restrict__ a, const int* __restrict__ b,
                                       float* __restrict__ out, unsigned rounds) {
    mma_body<true>(a, b, out, rounds);
}

extern "C" __global__ void tc_mma_f16(const int* __restrict__ a, const int* __restrict__ b,
                                      float* __restrict__ out, unsigned rounds) {
    mma_body<false>(a, b, out, rounds);
}

extern "C" __global__ void tc_fma(const int* __restrict__ a_in, const int* __restrict__ b_in,
                                  float* __restrict__ out, unsigned rounds) {
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int* A = a_in + warp * 256;
    const int* Bt = b_in + warp * 128;
    // Rows g and g+8 of A, columns 2t and 2t+1 of B: what this thread's four C elements read.
    float a0[16], a1[16], b0[16], b1[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) {
        a0[k] = (float)A[g * 16 + k];
        a1[k] = (float)A[(g + 8) * 16 + k];
        b0[k] = (float)Bt[(2 * t) * 16 + k];
        b1[k] = (float)Bt[(2 * t + 1) * 16 + k];
    }
    float c[4][4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) c[j][e] = (float)j;
    }
    for (unsigned r = 0; r < rounds; ++r) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
#pragma unroll
            for (int k = 0; k < 16; ++k) {
                c[j][0] = fmaf(a0[k], b0[k], c[j][0]);
                c[j][1] = fmaf(a0[k], b1[k], c[j][1]);
                c[j][2] = fmaf(a1[k], b0[k], c[j][2]);
                c[j][3] = fmaf(a1[k], b1[k], c[j][3]);
            }
        }
    }
    store_c(out, warp, g, t, c);
}

// The reference: one thread per C element, integer arithmetic, 4 x rounds x (A x B) + 6
// (the four sets' starting values 0 + 1 + 2 + 3).
extern "C" __global__ void tc_reference(const int* a_in, const int* b_in, float* out,
                                        unsigned rounds, unsigned elements) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= elements) return;
    const unsigned warp = i / 128, e = i % 128, r = e / 8, col = e % 8;
    long long dot = 0;
    for (int k = 0; k < 16; ++k) {
        dot += (long long)a_in[warp * 256 + r * 16 + k] * b_in[warp * 128 + col * 16 + k];
    }
    out[i] = (float)(4LL * rounds * dot + 6);
}
