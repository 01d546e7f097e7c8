//! `glossary-corpus`: writes the synthetic benchmark corpus (bench/corpus/) for
//! bench/run.sh, and times an incremental rebuild after a one-entry edit. A dev tool:
//! built only with `--features corpus`.

#[path = "../../bench/corpus/mod.rs"]
mod corpus;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "glossary-corpus",
    about = "Synthetic benchmark corpus for glossary"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write N signed term entries as a glossary project and as a Hugo site.
    Write {
        #[arg(long)]
        n: usize,
        /// Folder for the glossary project (replaced if it exists).
        #[arg(long)]
        glossary: PathBuf,
        /// Folder for the Hugo site (replaced if it exists).
        #[arg(long)]
        hugo: Option<PathBuf>,
        /// The site templates to copy into the glossary project.
        #[arg(long, default_value = "templates")]
        templates: PathBuf,
    },
    /// Time `pipeline::Session::rebuild` plus writing its files, after editing one entry's
    /// body and summary with drafts shown: its page, every page listing it, the index and
    /// the site-wide files (search index, sitemap, feed) change. Prints the median over
    /// the runs, in milliseconds.
    TimeEdit {
        #[arg(long)]
        root: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 7)]
        runs: usize,
    },
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Write {
            n,
            glossary,
            hugo,
            templates,
        } => {
            let corpus = corpus::generate(n);
            fresh(&glossary)?;
            corpus::write_glossary(&corpus, &glossary, &templates)?;
            if let Some(hugo) = hugo {
                fresh(&hugo)?;
                corpus::write_hugo(&corpus, &hugo)?;
            }
            println!("wrote {n} synthetic terms");
        }
        Command::TimeEdit { root, out, runs } => {
            let ms = time_edit(&root, &out, runs)?;
            println!("{ms:.1}");
        }
    }
    Ok(())
}

fn time_edit(root: &std::path::Path, out: &std::path::Path, runs: usize) -> Result<f64> {
    let (mut session, site) =
        glossary::pipeline::Session::start(glossary::pipeline::BuildOptions {
            root: root.to_path_buf(),
            out: Some(out.to_path_buf()),
            drafts: true,
            today: chrono::Local::now().date_naive(),
            base_url: None,
            keep_bodies_up_to: glossary::pipeline::KEEP_BODIES_UP_TO,
        })?;
    site.write_to(out)?;
    drop(site);
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("content/terms"))
        .with_context(|| format!("reading {}", root.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let file = files
        .get(files.len() / 2)
        .context("the corpus has no terms")?
        .clone();
    let original = std::fs::read_to_string(&file)?;
    let mut times = Vec::new();
    for run in 0..runs.max(1) {
        let edited = original
            .replacen("summary: \"", &format!("summary: \"Edit {run}. "), 1)
            .replacen(
                "## How it works",
                &format!("## How it works (edit {run})"),
                1,
            );
        std::fs::write(&file, edited)?;
        // From the saved file to the changed pages on disk.
        let started = std::time::Instant::now();
        let rebuilt = session.rebuild(std::slice::from_ref(&file))?;
        rebuilt.write_to(out)?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(!rebuilt.full, "the edit did not rebuild incrementally");
    }
    std::fs::write(&file, original)?;
    session
        .rebuild(std::slice::from_ref(&file))?
        .write_to(out)?;
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// Start from an empty folder so a smaller corpus never inherits a larger one's files.
fn fresh(dir: &PathBuf) -> Result<()> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
