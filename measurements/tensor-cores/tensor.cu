// Tensor cores against FMA units, the same multiply-adds both ways. The mma.sync rows and
// fma come first; FP8 mma.sync and Hopper's wgmma (warpgroup MMA from shared memory)
// follow, each with its own layout notes.
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

// ---------------------------------------------------------------------------------------
// FP8 (e4m3) on mma.sync: m16n8k32, f32 accumulator.
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k32", 8-bit types): lane = 4g + t;
//   A regs, four e4m3 each (lowest byte first): {A[g][4t..4t+3]}, {A[g+8][4t..4t+3]},
//     {A[g][4t+16..4t+19]}, {A[g+8][4t+16..4t+19]}
//   B regs: {B[4t..4t+3][g]}, {B[4t+16..4t+19][g]}
//   C: as for m16n8k16.
//
// Hopper's tensor cores take FP8 only through wgmma: for sm_90a, ptxas (CUDA 13.0) lowers
// this mma.sync to F2FP (e4m3 to f16), two f16 HMMA.16816 from a zero accumulator and
// FADDs into C. With operands that never change
// it computes A x B once and keeps only the FADDs in the loop, and with the same operands
// in the four sets it multiplies once per round (both seen in the SASS). So here B
// changes with every instruction: odd rounds use -B (e4m3 negates by its sign bits), and
// set j's B in round r is XORed with `(4r + j) & zero`, `zero` being a value the compiler
// cannot know is 0 (see below). Every instruction then converts its B and multiplies
// (A's conversion, loop-invariant, is hoisted). With an odd number of rounds set j ends
// at j + A x B, no partial sum passes |A x B| + 3, and C = 4 x (A x B) + 6.

// e4m3 bits of a small integer (|v| <= 15, exact): sign, exponent biased by 7, the top 3
// mantissa bits.
__device__ __forceinline__ unsigned e4m3_bits(int v) {
    if (v == 0) return 0;
    const unsigned u = __float_as_uint((float)v);
    return ((u >> 24) & 0x80) | ((((u >> 23) & 0xff) - 120) << 3) | ((u >> 20) & 7);
}

__device__ __forceinline__ unsigned pack_e4m3(const int* p) {
    return e4m3_bits(p[0]) | (e4m3_bits(p[1]) << 8) | (e4m3_bits(p[2]) << 16) |
           (e4m3_bits(p[3]) << 24);
}

extern "C" __global__ void tc_mma_fp8(const int* __restrict__ a_in, const int* __restrict__ b_in,
                                      float* __restrict__ out, unsigned rounds) {
    const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int* A = a_in + warp * 512;  // 16 x 32
    const int* Bt = b_in + warp * 256; // 8 x 32
    const unsigned a[4] = {pack_e4m3(A + g * 32 + 4 * t), pack_e4m3(A + (g + 8) * 32 + 4 * t),
                           pack_e4m3(A + g * 32 + 4 * t + 16),
                           pack_e4m3(A + (g + 8) * 32 + 4 * t + 16)};
    const unsigned b[2] = {pack_e4m3(Bt + g * 32 + 4 * t), pack_e4m3(Bt + g * 32 + 4 * t + 16)};
    // 0 for any real launch, all ones were rounds >= 2^31: the compiler cannot know which.
    // (rounds >> 31 alone would be 0 or 1, and ptxas uses the known bits: 4r & 1 is 0.)
    const unsigned zero = 0u - (rounds >> 31);
    float c[4][4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) c[j][e] = (float)j;
    }
    for (unsigned r = 0; r < rounds; ++r) {
        const unsigned sign = (r & 1) ? 0x80808080u : 0u;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const unsigned flip = sign ^ ((4 * r + j) & zero);
            const unsigned b0 = b[0] ^ flip, b1 = b[1] ^ flip;
            asm volatile(
                "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                : "+f"(c[j][0]), "+f"(c[j][1]), "+f"(c[j][2]), "+f"(c[j][3])
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
        }
    }
    store_c(out, warp, g, t, c);
}

