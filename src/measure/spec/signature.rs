//! Kernel signatures read from the sources: the `extern "C" __global__` functions and
//! their parameter types, so that a launch's arguments are checked before anything runs
//! (and without a GPU). On the node, `cuFuncGetParamInfo` checks the compiled kernel too.

use super::plan::{Arg, ConfigPlan, LaunchPlan};
use super::spans::Site;
use super::types::{ElemType, ScalarType};

#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// A pointer to elements of this type (`None`: `void*` or a type we do not map).
    Pointer(Option<ElemType>),
    /// A scalar of this type (`None`: a type we do not map, checked by size on the node).
    Scalar(Option<ScalarType>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    pub name: String,
    pub params: Vec<(String, Param)>,
}

/// Every `extern "C"` kernel in `source`, comments ignored.
pub fn scan(source: &str) -> Vec<Signature> {
    let text = strip_comments(source);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("__global__") {
        let at = from + i;
        from = at + "__global__".len();
        // `extern "C"` in the same declaration, before `__global__`.
        let start = text[..at].rfind([';', '}']).map_or(0, |s| s + 1);
        if !text[start..at].contains("extern \"C\"") {
            continue;
        }
        let Some(open) = text[from..].find('(').map(|o| from + o) else {
            continue;
        };
        // The name is the last identifier before `(`, skipping `__launch_bounds__(...)`.
        let mut head = text[from..open].trim();
        let mut open = open;
        if head.ends_with("__launch_bounds__") {
            let Some(close) = matching(&text, open) else {
                continue;
            };
            let Some(next) = text[close..].find('(').map(|o| close + o) else {
                continue;
            };
            head = text[close + 1..next].trim();
            open = next;
        }
        let name: String = head
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or_default()
            .to_string();
        let Some(close) = matching(&text, open) else {
            continue;
        };
        let params = split_params(&text[open + 1..close])
            .into_iter()
            .map(|p| (p.clone(), classify(&p)))
            .collect();
        if !name.is_empty() {
            out.push(Signature { name, params });
        }
    }
    out
}

