// Thread block clusters: blocks of one cluster exchange data each round, through
// distributed shared memory (one block reads its partner's shared memory directly) or
// through global memory (L2), with the same cluster barrier either way.
//
// Block b's partner is block b ^ 1: the other block of its pair, which with clusters of
// 2, 4 or 8 blocks along x is always in the same cluster (cluster rank = blockIdx.x mod
// the cluster size). Each round, every thread publishes its value, the cluster waits at
// its barrier, the thread reads its partner thread's value, the cluster waits again (so
// no one overwrites a value its partner has not read), and v = 3v + partner's v. All in
// u32, so the answer is exact and the reference computes it pair by pair.
//
// The cluster's PTX, written out rather than through cooperative_groups: %cluster_ctarank
// (this block's rank), mapa (a shared address in another block of the cluster),
// ld.shared::cluster (a load from it), barrier.cluster.arrive.release + wait.acquire.

__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ __forceinline__ void cluster_sync() {
    asm volatile(
        "barrier.cluster.arrive.release.aligned;\n\t"
        "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ __forceinline__ unsigned map_to_rank(const void* p, unsigned rank) {
    const unsigned local = (unsigned)__cvta_generic_to_shared(p);
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
    return remote;
}

__device__ __forceinline__ unsigned load_cluster(unsigned addr) {
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

extern "C" __global__ void exchange_dsmem(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                          unsigned* __restrict__ out, unsigned rounds) {
    __shared__ unsigned box[1024];
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned remote = map_to_rank(&box[threadIdx.x], cluster_rank() ^ 1u);
    unsigned v = in[gid];
    // Every block of the cluster must be running before any reads another's shared memory.
    cluster_sync();
    for (unsigned r = 0; r < rounds; ++r) {
        box[threadIdx.x] = v;
        cluster_sync();
        const unsigned p = load_cluster(remote);
        cluster_sync();
        v = v * 3u + p;
    }
    // (The last barrier above also keeps every block's shared memory alive until its
    // partner has read it.)
    out[gid] = v;
}

extern "C" __global__ void exchange_global(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                           unsigned* __restrict__ out, unsigned rounds) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned partner = (blockIdx.x ^ 1u) * blockDim.x + threadIdx.x;
    unsigned v = in[gid];
    cluster_sync();
    for (unsigned r = 0; r < rounds; ++r) {
        __stcg(box_g + gid, v);
        cluster_sync();
        const unsigned p = __ldcg(box_g + partner);
        cluster_sync();
        v = v * 3u + p;
    }
    out[gid] = v;
}

// The reference: one thread per pair of partner threads, no cluster, no barrier.
extern "C" __global__ void exchange_reference(const unsigned* in, unsigned* out, unsigned rounds,
                                              unsigned block, unsigned pairs) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pairs) return;
    const unsigned ga = (i / block) * 2 * block + i % block, gb = ga + block;
    unsigned a = in[ga], b = in[gb];
    for (unsigned r = 0; r < rounds; ++r) {
        const unsigned na = a * 3u + b, nb = b * 3u + a;
        a = na;
        b = nb;
    }
    out[ga] = a;
    out[gb] = b;
}