// ---------------------------------------------------------------------------------------
// wgmma: Hopper's warpgroup MMA (sm_90a), both operands read from shared memory through
// matrix descriptors, the accumulator in the registers of the warpgroup's 128 threads.
//
// One 128-thread block is one warpgroup and owns one tile: A (64 x TK, K-major), Bt
// (256 x TK, B stored K-major, as for mma.sync's `.col`), C (64 x 256, f32). TK is 16
// for bf16 and 32 for e4m3: each instruction multiplies 16-byte rows of K either way.
//
// Shared memory, no swizzle ("interleave"): each operand is a grid of core matrices, a
// core matrix being 8 rows of 16 contiguous bytes (128 bytes). The two core matrices of a
// row group (K halves) sit side by side, 128 bytes apart (the leading byte offset, LBO);
// row groups are 256 bytes apart (the stride byte offset, SBO):
//   byte(row, k) = (row / 8) * 256 + (k / PER) * 128 + (row % 8) * 16 + (k % PER) * ES
// (PER elements of ES bytes in 16 bytes), as CUTLASS's canonical K-major INTERLEAVE
// layout ((8,m),(T,2)):((1T,SBO),(1,LBO)) with LBO = 128 and SBO = 256 bytes.
//
// Descriptor (PTX ISA, "Matrix Descriptor Format"): bits 0-13 the start address >> 4,
// 16-29 LBO >> 4, 32-45 SBO >> 4, 49-51 the base offset (0: no swizzle pattern to align),
// 62-63 the swizzle mode (0: none).
//
// Accumulator fragment (PTX ISA, "wgmma .m64nNk16 register fragment layout for D"): warp
// w of the warpgroup holds rows 16w..16w+15; lane = 4g + t holds, for i in 0..N/8,
//   d[4i] = D[16w+g][8i+2t], d[4i+1] = D[16w+g][8i+2t+1],
//   d[4i+2] = D[16w+g+8][8i+2t], d[4i+3] = D[16w+g+8][8i+2t+1].
//
// Each round issues 4 wgmma adding into the one accumulator (scale-d = 1 throughout: a
// wgmma with scale-d = 0 overwrites D, and ptxas then drops the rounds before it, as
// seen in the SASS), commits the round as one group and waits until at most one group
// (this round's) is in flight. Odd rounds multiply by -B, a negated copy of B beside it
// in shared memory, so after an odd number of rounds C = 4 x (A x B) while no partial sum
// passes 4 x 32 x 4 = 512: exact in any accumulator of 14 bits or more (DeepSeek-V3's
// report measured about that for Hopper's FP8 MMA). The compiler cannot know the two
// copies cancel, so every wgmma runs; a wrong descriptor or layout is a wrong C.

#define WG_N 256

__device__ __forceinline__ unsigned long long smem_desc(const void* p) {
    const unsigned long long addr = (unsigned)__cvta_generic_to_shared(p);
    return ((addr & 0x3FFFF) >> 4)      // start address
           | ((128ull >> 4) << 16)      // leading byte offset: the next 16 bytes of K
           | ((256ull >> 4) << 32);     // stride byte offset: the next 8 rows
    // base offset 0, swizzle mode 0 (none)
}

template <bool FP8>
__device__ __forceinline__ void put(unsigned char* smem, unsigned row, unsigned k, int v) {
    constexpr unsigned PER = FP8 ? 16 : 8, ES = FP8 ? 1 : 2;
    const unsigned off = (row / 8) * 256 + (k / PER) * 128 + (row % 8) * 16 + (k % PER) * ES;
    if (FP8) {
        smem[off] = (unsigned char)e4m3_bits(v);
    } else {
        *reinterpret_cast<unsigned short*>(smem + off) = (unsigned short)bf16_bits(v);
    }
}

__device__ __forceinline__ void wgmma_bf16(float (&d)[128], unsigned long long da,
                                           unsigned long long db) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
            "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
            "%128, %129, p, 1, 1, 0, 0;\n}\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
          : "l"(da), "l"(db), "n"(1)
          : "memory");
}

__device__ __forceinline__ void wgmma_e4m3(float (&d)[128], unsigned long long da,
                                           unsigned long long db) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 "
            "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
            "%128, %129, p, 1, 1;\n}\n"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
          : "l"(da), "l"(db), "n"(1)
          : "memory");
}

