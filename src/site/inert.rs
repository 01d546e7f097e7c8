//! Which `static/` files are inert: files a browser shows as an image, a font, a PDF or
//! plain text, and never runs or renders as a page. By allow-list, and by content as well
//! as by name: the extension must be one of [`INERT`], and the bytes must be what it says
//! (sniffed with the `infer` crate's signatures; plain text checked to hold no markup).
//! Anything else (HTML, SVG, JavaScript, CSS, XML, JSON, a file with no extension, a
//! `.png` that is really HTML) is active: published only when signed like an entry
//! (`review::static_file`).

/// The inert types: extension, and the extension `infer` knows the type by.
const INERT: &[(&str, &str)] = &[
    ("png", "png"),
    ("jpg", "jpg"),
    ("jpeg", "jpg"),
    ("gif", "gif"),
    ("webp", "webp"),
    ("avif", "avif"),
    ("ico", "ico"),
    ("bmp", "bmp"),
    ("woff", "woff"),
    ("woff2", "woff2"),
    ("ttf", "ttf"),
    ("otf", "otf"),
    ("pdf", "pdf"),
];

/// Plain-text files published as they are (`CNAME`, `robots.txt`, `.well-known/*.txt`).
fn is_plain_text_name(file_name: &str) -> bool {
    file_name == "CNAME" || file_name.ends_with(".txt")
}

/// `Ok(())` if the static file `rel` (path under `static/`) with `bytes` is inert; else
/// why it is not, for the refusal of an unsigned one.
pub fn inert(rel: &str, bytes: &[u8]) -> Result<(), String> {
    let file_name = rel.rsplit('/').next().unwrap_or(rel);
    if is_plain_text_name(file_name) {
        return plain_text(bytes);
    }
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match INERT.iter().find(|(e, _)| *e == ext) {
        Some((_, sniffed)) if infer::is(bytes, sniffed) => Ok(()),
        Some(_) => Err(format!(
            "it is named .{ext}, but its bytes are not that (they look like {}), so a browser may take it for something else",
            infer::get(bytes).map_or("text or an unknown type", |t| t.mime_type())
        )),
        None => Err(format!(
            "{} is not an inert type (images, fonts, PDF, CNAME and .txt): a browser may run it or render it as a page",
            if ext.is_empty() { "a file without an extension".to_string() } else { format!(".{ext}") }
        )),
    }
}

/// Plain text: UTF-8, no control characters but tab and line ends, and no `<`, so no
/// browser sniffing it can find markup.
fn plain_text(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| "it is named as plain text but is not UTF-8 text".to_string())?;
    if let Some(c) = text
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(format!(
            "it is named as plain text but holds the control character U+{:04X}",
            c as u32
        ));
    }
    if text.contains('<') {
        return Err("it is named as plain text but holds `<`, which a browser sniffing it may read as markup".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    #[test]
    fn images_fonts_pdfs_and_plain_text_are_inert_when_their_bytes_agree() {
        assert_eq!(inert("logo.png", PNG), Ok(()));
        assert_eq!(inert("doc/slides.PDF", b"%PDF-1.7\n"), Ok(()));
        assert_eq!(inert("fonts/a.woff2", b"wOF2\0\x01\0\0"), Ok(()));
        assert_eq!(inert("CNAME", b"glossary.test\n"), Ok(()));
        assert_eq!(inert("robots.txt", b"User-agent: *\n"), Ok(()));
    }

    /// Issue 37: decided by content and name, so neither alone lets a page through.
    #[test]
    fn pages_scripts_and_disguised_files_are_active() {
        for (rel, bytes, why) in [
            (
                "evil.html",
                &b"<script>alert(1)</script>"[..],
                ".html is not an inert type",
            ),
            (
                "x.svg",
                b"<svg onload=alert(1)/>",
                ".svg is not an inert type",
            ),
            ("a.js", b"alert(1)", ".js"),
            ("a.css", b"body{}", ".css"),
            ("feed.xml", b"<x/>", ".xml"),
            ("noext", b"hello", "without an extension"),
            (
                "logo.png",
                b"<html><script>alert(1)</script>",
                "named .png, but its bytes are not that",
            ),
            ("robots.txt", b"<script>alert(1)</script>", "holds `<`"),
            ("CNAME", b"a\x01b", "U+0001"),
        ] {
            let e = inert(rel, bytes).unwrap_err();
            assert!(e.contains(why), "{rel}: {e}");
        }
    }
}
