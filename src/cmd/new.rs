use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::content::is_valid_slug;

#[derive(clap::Args, Debug)]
pub struct NewArgs {
    #[command(subcommand)]
    pub what: NewWhat,
    #[arg(long, default_value = ".", global = true)]
    pub root: PathBuf,
}

#[derive(clap::Subcommand, Debug)]
pub enum NewWhat {
    /// A term entry at content/terms/SLUG.md.
    Term { slug: String },
}

pub fn run(args: &NewArgs) -> Result<()> {
    let NewWhat::Term { slug } = &args.what;
    if !is_valid_slug(slug) {
        bail!("slug `{slug}` must match [a-z0-9-]+");
    }
    let dir = args.root.join("content").join("terms");
    let path = dir.join(format!("{slug}.md"));
    if path.exists() {
        bail!("{} already exists", path.display());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = slug.replace('-', " ");
    let today = chrono::Local::now().date_naive();
    let text = format!(
        "---\ntitle: What is {name}?\nname: {name}\nsummary: One sentence that defines {name}.\nrelated: []\nsources:\n  - title: Where this is documented\n    url: https://docs.nvidia.com/cuda/\n    checked: {today}\n---\nWrite the body here.\n"
    );
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    writeln!(
        std::io::stdout(),
        "created {} (a draft until an author and a different reviewer sign it)",
        path.display()
    )?;
    Ok(())
}
