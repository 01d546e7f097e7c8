//! NVRTC: kernel sources to a cubin for the device's own architecture, with the exact
//! options recorded.

use std::ffi::{c_char, CString};
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys, Ptx};

use super::error::{Doing, RunError};
use super::gpu::Gpu;
use crate::measure::spec::KernelSource;

/// A loaded module and the options it was compiled with.
pub struct Compiled {
    pub module: Arc<CudaModule>,
    pub options: Vec<String>,
}

/// The options passed to NVRTC: the experiment's own, then the device architecture (a real
/// `sm_XY`, so NVRTC emits machine code and the driver does not JIT), then `extra`.
pub fn options_for(experiment_options: &[String], arch: &str, extra: &[String]) -> Vec<String> {
    let mut o = experiment_options.to_vec();
    o.push(format!("--gpu-architecture={arch}"));
    o.extend(extra.iter().cloned());
    o
}

/// Compile `source` and load it on the GPU; a failure's log names each kernel file and
/// its own line.
pub fn compile(
    gpu: &Gpu,
    experiment_file: &Path,
    source: &KernelSource,
    options: Vec<String>,
) -> Result<Compiled, RunError> {
    let cubin = cubin(experiment_file, source, &options)?;
    let module = gpu
        .ctx
        .load_module(Ptx::from_binary(cubin))
        .doing(|| format!("{}: loading the compiled module", experiment_file.display()))?;
    Ok(Compiled { module, options })
}

/// NVRTC alone: `source` compiled to machine code for the architecture in `options`. Needs
/// libnvrtc, not a GPU or a driver, so a dry run off the node compiles too.
pub fn cubin(
    experiment_file: &Path,
    source: &KernelSource,
    options: &[String],
) -> Result<Vec<u8>, RunError> {
    let fail = |log: String| RunError::Compile {
        path: experiment_file.to_path_buf(),
        options: options.to_vec(),
        log: source.locate_log(&log),
    };
    let src =
        CString::new(source.text.as_str()).map_err(|_| fail("source holds a NUL byte".into()))?;
    if options.iter().any(|o| o.contains('\0')) {
        return Err(fail("an option holds a NUL byte".into()));
    }
    let prog = nvrtc::create_program(&src, None).doing(|| "creating an NVRTC program".into())?;
    let guard = ProgramGuard(prog);
    // SAFETY: `prog` is live until `guard` drops; options hold no NUL (checked above).
    let compiled = unsafe { nvrtc::compile_program(prog, options) };
    if compiled.is_err() {
        // SAFETY: as above.
        let log = unsafe { nvrtc::get_program_log(prog) }
            .map(|raw| c_chars_to_string(&raw))
            .unwrap_or_else(|e| format!("(no log: {e:?})"));
        return Err(fail(log));
    }
    let mut size = 0usize;
    // SAFETY: as above; `size` is a live local.
    unsafe { nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size) }
        .result()
        .doing(|| "reading the cubin size".into())?;
    let mut cubin = vec![0u8; size];
    // SAFETY: `cubin` holds exactly the size NVRTC reported.
    unsafe { nvrtc_sys::nvrtcGetCUBIN(prog, cubin.as_mut_ptr() as *mut c_char) }
        .result()
        .doing(|| "reading the cubin".into())?;
    drop(guard);
    Ok(cubin)
}

/// Whether a cubin defines a symbol named `kernel`: its ELF string table holds every
/// symbol's name between NUL bytes. Only a dry run off the node asks; on the node the
/// driver looks the kernel up itself.
pub fn cubin_names(cubin: &[u8], kernel: &str) -> bool {
    let mut needle = Vec::with_capacity(kernel.len() + 2);
    needle.push(0);
    needle.extend_from_slice(kernel.as_bytes());
    needle.push(0);
    !kernel.is_empty() && cubin.windows(needle.len()).any(|w| w == needle.as_slice())
}

impl Compiled {
    pub fn function(&self, experiment_file: &Path, name: &str) -> Result<CudaFunction, RunError> {
        self.module
            .load_function(name)
            .map_err(|_| RunError::NoKernel {
                path: experiment_file.to_path_buf(),
                kernel: name.to_string(),
            })
    }
}

struct ProgramGuard(nvrtc_sys::nvrtcProgram);

impl Drop for ProgramGuard {
    fn drop(&mut self) {
        // SAFETY: created by create_program and destroyed only here. A failure to free
        // leaks one program, which is not worth a panic.
        let _ = unsafe { nvrtc::destroy_program(self.0) };
    }
}

fn c_chars_to_string(raw: &[c_char]) -> String {
    let bytes: Vec<u8> = raw
        .iter()
        .map(|c| *c as u8)
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_is_named_only_by_a_whole_symbol() {
        let strtab = b"\0.text.scale\0scale\0scale_ref\0";
        assert!(cubin_names(strtab, "scale"));
        assert!(cubin_names(strtab, "scale_ref"));
        assert!(!cubin_names(strtab, "scal"));
        assert!(!cubin_names(strtab, "text"));
        assert!(!cubin_names(strtab, ""));
    }

    #[test]
    fn architecture_follows_experiment_options() {
        let o = options_for(
            &["--std=c++17".into()],
            "sm_90",
            &["--maxrregcount=32".into()],
        );
        assert_eq!(
            o,
            [
                "--std=c++17",
                "--gpu-architecture=sm_90",
                "--maxrregcount=32"
            ]
        );
    }
}
