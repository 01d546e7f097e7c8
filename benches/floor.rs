//! The floor under a build: what every entry costs in the parts a build cannot do without,
//! each called once per entry with nothing of glossary's around it, beside the real build
//! of the same corpus in the same run.
//!
//!   cargo bench --bench floor                    # 10,000 entries, 3 runs
//!   FLOOR_N=2000 FLOOR_RUNS=1 cargo bench --bench floor
//!
//! The parts, on one thread, each timed with the thread's CPU clock (user + system) over a
//! chunk of 256 entries at a time, so each runs warm:
//! - read: the entry's file read into a string (the kernel);
//! - digest: SHA-256 of its text (what a sign-off is bound to);
//! - front matter: its YAML parsed into the entry's fields (serde_norway);
//! - Markdown: its body to HTML with the options glossary uses, no highlighting, no link
//!   rewriting (pulldown-cmark alone);
//! - template: the term template run on the context glossary makes for the page (Tera
//!   alone: making the context is not timed);
//! - write: the page's folder made and its file written (the kernel);
//! - signatures: two Ed25519 signatures per entry over SSHSIG signed data as a sign-off's,
//!   verified in batches of 4,096 (ed25519-dalek's batch verification; the keys
//!   decompressed once).
//!
//! Their sum is a lower bound on a build's CPU time per entry. The build itself runs as
//! `glossary build` into a fresh output folder; its CPU time (user + system, all threads)
//! per entry is the figure to set beside the floor. bench/run.sh times the build against
//! Hugo; this says how much of the build is left to glossary's own code.
//!
//! The corpus and the outputs are on the RAM disk (/dev/shm) where there is one, as in
//! bench/run.sh.

#[path = "../bench/corpus/mod.rs"]
mod corpus;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use ed25519_dalek::{Signer, SigningKey};
use sha2::{Digest, Sha256};
use ssh_key::{HashAlg, SshSig};

use glossary::content::{parse_front_matter, split_front_matter, IdSet};
use glossary::pipeline::{assess_all, Project};
use glossary::render::pages::{page_template, render_page_markdown};
use glossary::render::templates::load_templates;
use glossary::trust::sshsig::REVIEW_NAMESPACE;

/// 12 s for 100,000 entries on 2 cores: #15's throughput target, as CPU time per entry.
const TARGET_US_PER_ENTRY: f64 = 12.0 * 2.0 / 100_000.0 * 1e6;
const SIGNATURE_BATCH: usize = 4096;
/// Entries per chunk in [`floor_run`].
const CHUNK: usize = 256;

const STAGES: [&str; 7] = [
    "read",
    "digest",
    "front matter (serde_norway)",
    "Markdown (pulldown-cmark)",
    "template (Tera)",
    "write",
    "signatures (ed25519-dalek, 2)",
];

