//! Microseconds per highlighted block, the same kernel for both highlighters; each block
//! differs (a counter in a comment and in two constants) so that nothing can be cached.

use std::time::Instant;

const GRAMMAR: &str = include_str!("../../../src/render/highlight/syntaxes/cuda.sublime-syntax");
const BLOCKS: usize = 5000;

fn kernel(i: usize) -> String {
    format!(
        r#"__global__ void k{i}(const float* __restrict__ in, float* __restrict__ out, int n)
{{
    // a comment {i}
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (; i < n; i += stride) {{
        float v = in[i];
        acc = fmaf(v, 1.25{i}f, acc);
        out[i] = acc * 0.5{i}f;
    }}
    __shared__ float tile[256];
    tile[threadIdx.x % 256] = acc;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}}
"#
    )
}

/// syntect as glossary runs it: the scope operations of every line (glossary then maps
/// scopes to classes and escapes, which costs the same for either highlighter).
fn syntect_us() -> f64 {
    use syntect::parsing::{ParseState, SyntaxDefinition, SyntaxSetBuilder};
    let mut builder = SyntaxSetBuilder::new();
    builder.add(SyntaxDefinition::load_from_str(GRAMMAR, true, Some("cuda")).expect("grammar"));
    let set = builder.build();
    let syntax = set.find_syntax_by_token("cu").expect("cuda");
    let started = Instant::now();
    let mut ops = 0;
    for i in 0..BLOCKS {
        let code = kernel(i);
        let mut state = ParseState::new(syntax);
        for line in syntect::util::LinesWithEndings::from(&code) {
            ops += state.parse_line(line, &set).expect("parses").len();
        }
    }
    assert!(ops > 0);
    started.elapsed().as_secs_f64() * 1e6 / BLOCKS as f64
}

/// tree-sitter-highlight: parse, run the highlight query, write HTML with classes.
fn tree_sitter_us() -> f64 {
    use tree_sitter_highlight::{HighlightConfiguration, Highlighter, HtmlRenderer};
    let names = [
        "keyword",
        "type",
        "function",
        "variable",
        "string",
        "number",
        "comment",
        "constant",
        "operator",
        "punctuation",
        "property",
        "label",
        "attribute",
        "keyword.modifier",
        "punctuation.bracket",
        "delimiter",
        "escape",
    ];
    let query = format!(
        "{}\n{}",
        tree_sitter_c::HIGHLIGHT_QUERY,
        tree_sitter_cuda::HIGHLIGHTS_QUERY
    );
    let mut config =
        HighlightConfiguration::new(tree_sitter_cuda::language(), "cuda", &query, "", "")
            .expect("query");
    config.configure(&names);
    let classes: Vec<String> = names.iter().map(|n| format!("class=\"{n}\"")).collect();
    let mut highlighter = Highlighter::new();
    let started = Instant::now();
    let mut bytes = 0;
    for i in 0..BLOCKS {
        let code = kernel(i);
        let events = highlighter
            .highlight(&config, code.as_bytes(), None, |_| None)
            .expect("highlights");
        let mut html = HtmlRenderer::new();
        html.render(events, code.as_bytes(), &|h| classes[h.0].as_bytes())
            .expect("renders");
        bytes += html.html.len();
    }
    assert!(bytes > 0);
    started.elapsed().as_secs_f64() * 1e6 / BLOCKS as f64
}

fn main() {
    // Three rounds each, interleaved; the median is printed.
    let (mut s, mut t) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        s.push(syntect_us());
        t.push(tree_sitter_us());
    }
    s.sort_by(f64::total_cmp);
    t.sort_by(f64::total_cmp);
    println!("16-line CUDA kernel, {BLOCKS} distinct blocks, median of 3 rounds:");
    println!(
        "  syntect (onig, glossary's CUDA grammar): {:6.1} us/block",
        s[1]
    );
    println!(
        "  tree-sitter-highlight (tree-sitter-cuda): {:6.1} us/block",
        t[1]
    );
}
