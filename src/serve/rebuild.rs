//! The rebuild step of `serve`. Every rebuild goes through [`Rebuilder::rebuild`], which is
//! told what changed: today it renders the whole site (`crate::build::render`), and an
//! incremental version can use `changed` without touching the watcher or the server.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::build::{render, BuildOptions, RenderedSite};

/// The served site: every file by its URL path relative to the root (`terms/x/index.html`).
pub type SiteFiles = HashMap<String, Arc<Vec<u8>>>;

/// What one rebuild produced.
pub enum Outcome {
    Built {
        files: SiteFiles,
        summary: String,
        took: Duration,
    },
    /// The build failed; the message is what the terminal and the error page show.
    Failed { message: String, took: Duration },
}

pub struct Rebuilder {
    root: PathBuf,
    drafts: bool,
}

impl Rebuilder {
    pub fn new(root: &Path, drafts: bool) -> Rebuilder {
        Rebuilder {
            root: root.to_path_buf(),
            drafts,
        }
    }

    /// Rebuild after `changed` paths changed (empty: the first build). Prints the outcome
    /// and how long it took.
    pub fn rebuild(&mut self, changed: &[PathBuf]) -> Outcome {
        let started = Instant::now();
        let opts = BuildOptions {
            root: self.root.clone(),
            out: None,
            drafts: self.drafts,
            today: chrono::Local::now().date_naive(),
        };
        let outcome = match render(&opts).and_then(into_files) {
            Ok((files, summary)) => Outcome::Built {
                files,
                summary,
                took: started.elapsed(),
            },
            Err(e) => Outcome::Failed {
                message: e
                    .flatten()
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n"),
                took: started.elapsed(),
            },
        };
        let cause = match changed {
            [] => "built".to_string(),
            [one] => format!("rebuilt after a change to {}", display_rel(&self.root, one)),
            many => format!("rebuilt after {} changes", many.len()),
        };
        match &outcome {
            Outcome::Built {
                files,
                summary,
                took,
            } => {
                print!("{summary}");
                println!("{cause}: {} files in {:.1} ms", files.len(), ms(*took));
            }
            Outcome::Failed { message, took } => {
                eprintln!("error: build failed ({:.1} ms); the browser shows this until the next good save:", ms(*took));
                for line in message.lines() {
                    eprintln!("  {line}");
                }
            }
        }
        outcome
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn display_rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

/// The rendered pages plus the static files, as the server looks them up.
fn into_files(site: RenderedSite) -> crate::Result<(SiteFiles, String)> {
    let mut files: SiteFiles = site
        .files
        .into_iter()
        .map(|f| {
            (
                f.path.to_string_lossy().replace('\\', "/"),
                Arc::new(f.bytes),
            )
        })
        .collect();
    if site.static_dir.is_dir() {
        for item in walkdir::WalkDir::new(&site.static_dir) {
            let item = item
                .map_err(|e| crate::Error::Other(format!("{}: {e}", site.static_dir.display())))?;
            if !item.file_type().is_file() {
                continue;
            }
            let rel = item
                .path()
                .strip_prefix(&site.static_dir)
                .unwrap_or(item.path());
            let bytes = std::fs::read(item.path()).map_err(|e| crate::Error::io(item.path(), e))?;
            files.insert(
                format!("static/{}", rel.to_string_lossy().replace('\\', "/")),
                Arc::new(bytes),
            );
        }
    }
    Ok((files, site.report.summary()))
}
