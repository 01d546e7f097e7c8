//! What an SVG figure may hold. An SVG is a document, not a picture: opened from the site
//! (`media/terms/fig.svg`) it runs its own `<script>`, event handler attributes (`onload`)
//! and `foreignObject` HTML with the site's origin, and it can fetch from elsewhere
//! (`<use href="other.svg#x">`, `<image href="https://...">`, CSS `url(...)` and
//! `@import`, an `<?xml-stylesheet?>`). A figure is copied byte for byte, so it is checked
//! first, against an allow-list: the drawing elements and attributes of SVG, references
//! only to `#ids` of the file itself, no DOCTYPE (so no entity tricks) and no processing
//! instructions. The XML is read by `roxmltree`, which refuses a DTD outright.

use std::path::Path;

/// The SVG namespace: the only one whose elements may be drawn.
const SVG_NS: &str = "http://www.w3.org/2000/svg";
const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// The largest SVG checked and copied: a figure, not a data set.
pub const MAX_SVG_BYTES: u64 = 8 << 20;

/// Elements that draw, group, describe or paint. Absent on purpose: `script`,
/// `foreignObject`, `a`, `image` and `feImage` (fetch or navigate), `animate`, `set`,
/// `animateMotion` and `animateTransform` (`<set attributeName="href">` rewrites a link),
/// `iframe`, `embed`, `object`, `audio`, `video`, `font-face-uri`, `cursor`, `view`.
const ELEMENTS: &[&str] = &[
    "svg",
    "g",
    "defs",
    "symbol",
    "use",
    "title",
    "desc",
    "metadata",
    "switch",
    "style",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "text",
    "tspan",
    "textPath",
    "marker",
    "linearGradient",
    "radialGradient",
    "stop",
    "pattern",
    "clipPath",
    "mask",
    "filter",
    "feBlend",
    "feColorMatrix",
    "feComponentTransfer",
    "feComposite",
    "feConvolveMatrix",
    "feDiffuseLighting",
    "feDisplacementMap",
    "feDistantLight",
    "feDropShadow",
    "feFlood",
    "feFuncA",
    "feFuncB",
    "feFuncG",
    "feFuncR",
    "feGaussianBlur",
    "feMerge",
    "feMergeNode",
    "feMorphology",
    "feOffset",
    "fePointLight",
    "feSpecularLighting",
    "feSpotLight",
    "feTile",
    "feTurbulence",
];

/// Attributes (without a namespace) that place, shape, paint or describe. Absent on
/// purpose: every `on*` handler, `src`, `action`, `formaction`, `attributeName`, `to`,
/// `from`, `values` on an animation (animations are refused), `xml:base`.
const ATTRIBUTES: &[&str] = &[
    "id",
    "class",
    "style",
    "lang",
    "tabindex",
    "role",
    "focusable",
    "transform",
    "viewBox",
    "preserveAspectRatio",
    "version",
    "baseProfile",
    "width",
    "height",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "fx",
    "fy",
    "fr",
    "d",
    "points",
    "pathLength",
    "dx",
    "dy",
    "rotate",
    "textLength",
    "lengthAdjust",
    "startOffset",
    "method",
    "spacing",
    "side",
    "fill",
    "fill-opacity",
    "fill-rule",
    "stroke",
    "stroke-width",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-miterlimit",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-opacity",
    "opacity",
    "color",
    "display",
    "visibility",
    "overflow",
    "vector-effect",
    "shape-rendering",
    "text-rendering",
    "image-rendering",
    "color-interpolation",
    "color-interpolation-filters",
    "paint-order",
    "mix-blend-mode",
    "isolation",
    "font",
    "font-family",
    "font-size",
    "font-size-adjust",
    "font-stretch",
    "font-style",
    "font-variant",
    "font-weight",
    "text-anchor",
    "dominant-baseline",
    "alignment-baseline",
    "baseline-shift",
    "letter-spacing",
    "word-spacing",
    "text-decoration",
    "writing-mode",
    "direction",
    "unicode-bidi",
    "white-space",
    "clip-path",
    "clip-rule",
    "clipPathUnits",
    "mask",
    "maskUnits",
    "maskContentUnits",
    "marker-start",
    "marker-mid",
    "marker-end",
    "markerWidth",
    "markerHeight",
    "markerUnits",
    "refX",
    "refY",
    "orient",
    "offset",
    "stop-color",
    "stop-opacity",
    "gradientUnits",
    "gradientTransform",
    "spreadMethod",
    "patternUnits",
    "patternContentUnits",
    "patternTransform",
    "filter",
    "filterUnits",
    "primitiveUnits",
    "filterRes",
    "in",
    "in2",
    "result",
    "stdDeviation",
    "mode",
    "type",
    "values",
    "operator",
    "k1",
    "k2",
    "k3",
    "k4",
    "flood-color",
    "flood-opacity",
    "lighting-color",
    "surfaceScale",
    "diffuseConstant",
    "specularConstant",
    "specularExponent",
    "kernelUnitLength",
    "kernelMatrix",
    "order",
    "divisor",
    "bias",
    "targetX",
    "targetY",
    "edgeMode",
    "preserveAlpha",
    "scale",
    "xChannelSelector",
    "yChannelSelector",
    "radius",
    "baseFrequency",
    "numOctaves",
    "seed",
    "stitchTiles",
    "azimuth",
    "elevation",
    "z",
    "pointsAtX",
    "pointsAtY",
    "pointsAtZ",
    "limitingConeAngle",
    "tableValues",
    "slope",
    "intercept",
    "amplitude",
    "exponent",
    "requiredFeatures",
    "requiredExtensions",
    "systemLanguage",
    "enable-background",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-hidden",
    "media",
    // Only to a `#id` of the file itself (checked below).
    "href",
];

