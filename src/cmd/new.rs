use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::content::is_valid_slug;

#[derive(clap::Args, Debug)]
pub struct NewArgs {
    #[command(subcommand)]
    pub what: NewWhat,
    #[arg(long, default_value = ".", global = true)]
    pub root: PathBuf,
}

#[derive(clap::Subcommand, Debug)]
pub enum NewWhat {
    /// A term entry at content/terms/SLUG.md.
    Term { slug: String },
    /// A working experiment at measurements/NAME/ (kernel, reference, one axis) that
    /// `glossary verify --dry-run` accepts.
    Experiment { name: String },
}

pub fn run(args: &NewArgs) -> Result<()> {
    let slug = match &args.what {
        NewWhat::Term { slug } => slug,
        NewWhat::Experiment { name } => return experiment(args, name),
    };
    if !is_valid_slug(slug) {
        bail!("slug `{slug}` must match [a-z0-9-]+");
    }
    let dir = args.root.join("content").join("terms");
    let path = dir.join(format!("{slug}.md"));
    if path.exists() {
        bail!("{} already exists", path.display());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = slug.replace('-', " ");
    let today = chrono::Local::now().date_naive();
    let text = format!(
        "---\ntitle: What is {name}?\nname: {name}\nsummary: One sentence that defines {name}.\nrelated: []\nsources:\n  - title: Where this is documented\n    url: https://docs.nvidia.com/cuda/\n    checked: {today}\n---\nWrite the body here.\n"
    );
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    println!(
        "created {} (a draft until an author and a different reviewer sign it)",
        path.display()
    );
    Ok(())
}

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

fn experiment(args: &NewArgs, name: &str) -> Result<()> {
    if !is_valid_slug(name) {
        bail!("experiment name `{name}` must match [a-z0-9-]+");
    }
    let dir = args.root.join("measurements").join(name);
    if dir.exists() {
        bail!("{} already exists", dir.display());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let yaml = dir.join(crate::measure::spec::EXPERIMENT_FILE);
    std::fs::write(&yaml, experiment_yaml(name))
        .with_context(|| format!("writing {}", yaml.display()))?;
    let cu = dir.join(format!("{name}.cu"));
    std::fs::write(&cu, EXPERIMENT_KERNEL).with_context(|| format!("writing {}", cu.display()))?;
    println!(
        "created {} and {} (check it with `glossary verify --node NODE --only {name} --dry-run`)",
        yaml.display(),
        cu.display()
    );
    Ok(())
}
