//! The corpus in memory: N synthetic terms, decided once from a seed so that the
//! `glossary` site and the Hugo site are the same text.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};

use glossary::measure::record::{ConfigRecord, ConfigStatus, Quantity, Timing};

use super::rng::Rng;

/// Names and labels that say, wherever a reader meets them, that nothing here was measured.
pub const NODE: &str = "synthetic";
pub const GPU_NAME: &str = "synthetic benchmark node";
pub const TOOL_VERSION: &str = "synthetic benchmark corpus (not a measurement)";
pub const EXPERIMENT: &str = "synthetic-bench";
pub const ROWS: [&str; 4] = ["b128", "b256", "b512", "b1024"];
pub const COLUMNS: [&str; 5] = ["label", "block_size", "occupancy", "median_ms", "gbps"];
pub const AUTHOR: &str = "author-a";
pub const REVIEWER: &str = "reviewer-b";

pub struct Term {
    pub slug: String,
    pub name: String,
    pub summary: String,
    /// Indices of five other terms.
    pub related: Vec<usize>,
    /// (title, url)
    pub sources: Vec<(String, String)>,
    /// Markdown before the quoted number, the row and column quoted, and Markdown after.
    pub body_head: String,
    pub quoted: (&'static str, &'static str),
    pub body_tail: String,
    /// The rows of the measured table this term cites.
    pub rows: Vec<&'static str>,
}

pub struct Corpus {
    pub terms: Vec<Term>,
    /// The synthetic record's rows, shared by every term.
    pub configs: Vec<ConfigRecord>,
    pub checked: NaiveDate,
    pub signed: NaiveDate,
    pub captured_at: DateTime<Utc>,
}

const ADJECTIVES: &[&str] = &[
    "adaptive",
    "banked",
    "bounded",
    "cached",
    "coalesced",
    "cooperative",
    "divergent",
    "dynamic",
    "eager",
    "fused",
    "global",
    "hierarchical",
    "independent",
    "juxtaposed",
    "kernel-level",
    "latent",
    "masked",
    "native",
    "occupied",
    "pinned",
    "quantized",
    "resident",
    "strided",
    "tiled",
    "unified",
    "vectorized",
    "warp-wide",
    "x-major",
    "yielding",
    "zero-copy",
];
const NOUNS: &[&str] = &[
    "access",
    "barrier",
    "block",
    "buffer",
    "cluster",
    "fence",
    "grid",
    "launch",
    "load",
    "mask",
    "pipeline",
    "predicate",
    "queue",
    "register",
    "reduction",
    "scan",
    "schedule",
    "shuffle",
    "slot",
    "stream",
    "tile",
    "transfer",
    "vote",
    "wave",
];
const WORDS: &[&str] = &[
    "the",
    "a",
    "each",
    "every",
    "warp",
    "thread",
    "block",
    "kernel",
    "memory",
    "latency",
    "bandwidth",
    "register",
    "shared",
    "global",
    "cache",
    "line",
    "request",
    "cycle",
    "scheduler",
    "instruction",
    "issue",
    "load",
    "store",
    "occupancy",
    "resident",
    "SM",
    "grid",
    "launch",
    "hides",
    "waits",
    "fills",
    "limits",
    "depends",
    "on",
    "when",
    "while",
    "because",
    "so",
    "and",
    "or",
    "of",
    "in",
    "to",
    "from",
    "with",
    "without",
    "per",
    "more",
    "fewer",
    "than",
    "its",
    "their",
    "must",
    "can",
    "only",
    "often",
    "rarely",
    "stays",
    "moves",
    "reads",
    "writes",
    "counts",
    "measures",
    "device",
    "host",
    "stream",
    "copy",
    "tile",
    "loop",
    "unrolled",
    "independent",
    "dependent",
    "pressure",
    "spill",
    "local",
    "bank",
    "conflict",
    "transaction",
    "sector",
    "stride",
    "contiguous",
    "aligned",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        let w = *rng.pick(WORDS);
        if i == 0 {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                s.extend(f.to_uppercase());
                s.push_str(c.as_str());
            }
        } else {
            s.push(' ');
            s.push_str(w);
        }
    }
    s.push('.');
    s
}

