//! `nodes/index.html`, the verification nodes page: for each node of glossary.toml its GPU
//! as the profile and the records give it, the drivers and CUDA versions its runs name,
//! its keys, how many kept runs on how many GPU units, and the entries that cite it
//! (`render::node_facts`). Every measured table links to its node here, and the home page
//! names the models. Written when the project has nodes and a `nodes.html` template.

use std::path::PathBuf;

use tera::Context;

use crate::error::Result;
use crate::render::templates::render as render_template;
use crate::render::{OutputFile, RenderInput};

/// Where the page is, from the site root.
pub const NODES_PAGE: &str = "nodes/index.html";

/// The page, or None for a project without nodes or without the template.
pub fn nodes_page(input: &RenderInput<'_>) -> Result<Option<OutputFile>> {
    if input.config.nodes.is_empty() || !input.tera.get_template_names().any(|n| n == "nodes.html")
    {
        return Ok(None);
    }
    let root = "../";
    let mut ctx = Context::new();
    ctx.insert(
        "site",
        &crate::render::pages::site_ctx(input.config, input.drafts, root, input.pages),
    );
    ctx.insert("root", root);
    ctx.insert(
        "canonical",
        &format!("{}/nodes/", input.config.base_url.trim_end_matches('/')),
    );
    ctx.insert("nodes", input.node_facts());
    let html = render_template(input.tera, "nodes.html", &ctx, &input.layout.templates())?;
    Ok(Some(OutputFile {
        path: PathBuf::from(NODES_PAGE),
        bytes: html.into_bytes(),
    }))
}
