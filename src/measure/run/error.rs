//! What can stop `verify`: each error says what was being done and, for a GPU call, the
//! driver's own error name.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(
        "no CUDA driver found (libcuda is not loadable): verify must run on the verification node"
    )]
    NoDriver,
    #[error("no NVRTC library found (libnvrtc is not loadable): verify compiles kernels with NVRTC and must run on the verification node, where the CUDA toolkit's NVRTC is installed")]
    NoNvrtc,
    #[error("the CUDA driver sees no GPU: {0}")]
    NoDevice(String),
    #[error(transparent)]
    NodeMismatch(Box<super::node::NodeMismatch>),
    #[error("{doing}: {error}")]
    Driver { doing: String, error: String },
    #[error("{}: NVRTC could not compile the kernels (options: {}):\n{log}", path.display(), options.join(" "))]
    Compile {
        path: PathBuf,
        options: Vec<String>,
        log: String,
    },
    #[error("{}: kernel `{kernel}` not found in the compiled sources", path.display())]
    NoKernel { path: PathBuf, kernel: String },
    #[error("{}: config `{label}`: {message}", path.display())]
    Config {
        path: PathBuf,
        label: String,
        message: String,
    },
    #[error(transparent)]
    Spec(#[from] crate::Error),
    #[error("{0}")]
    Other(String),
}

impl From<super::node::NodeMismatch> for RunError {
    fn from(m: super::node::NodeMismatch) -> RunError {
        RunError::NodeMismatch(Box::new(m))
    }
}

/// Attach what was being done to a driver (or NVRTC) error.
pub trait Doing<T> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, RunError>;
}

impl<T, E: std::fmt::Debug> Doing<T> for Result<T, E> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, RunError> {
        self.map_err(|e| RunError::Driver {
            doing: what(),
            error: format!("{e:?}"),
        })
    }
}
