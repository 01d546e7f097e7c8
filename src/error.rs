//! Errors a user can act on: each names the file (and line:column where one exists).

use std::fmt;
use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A place in a source file, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Config { path: PathBuf, message: String },
    #[error("unknown node `{name}` (glossary.toml defines: {})", known.join(", "))]
    UnknownNode { name: String, known: Vec<String> },
    /// A problem in one content file; `at` is where in the file, when known.
    #[error("{}{}: {message}", path.display(), at.map(|l| format!(":{l}")).unwrap_or_default())]
    Content {
        path: PathBuf,
        at: Option<Location>,
        message: String,
    },
    #[error("{}: template error: {message}", path.display())]
    Template { path: PathBuf, message: String },
    #[error("{} errors:\n{}", .0.len(), .0.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n"))]
    Many(Vec<Error>),
    /// A stage's own typed error (such as `review::ReviewError`). The stage converts it
    /// into this, so this bottom layer names no stage above it.
    #[error(transparent)]
    Stage(Box<dyn std::error::Error + Send + Sync + 'static>),
    #[error("{0}")]
    Other(String),
}

impl Error {
    pub fn content(
        path: impl Into<PathBuf>,
        at: Option<Location>,
        message: impl Into<String>,
    ) -> Self {
        Error::Content {
            path: path.into(),
            at,
            message: message.into(),
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Collapse a list of errors: none is Ok, one is itself, more is `Many`.
    pub fn collect(mut errors: Vec<Error>) -> Result<()> {
        match errors.len() {
            0 => Ok(()),
            1 => Err(errors.remove(0)),
            _ => Err(Error::Many(errors)),
        }
    }

    /// Where the error is, for sorting a run's errors by file and line: (file, line,
    /// column). Errors without a file sort first.
    pub fn place(&self) -> (Option<&std::path::Path>, usize, usize) {
        match self {
            Error::Content { path, at, .. } => (
                Some(path),
                at.map_or(0, |l| l.line),
                at.map_or(0, |l| l.column),
            ),
            Error::Io { path, .. } | Error::Config { path, .. } | Error::Template { path, .. } => {
                (Some(path), 0, 0)
            }
            _ => (None, 0, 0),
        }
    }

    /// Every error of `errors` (flattened), sorted by file, line and column, as one
    /// result: one run reports every problem it found, in the order an author fixes them.
    pub fn sorted(errors: Vec<Error>) -> Result<()> {
        let mut all: Vec<Error> = errors.into_iter().flat_map(Error::flatten).collect();
        all.sort_by_cached_key(|e| {
            let (path, line, column) = e.place();
            (path.map(|p| p.to_path_buf()), line, column, e.to_string())
        });
        all.dedup_by(|a, b| a.to_string() == b.to_string());
        Error::collect(all)
    }

    /// Every individual error, flattening `Many`.
    pub fn flatten(self) -> Vec<Error> {
        match self {
            Error::Many(v) => v.into_iter().flat_map(Error::flatten).collect(),
            e => vec![e],
        }
    }
}
