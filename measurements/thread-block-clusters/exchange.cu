// Thread block clusters, in four kinds of row (experiment.yaml says which is which):
//
// Each kernel is run_<via>, <via> the experiment's axis value.
//
// run_dsmem, run_global: blocks of one cluster exchange data each round,
//   through distributed shared memory (one block reads its partner's shared memory
//   directly) or through global memory (L2), with the same two cluster barriers either way.
// run_barrier, run_barrier_relaxed, run_syncthreads: the barrier alone: one
//   barrier.cluster arrive + wait (with a release arrive, or a relaxed one), or one
//   __syncthreads, per round and an add, no shared or distributed memory traffic.
// run_chase_dsmem, run_chase_smem, run_chase_l2: one thread's pointer chase, one dependent load after
//   another, through a ring held in the partner block's shared memory (ld.shared::cluster),
//   in its own block's shared memory (ld.shared), or in global memory read past L1
//   (ld.global.cg: L2). Each node holds the address of the next, so a hop is one load and
//   no address arithmetic.
//
// Every kernel takes (in, box_g, ring, out, rounds, nodes) so one experiment holds them
// all; each ignores what it does not use. All values are u32 and exact, so the reference
// (cluster_reference) must match bit for bit.
//
// Block b's partner is block b ^ 1: the other block of its pair, which with clusters of
// 2, 4 or 8 blocks along x is always in the same cluster (cluster rank = blockIdx.x mod
// the cluster size).
//
// The cluster's PTX, written out rather than through cooperative_groups: %cluster_ctarank
// (this block's rank), mapa (a shared address in another block of the cluster),
// ld.shared::cluster (a load from it), barrier.cluster.arrive.release + wait.acquire.

__device__ __forceinline__ unsigned cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

__device__ __forceinline__ unsigned sm_id() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

