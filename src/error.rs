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

/// What went wrong. Displayed with every character that a terminal would obey rather than
/// show (ESC, a lone carriage return, bidi overrides) escaped (`visible::Escaped`): a
/// message quotes files, and a file's text must never rewrite the terminal it is read on.
#[derive(Debug)]
pub enum Error {
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    Config {
        path: PathBuf,
        message: String,
    },
    UnknownNode {
        name: String,
        known: Vec<String>,
    },
    /// A problem in one content file; `at` is where in the file, when known.
    Content {
        path: PathBuf,
        at: Option<Location>,
        message: String,
    },
    Template {
        path: PathBuf,
        message: String,
    },
    Many(Vec<Error>),
    /// A stage's own typed error (such as `review::ReviewError`). The stage converts it
    /// into this, so this bottom layer names no stage above it. Shown as that error.
    Stage(Box<dyn std::error::Error + Send + Sync + 'static>),
    Other(String),
}

impl Error {
    /// The message as made, before escaping.
    fn write_plain(&self, f: &mut impl fmt::Write) -> fmt::Result {
        match self {
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Config { path, message } => write!(f, "{}: {message}", path.display()),
            Error::UnknownNode { name, known } => write!(
                f,
                "unknown node `{name}` (glossary.toml defines: {})",
                known.join(", ")
            ),
            Error::Content { path, at, message } => {
                write!(f, "{}", path.display())?;
                if let Some(l) = at {
                    write!(f, ":{l}")?;
                }
                write!(f, ": {message}")
            }
            Error::Template { path, message } => {
                write!(f, "{}: template error: {message}", path.display())
            }
            Error::Many(errors) => {
                write!(f, "{} errors:", errors.len())?;
                for e in errors {
                    f.write_str("\n  ")?;
                    e.write_plain(f)?;
                }
                Ok(())
            }
            Error::Stage(e) => write!(f, "{e}"),
            Error::Other(message) => f.write_str(message),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut plain = String::new();
        self.write_plain(&mut plain)?;
        f.write_str(&crate::visible::escape(&plain))
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            // Transparent: the stage's error stands for this one, and its cause is this
            // one's.
            Error::Stage(e) => e.source(),
            _ => None,
        }
    }
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