template <bool FP8>
__device__ __forceinline__ void wgmma(float (&d)[128], unsigned long long da, unsigned long long db) {
    if (FP8) {
        wgmma_e4m3(d, da, db);
    } else {
        wgmma_bf16(d, da, db);
    }
}

template <bool FP8>
__device__ __forceinline__ void wgmma_body(const int* __restrict__ a_in, const int* __restrict__ b_in,
                                           float* __restrict__ out, unsigned rounds) {
    constexpr unsigned TK = FP8 ? 32 : 16;
    // 64 x 32 bytes of A and 256 x 32 of B (and of -B), whatever the type; 16-byte alignment is the
    // minimum for a descriptor's start address, 128 keeps the core matrices on lines.
    __shared__ __align__(128) unsigned char sa[64 * 32];
    __shared__ __align__(128) unsigned char sb[WG_N * 32];
    __shared__ __align__(128) unsigned char sn[WG_N * 32];  // -B
    const unsigned tile = blockIdx.x;
    const int* A = a_in + tile * 64 * TK;
    const int* Bt = b_in + tile * WG_N * TK;
    for (unsigned i = threadIdx.x; i < 64 * TK; i += 128) put<FP8>(sa, i / TK, i % TK, A[i]);
    for (unsigned i = threadIdx.x; i < WG_N * TK; i += 128) {
        put<FP8>(sb, i / TK, i % TK, Bt[i]);
        put<FP8>(sn, i / TK, i % TK, -Bt[i]);
    }
    // The stores above are the generic proxy's; wgmma reads through the async proxy.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const unsigned long long da = smem_desc(sa), db = smem_desc(sb), dn = smem_desc(sn);
    float d[128];
#pragma unroll
    for (int e = 0; e < 128; ++e) d[e] = 0.0f;
    for (unsigned r = 0; r < rounds; ++r) {
        // Orders earlier register accesses (the zeroing above, in round 0) before this
        // round's wgmma; CUTLASS issues one before each batch too.
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        const unsigned long long dr = (r & 1) ? dn : db;
        wgmma<FP8>(d, da, dr);
        wgmma<FP8>(d, da, dr);
        wgmma<FP8>(d, da, dr);
        wgmma<FP8>(d, da, dr);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    const unsigned w = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    float* o = out + (unsigned long long)tile * 64 * WG_N;
#pragma unroll
    for (int i = 0; i < WG_N / 8; ++i) {
        const unsigned col = 8 * i + 2 * t, r0 = 16 * w + g;
        o[r0 * WG_N + col] = d[4 * i];
        o[r0 * WG_N + col + 1] = d[4 * i + 1];
        o[(r0 + 8) * WG_N + col] = d[4 * i + 2];
        o[(r0 + 8) * WG_N + col + 1] = d[4 * i + 3];
    }
}

extern "C" __global__ void __launch_bounds__(128)
    tc_wgmma_bf16(const int* __restrict__ a, const int* __restrict__ b, float* __restrict__ out,
                  unsigned rounds) {
    wgmma_body<false>(a, b, out, rounds);
}

extern "C" __global__ void __launch_bounds__(128)
    tc_wgmma_fp8(const int* __restrict__ a, const int* __restrict__ b, float* __restrict__ out,
                 unsigned rounds) {
    wgmma_body<true>(a, b, out, rounds);
}

// The reference: one thread per C element, integer arithmetic. Tile `t` (a warp's for
// mma.sync and fma, a warpgroup's for wgmma) is A (tm x tk, row-major), Bt (tn x tk) and
// C (tm x tn, row-major); each kernel leaves reps x (A x B) + base in C.
extern "C" __global__ void tc_reference(const int* a_in, const int* b_in, float* out,
                                        unsigned tm, unsigned tn, unsigned tk, unsigned reps,
                                        unsigned base, unsigned elements) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= elements) return;
    const unsigned tile = i / (tm * tn), e = i % (tm * tn), r = e / tn, col = e % tn;
    long long dot = 0;
    for (unsigned k = 0; k < tk; ++k) {
        dot += (long long)a_in[tile * tm * tk + r * tk + k] * b_in[tile * tn * tk + col * tk + k];
    }
    out[i] = (float)((long long)reps * dot + base);
}
