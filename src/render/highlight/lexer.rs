//! The hand-written C/C++/CUDA lexer: one pass over the bytes, about as costly as
//! escaping the text. Kept for C-like fences because syntect made the 10,000-entry
//! benchmark more than 20% slower (README, Performance). It is a lexer, not a parser: it
//! never fails, and on code it does not understand it falls back to plain escaped text.

use crate::render::escape::escape_into;

const KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "asm",
    "auto",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "consteval",
    "constexpr",
    "const_cast",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "extern",
    "false",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "nullptr",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "restrict",
    "return",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "throw",
    "true",
    "try",
    "typedef",
    "typename",
    "union",
    "using",
    "virtual",
    "volatile",
    "while",
    "NULL",
];

const TYPES: &[&str] = &[
    "bool",
    "char",
    "double",
    "float",
    "int",
    "long",
    "short",
    "signed",
    "unsigned",
    "void",
    "size_t",
    "ptrdiff_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "half",
    "__half",
    "__half2",
    "__nv_bfloat16",
    "dim3",
    "cudaError_t",
    "cudaStream_t",
    "cudaEvent_t",
    "float2",
    "float3",
    "float4",
    "int2",
    "int3",
    "int4",
    "uint2",
    "uint3",
    "uint4",
    "double2",
];

/// Declaration qualifiers and attributes that exist only in CUDA C++.
const CUDA_QUALIFIERS: &[&str] = &[
    "__global__",
    "__device__",
    "__host__",
    "__shared__",
    "__constant__",
    "__managed__",
    "__restrict__",
    "__launch_bounds__",
    "__forceinline__",
    "__noinline__",
    "__grid_constant__",
];

/// Built-in variables and intrinsics a kernel reads or calls.
const CUDA_BUILTINS: &[&str] = &[
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "__syncthreads",
    "__syncwarp",
    "__threadfence",
    "__shfl_sync",
    "__shfl_down_sync",
    "__shfl_up_sync",
    "__shfl_xor_sync",
    "__ballot_sync",
    "__any_sync",
    "__all_sync",
    "__ldg",
    "atomicAdd",
    "atomicCAS",
    "atomicMax",
    "atomicMin",
    "atomicExch",
];

/// One pass over the bytes. Token boundaries are always ASCII, so slicing the `&str` at
/// them never splits a UTF-8 sequence.
pub(super) fn highlight_c_like(code: &str) -> String {
    let b = code.as_bytes();
    let mut out = String::with_capacity(code.len() * 2);
    let mut i = 0;
    // Only after `<<<` is `>>>` a launch's closing chevrons rather than nested templates.
    let mut open_launches = 0usize;
    // True until the first non-blank byte of a line: `#` there starts a directive.
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c == b'\n' {
            out.push('\n');
            line_start = true;
            i += 1;
            continue;
        }
        if c == b' ' || c == b'\t' || c == b'\r' {
            out.push(c as char);
            i += 1;
            continue;
        }
        let at_line_start = std::mem::replace(&mut line_start, false);
        let class = if c == b'#' && at_line_start {
            // A directive runs to the end of the line, backslash continuations included.
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] == b'\n' {
                    i += 1;
                }
                i += 1;
            }
            "hl-preproc"
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            "hl-comment"
        } else if b[i..].starts_with(b"/*") {
            i = match code[i + 2..].find("*/") {
                Some(end) => i + 2 + end + 2,
                None => b.len(),
            };
            "hl-comment"
        } else if c == b'"' || c == b'\'' {
            i = end_of_quoted(b, i);
            "hl-string"
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i = end_of_number(b, i);
            "hl-number"
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            classify_word(&code[start..i])
        } else if b[i..].starts_with(b"<<<") {
            open_launches += 1;
            i += 3;
            "hl-launch"
        } else if b[i..].starts_with(b">>>") && open_launches > 0 {
            open_launches -= 1;
            i += 3;
            "hl-launch"
        } else {
            // Any other character, one whole UTF-8 scalar at a time.
            let len = code[i..].chars().next().map_or(1, char::len_utf8);
            i += len;
            ""
        };
        let text = &code[start..i];
        if class.is_empty() {
            escape_into(&mut out, text);
        } else {
            out.push_str("<span class=\"");
            out.push_str(class);
            out.push_str("\">");
            escape_into(&mut out, text);
            out.push_str("</span>");
            if text.ends_with('\n') {
                line_start = true;
            }
        }
    }
    out
}