fn matching(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

fn split_params(s: &str) -> Vec<String> {
    let s = s.trim();
    if s.is_empty() || s == "void" {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in s.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    loop {
        let line = rest.find("//");
        let block = rest.find("/*");
        match (line, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                out.push_str(&rest[..l]);
                rest = rest[l..].find('\n').map_or("", |n| &rest[l + n..]);
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                out.push(' ');
                rest = rest[b + 2..]
                    .find("*/")
                    .map_or("", |e| &rest[b + 2 + e + 2..]);
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// A parameter declaration (`const float* __restrict__ x`) to what it takes.
fn classify(decl: &str) -> Param {
    let pointer = decl.contains('*') || decl.contains('[');
    let words: Vec<&str> = decl
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            !w.is_empty()
                && !matches!(
                    *w,
                    "const" | "volatile" | "__restrict__" | "__restrict" | "restrict"
                )
        })
        .collect();
    // The last word is the parameter's name unless the declaration is a bare type.
    let type_words: &[&str] = if words.len() > 1 && !pointer_only(decl) {
        &words[..words.len() - 1]
    } else {
        &words
    };
    let t = type_words.join(" ");
    let scalar = match t.as_str() {
        "float" => Some(ScalarType::F32),
        "double" => Some(ScalarType::F64),
        "int" | "signed" | "signed int" | "int32_t" => Some(ScalarType::I32),
        "unsigned" | "unsigned int" | "uint32_t" => Some(ScalarType::U32),
        "long long" | "long long int" | "long" | "int64_t" | "ptrdiff_t" => Some(ScalarType::I64),
        "unsigned long long"
        | "unsigned long"
        | "unsigned long long int"
        | "uint64_t"
        | "size_t" => Some(ScalarType::U64),
        _ => None,
    };
    if pointer {
        let elem = match t.as_str() {
            "float" => Some(ElemType::F32),
            "double" => Some(ElemType::F64),
            "__half" | "half" => Some(ElemType::F16),
            "__nv_bfloat16" | "nv_bfloat16" => Some(ElemType::Bf16),
            "int" | "int32_t" => Some(ElemType::I32),
            "unsigned" | "unsigned int" | "uint32_t" => Some(ElemType::U32),
            "unsigned char" | "uint8_t" => Some(ElemType::U8),
            _ => None,
        };
        Param::Pointer(elem)
    } else {
        Param::Scalar(scalar)
    }
}

/// `float*` with no name: the last word is part of the type.
fn pointer_only(decl: &str) -> bool {
    decl.trim_end().ends_with('*')
}

/// Check every launch of `plan` against the kernels found in the sources. Each problem is
/// `(the launch's kernel, message)`.
pub fn check(plan: &ConfigPlan, sigs: &[Signature], sources: &str) -> Vec<(Site, String)> {
    let mut out = Vec::new();
    let launches = plan.launches.iter().chain(plan.reference.iter().flatten());
    for l in launches {
        match sigs.iter().find(|s| s.name == l.kernel) {
            None => {
                let known: Vec<&str> = sigs.iter().map(|s| s.name.as_str()).collect();
                out.push((
                    l.at.key("kernel").value(),
                    format!(
                        "kernel `{}` is not an extern \"C\" __global__ function of {sources} (found: {})",
                        l.kernel,
                        if known.is_empty() { "none".into() } else { known.join(", ") }
                    ),
                ))
            }
            Some(sig) => {
                for m in check_args(plan, l, sig) {
                    out.push((l.at.key("kernel").value(), m));
                }
            }
        }
    }
    out
}

fn check_args(plan: &ConfigPlan, l: &LaunchPlan, sig: &Signature) -> Vec<String> {
    let mut out = Vec::new();
    if l.args.len() != sig.params.len() {
        out.push(format!(
            "kernel `{}` takes {} arguments ({}), the launch passes {}",
            l.kernel,
            sig.params.len(),
            sig.params
                .iter()
                .map(|p| p.0.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            l.args.len()
        ));
        return out;
    }
    for (i, (a, (decl, p))) in l.args.iter().zip(&sig.params).enumerate() {
        let n = i + 1;
        match (a, p) {
            (Arg::Buffer(b), Param::Pointer(elem)) => {
                let buf = &plan.buffers[*b];
                if let Some(e) = elem {
                    if *e != buf.ty {
                        out.push(format!(
                            "kernel `{}` argument {n} (`{decl}`) takes {} elements, buffer `{}` is {}",
                            l.kernel, e.name(), buf.name, buf.ty.name()
                        ));
                    }
                }
            }
            (Arg::Buffer(b), Param::Scalar(_)) => out.push(format!(
                "kernel `{}` argument {n} (`{decl}`) is a scalar, the launch passes buffer `{}`",
                l.kernel, plan.buffers[*b].name
            )),
            (Arg::Scalar { ty, .. }, Param::Pointer(_)) => out.push(format!(
                "kernel `{}` argument {n} (`{decl}`) is a pointer, the launch passes a {} scalar",
                l.kernel,
                ty.name()
            )),
            (Arg::Scalar { ty, .. }, Param::Scalar(Some(want))) if want != ty => out.push(format!(
                "kernel `{}` argument {n} (`{decl}`) is {}, the launch passes {}",
                l.kernel,
                want.name(),
                ty.name()
            )),
            _ => {}
        }
    }
    out
}

/// The size in bytes of each argument as the launch passes it (pointers are 8).
pub fn arg_sizes(l: &LaunchPlan) -> Vec<usize> {
    l.args
        .iter()
        .map(|a| match a {
            Arg::Buffer(_) => 8,
            Arg::Scalar { ty, .. } => ty.size(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_extern_c_kernels_and_their_parameter_types() {
        let src = r#"
// extern "C" __global__ void commented_out(int x) {}
template <int E> __global__ void templated(float* x) {}
extern "C" __global__ void axpy(float a, const float* __restrict__ x,
                                const float* __restrict__ y, float* __restrict__ out,
                                unsigned long long n) { }
extern "C" __global__ void __launch_bounds__(256) h(const __half* in, __nv_bfloat16 *o, int n, void* any, size_t k) {}
extern "C" {
__global__ void inside(unsigned char* p, double d) {}
}
"#;
        let sigs = scan(src);
        let names: Vec<&str> = sigs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["axpy", "h", "inside"]);
        let kinds = |i: usize| {
            sigs[i]
                .params
                .iter()
                .map(|p| p.1.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            kinds(0),
            [
                Param::Scalar(Some(ScalarType::F32)),
                Param::Pointer(Some(ElemType::F32)),
                Param::Pointer(Some(ElemType::F32)),
                Param::Pointer(Some(ElemType::F32)),
                Param::Scalar(Some(ScalarType::U64)),
            ]
        );
        assert_eq!(
            kinds(1),
            [
                Param::Pointer(Some(ElemType::F16)),
                Param::Pointer(Some(ElemType::Bf16)),
                Param::Scalar(Some(ScalarType::I32)),
                Param::Pointer(None),
                Param::Scalar(Some(ScalarType::U64)),
            ]
        );
        assert_eq!(
            kinds(2),
            [
                Param::Pointer(Some(ElemType::U8)),
                Param::Scalar(Some(ScalarType::F64))
            ]
        );
    }
}