fn paragraph(rng: &mut Rng, words: usize) -> String {
    let mut out = Vec::new();
    let mut left = words;
    while left > 0 {
        let n = (8 + rng.below(9)).min(left);
        out.push(sentence(rng, n));
        left -= n;
    }
    out.join(" ")
}

fn code_block(rng: &mut Rng, name: &str) -> String {
    let func = name.replace(['-', ' '], "_");
    let k = rng.range_f64(0.5, 4.0);
    let s = rng.range_f64(0.1, 2.0);
    let tile = [32, 64, 128, 256][rng.below(4)];
    let comment = sentence(rng, 7);
    format!(
        "```cuda
__global__ void {func}(const float* __restrict__ in, float* __restrict__ out, int n)
{{
    // {comment}
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (; i < n; i += stride) {{
        float v = in[i];
        acc = fmaf(v, {k:.3}f, acc);
        out[i] = acc * {s:.3}f;
    }}
    __shared__ float tile[{tile}];
    tile[threadIdx.x % {tile}] = acc;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}}
```
"
    )
}

fn configs(rng: &mut Rng) -> Vec<ConfigRecord> {
    ROWS.iter()
        .enumerate()
        .map(|(i, label)| {
            let block = 128u32 << i;
            let median = rng.range_f64(0.05, 0.4);
            let samples: Vec<f64> = (0..5).map(|_| median * rng.range_f64(0.98, 1.02)).collect();
            let min = samples.iter().cloned().fold(f64::INFINITY, f64::min);
            let max = samples.iter().cloned().fold(0.0, f64::max);
            ConfigRecord {
                label: label.to_string(),
                kernel: "synthetic".into(),
                status: ConfigStatus::Passed,
                params: [("elements_per_thread".to_string(), 1)].into(),
                block_size: block,
                block: [block, 1, 1],
                grid: [1024, 1, 1],
                smem_reserved: 0,
                grid_size: 1024,
                registers: 32,
                static_smem: 0,
                local_bytes: 0,
                blocks_per_sm: 2048 / block,
                warps_per_sm: 64,
                occupancy: rng.range_f64(0.25, 1.0),
                waves: rng.range_f64(1.0, 8.0),
                achieved_occupancy: None,
                timing: Some(Timing {
                    // As verify makes it: the bench's builds read intervals, never compute them.
                    interval: glossary::measure::run::stats::median_interval(&samples),
                    samples_ms: samples,
                    median_ms: median,
                    min_ms: min,
                    max_ms: max,
                    rsd: 0.01,
                    sm_clock_mhz: None,
                    throttled_samples: Some(0),
                    unobserved_samples: 0,
                    converged: true,
                    host_median_ms: None,
                }),
                quantities: [
                    (
                        "gbps".to_string(),
                        Quantity::metric(
                            rng.range_f64(200.0, 4000.0),
                            "GB/s",
                            Some("bandwidth"),
                            1,
                        ),
                    ),
                    (
                        "loads_in_flight".to_string(),
                        Quantity::metric(64.0, "", Some("loads in flight / SM"), 0),
                    ),
                ]
                .into(),
            }
        })
        .collect()
}

/// The corpus of `n` terms. Same `n`, same corpus.
pub fn generate(n: usize) -> Corpus {
    let mut rng = Rng::new(0x6c6f_7373_6172_7921 ^ n as u64);
    let configs = configs(&mut rng);
    let names: Vec<String> = (0..n)
        .map(|i| format!("{} {} {i}", rng.pick(ADJECTIVES), rng.pick(NOUNS)))
        .collect();
    let terms = (0..n)
        .map(|i| {
            let name = names[i].clone();
            let mut related = Vec::new();
            while n > 5 && related.len() < 5 {
                let j = rng.below(n);
                if j != i && !related.contains(&j) {
                    related.push(j);
                }
            }
            let link = |j: usize| {
                let name = &names[j];
                format!("[{name}](../{}/)", slug_of(name))
            };
            let mut head = paragraph(&mut rng, 90);
            head.push_str("\n\n## How it works\n\n");
            head.push_str(&paragraph(&mut rng, 45));
            if let [a, b, ..] = related[..] {
                head.push_str(&format!(" It is close to {} and to {}. ", link(a), link(b)));
            }
            head.push_str(&paragraph(&mut rng, 45));
            head.push_str("\n\n| setting | effect | cost |\n|---|---|---|\n");
            for _ in 0..3 {
                head.push_str(&format!(
                    "| {} | {} | {} |\n",
                    rng.pick(NOUNS),
                    sentence(&mut rng, 4),
                    rng.pick(ADJECTIVES)
                ));
            }
            head.push('\n');
            head.push_str(&code_block(&mut rng, &name));
            head.push_str("\n## Measured\n\n");
            head.push_str(&paragraph(&mut rng, 40));
            head.push_str(" The synthetic record gives ");
            let row = ROWS[rng.below(ROWS.len())];
            let tail = format!(" GB/s for `{row}`. {}\n", paragraph(&mut rng, 30));
            let sources = (0..3)
                .map(|k| {
                    (
                        format!("Reference {k} for {name}: {}", sentence(&mut rng, 5)),
                        format!("https://docs.example.org/{}/{k}.html", slug_of(&name)),
                    )
                })
                .collect();
            Term {
                slug: slug_of(&name),
                summary: format!("The {name}: {}", sentence(&mut rng, 14)),
                name,
                related,
                sources,
                body_head: head,
                quoted: (row, "gbps"),
                body_tail: tail,
                rows: vec![ROWS[0], ROWS[1], ROWS[2]],
            }
        })
        .collect();
    Corpus {
        terms,
        configs,
        checked: NaiveDate::from_ymd_opt(2026, 1, 15).unwrap_or_default(),
        signed: NaiveDate::from_ymd_opt(2026, 2, 1).unwrap_or_default(),
        captured_at: Utc
            .with_ymd_and_hms(2026, 1, 20, 12, 0, 0)
            .single()
            .unwrap_or_default(),
    }
}

pub fn slug_of(name: &str) -> String {
    name.replace(' ', "-")
}

/// The front matter both corpora share (title, name, summary, related terms, sources),
/// up to the fields only one of them has. Starts with the opening `---`.
pub fn front_matter_head(corpus: &Corpus, term: &Term) -> String {
    use std::fmt::Write as _;
    let mut s = String::from("---\n");
    let _ = writeln!(s, "title: {}", quoted(&format!("What is {}?", term.name)));
    let _ = writeln!(s, "name: {}", quoted(&term.name));
    let _ = writeln!(s, "summary: {}", quoted(&term.summary));
    let related: Vec<&str> = term
        .related
        .iter()
        .map(|&j| corpus.terms[j].slug.as_str())
        .collect();
    let _ = writeln!(s, "related: [{}]", related.join(", "));
    s.push_str("sources:\n");
    for (title, url) in &term.sources {
        let _ = writeln!(
            s,
            "  - title: {}\n    url: {url}\n    checked: {}",
            quoted(title),
            corpus.checked
        );
    }
    s
}

/// YAML double-quoted scalar.
pub fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    // The benches include this module but do not run its tests.
    #[allow(unused_imports)]
    use super::*;

    #[test]
    fn same_n_same_corpus() {
        let (a, b) = (generate(30), generate(30));
        for (x, y) in a.terms.iter().zip(&b.terms) {
            assert_eq!(x.slug, y.slug);
            assert_eq!(x.body_head, y.body_head);
            assert_eq!(x.related, y.related);
        }
    }

    #[test]
    fn slugs_are_unique_and_valid_and_related_are_five_others() {
        let c = generate(200);
        let slugs: std::collections::HashSet<_> = c.terms.iter().map(|t| &t.slug).collect();
        assert_eq!(slugs.len(), 200);
        for (i, t) in c.terms.iter().enumerate() {
            assert!(glossary::content::is_valid_slug(&t.slug), "{}", t.slug);
            assert_eq!(t.related.len(), 5);
            assert!(!t.related.contains(&i));
        }
    }

    #[test]
    fn body_is_about_three_hundred_words_with_a_sixteen_line_cuda_block() {
        let c = generate(10);
        let t = &c.terms[0];
        let body = format!("{}{}", t.body_head, t.body_tail);
        let words = body.split_whitespace().count();
        assert!((250..450).contains(&words), "{words}");
        let code = body
            .split("```cuda\n")
            .nth(1)
            .and_then(|s| s.split("```").next());
        assert_eq!(code.map(|c| c.lines().count()), Some(16));
    }
}
