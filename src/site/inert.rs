//! Which `static/` files are inert: files a browser shows as an image, a font, a PDF or
//! plain text, and never runs or renders as a page. By allow-list, and by content as well
//! as by name: the extension must be one of [`INERT`], and the file must parse whole as
//! what it says (an image decoded to its last pixel by the `image` crate, a font read by
//! `ttf-parser`, a PDF read by `lopdf` and holding no action or script), and must not
//! also be a script (issue 53: a host that sends no `nosniff` lets a page run a GIF whose
//! first bytes are `GIF89a=...`, or a `.txt`, as JavaScript). Anything else (HTML, SVG,
//! JavaScript, CSS, XML, JSON, a file with no extension, a `.png` that is really HTML, a
//! WOFF or AVIF, which nothing here decodes whole) is active: published only when signed
//! like an entry (`review::static_file`). The page policy (`render::csp`) stops an
//! unsigned file running as script or style whatever this decides; this is the second
//! wall, for hosts and pages the policy does not reach.

/// The inert types: extension, and what the file must parse as.
const INERT: &[(&str, Kind)] = &[
    ("png", Kind::Image(image::ImageFormat::Png)),
    ("jpg", Kind::Image(image::ImageFormat::Jpeg)),
    ("jpeg", Kind::Image(image::ImageFormat::Jpeg)),
    ("gif", Kind::Image(image::ImageFormat::Gif)),
    ("webp", Kind::Image(image::ImageFormat::WebP)),
    ("ico", Kind::Image(image::ImageFormat::Ico)),
    ("bmp", Kind::Image(image::ImageFormat::Bmp)),
    ("ttf", Kind::Font),
    ("otf", Kind::Font),
    ("pdf", Kind::Pdf),
];

#[derive(Clone, Copy)]
enum Kind {
    Image(image::ImageFormat),
    Font,
    Pdf,
}

/// The largest file checked as inert (a larger one needs signing): decoding is bounded.
const MAX_INERT_BYTES: usize = 32 << 20;
/// The largest image decoded: width and height, and the memory a decoder may take.
const MAX_IMAGE_SIDE: u32 = 16_384;
const MAX_IMAGE_ALLOC: u64 = 512 << 20;

/// `Ok(())` if the static file `rel` (path under `static/`) with `bytes` is inert; else
/// why it is not, for the refusal of an unsigned one.
pub fn inert(rel: &str, bytes: &[u8]) -> Result<(), String> {
    let file_name = rel.rsplit('/').next().unwrap_or(rel);
    if bytes.len() > MAX_INERT_BYTES {
        return Err(format!(
            "it is larger than the {MAX_INERT_BYTES} bytes an inert file is checked up to"
        ));
    }
    if file_name == "CNAME" {
        return host_name(bytes);
    }
    if file_name.ends_with(".txt") {
        return plain_text(bytes);
    }
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let Some((_, kind)) = INERT.iter().find(|(e, _)| *e == ext) else {
        return Err(format!(
            "{} is not an inert type (PNG, JPEG, GIF, WebP, ICO and BMP images, TrueType and OpenType fonts, PDF, CNAME and .txt): a browser may run it or render it as a page",
            if ext.is_empty() { "a file without an extension".to_string() } else { format!(".{ext}") }
        ));
    };
    // Decoders are third-party code on untrusted bytes: a panic is a refusal, not a crash.
    let parsed = std::panic::catch_unwind(|| match kind {
        Kind::Image(format) => image(bytes, *format),
        Kind::Font => ttf_parser::Face::parse(bytes, 0)
            .map(|_| ())
            .map_err(|e| format!("does not read as a font ({e})")),
        Kind::Pdf => pdf(bytes),
    })
    .unwrap_or_else(|_| Err("its decoder failed on it".into()));
    parsed.map_err(|why| {
        format!("it is named .{ext}, but it {why}, so a browser may take it for something else")
    })?;
    if let Some(prefix) = could_be_script(bytes) {
        return Err(format!(
            "its bytes could also be read as JavaScript (they begin {prefix:?}), so a page could run it as a script"
        ));
    }
    Ok(())
}

/// The image decoded whole in `format` (every frame of an animation), within the limits.
fn image(bytes: &[u8], format: image::ImageFormat) -> Result<(), String> {
    use image::AnimationDecoder;
    let bad = |e: image::ImageError| format!("does not decode as {format:?} ({e})");
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_IMAGE_SIDE);
    limits.max_image_height = Some(MAX_IMAGE_SIDE);
    limits.max_alloc = Some(MAX_IMAGE_ALLOC);
    let cursor = std::io::Cursor::new(bytes);
    if format == image::ImageFormat::Gif {
        let mut decoder = image::codecs::gif::GifDecoder::new(cursor).map_err(bad)?;
        image::ImageDecoder::set_limits(&mut decoder, limits).map_err(bad)?;
        for frame in decoder.into_frames() {
            frame.map_err(bad)?;
        }
        return Ok(());
    }
    let mut reader = image::ImageReader::with_format(cursor, format);
    reader.limits(limits);
    reader.decode().map(|_| ()).map_err(bad)
}

