//! The maintained highlighters side by side (issue #41), in two parts.
//!
//! Glossary's own grammars: syntect (what glossary ran before issue 41, with the grammars
//! as they were then, sublime-syntax, kept in `grammars/`), giallo and syntaxmate (both
//! TextMate engines, with the grammars the build uses now, tmLanguage JSON in
//! `src/render/highlight/syntaxes/`, first converted from the sublime-syntax ones with the
//! same regexes and scopes), and tree-sitter-highlight for CUDA. For each: microseconds per block
//! over the benchmark corpus's 16-line kernel (5,000 distinct blocks) and over the
//! repository's code (every `.cu` file, every `cuda` fence in content/ and docs/, and the
//! PTX and SASS samples of glossary's highlighter tests); then every block's output as
//! glossary would show it, the (class, text) runs after the scope → `hl-*` class table
//! (`classes.rs`), compared with syntect's; and five blocks side by side
//! in `side-by-side.html`.
//!
//! Every other language the repository's fences use (`languages.rs`): syntect with its
//! bundled Sublime grammars, as the build highlighted them before the switch, against syntaxmate 0.2.1
//! with its bundled VS Code/Shiki grammars; blocks identical, coverage and characters per
//! class per language, timings, the same under the build's table now (`CLASSES_NOW`), and
//! `side-by-side-languages.html`.
//!
//!   cargo run --release --manifest-path bench/highlighters/Cargo.toml
//!   cargo run --release --manifest-path bench/highlighters/Cargo.toml -- languages [scopes] [diffs]
//!
//! (`languages`: the second part alone; `scopes`: also every scope stack each side gives
//! those fences; `diffs`: also every line on which they differ.)

mod classes;
mod giallo_run;
mod languages;
mod syntaxmate_run;
mod syntect_run;
mod tree_sitter_run;

use std::path::{Path, PathBuf};
use std::time::Instant;

use classes::Runs;

const CORPUS_BLOCKS: usize = 5000;

/// The corpus's kernel (bench/corpus/model.rs `code_block`), its varying parts a counter.
fn kernel(i: usize) -> String {
    let tile = [32, 64, 128, 256][i % 4];
    format!(
        r#"__global__ void term_{i}(const float* __restrict__ in, float* __restrict__ out, int n)
{{
    // Occupancy warp latency bank conflict {i} stride.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (; i < n; i += stride) {{
        float v = in[i];
        acc = fmaf(v, {}.{:03}f, acc);
        out[i] = acc * 0.{:03}f;
    }}
    __shared__ float tile[{tile}];
    tile[threadIdx.x % {tile}] = acc;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}}
"#,
        1 + i % 3,
        i % 1000,
        (i * 7) % 1000
    )
}