fn main() {
    // `cargo bench` passes `--bench` (and any filter): this bench has no cases to filter.
    let n: usize = env_or("FLOOR_N", 10_000);
    let runs: usize = env_or("FLOOR_RUNS", 3).max(1);
    let scratch = scratch_dir();
    let root = scratch.path().join("corpus");
    let templates = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    eprintln!(
        "floor: writing a corpus of {n} entries under {}",
        root.display()
    );
    corpus::write_glossary(&corpus::generate(n), &root, &templates).expect("corpus");

    let mut floor: Vec<Vec<f64>> = vec![Vec::new(); STAGES.len()];
    let mut build_cpu = Vec::new();
    let mut build_wall = Vec::new();
    for run in 0..runs {
        eprintln!("floor: run {} of {runs}", run + 1);
        let per_entry = floor_run(&root, &scratch.path().join(format!("floor-out-{run}")));
        for (stage, us) in per_entry.into_iter().enumerate() {
            floor[stage].push(us);
        }
        let (wall, cpu) = build_run(&root, &scratch.path().join(format!("build-{run}/site")));
        build_wall.push(wall);
        build_cpu.push(cpu / n as f64 * 1e6);
    }

    let medians: Vec<f64> = floor.iter().map(|v| median(v)).collect();
    let sum: f64 = medians.iter().sum();
    let build = median(&build_cpu);
    println!("\nFloor per entry, {n} entries, median of {runs} run(s), one thread:\n");
    println!("| part | µs per entry | share of the target's {TARGET_US_PER_ENTRY:.0} µs |");
    println!("|---|--:|--:|");
    for (stage, us) in STAGES.iter().zip(&medians) {
        println!(
            "| {stage} | {us:.1} | {:.0}% |",
            us / TARGET_US_PER_ENTRY * 100.0
        );
    }
    println!(
        "| **floor (sum)** | **{sum:.1}** | **{:.0}%** |",
        sum / TARGET_US_PER_ENTRY * 100.0
    );
    println!(
        "| `glossary build`, CPU (all threads) | {build:.1} | {:.0}% |",
        build / TARGET_US_PER_ENTRY * 100.0
    );
    println!(
        "\nglossary build: {:.2} s wall, {:.2} s CPU (medians); the floor is {:.0}% of its CPU, \
         the rest ({:.1} µs an entry) is glossary's own code and what the libraries do for it \
         beyond the one call timed here.",
        median(&build_wall),
        build * n as f64 / 1e6,
        sum / build * 100.0,
        build - sum
    );
    println!(
        "At 100,000 entries on 2 cores, with perfect scaling: the floor alone {:.1} s, the build's \
         CPU {:.1} s (target 12 s).",
        sum * 100_000.0 / 2.0 / 1e6,
        build * 100_000.0 / 2.0 / 1e6
    );
}

/// One pass over every entry; µs per entry for each part. The entries go in chunks, and
/// each part runs over a whole chunk before the next part starts, so each library runs in
/// a tight loop with its code and data warm: the most favourable case for the floor.
fn floor_run(root: &Path, out: &Path) -> Vec<f64> {
    let project = Project::load(root).expect("corpus loads");
    let today = chrono::Local::now().date_naive();
    let assessments = assess_all(&project, today).expect("corpus assesses");
    let tera = load_templates(&project.layout.templates()).expect("templates");
    let ids: IdSet = assessments.iter().map(|a| a.id.clone()).collect();
    let input = project.render_input(&assessments, &tera, &ids, &ids, today, false);
    let options = pulldown_cmark::Options::ENABLE_TABLES
        | pulldown_cmark::Options::ENABLE_FOOTNOTES
        | pulldown_cmark::Options::ENABLE_HEADING_ATTRIBUTES
        | pulldown_cmark::Options::ENABLE_STRIKETHROUGH;
    std::fs::create_dir_all(out).expect("output folder");

    let mut spent = [0.0f64; STAGES.len()];
    let entries = &project.content.entries;
    for (chunk, chunk_assessed) in entries.chunks(CHUNK).zip(assessments.chunks(CHUNK)) {
        // Not timed: glossary's own work that makes what the template sees.
        let pages: Vec<_> = chunk
            .iter()
            .zip(chunk_assessed)
            .map(|(e, a)| {
                render_page_markdown(&input, e, Some(a))
                    .and_then(|r| page_template(&input, e, a, r))
                    .expect("page context")
            })
            .collect();
        let mut clock = StageClock::start();
        let texts: Vec<String> = chunk
            .iter()
            .map(|e| std::fs::read_to_string(&e.path).expect("entry reads"))
            .collect();
        clock.lap(&mut spent[0]);
        for text in &texts {
            std::hint::black_box(Sha256::digest(text.as_bytes()));
        }
        clock.lap(&mut spent[1]);
        let splits: Vec<_> = chunk
            .iter()
            .zip(&texts)
            .map(|(e, text)| split_front_matter(&e.path, text).expect("front matter splits"))
            .collect();
        for (e, split) in chunk.iter().zip(&splits) {
            std::hint::black_box(parse_front_matter(&e.path, split).expect("front matter parses"));
        }
        clock.lap(&mut spent[2]);
        let mut html = String::new();
        for split in &splits {
            html.clear();
            pulldown_cmark::html::push_html(
                &mut html,
                pulldown_cmark::Parser::new_ext(split.body, options),
            );
            std::hint::black_box(&html);
        }
        clock.lap(&mut spent[3]);
        let rendered: Vec<Vec<u8>> = pages
            .iter()
            .map(|page| {
                let mut bytes = Vec::with_capacity(page.capacity);
                tera.render_to(&page.name, &page.context, &mut bytes)
                    .expect("template renders");
                bytes
            })
            .collect();
        clock.lap(&mut spent[4]);
        for (e, bytes) in chunk.iter().zip(&rendered) {
            let dir = out.join(&e.id.slug);
            std::fs::create_dir(&dir).expect("page folder");
            std::fs::write(dir.join("index.html"), bytes).expect("page writes");
        }
        clock.lap(&mut spent[5]);
    }
    spent[6] = signatures(entries.len());
    std::fs::remove_dir_all(out).expect("output removed");
    spent
        .iter()
        .map(|s| s / entries.len() as f64 * 1e6)
        .collect()
}