/// The PDF read whole (object streams included) with nothing in it that acts: no
/// action (`/A`, `/AA`, `/OpenAction`), no JavaScript, no launch, no embedded file, no
/// form that submits, no XFA or rich media; and not encrypted (it could not be looked
/// into). By the keys of every dictionary, as the parser decoded them (`#xx` escapes
/// undone), so no spelling or compression hides one.
fn pdf(bytes: &[u8]) -> Result<(), String> {
    const ACTS: &[&[u8]] = &[
        b"A",
        b"AA",
        b"OpenAction",
        b"JS",
        b"JavaScript",
        b"Launch",
        b"EmbeddedFile",
        b"EmbeddedFiles",
        b"SubmitForm",
        b"ImportData",
        b"XFA",
        b"RichMedia",
        b"Encrypt",
    ];
    let doc =
        lopdf::Document::load_mem(bytes).map_err(|e| format!("does not read as a PDF ({e})"))?;
    let mut dicts: Vec<&lopdf::Dictionary> = vec![&doc.trailer];
    // Every object, an indirect array's dictionaries too (an annotation list `[<< /A ...
    // >>]` held as its own object).
    for object in doc.objects.values() {
        push_dicts(object, &mut dicts);
    }
    // Nested dictionaries (an action inline in an annotation) too.
    while let Some(d) = dicts.pop() {
        for (key, value) in d.iter() {
            if ACTS.contains(&key.as_slice()) {
                return Err(format!(
                    "holds /{} (a PDF that acts or cannot be looked into)",
                    String::from_utf8_lossy(key)
                ));
            }
            push_dicts(value, &mut dicts);
        }
    }
    Ok(())
}

fn push_dicts<'a>(value: &'a lopdf::Object, out: &mut Vec<&'a lopdf::Dictionary>) {
    match value {
        lopdf::Object::Dictionary(d) => out.push(d),
        lopdf::Object::Stream(s) => out.push(&s.dict),
        lopdf::Object::Array(items) => items.iter().for_each(|i| push_dicts(i, out)),
        _ => {}
    }
}

/// A `CNAME`: one host name (letters, digits, `-` and `.`), which as a script is at most a
/// property read, and runs nothing.
fn host_name(bytes: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "CNAME is not UTF-8 text".to_string())?;
    let name = text.strip_suffix('\n').unwrap_or(text);
    let ok = !name.is_empty()
        && name.len() <= 253
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err("CNAME must hold one host name (letters, digits, `-` and `.`) and nothing else".into())
    }
}

/// Plain text: UTF-8, no control characters but tab and line ends, no `<` (no browser
/// sniffing it finds markup), and nothing a script needs to do anything: no call or
/// template (`(`, `` ` ``), no assignment or increment (`=`, `++`, `--`), no `new` or
/// `import`. Read as JavaScript, such a text can at most read a property or throw.
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
    let acts = ["(", "`", "=", "++", "--"]
        .into_iter()
        .find(|s| text.contains(s))
        .map(str::to_string)
        .or_else(|| {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .find(|w| matches!(*w, "new" | "import"))
                .map(str::to_string)
        });
    match acts {
        Some(what) => Err(format!(
            "it is named as plain text but holds `{what}`, so read as a script it could do something"
        )),
        None => Ok(()),
    }
}

