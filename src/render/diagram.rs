//! Diagrams drawn at build time. Kinds are registered here; presets are data.

use crate::content::DiagramRef;

/// Reject a diagram the renderer cannot draw, at load time.
pub fn check(d: &DiagramRef) -> Result<(), String> {
    match d.kind.as_str() {
        "occupancy-stepper" => Ok(()),
        other => Err(format!(
            "unknown diagram kind `{other}` (known: occupancy-stepper)"
        )),
    }
}

/// Draw a diagram as HTML (an SVG figure). Placeholder until the occupancy model lands:
/// the figure carries its alt text as its accessible name.
pub fn render(
    d: &DiagramRef,
    _project: &crate::build::Project,
    _assessment: &crate::build::Assessment,
) -> crate::error::Result<String> {
    let alt = super::highlight::escape(d.alt.as_deref().unwrap_or_default());
    Ok(format!(
        r#"<figure class="diagram" role="img" aria-label="{alt}"><figcaption>{alt}</figcaption></figure>"#
    ))
}