/// CSS functions a style may call; `url()` only to a `#id` of the file.
const CSS_FUNCTIONS: &[&str] = &[
    "url",
    "rgb",
    "rgba",
    "hsl",
    "hsla",
    "calc",
    "var",
    "translate",
    "translatex",
    "translatey",
    "rotate",
    "scale",
    "scalex",
    "scaley",
    "matrix",
    "skew",
    "skewx",
    "skewy",
];

/// `Ok` if the SVG at `path` may be copied into the site as it is; else why not, naming
/// the file (as `name`, e.g. its path in the project) and the line of what is refused.
pub fn check_file(path: &Path, name: &Path) -> Result<(), String> {
    let refused = |why: String| format!("SVG {} is refused: {why}", name.display());
    let text = read_bounded(path).map_err(refused)?;
    check(&text).map_err(refused)
}

fn read_bounded(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_SVG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > MAX_SVG_BYTES {
        return Err(format!("it is over {MAX_SVG_BYTES} bytes"));
    }
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// Why the SVG document `text` may not be shown, if it may not.
pub fn check(text: &str) -> Result<(), String> {
    let doc = roxmltree::Document::parse(text).map_err(|e| match e {
        roxmltree::Error::DtdDetected => {
            "it has a DOCTYPE (entities could hide what it holds); remove it".to_string()
        }
        e => format!("it is not well-formed XML: {e}"),
    })?;
    let line = |node: roxmltree::Node<'_, '_>| doc.text_pos_at(node.range().start).row;
    let root = doc.root_element();
    if root.tag_name().namespace() != Some(SVG_NS) || root.tag_name().name() != "svg" {
        return Err(format!(
            "its root element is <{}>, not an <svg> in the SVG namespace ({SVG_NS})",
            root.tag_name().name()
        ));
    }
    for node in doc.descendants() {
        match node.node_type() {
            roxmltree::NodeType::PI => {
                return Err(format!(
                    "line {}: a processing instruction (`<?{}`); an SVG figure may not load \
                     a style sheet or anything else",
                    line(node),
                    node.pi().map_or("", |p| p.target)
                ));
            }
            roxmltree::NodeType::Element => element(node).map_err(|why| {
                format!("line {}: <{}> {why}", line(node), node.tag_name().name())
            })?,
            roxmltree::NodeType::Text
                if node
                    .parent_element()
                    .is_some_and(|p| p.has_tag_name((SVG_NS, "style"))) =>
            {
                css(node.text().unwrap_or_default())
                    .map_err(|why| format!("line {}: <style> {why}", line(node)))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Why the element `node` (its name and attributes) is refused, if it is.
fn element(node: roxmltree::Node<'_, '_>) -> Result<(), String> {
    let name = node.tag_name();
    let in_metadata = node
        .ancestors()
        .skip(1)
        .any(|a| a.has_tag_name((SVG_NS, "metadata")));
    match name.namespace() {
        Some(SVG_NS) if ELEMENTS.contains(&name.name()) => {}
        Some(SVG_NS) => return Err("is not an element an SVG figure may hold".into()),
        // An editor's notes (RDF, Inkscape) inside <metadata> are never drawn or run; an
        // HTML or other element anywhere else could be.
        Some(ns) if in_metadata && ns != "http://www.w3.org/1999/xhtml" => {}
        _ => {
            return Err(format!(
                "is in the namespace {}, not SVG's",
                name.namespace().unwrap_or("(none)")
            ))
        }
    }
    for attr in node.attributes() {
        let (ns, local, value) = (attr.namespace(), attr.name(), attr.value());
        let shown = || match ns {
            Some(XLINK_NS) => format!("xlink:{local}"),
            Some(XML_NS) => format!("xml:{local}"),
            _ => local.to_string(),
        };
        let allowed = match ns {
            None => ATTRIBUTES.contains(&local) || local.starts_with("data-"),
            Some(XLINK_NS) => local == "href" || local == "title",
            Some(XML_NS) => local == "space" || local == "lang",
            // An editor's own attributes (`inkscape:label`) are not read by a browser;
            // an event handler or a reference in any namespace is refused all the same.
            Some(_) => {
                let lower = local.to_ascii_lowercase();
                !lower.starts_with("on") && !matches!(lower.as_str(), "href" | "src" | "base")
            }
        };
        if !allowed {
            return Err(format!(
                "has the attribute `{}`, which an SVG figure may not have (event handlers, \
                 sources and other attributes outside the drawing set are refused)",
                shown()
            ));
        }
        if local == "href" && !is_fragment(value) {
            return Err(format!(
                "has `{}=\"{}\"`: a figure may refer only to an id of its own file (`#id`)",
                shown(),
                crate::link_scheme::shown(value)
            ));
        }
        let checked = if local == "style" {
            css(value)
        } else {
            urls(value)
        };
        checked.map_err(|why| format!("attribute `{}` {why}", shown()))?;
    }
    Ok(())
}

/// `#id`: a reference into the file itself.
fn is_fragment(value: &str) -> bool {
    value
        .trim()
        .strip_prefix('#')
        .is_some_and(|id| !id.is_empty() && !id.contains(['#', '/', ':', '(']))
}

/// Why the CSS `text` (a `<style>` or a `style` attribute) is refused, if it is: no
/// at-rule (`@import`, `@font-face`), no escape (which could spell either), and only the
/// functions of [`CSS_FUNCTIONS`], `url()` only to `#id`.
fn css(text: &str) -> Result<(), String> {
    if text.contains('@') {
        return Err(
            "holds an at-rule (`@import`, `@font-face`, ...), which may load from \
                    elsewhere"
                .into(),
        );
    }
    if text.contains('\\') {
        return Err("holds a CSS escape (`\\`), which could spell a fetch".into());
    }
    let bytes = text.as_bytes();
    for (open, _) in text.match_indices('(') {
        let start = bytes[..open]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_'))
            .map_or(0, |i| i + 1);
        let name = text[start..open].to_ascii_lowercase();
        if !CSS_FUNCTIONS.contains(&name.as_str()) {
            return Err(format!(
                "calls the CSS function `{name}()`, which an SVG figure may not use"
            ));
        }
    }
    urls(text)
}

/// Why `value` is refused, if it holds a `url(...)` to anything but `#id`.
fn urls(value: &str) -> Result<(), String> {
    let lower = value.to_ascii_lowercase();
    for (at, _) in lower.match_indices("url(") {
        let inner = &value[at + 4..];
        let inner = inner.split(')').next().unwrap_or(inner);
        let target = inner.trim().trim_matches(['"', '\'']);
        if !is_fragment(target) {
            return Err(format!(
                "refers to `url({})`: a figure may refer only to an id of its own file \
                 (`url(#id)`)",
                crate::link_scheme::shown(target)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn svg(inner: &str) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" \
             xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 10 10\">\n{inner}\n</svg>"
        )
    }

    #[test]
    fn drawings_with_local_references_are_allowed() {
        let ok = svg(concat!(
            "<defs><linearGradient id=\"g\"><stop offset=\"0\" stop-color=\"#fff\"/>",
            "</linearGradient><path id=\"p\" d=\"M0 0L1 1\"/></defs>",
            "<style>rect { fill: url(#g); stroke: rgb(1, 2, 3) }</style>",
            "<rect width=\"10\" height=\"10\" fill=\"url('#g')\" style=\"opacity: calc(1)\"/>",
            "<use href=\"#p\"/><use xlink:href=\"#p\" transform=\"translate(1,2) rotate(3)\"/>",
            "<text x=\"1\" y=\"2\" xml:space=\"preserve\">f(x) = <tspan>1</tspan></text>",
            "<metadata><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">",
            "<rdf:Description rdf:about=\"\"/></rdf:RDF></metadata>",
        ));
        assert_eq!(check(&ok), Ok(()));
    }

    #[test]
    fn scripts_handlers_foreign_objects_and_external_references_are_refused() {
        for (inner, why) in [
            ("<script>alert(1)</script>", "line 2: <script> is not an element"),
            ("<rect onload=\"alert(1)\"/>", "line 2: <rect> has the attribute `onload`"),
            ("<rect ONCLICK=\"alert(1)\"/>", "has the attribute `ONCLICK`"),
            (
                "<foreignObject><div xmlns=\"http://www.w3.org/1999/xhtml\">x</div></foreignObject>",
                "<foreignObject> is not an element",
            ),
            ("<use href=\"other.svg#x\"/>", "has `href=\"other.svg#x\"`"),
            ("<use xlink:href=\"https://evil.example/a.svg#x\"/>", "has `xlink:href="),
            ("<image href=\"https://evil.example/a.png\"/>", "<image> is not an element"),
            ("<a href=\"javascript:alert(1)\"><text>x</text></a>", "<a> is not an element"),
            (
                "<set attributeName=\"href\" to=\"javascript:alert(1)\"/>",
                "<set> is not an element",
            ),
            ("<rect fill=\"url(https://evil.example/x)\"/>", "refers to `url(https://"),
            ("<rect style=\"fill: url(x.svg#g)\"/>", "refers to `url(x.svg#g)`"),
            ("<style>@import 'https://evil.example/x.css';</style>", "holds an at-rule"),
            ("<style>rect { fill: u\\72l(https://e/x) }</style>", "holds a CSS escape"),
            (
                "<style>rect { background: image-set('x.png' 1x) }</style>",
                "calls the CSS function `image-set()`",
            ),
            ("<rect xml:base=\"https://evil.example/\"/>", "has the attribute `xml:base`"),
            ("<html:script xmlns:html=\"http://www.w3.org/1999/xhtml\"/>", "namespace"),
            ("<rect evil:onload=\"x\" xmlns:evil=\"urn:x\"/>", "attribute `onload`"),
        ] {
            let e = check(&svg(inner)).expect_err(inner);
            assert!(e.contains(why), "{inner}: {e}");
        }
    }

    #[test]
    fn doctypes_processing_instructions_and_other_roots_are_refused() {
        let dtd = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [<!ENTITY x \"&#60;script&#62;\">]>\n\
                   <svg xmlns=\"http://www.w3.org/2000/svg\">&x;</svg>";
        assert!(check(dtd).unwrap_err().contains("it has a DOCTYPE"));
        let pi = format!(
            "<?xml-stylesheet href=\"https://evil.example/x.css\"?>\n{}",
            svg("")
        );
        assert!(check(&pi)
            .unwrap_err()
            .contains("line 1: a processing instruction"));
        let html = "<html xmlns=\"http://www.w3.org/1999/xhtml\"><script/></html>";
        assert!(check(html)
            .unwrap_err()
            .contains("its root element is <html>"));
        assert!(check("<svg").unwrap_err().contains("not well-formed XML"));
    }
}
