// Kernel launch overhead: a kernel that does almost nothing (each thread stores one word),
// so what a launch costs is what is left.
extern "C" __global__ void tiny(unsigned* __restrict__ out, unsigned tag) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tag ^ i;
}

// The reference: the same words, written by a plain loop over the grid.
extern "C" __global__ void tiny_reference(unsigned* out, unsigned tag, unsigned n) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        out[i] = tag ^ i;
    }
}

// Queued ahead of every sample of the `queued` and `graph` rows (`before_each_sample`):
// one warp spins on the SM clock for `cycles` cycles, long enough (milliseconds) for the
// host to enqueue the whole sample behind it, so the launches then run back to back and
// the events around them time the GPU's cost per launch, not the host's launch rate.
// `cycles` 0 returns at once. Lane 0 writes how long it spun, so the loop stays.
extern "C" __global__ void spin(unsigned long long* __restrict__ spun, unsigned long long cycles) {
    const long long start = clock64();
    long long now = start;
    while ((unsigned long long)(now - start) < cycles) {
        now = clock64();
    }
    if (threadIdx.x == 0) {
        spun[0] = (unsigned long long)(now - start);
    }
}
