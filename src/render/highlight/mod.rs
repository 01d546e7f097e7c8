//! Code block highlighting at build time, so pages carry no client-side highlighter.
//!
//! Every fence goes through syntaxmate (`library`): C, C++, Python, shell and the other
//! grammars it bundles, and the CUDA, PTX and SASS grammars written for this site
//! (`syntaxes/`). Any other language, or none, is shown as plain escaped text.
//!
//! Output is cached by (language, code) across pages and rebuilds, because the same
//! snippet is often quoted by several entries and `serve` re-renders unchanged pages on
//! every save. The cache is bounded ([`CACHE_BYTES`]): a large site's snippets are mostly
//! distinct, and keeping every one would grow a build's memory with every entry.
//!
//! Between builds, blocks are kept in the build's cache (`crate::build_cache`, attached
//! by the pipeline with [`attach`]), keyed by the SHA-256 of (language, code), under this
//! binary's identity and the grammars' [`generation`]; an entry whose tag does not verify
//! is highlighted again.

mod library;

use std::sync::{Arc, Mutex, OnceLock, RwLock};

use crate::build_cache::{digest_of, Store};

use super::escape::escape;

/// The (language, code) → HTML cache, and the bytes it holds.
#[derive(Default)]
struct Cache {
    /// foldhash: the key holds the whole snippet, and SipHash over every code block (a
    /// lookup and an insert each) was a visible part of a build.
    html: foldhash::HashMap<(String, String), Arc<str>>,
    bytes: usize,
}

/// At most this many bytes of code and HTML stay cached; past it the cache starts again
/// empty (16 MB: thousands of snippets, whatever the site's size; 1 MB in unit tests, so
/// the test that fills it stays quick).
const CACHE_BYTES: usize = if cfg!(test) { 1 << 20 } else { 16 << 20 };

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The build cache blocks are kept in between builds, while a build has one attached.
static DISK: RwLock<Option<Arc<Store>>> = RwLock::new(None);

/// Look blocks up in `store` (and keep new ones there) until [`detach`]ed.
pub fn attach(store: Option<Arc<Store>>) {
    *DISK.write().unwrap_or_else(|p| p.into_inner()) = store;
}

/// Stop using `store`, if it is the one attached (another build may have attached its own
/// since: blocks are the same whichever build's cache keeps them).
pub fn detach(store: &Arc<Store>) {
    let mut disk = DISK.write().unwrap_or_else(|p| p.into_inner());
    if disk.as_ref().is_some_and(|d| Arc::ptr_eq(d, store)) {
        *disk = None;
    }
}

/// What the HTML of a block depends on besides its code and this binary: the site's
/// grammars and the scope-to-class table.
pub fn generation() -> [u8; 32] {
    library::generation()
}