/// A block to highlight: where it comes from, its language (cuda, ptx, sass), its code.
#[derive(Clone)]
pub struct Block {
    pub origin: String,
    pub lang: &'static str,
    pub code: String,
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The repository's CUDA, PTX and SASS: `.cu`/`.cuh` files, the `cuda`, `ptx` and `sass`
/// fences of content/, docs/ and the realistic test corpus (tests/fixtures/sites/corpus),
/// and the PTX and SASS of the highlighter's tests.
fn repository_blocks() -> Vec<Block> {
    let root = repo_root();
    let mut blocks = Vec::new();
    let mut files = Vec::new();
    for dir in [
        "measurements",
        "tools",
        "content",
        "docs/src",
        "tests/fixtures/sites/corpus/content",
    ] {
        collect(&root.join(dir), &mut files);
    }
    files.sort();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        match f.extension().and_then(|e| e.to_str()) {
            Some("cu" | "cuh") => blocks.push(Block {
                origin: rel,
                lang: "cuda",
                code: text,
            }),
            Some("md") => {
                let mut fence: Option<(usize, &'static str, String)> = None;
                for (n, line) in text.lines().enumerate() {
                    match &mut fence {
                        None => {
                            if let Some(lang) = line.trim_start().strip_prefix("```") {
                                let lang = match lang.trim() {
                                    "cuda" | "cu" => "cuda",
                                    "ptx" => "ptx",
                                    "sass" => "sass",
                                    _ => continue,
                                };
                                fence = Some((n + 1, lang, String::new()));
                            }
                        }
                        Some((start, lang, code)) => {
                            if line.trim_start().starts_with("```") {
                                blocks.push(Block {
                                    origin: format!("{rel}:{start}"),
                                    lang,
                                    code: std::mem::take(code),
                                });
                                fence = None;
                            } else {
                                code.push_str(line);
                                code.push('\n');
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // The PTX and SASS of src/render/highlight/mod.rs's tests (the repository has no PTX
    // or SASS file of its own).
    for (lang, code) in [
        ("ptx", ".reg .f32 %f<4>;\n@%p1 bra $L__BB0_2;\nwmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3}, [%rd1+4];\n$L__BB0_2:\nret; // done\n"),
        ("ptx", ".visible .entry saxpy(\n    .param .u64 saxpy_param_0,\n    .param .f32 saxpy_param_1\n)\n{\n    .reg .pred %p<2>;\n    .reg .b32 %r<5>;\n    mov.u32 %r1, %ctaid.x;\n    mov.u32 %r2, %ntid.x;\n    mad.lo.s32 %r3, %r1, %r2, %tid.x;\n    setp.ge.s32 %p1, %r3, %r4;\n    @%p1 bra $L__BB0_2;\n    ld.global.nc.f32 %f1, [%rd4];\n    fma.rn.f32 %f3, %f2, %f1, 0f3F800000;\n    st.global.f32 [%rd6], %f3;\n$L__BB0_2:\n    ret;\n}\n"),
        ("sass", "        /*0010*/                   S2R R0, SR_TID.X ;\n  @!P0 IMAD.WIDE R2, R0, R3, c[0x0][0x160] ;\n"),
        ("sass", "# sm_90, from CuAssembler\n      [B------:R-:W2:-:S04]         /*0070*/                   LDG.E R2, desc[UR4][R2.64] ; // load\n      [B--2---:R-:W-:Y:S01]         /*0080*/                   EXIT ;\n"),
    ] {
        blocks.push(Block {
            origin: format!("src/render/highlight/mod.rs tests ({lang})"),
            lang,
            code: code.to_string(),
        });
    }
    blocks
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("cu" | "cuh" | "md")
        ) {
            out.push(p);
        }
    }
}

type Highlight = Box<dyn FnMut(&Block) -> Option<Runs>>;

/// One highlighter: its name, a function from a block to its class runs, and how to make
/// a fresh one (grammars loaded, nothing highlighted yet).
struct Contender {
    name: &'static str,
    run: Highlight,
    fresh: fn() -> Highlight,
}

/// Microseconds per block of `blocks`, the median of 3 rounds, each on a fresh
/// highlighter warmed up on one corpus block (its regexes compiled, as they are after the
/// first block of a build): no round starts with what an earlier one left (a memo).
fn time(c: &mut Contender, blocks: &[Block]) -> f64 {
    let mut rounds = Vec::new();
    let warm = Block {
        origin: "warm-up".into(),
        lang: "cuda",
        code: kernel(usize::MAX / 2),
    };
    for _ in 0..3 {
        let mut run = (c.fresh)();
        run(&warm);
        let started = Instant::now();
        let mut n = 0;
        for b in blocks {
            n += run(b).map_or(0, |r| r.len());
        }
        assert!(n > 0, "{} highlighted nothing", c.name);
        rounds.push(started.elapsed().as_secs_f64() * 1e6 / blocks.len() as f64);
    }
    rounds.sort_by(f64::total_cmp);
    rounds[1]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (scopes, diffs) = (
        args.iter().any(|a| a == "scopes"),
        args.iter().any(|a| a == "diffs"),
    );
    if args.iter().any(|a| a == "languages") {
        languages::run(scopes, diffs);
        return;
    }
    let corpus: Vec<Block> = (0..CORPUS_BLOCKS)
        .map(|i| Block {
            origin: format!("corpus block {i}"),
            lang: "cuda",
            code: kernel(i),
        })
        .collect();
    let repo = repository_blocks();
    let lines: usize = repo.iter().map(|b| b.code.lines().count()).sum();
    let mut contenders = [Contender {
            name: "syntect 5 (onig), glossary's sublime-syntax grammars",
            run: Box::new(syntect_run::highlighter()),
            fresh: || Box::new(syntect_run::highlighter()),
        },
        Contender {
            name: "syntect 5 (onig), glossary's grammars, with glossary's line memo",
            run: Box::new(syntect_run::highlighter_with_memo()),
            fresh: || Box::new(syntect_run::highlighter_with_memo()),
        },
        Contender {
            name: "giallo 0.4, the same grammars as tmLanguage JSON",
            run: Box::new(giallo_run::highlighter()),
            fresh: || Box::new(giallo_run::highlighter()),
        },
        Contender {
            name: "syntaxmate 0.2, the same grammars as tmLanguage JSON, its line cache off",
            run: Box::new(syntaxmate_run::highlighter_without_line_cache()),
            fresh: || Box::new(syntaxmate_run::highlighter_without_line_cache()),
        },
        Contender {
            name: "syntaxmate 0.2, the same grammars as tmLanguage JSON, with its line cache (default)",
            run: Box::new(syntaxmate_run::highlighter()),
            fresh: || Box::new(syntaxmate_run::highlighter()),
        },
        Contender {
            name: "tree-sitter-highlight 0.22, tree-sitter-cuda (CUDA only; its own node kinds)",
            run: Box::new(tree_sitter_run::highlighter()),
            fresh: || Box::new(tree_sitter_run::highlighter()),
        }];

    // Same output as syntect's, block by block.
    let reference: Vec<Option<Runs>> = {
        let c = &mut contenders[0];
        corpus.iter().chain(&repo).map(|b| (c.run)(b)).collect()
    };
    let mut outputs: Vec<Vec<Option<Runs>>> = Vec::new();
    let of = |lang: &str| repo.iter().filter(|b| b.lang == lang).count();
    println!(
        "{} corpus blocks (16 lines each); {} repository blocks, {} lines ({} CUDA, {} PTX, {} SASS)\n",
        corpus.len(),
        repo.len(),
        lines,
        of("cuda"),
        of("ptx"),
        of("sass")
    );
    println!("| highlighter | µs a corpus block | µs a repository block | corpus blocks as syntect | repository blocks as syntect |");
    println!("|---|--:|--:|--:|--:|");
    for c in contenders.iter_mut() {
        let out: Vec<Option<Runs>> = corpus.iter().chain(&repo).map(|b| (c.run)(b)).collect();
        let same = |range: std::ops::Range<usize>| {
            range
                .clone()
                .filter(|&i| out[i].is_some() && out[i] == reference[i])
                .count()
        };
        let same_corpus = same(0..corpus.len());
        let same_repo = same(corpus.len()..corpus.len() + repo.len());
        let tc = time(c, &corpus);
        let tr = time(c, &repo);
        println!(
            "| {} | {tc:.1} | {tr:.1} | {same_corpus} of {} | {same_repo} of {} |",
            c.name,
            corpus.len(),
            repo.len()
        );
        outputs.push(out);
    }

    // Where each differs from syntect: the first differing run, per block.
    println!();
    for (k, c) in contenders.iter().enumerate().skip(1) {
        let mut shown = 0;
        for (i, b) in corpus.iter().chain(&repo).enumerate() {
            if outputs[k][i] != reference[i] && shown < 6 {
                shown += 1;
                println!(
                    "{}: {} differs: {}",
                    c.name,
                    b.origin,
                    classes::first_difference(reference[i].as_ref(), outputs[k][i].as_ref())
                );
            }
        }
    }

    // Five blocks side by side: the corpus's kernel, two repository kernels, PTX, SASS.
    let all: Vec<&Block> = corpus.iter().chain(&repo).collect();
    let mut picks = vec![0];
    let repo_at = |pred: &dyn Fn(&Block) -> bool| (corpus.len()..all.len()).find(|&i| pred(all[i]));
    picks.extend(repo_at(&|b| b.origin.contains("content/")));
    picks.extend(repo_at(&|b| {
        b.origin.ends_with(".cu") && b.code.contains("template")
    }));
    picks.extend(repo_at(&|b| b.lang == "ptx" && b.code.contains(".entry")));
    picks.extend(repo_at(&|b| {
        b.lang == "sass" && b.code.contains("CuAssembler")
    }));
    let names: Vec<&str> = contenders.iter().map(|c| c.name).collect();
    let headings: Vec<String> = picks
        .iter()
        .map(|&i| format!("{} ({})", all[i].origin, all[i].lang))
        .collect();
    let html = classes::side_by_side(
        "highlighters side by side",
        "Five blocks as each highlighter colours them",
        "Made by <code>cargo run --release --manifest-path bench/highlighters/Cargo.toml</code>: each column is the \
         highlighter's scopes mapped to glossary's <code>hl-*</code> classes by the same table; a block whose output \
         differs from syntect's (the first column) has the differing lines marked.",
        &names,
        &picks,
        &headings,
        &outputs,
    );
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("side-by-side.html");
    std::fs::write(&path, html).expect("writes side-by-side.html");
    println!("\nfive blocks side by side: {}", path.display());

    println!();
    languages::run(scopes, diffs);
}
