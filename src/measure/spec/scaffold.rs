//! What `glossary new experiment NAME` writes: a small working experiment (kernel,
//! reference, one axis) that `verify --dry-run` accepts; the tests start from it too.

/// The experiment `glossary new experiment NAME` writes: the README's example, small.
pub fn experiment_yaml(name: &str) -> String {
    format!(
        r#"# {name}: scale a vector, out[i] = a * x[i], at two block sizes.
# Edit the kernel in {name}.cu, then `glossary verify --node NODE --only {name} --dry-run`.
title: "{name}: scale a vector"
kernels: [{name}.cu]
compile_options: [--std=c++17]
seed: 1

params:
  n: 1 << 24                    # elements
axes:
  block: [128, 256]             # one config per value: labels block128, block256

buffers:
  x:   {{type: f32, length: n, fill: {{uniform: [-1, 1]}}}}
  out: {{type: f32, length: n, output: true, tolerance: {{ulps: 1}}}}

launches:
  - kernel: scale
    args: [{{f32: 2.5}}, x, out, {{u64: n}}]
    grid: ceil_div(n, block)
    block: block

reference:
  launches:
    - kernel: scale_reference
      args: [{{f32: 2.5}}, x, out, {{u64: n}}]
      grid: ceil_div(n, 256)
      block: 256

metrics:
  gbps: {{value: 8 * n / (median_ms * 1e6), unit: GB/s, heading: bandwidth, decimals: 1}}
"#
    )
}

pub const EXPERIMENT_KERNEL: &str = r#"// The kernel under test and the reference it must match, on the same seeded inputs.

extern "C" __global__ void scale(float a, const float* __restrict__ x, float* __restrict__ out,
                                 unsigned long long n) {
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        out[i] = a * x[i];
    }
}

extern "C" __global__ void scale_reference(float a, const float* x, float* out,
                                           unsigned long long n) {
    const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = a * x[i];
    }
}
"#;