/// The class of a word: the lists above in one table, a list earlier in
/// [`CLASSES`] winning a word two lists share. A hash lookup per identifier rather than
/// comparing it with all 130 listed words, which was 1% of a build.
fn classify_word(word: &str) -> &'static str {
    static TABLE: std::sync::LazyLock<foldhash::HashMap<&str, &str>> =
        std::sync::LazyLock::new(|| {
            let mut table = foldhash::HashMap::default();
            for (words, class) in CLASSES {
                for w in *words {
                    table.entry(*w).or_insert(*class);
                }
            }
            table
        });
    TABLE.get(word).copied().unwrap_or("")
}

/// Each list's class, in the order a word's class is decided.
const CLASSES: &[(&[&str], &str)] = &[
    (CUDA_QUALIFIERS, "hl-cuda"),
    (CUDA_BUILTINS, "hl-builtin"),
    (KEYWORDS, "hl-keyword"),
    (TYPES, "hl-type"),
];

/// End of a string or character literal starting at `i`; an unterminated one ends at the
/// line's end so one stray quote cannot colour the rest of the block.
fn end_of_quoted(b: &[u8], i: usize) -> usize {
    let quote = b[i];
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// Decimal, hex, binary and floating literals with suffixes and digit separators.
fn end_of_number(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len() {
        let c = b[j];
        let exponent_sign = (c == b'+' || c == b'-')
            && j > i
            && matches!(b[j - 1], b'e' | b'E' | b'p' | b'P')
            && !(b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) && b[j - 1] == b'e');
        if c.is_ascii_alphanumeric() || c == b'.' || c == b'\'' || c == b'_' || exponent_sign {
            j += 1;
        } else {
            break;
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(html: &str, class: &str) -> Vec<String> {
        let open = format!("<span class=\"{class}\">");
        html.split(&open)
            .skip(1)
            .filter_map(|s| s.split_once("</span>").map(|(t, _)| t.to_string()))
            .collect()
    }

    #[test]
    fn cuda_qualifiers_builtins_and_launch_chevrons_are_marked() {
        let h = highlight_c_like("__global__ void k(float* __restrict__ x) {\n  __shared__ float s[32];\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  __syncthreads();\n}\nk<<<grid, 256>>>(x);\n",
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
    fn comments_strings_and_directives() {
        let h = highlight_c_like(
            "#pragma unroll\nx = \"a // not a comment\"; // real\n/* two\nlines */ y = 'c';\n",
        );
        assert_eq!(spans(&h, "hl-preproc"), ["#pragma unroll"]);
        assert_eq!(
            spans(&h, "hl-string"),
            ["&quot;a // not a comment&quot;", "&#39;c&#39;"]
        );
        assert_eq!(spans(&h, "hl-comment"), ["// real", "/* two\nlines */"]);
    }

    #[test]
    fn nested_template_closers_are_not_a_launch() {
        let h = highlight_c_like("std::vector<std::vector<std::pair<int,int>>> v;");
        assert!(spans(&h, "hl-launch").is_empty(), "{h}");
    }

    #[test]
    fn numbers_with_exponents_and_suffixes() {
        let h = highlight_c_like("a = 1.5e-3f + 0x1Fu + 2'048;");
        assert_eq!(spans(&h, "hl-number"), ["1.5e-3f", "0x1Fu", "2&#39;048"]);
    }

    #[test]
    fn text_round_trips_for_any_input() {
        // Stripping the tags and unescaping must give back the input, whatever it is.
        for code in [
            "\"unterminated\nnext",
            "/* never closed",
            "é ü 漢字 <<< >>> &",
            "#",
            "'",
            "1e+",
            "\\",
        ] {
            let h = highlight_c_like(code);
            let mut plain = String::new();
            let mut in_tag = false;
            for c in h.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' if in_tag => in_tag = false,
                    c if !in_tag => plain.push(c),
                    _ => {}
                }
            }
            let plain = plain
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&amp;", "&");
            assert_eq!(plain, code);
        }
    }
}