__device__ __forceinline__ void cluster_sync() {
    asm volatile(
        "barrier.cluster.arrive.release.aligned;\n\t"
        "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The same barrier without `.aligned`, for code where the warp may not be converged (after
// one thread's chase): .aligned promises every thread of the warp executes it together.
__device__ __forceinline__ void cluster_sync_diverged() {
    asm volatile(
        "barrier.cluster.arrive.release;\n\t"
        "barrier.cluster.wait.acquire;" ::: "memory");
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

// A generic address (as cooperative_groups' map_shared_rank returns) of `p` in block
// `rank`'s shared memory: mapa on the generic address.
__device__ __forceinline__ unsigned long long map_to_rank_generic(const void* p, unsigned rank) {
    unsigned long long remote;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(remote) : "l"(p), "r"(rank));
    return remote;
}

// A generic 64-bit load: through the shared window to the partner's shared memory.
__device__ __forceinline__ unsigned long long load_generic64(unsigned long long addr) {
    unsigned long long v;
    asm volatile("ld.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
    return v;
}

__device__ __forceinline__ unsigned load_shared(unsigned addr) {
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

__device__ __forceinline__ unsigned long long load_l2(unsigned long long addr) {
    unsigned long long v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
    return v;
}

extern "C" __global__ void run_dsmem(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                          const unsigned* __restrict__ ring,
                                          unsigned* __restrict__ out, unsigned rounds,
                                          unsigned nodes) {
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

extern "C" __global__ void run_global(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                           const unsigned* __restrict__ ring,
                                           unsigned* __restrict__ out, unsigned rounds,
                                           unsigned nodes) {
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

// One cluster barrier per round and nothing else that leaves the SM: the cost of the
// barrier on its own, for the exchange rows (two of them a round) to be read against.
extern "C" __global__ void run_barrier(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                           const unsigned* __restrict__ ring,
                                           unsigned* __restrict__ out, unsigned rounds,
                                           unsigned nodes) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[gid];
    for (unsigned r = 0; r < rounds; ++r) {
        cluster_sync();
        v = v * 3u + 1u;
    }
    out[gid] = v;
}

// The cluster barrier with a relaxed arrive: no release fence before it (the .release
// arrive above compiles to a GPU-scope memory barrier, MEMBAR.ALL.GPU, then the arrive),
// so the difference between the two rows is what ordering memory costs at the barrier.
__device__ __forceinline__ void cluster_sync_relaxed() {
    asm volatile(
        "barrier.cluster.arrive.relaxed.aligned;\n\t"
        "barrier.cluster.wait.aligned;" ::: "memory");
}

extern "C" __global__ void run_barrier_relaxed(const unsigned* __restrict__ in,
                                               unsigned* __restrict__ box_g,
                                               const unsigned* __restrict__ ring,
                                               unsigned* __restrict__ out, unsigned rounds,
                                               unsigned nodes) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[gid];
    for (unsigned r = 0; r < rounds; ++r) {
        cluster_sync_relaxed();
        v = v * 3u + 1u;
    }
    out[gid] = v;
}

// The same loop with the block's own barrier: what a barrier costs without the cluster.
extern "C" __global__ void run_syncthreads(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                         const unsigned* __restrict__ ring,
                                         unsigned* __restrict__ out, unsigned rounds,
                                         unsigned nodes) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[gid];
    for (unsigned r = 0; r < rounds; ++r) {
        __syncthreads();
        v = v * 3u + 1u;
    }
    out[gid] = v;
}

// The pointer chases. `ring` is a random cycle of node indexes (node i holds the index of
// the next); the block that holds the ring turns it into addresses first, so the chase
// itself is `a = load(a)`. The launch is one cluster of two blocks, with enough dynamic
// shared memory a block that each SM holds only one: the partner block is on another SM,
// and run_chase_dsmem checks that (a partner on the same SM poisons the answer).
// `rounds` hops from node 0; thread 0 of block 0 writes the index it ends on to out[0],
// every other thread a 0.

extern __shared__ unsigned ring_smem[];

extern "C" __global__ void run_chase_dsmem(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                           const unsigned* __restrict__ ring,
                                           unsigned* __restrict__ out, unsigned rounds,
                                           unsigned nodes) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned rank = cluster_rank();
    // The ring in block 1's shared memory as generic 64-bit addresses, as every block of
    // the cluster sees them: a hop is then one LD.E.64. (Through ld.shared::cluster the
    // compiler keeps 32-bit addresses and adds two moves a hop to widen each.)
    unsigned long long* ring64 = reinterpret_cast<unsigned long long*>(ring_smem);
    const unsigned long long base = map_to_rank_generic(ring64, 1u);
    if (rank == 1u) {
        for (unsigned i = threadIdx.x; i < nodes; i += blockDim.x) {
            ring64[i] = base + 8ull * ring[i];
        }
        if (threadIdx.x == 0) ring64[nodes] = sm_id();
    }
    cluster_sync();
    unsigned result = 0;
    if (rank == 0u && threadIdx.x == 0) {
        unsigned long long a = base;
        for (unsigned r = 0; r < rounds; ++r) a = load_generic64(a);
        result = (unsigned)((a - base) / 8ull);
        // The chase must cross between SMs; if the two blocks share one, say so by an
        // answer no ring has (the check against the reference then fails at out[0]).
        if (load_generic64(base + 8ull * nodes) == sm_id()) result = 0xffffffffu;
    }
    // Block 1's shared memory stays alive until block 0 has finished reading it.
    cluster_sync_diverged();
    out[gid] = result;
}

extern "C" __global__ void run_chase_smem(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                      const unsigned* __restrict__ ring,
                                      unsigned* __restrict__ out, unsigned rounds,
                                      unsigned nodes) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned base = (unsigned)__cvta_generic_to_shared(ring_smem);
    if (cluster_rank() == 0u) {
        for (unsigned i = threadIdx.x; i < nodes; i += blockDim.x) {
            ring_smem[i] = base + 4u * ring[i];
        }
    }
    __syncthreads();
    unsigned result = 0;
    if (cluster_rank() == 0u && threadIdx.x == 0) {
        unsigned a = base;
        for (unsigned r = 0; r < rounds; ++r) a = load_shared(a);
        result = (a - base) / 4u;
    }
    out[gid] = result;
}

// The ring as 64-bit global addresses in box_g (2 words a node), chased past L1.
extern "C" __global__ void run_chase_l2(const unsigned* __restrict__ in, unsigned* __restrict__ box_g,
                                    const unsigned* __restrict__ ring,
                                    unsigned* __restrict__ out, unsigned rounds,
                                    unsigned nodes) {
    const unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long* ptrs = reinterpret_cast<unsigned long long*>(box_g);
    const unsigned long long base = reinterpret_cast<unsigned long long>(ptrs);
    if (cluster_rank() == 0u) {
        for (unsigned i = threadIdx.x; i < nodes; i += blockDim.x) {
            ptrs[i] = base + 8ull * ring[i];
        }
    }
    // The block's own stores, visible to its thread 0 after the barrier (they write
    // through to L2, where the .cg loads read them).
    __syncthreads();
    unsigned result = 0;
    if (cluster_rank() == 0u && threadIdx.x == 0) {
        unsigned long long a = base;
        for (unsigned r = 0; r < rounds; ++r) a = load_l2(a);
        result = (unsigned)((a - base) / 8ull);
    }
    out[gid] = result;
}

// The reference, one thread per pair of partner threads, no cluster, no barrier.
// op 0: the exchange (v = 3v + partner's v, both at once); op 1: the chase (thread 0
// walks the ring, every other output 0); op 2: the barrier rows (v = 3v + 1 alone).
extern "C" __global__ void cluster_reference(const unsigned* in, const unsigned* ring,
                                             unsigned* out, unsigned rounds, unsigned block,
                                             unsigned pairs, unsigned op) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pairs) return;
    const unsigned ga = (i / block) * 2 * block + i % block, gb = ga + block;
    unsigned a = in[ga], b = in[gb];
    if (op == 1) {
        unsigned at = 0;
        if (i == 0) {
            for (unsigned r = 0; r < rounds; ++r) at = ring[at];
        }
        out[ga] = at;
        out[gb] = 0;
        return;
    }
    for (unsigned r = 0; r < rounds; ++r) {
        const unsigned na = op == 0 ? a * 3u + b : a * 3u + 1u;
        const unsigned nb = op == 0 ? b * 3u + a : b * 3u + 1u;
        a = na;
        b = nb;
    }
    out[ga] = a;
    out[gb] = b;
}