/// Whether `bytes`, read as a browser reads a script with no charset (UTF-8, a bad byte
/// as U+FFFD), could be JavaScript; if so, the start that makes it so. A script holds no
/// NUL, control character, U+FFFD or symbol outside a comment, string, template or regular
/// expression, and every binary format here has one within its first bytes; so a file is
/// not a script when such a character comes before anything that could open one of those
/// (`/`, a quote, a backquote, `<!--`, `-->`, `#!` at the start). A decoded image whose
/// first bytes do open one (a GIF `47` pixels wide is `GIF89a/`) is taken for a possible
/// script: such a file needs signing, which costs a signature, not a hole.
fn could_be_script(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    if text.starts_with("#!") {
        return Some("#!".into());
    }
    for (i, c) in text.char_indices() {
        let opens = matches!(c, '/' | '\'' | '"' | '`')
            || text[i..].starts_with("<!--")
            || text[i..].starts_with("-->");
        if opens {
            return Some(text[..i + c.len_utf8()].chars().take(24).collect());
        }
        let never_outside = match c {
            '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' => false,
            c if c.is_ascii() => c.is_ascii_control(),
            '\u{FFFD}' => true,
            c => c.is_control() || !(c.is_alphanumeric() || c.is_whitespace()),
        };
        if never_outside {
            return None;
        }
    }
    Some(text.chars().take(24).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 image of `format`, made by the `image` crate.
    fn tiny(format: image::ImageFormat, width: u32) -> Vec<u8> {
        let img = image::DynamicImage::new_rgba8(width, 1);
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, format).unwrap();
        out.into_inner()
    }

    /// A one-page PDF, with `extra` in its catalog.
    fn pdf_with(extra: &str) -> Vec<u8> {
        pdf_with_objects(extra, &[])
    }

    /// A one-page PDF, with `extra` in its catalog and `more` as objects 4, 5, ...
    fn pdf_with_objects(extra: &str, more: &[&str]) -> Vec<u8> {
        let mut objects = vec![
            format!("<< /Type /Catalog /Pages 2 0 R {extra} >>"),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>".to_string(),
        ];
        objects.extend(more.iter().map(|o| o.to_string()));
        let mut out = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend(format!("{} 0 obj\n{o}\nendobj\n", i + 1).bytes());
        }
        let xref = out.len();
        out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
        for o in offsets {
            out.extend(format!("{o:010} 00000 n \n").bytes());
        }
        out.extend(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .bytes(),
        );
        out
    }

    #[test]
    fn images_fonts_pdfs_and_plain_text_are_inert_when_they_parse_whole() {
        for format in [
            image::ImageFormat::Png,
            image::ImageFormat::Jpeg,
            image::ImageFormat::Gif,
            image::ImageFormat::Bmp,
            image::ImageFormat::Ico,
            image::ImageFormat::WebP,
        ] {
            let ext = format.extensions_str()[0];
            let bytes = tiny(format, 1);
            assert_eq!(inert(&format!("logo.{ext}"), &bytes), Ok(()), "{format:?}");
        }
        assert_eq!(inert("doc/slides.PDF", &pdf_with("")), Ok(()));
        assert_eq!(inert("CNAME", b"glossary.test\n"), Ok(()));
        assert_eq!(
            inert("robots.txt", b"User-agent: *\nDisallow: /drafts/\n"),
            Ok(())
        );
    }

    /// An action inline in an array that is an object of its own is still found.
    #[test]
    fn an_action_in_an_indirect_array_is_active() {
        let bytes = pdf_with_objects(
            "/Annots 4 0 R",
            &["[<< /Type /Annot /Subtype /Link /A << /S /JavaScript /JS (app.alert(1)) >> >>]"],
        );
        let why = inert("doc/slides.pdf", &bytes).unwrap_err();
        assert!(why.contains("holds /A"), "{why}");
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
                "named .png, but it does not decode as Png",
            ),
            ("robots.txt", b"<script>alert(1)</script>", "holds `<`"),
            ("CNAME", b"a\x01b", "one host name"),
            (
                "fonts/a.woff2",
                b"wOF2\0\x01\0\0",
                ".woff2 is not an inert type",
            ),
            ("a.ttf", b"\0\x01\0\0garbage", "does not read as a font"),
        ] {
            let e = inert(rel, bytes).unwrap_err();
            assert!(e.contains(why), "{rel}: {e}");
        }
    }

    /// Issue 53: a file that is also a script is not inert: text that could do something
    /// as JavaScript, an image whose first bytes open a comment (a GIF/JS polyglot), a PDF
    /// that acts; a PNG with a truncated body does not decode.
    #[test]
    fn a_file_that_is_also_a_script_or_acts_is_not_inert() {
        for (rel, bytes, why) in [
            (
                "notes.txt",
                b"alert(document.cookie)\n".to_vec(),
                "holds `(`",
            ),
            ("notes.txt", b"location.href='//x'\n".to_vec(), "holds `=`"),
            ("notes.txt", b"new Image\n".to_vec(), "holds `new`"),
            ("CNAME", b"alert(1)\n".to_vec(), "one host name"),
            // 47 pixels wide: `GIF89a/`, which could open a comment.
            (
                "pixel.gif",
                tiny(image::ImageFormat::Gif, 47),
                "could also be read as JavaScript",
            ),
            (
                "doc.pdf",
                pdf_with("/OpenAction << /S /JavaScript /JS (app.alert(1)) >>"),
                "holds /OpenAction",
            ),
            (
                "doc.pdf",
                pdf_with("/Names << /J#61vaScript 4 0 R >>"),
                "holds /JavaScript",
            ),
            (
                "doc.pdf",
                b"%PDF-1.7\nnot a pdf".to_vec(),
                "does not read as a PDF",
            ),
            (
                "logo.png",
                tiny(image::ImageFormat::Png, 1)[..40].to_vec(),
                "does not decode",
            ),
        ] {
            let e = inert(rel, &bytes).unwrap_err();
            assert!(e.contains(why), "{rel}: {e}");
        }
        // A PNG, JPEG, font or PDF with its binary comment line begins with what no script
        // holds outside a comment.
        assert_eq!(could_be_script(&tiny(image::ImageFormat::Png, 1)), None);
        assert_eq!(could_be_script(b"\0\x01\0\0"), None);
        assert_eq!(could_be_script(&pdf_with("")), None);
        assert_eq!(could_be_script(b"GIF89a\x01\0"), None);
        assert!(could_be_script(b"GIF89a/*\x01\0*/=alert(1)").is_some());
        assert!(could_be_script(b"BM=alert(1)//\0").is_some());
    }
}
