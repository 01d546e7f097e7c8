//! How deep a page's raw HTML may nest before it is parsed for sanitizing.
//!
//! html5ever (under ammonia) looks through its stack of open elements at each tag, so a
//! body of 100,000 nested `<div>` (600 KB) kept a build busy for over ten minutes. The
//! HTML is measured first by [`too_deep`], one pass over its tags, and a body past
//! [`MAX_DEPTH`] is an error at its first raw HTML, never parsed.

/// Far deeper than any page needs (Markdown's own output nests a few levels; a table in a
/// list in a quote, a dozen), and shallow enough that html5ever's scans stay cheap.
pub const MAX_DEPTH: usize = 256;

/// Elements that never hold others: they open no level.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Whether `html` nests elements deeper than [`MAX_DEPTH`]. Each start tag opens a level
/// (but void and self-closed ones); an end tag closes the innermost open element of its
/// name and those inside it, and is ignored where no element of its name is open. Tags
/// inside comments do not count.
pub fn too_deep(html: &str) -> bool {
    let b = html.as_bytes();
    let mut open: Vec<&str> = Vec::new();
    let mut at = 0;
    while let Some(lt) = memchr::memchr(b'<', &b[at..]) {
        let start = at + lt + 1;
        at = start;
        if html[start..].starts_with("!--") {
            at = html[start..].find("-->").map_or(b.len(), |e| start + e + 3);
            continue;
        }
        let closing = b.get(start) == Some(&b'/');
        let name_start = start + usize::from(closing);
        let name_len = b[name_start..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
            .count();
        if name_len == 0 || !b[name_start].is_ascii_alphabetic() {
            continue;
        }
        let name = &html[name_start..name_start + name_len];
        let end = memchr::memchr(b'>', &b[name_start..]).map_or(b.len(), |e| name_start + e);
        if closing {
            if let Some(i) = open.iter().rposition(|o| o.eq_ignore_ascii_case(name)) {
                open.truncate(i);
            }
        } else if !(b[..end].ends_with(b"/") || VOID.iter().any(|v| v.eq_ignore_ascii_case(name))) {
            open.push(name);
            if open.len() > MAX_DEPTH {
                return true;
            }
        }
        at = end;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_counted_by_open_elements() {
        let nested = |n: usize| format!("{}x{}", "<div>".repeat(n), "</div>".repeat(n));
        assert!(!too_deep(&nested(MAX_DEPTH)));
        assert!(too_deep(&nested(MAX_DEPTH + 1)));
        // Siblings, void elements, self-closed ones and comments open nothing.
        assert!(!too_deep(
            &"<p>a<br><img src=x><x/></p><!-- <div> -->".repeat(10_000)
        ));
        // An end tag of an element that is not open closes nothing.
        assert!(too_deep(&"<div></span>".repeat(MAX_DEPTH + 1)));
        // One that is closes the elements inside it too, as a browser does.
        assert!(!too_deep(&"<ul><li>a<li>b</ul>".repeat(10_000)));
    }

    #[test]
    fn a_megabyte_of_tags_is_measured_at_once() {
        let start = std::time::Instant::now();
        assert!(too_deep(&"<span><div><b>".repeat(100_000)));
        assert!(!too_deep(&"<b>x</b>".repeat(130_000)));
        // One pass: about a second for these 2.3 MB in an unoptimized test build, a few
        // milliseconds optimized; html5ever alone took minutes on the first.
        let took = start.elapsed();
        assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    }
}
