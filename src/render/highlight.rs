//! Code block highlighting at build time. (Plain, escaped output for now.)

pub fn code_block(lang: &str, code: &str) -> String {
    let class = if lang.is_empty() {
        String::new()
    } else {
        format!(r#" class="language-{}""#, escape(lang))
    };
    format!("<pre><code{class}>{}</code></pre>\n", escape(code))
}

pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