/// Seconds of CPU to verify two signatures for each of `n` entries, in batches.
fn signatures(n: usize) -> f64 {
    // A throwaway key made here; the corpus's sign-offs use keys of their own.
    let key = SigningKey::from_bytes(&[7u8; 32]);
    let public = key.verifying_key();
    // What the build's batch verifies for a sign-off: SSHSIG's signed data (its preamble,
    // the review namespace, the hash's name and the SHA-512 of what was signed).
    let messages: Vec<Vec<u8>> = (0..2 * n)
        .map(|i| {
            SshSig::signed_data(REVIEW_NAMESPACE, HashAlg::Sha512, &i.to_le_bytes())
                .expect("signed data")
        })
        .collect();
    let signatures: Vec<_> = messages.iter().map(|m| key.sign(m)).collect();
    let mut spent = 0.0;
    for (ms, ss) in messages
        .chunks(SIGNATURE_BATCH)
        .zip(signatures.chunks(SIGNATURE_BATCH))
    {
        let ms: Vec<&[u8]> = ms.iter().map(Vec::as_slice).collect();
        let keys = vec![public; ms.len()];
        let mut clock = StageClock::start();
        ed25519_dalek::verify_batch(&ms, ss, &keys).expect("signatures verify");
        clock.lap(&mut spent);
    }
    spent
}

/// `glossary build` of the corpus into a fresh folder: (wall s, CPU s of all its threads).
/// The folder `out` is in is removed afterwards with all the build left there (the site
/// and the generation it keeps beside it), so the next run is cold too.
fn build_run(root: &Path, out: &Path) -> (f64, f64) {
    let before = children_cpu();
    let started = Instant::now();
    let status = Command::new(env!("CARGO_BIN_EXE_glossary"))
        .arg("build")
        .arg("--root")
        .arg(root)
        .arg("--out")
        .arg(out)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("glossary build runs");
    let wall = started.elapsed().as_secs_f64();
    assert!(status.success(), "glossary build failed: {status}");
    let cpu = children_cpu() - before;
    std::fs::remove_dir_all(out.parent().expect("a folder of its own")).expect("output removed");
    (wall, cpu)
}

/// User + system seconds of the children waited for so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// The calling thread's CPU time (user + system), lap by lap.
struct StageClock(f64);

impl StageClock {
    fn start() -> StageClock {
        StageClock(thread_cpu())
    }

    /// Add the time since the last lap to `total`.
    fn lap(&mut self, total: &mut f64) {
        let now = thread_cpu();
        *total += now - self.0;
        self.0 = now;
    }
}

fn thread_cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

fn scratch_dir() -> tempfile::TempDir {
    let ram = Path::new("/dev/shm");
    match ram.is_dir() {
        true => tempfile::tempdir_in(ram),
        false => tempfile::tempdir(),
    }
    .expect("scratch folder")
}

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