/// A fenced code block as HTML: `<pre><code class="language-LANG">` with highlight spans.
pub fn code_block(lang: &str, code: &str) -> String {
    let html = highlight(lang, code);
    let mut block = String::with_capacity(html.len() + lang.len() + 48);
    block.push_str("<pre><code");
    if !lang.is_empty() {
        block.push_str(r#" class="language-"#);
        block.push_str(&escape(lang));
        block.push('"');
    }
    block.push('>');
    block.push_str(&html);
    block.push_str("</code></pre>\n");
    block
}

/// The inner HTML of a code block: escaped, with `<span class="hl-…">` around tokens.
pub fn highlight(lang: &str, code: &str) -> Arc<str> {
    let key = (lang.to_ascii_lowercase(), code.to_string());
    // A poisoned lock only means another thread panicked mid-insert; the map is still
    // usable (at worst it lacks that entry).
    if let Some(hit) = cache()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .html
        .get(&key)
    {
        return hit.clone();
    }
    let disk = DISK.read().unwrap_or_else(|p| p.into_inner()).clone();
    let html = kept_or_made(disk.as_deref(), &key.0, code);
    let mut cache = cache().lock().unwrap_or_else(|p| p.into_inner());
    let size = key.0.len() + key.1.len() + html.len();
    if cache.bytes + size > CACHE_BYTES {
        *cache = Cache::default();
    }
    cache.bytes += size;
    cache.html.insert(key, html.clone());
    html
}

/// The block's HTML from the build cache `disk` if it holds it under a tag that verifies,
/// else highlighted now (and kept there for the next build).
fn kept_or_made(disk: Option<&Store>, lang: &str, code: &str) -> Arc<str> {
    let make = || -> String {
        library::syntax_for(lang)
            .and_then(|syntax| library::highlight(syntax, code))
            .unwrap_or_else(|| escape(code))
    };
    let Some(store) = disk else {
        return make().into();
    };
    let id = digest_of(&[lang.as_bytes(), code.as_bytes()]);
    if let Some(kept) = store.get(&id).and_then(|v| std::str::from_utf8(v).ok()) {
        return kept.into();
    }
    let html = make();
    store.put(id, html.as_bytes());
    html.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of every `<span class="CLASS">`, in order.
    fn spans(html: &str, class: &str) -> Vec<String> {
        let open = format!("<span class=\"{class}\">");
        html.split(&open)
            .skip(1)
            .filter_map(|s| s.split_once("</span>").map(|(t, _)| t.to_string()))
            .collect()
    }

    /// Through the engine, bypassing the caches.
    fn engine(lang: &str, code: &str) -> String {
        let syntax = library::syntax_for(lang).expect("a grammar");
        library::highlight(syntax, code).expect("highlights")
    }

    fn plain_text(html: &str) -> String {
        let mut plain = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                c if !in_tag => plain.push(c),
                _ => {}
            }
        }
        plain
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    #[test]
    fn cuda_grammar_marks_qualifiers_builtins_and_launch_chevrons() {
        let h = engine(
            "cuda",
            "__global__ void k(float* __restrict__ x) {\n  __shared__ float s[32];\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  __syncthreads();\n}\nk<<<grid, 256>>>(x);\n",
        );
        assert_eq!(
            spans(&h, "hl-cuda"),
            ["__global__", "__restrict__", "__shared__"]
        );
        assert_eq!(
            spans(&h, "hl-builtin"),
            ["blockIdx", "blockDim", "threadIdx", "__syncthreads"]
        );
        assert_eq!(spans(&h, "hl-launch"), ["&lt;&lt;&lt;", "&gt;&gt;&gt;"]);
        assert_eq!(spans(&h, "hl-number"), ["32", "256"]);
        assert!(spans(&h, "hl-type").contains(&"float".to_string()));
    }

    #[test]
    fn cuda_grammar_marks_comments_strings_directives_and_brace_initialisers() {
        let h = engine(
            "cu",
            "#pragma unroll\nx = \"a // not a comment\"; // real\n/* two\nlines */ y = 'c';\nint a[2][2] = {{1, 2}, {3, 4}};\n",
        );
        assert_eq!(spans(&h, "hl-preproc"), ["#pragma unroll"]);
        assert_eq!(
            spans(&h, "hl-string"),
            ["&quot;a // not a comment&quot;", "&#39;c&#39;"]
        );
        // A span never crosses a line: a block comment is one span a line.
        assert_eq!(spans(&h, "hl-comment"), ["// real", "/* two", "lines */"]);
        assert_eq!(spans(&h, "hl-number"), ["2", "2", "1", "2", "3", "4"]);
    }

    /// The grammar's words are one regex grouped by first letters: a word that is a
    /// prefix of another (`const`, `constexpr`), suffixed forms (`int8_t`, `uint4`,
    /// `atomicAdd_block`) and words inside identifiers must come out as the lists say.
    #[test]
    fn cuda_grammar_words_take_their_kind_whole_and_only_whole() {
        let h = engine(
            "cuda",
            "const constexpr consteval co_await static_assert typename NULL\n\
             int int8_t uint32_t uint4 ulonglong2 double3 char16_t __half2 __nv_bfloat162 dim3\n\
             __syncthreads_count __shfl_xor_sync __reduce_add_sync atomicCAS_block __ldcs\n\
             __global__ __grid_constant__ clusterIdx warpSize\n\
             constant x__global__ threadIdxs intx float5 atomicAddx __syncthreads_\n",
        );
        assert_eq!(
            spans(&h, "hl-keyword"),
            [
                "const",
                "constexpr",
                "consteval",
                "co_await",
                "static_assert",
                "typename",
                "NULL"
            ]
        );
        assert_eq!(
            spans(&h, "hl-type"),
            [
                "int",
                "int8_t",
                "uint32_t",
                "uint4",
                "ulonglong2",
                "double3",
                "char16_t",
                "__half2",
                "__nv_bfloat162",
                "dim3"
            ]
        );
        assert_eq!(
            spans(&h, "hl-builtin"),
            [
                "__syncthreads_count",
                "__shfl_xor_sync",
                "__reduce_add_sync",
                "atomicCAS_block",
                "__ldcs",
                "clusterIdx",
                "warpSize"
            ]
        );
        assert_eq!(spans(&h, "hl-cuda"), ["__global__", "__grid_constant__"]);
        let last = h.lines().last().unwrap();
        assert!(
            !last.contains("<span"),
            "no word of the last line is listed: {last}"
        );
    }

    /// Every coloured token as (class, text), in order.
    fn coloured(html: &str) -> Vec<(String, String)> {
        html.split("<span class=\"")
            .skip(1)
            .filter_map(|s| {
                let (class, rest) = s.split_once("\">")?;
                let (text, _) = rest.split_once("</span>")?;
                Some((class.to_string(), text.to_string()))
            })
            .collect()
    }

    /// C++ namespaces and templates in a `cuda` fence come out as a `cpp` fence colours
    /// them: a template header's `template`, `typename` and `class` are types there, as
    /// in C++'s grammar; a qualified name (`wmma::mma_sync`) is plain in both. (Elsewhere
    /// the CUDA grammar keeps its own lexical kinds, pinned by the tests above.)
    #[test]
    fn cpp_in_a_cuda_block_is_coloured_as_cpp_colours_it() {
        let mut differ = Vec::new();
        for code in [
            "wmma::mma_sync(c, a, b, c);\n",
            "template <typename T>\nT twice(T x) { return x + x; }\n",
            "namespace cg = cooperative_groups;\ncg::thread_block block = cg::this_thread_block();\n",
            "wmma::fragment<wmma::matrix_a, 16, 16, 16, float, wmma::row_major> a;\n",
            "std::vector<float> v(n);\nstatic_cast<int>(v.size());\n",
            "template <int K, class Op>\nvoid f();\ntemplate <typename T, typename U = T>\nU g(T x);\n",
            "template <typename T, int N = sizeof(T)>\nvoid k(T* x) { x[0] = N; }\n",
        ] {
            let cuda = coloured(&engine("cuda", code));
            let cpp = coloured(&engine("cpp", code));
            if cuda != cpp {
                differ.push(format!("{code}\n  cuda: {cuda:?}\n  cpp:  {cpp:?}"));
            }
        }
        assert!(differ.is_empty(), "{}", differ.join("\n"));
    }

    #[test]
    fn cuda_grammar_leaves_a_shift_outside_a_launch() {
        let h = engine(
            "cuda",
            "x = y >>> 2; std::vector<std::vector<std::pair<int,int>>> v;",
        );
        assert!(spans(&h, "hl-launch").is_empty(), "{h}");
    }

    #[test]
    fn c_and_cpp_fences_use_the_bundled_grammars() {
        let code = "int main() { return sizeof(long); } // done\n";
        for lang in ["c", "cpp", "c++", "h", "hpp"] {
            let h = highlight(lang, code);
            assert!(
                spans(&h, "hl-keyword").contains(&"return".to_string()),
                "{lang}: {h}"
            );
            // VS Code's C grammar takes the spaces before `//` into the comment.
            assert_eq!(spans(&h, "hl-comment"), [" // done"], "{lang}: {h}");
        }
    }

    #[test]
    fn ptx_instructions_registers_directives_and_register_lists() {
        let h = highlight(
            "ptx",
            ".reg .f32 %f<4>;\n@%p1 bra $L__BB0_2;\nwmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f2, %f3}, [%rd1+4];\n$L__BB0_2:\nret; // done\n",
        );
        assert_eq!(spans(&h, "hl-preproc"), [".reg"]);
        assert_eq!(spans(&h, "hl-type"), [".f32"]);
        assert_eq!(spans(&h, "hl-cuda"), ["@%p1"]);
        assert_eq!(
            spans(&h, "hl-keyword"),
            [
                "bra",
                "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32",
                "ret"
            ]
        );
        assert_eq!(spans(&h, "hl-builtin"), ["%f", "%f2", "%f3", "%rd1"]);
        assert_eq!(spans(&h, "hl-comment"), ["// done"]);
        assert_eq!(spans(&h, "hl-number"), ["4", "4"]);
    }

    #[test]
    fn sass_opcodes_registers_and_guards() {
        let h = highlight(
            "sass",
            "        /*0010*/                   S2R R0, SR_TID.X ;\n  @!P0 IMAD.WIDE R2, R0, R3, c[0x0][0x160] ;\n",
        );
        assert_eq!(spans(&h, "hl-comment"), ["/*0010*/"]);
        assert_eq!(spans(&h, "hl-keyword"), ["S2R", "IMAD.WIDE"]);
        assert_eq!(spans(&h, "hl-cuda"), ["@!P0"]);
        assert_eq!(
            spans(&h, "hl-builtin"),
            ["R0", "SR_TID.X", "R2", "R0", "R3", "c[0x0]"]
        );
    }

    #[test]
    fn sass_control_codes_addresses_and_both_comment_kinds() {
        let h = highlight(
            "sass",
            "# sm_90, from CuAssembler\n      [B------:R-:W2:-:S04]         /*0070*/                   LDG.E R2, desc[UR4][R2.64] ; // load\n      [B--2---:R-:W-:Y:S01]         /*0080*/                   EXIT ;\n",
        );
        assert_eq!(
            spans(&h, "hl-preproc"),
            ["[B------:R-:W2:-:S04]", "[B--2---:R-:W-:Y:S01]"]
        );
        assert_eq!(
            spans(&h, "hl-comment"),
            [
                "# sm_90, from CuAssembler",
                "/*0070*/",
                "// load",
                "/*0080*/"
            ]
        );
        // Opcodes are the instructions alone: no letter of a control code is one.
        assert_eq!(spans(&h, "hl-keyword"), ["LDG.E", "EXIT"]);
    }

    #[test]
    fn python_and_shell_go_through_bundled_grammars() {
        let py = highlight("python", "def f(x):\n    return len(x)  # n\n");
        assert!(
            spans(&py, "hl-keyword").contains(&"return".to_string()),
            "{py}"
        );
        assert!(
            spans(&py, "hl-comment").iter().any(|c| c.contains("# n")),
            "{py}"
        );
        let sh = highlight("sh", "nvcc -O3 k.cu -o k && echo \"done\" # build\n");
        assert!(
            spans(&sh, "hl-string").iter().any(|s| s.contains("done")),
            "{sh}"
        );
        assert!(
            spans(&sh, "hl-comment")
                .iter()
                .any(|c| c.contains("# build")),
            "{sh}"
        );
        let cpp = engine("c++", "int main() { return 0; }\n");
        assert!(
            spans(&cpp, "hl-keyword").contains(&"return".to_string()),
            "{cpp}"
        );
    }

    #[test]
    fn text_round_trips_for_any_input_and_language() {
        for lang in [
            "cuda", "cpp", "c", "ptx", "sass", "python", "sh", "text", "nonesuch",
        ] {
            for code in [
                "\"unterminated\nnext",
                "/* never closed",
                "é ü 漢字 <<< >>> &",
                "#",
                "'",
                "1e+",
                "\\",
                "{{ value(row=\"a\") }} {% x %} {# y #}",
                "",
                "no newline at end",
            ] {
                assert_eq!(plain_text(&highlight(lang, code)), code, "{lang}: {code:?}");
                if library::syntax_for(lang).is_some() {
                    assert_eq!(plain_text(&engine(lang, code)), code, "{lang}: {code:?}");
                }
            }
        }
    }

    #[test]
    fn other_languages_are_escaped_only() {
        assert_eq!(
            &*highlight("text", "<b> __global__"),
            "&lt;b&gt; __global__"
        );
        assert_eq!(
            code_block("nonesuch", "a && b"),
            "<pre><code class=\"language-nonesuch\">a &amp;&amp; b</code></pre>\n"
        );
    }

    #[test]
    fn output_has_classes_not_inline_styles() {
        let h = highlight("python", "import os\nprint('x')\n");
        assert!(!h.contains("style="), "{h}");
        assert!(h.contains("class=\"hl-"), "{h}");
    }

    #[test]
    fn the_same_block_is_served_from_the_cache() {
        let code = "__global__ void cached_probe() {}";
        let a = highlight("cu", code);
        let b = highlight("cu", code);
        assert!(Arc::ptr_eq(&a, &b));
    }

    #[test]
    fn the_cache_stays_bounded_however_many_blocks_a_site_has() {
        // Distinct blocks totalling about twice the bound, plain text (escaped only).
        let block = "x < y && z\n".repeat(3_000);
        for i in 0..(2 * CACHE_BYTES / (2 * block.len())) {
            highlight("", &format!("{i}\n{block}"));
            let bytes = cache().lock().unwrap_or_else(|p| p.into_inner()).bytes;
            assert!(bytes <= CACHE_BYTES, "{bytes} bytes cached");
        }
    }

    /// A block highlighted by one build is taken from the build cache by the next; an
    /// entry whose HTML was changed in the file (say, to carry a script) is refused and the
    /// block highlighted again.
    #[test]
    fn the_build_cache_serves_kept_blocks_and_redoes_a_tampered_one() {
        use std::sync::atomic::Ordering::Relaxed;
        let dir = tempfile::tempdir().unwrap();
        let open = || Store::open(dir.path(), "highlight", [3; 32], generation());
        let code = "__global__ void kept_probe() { int i = threadIdx.x; }\n";
        let fresh = kept_or_made(None, "cuda", code);
        let first = open();
        assert_eq!(kept_or_made(Some(&first), "cuda", code), fresh);
        assert_eq!(first.stats.misses.load(Relaxed), 1);
        first.save().unwrap();

        let second = open();
        assert_eq!(kept_or_made(Some(&second), "cuda", code), fresh);
        assert_eq!(second.stats.hits.load(Relaxed), 1);

        let file = dir.path().join("highlight");
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let at = text.find("kept_probe").unwrap();
        let mut bad = bytes.clone();
        bad[at..at + 10].copy_from_slice(b"<script>//");
        std::fs::write(&file, &bad).unwrap();
        let third = open();
        let html = kept_or_made(Some(&third), "cuda", code);
        assert_eq!(
            html, fresh,
            "highlighted again, not taken from the changed entry"
        );
        assert!(!html.contains("<script>"));
        assert_eq!(third.stats.refused.load(Relaxed), 1);
    }

    /// The tokenizers' line caches change nothing: blocks highlighted on this thread twice
    /// (the second time mostly from the cache) come out byte for byte as on a fresh thread,
    /// whose tokenizers have seen none of them.
    #[test]
    fn lines_from_the_tokenizer_cache_are_the_lines_highlighting_makes() {
        let mut blocks: Vec<(String, String)> = Vec::new();
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/sites/corpus/content"
        );
        for kind in ["terms", "lessons", "guides"] {
            let Ok(dir) = std::fs::read_dir(format!("{fixture}/{kind}")) else {
                continue;
            };
            for f in dir.flatten() {
                let text = std::fs::read_to_string(f.path()).unwrap_or_default();
                let mut parts = text.split("```");
                parts.next();
                while let (Some(block), _) = (parts.next(), parts.next()) {
                    if let Some((lang, code)) = block.split_once('\n') {
                        blocks.push((lang.trim().to_string(), code.to_string()));
                    }
                }
            }
        }
        for code in [
            "int a; /* open\nstill */ int b;\nint a; /* open\nstill */ int b;\n",
            "x = \"unterminated\n__syncthreads();\n__syncthreads();\n",
            "#define X \\\n  1\n#define X \\\n  1\nk<<<g,\n b>>>(x);\nk<<<g,\n b>>>(x);\n",
        ] {
            blocks.push(("cuda".into(), code.into()));
        }
        assert!(blocks.len() > 40, "{} blocks", blocks.len());
        // Each block on a thread of its own: tokenizers that have seen nothing else.
        let fresh: Vec<Option<String>> = blocks
            .iter()
            .map(|(lang, code)| {
                let (lang, code) = (lang.clone(), code.clone());
                std::thread::spawn(move || {
                    library::syntax_for(&lang).and_then(|g| library::highlight(g, &code))
                })
                .join()
                .unwrap()
            })
            .collect();
        for round in 0..2 {
            for ((lang, code), fresh) in blocks.iter().zip(&fresh) {
                let Some(g) = library::syntax_for(lang) else {
                    continue;
                };
                assert_eq!(
                    &library::highlight(g, code),
                    fresh,
                    "round {round}, {lang}:\n{code}"
                );
            }
        }
    }
}
