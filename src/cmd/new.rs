use std::io::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use crate::content::placeholder;
use crate::content::slug_problem;
use crate::measure::spec::scaffold;

#[derive(clap::Args, Debug)]
pub struct NewArgs {
    #[command(subcommand)]
    pub what: NewWhat,
    /// The glossary project's root folder.
    #[arg(long, default_value = ".", global = true)]
    pub root: PathBuf,
}

#[derive(clap::Subcommand, Debug)]
pub enum NewWhat {
    /// A term entry at content/terms/SLUG.md.
    Term {
        /// The term's slug: lowercase letters, digits and `-` (`shared-memory`); its page
        /// is terms/SLUG/.
        slug: String,
    },
    /// A working experiment at measurements/NAME/ (kernel, reference, one axis) that
    /// `glossary verify --dry-run` accepts.
    Experiment {
        /// The experiment's id: lowercase letters, digits and `-`; entries cite it in
        /// `measured:` tables.
        name: String,
    },
}

pub fn run(args: &NewArgs) -> Result<()> {
    let slug = match &args.what {
        NewWhat::Term { slug } => slug,
        NewWhat::Experiment { name } => return experiment(args, name),
    };
    if let Some(why) = slug_problem(slug) {
        bail!("slug `{slug}` {why}");
    }
    let dir = args.root.join("content").join("terms");
    let path = dir.join(format!("{slug}.md"));
    if path.exists() {
        bail!("{} already exists", path.display());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = slug.replace('-', " ");
    let today = chrono::Local::now().date_naive();
    // Each `<<replace: ...>>` fails `check` at its line until the author writes there.
    // The title too: whether it reads "What is a warp?" or "What is occupancy?" depends
    // on the word, which a slug does not tell, so the scaffold offers both and guesses
    // neither (a guessed "What is warp?" would be published as written once signed).
    let text = format!(
        "---\ntitle: \"{}\"\nname: {name}\nsummary: \"{}\"\nrelated: []\n# topic: memory, execution, tensor-cores or tools (the index lists terms without one under Other)\nsources:\n  - title: \"{}\"\n    url: \"{}\"\n    checked: {today}\n---\n{}\n",
        placeholder(&format!(
            "the question the page answers, with the article {name} takes: What is a {name}? or What is {name}?"
        )),
        placeholder(&format!("one sentence that defines {name}")),
        placeholder(&format!("the title of a page that documents {name}")),
        placeholder("that page's https address"),
        placeholder(&format!("the body, in Markdown: what {name} is and why it matters")),
    );
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    writeln!(
        std::io::stdout(),
        "created {} (a draft until an author and a different reviewer sign it)",
        path.display()
    )?;
    Ok(())
}

fn experiment(args: &NewArgs, name: &str) -> Result<()> {
    if let Some(why) = slug_problem(name) {
        bail!("experiment name `{name}` {why}");
    }
    let dir = args.root.join("measurements").join(name);
    if dir.exists() {
        bail!("{} already exists", dir.display());
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let yaml = dir.join(crate::measure::spec::EXPERIMENT_FILE);
    std::fs::write(&yaml, scaffold::experiment_yaml(name))
        .with_context(|| format!("writing {}", yaml.display()))?;
    let cu = dir.join(format!("{name}.cu"));
    std::fs::write(&cu, scaffold::EXPERIMENT_KERNEL)
        .with_context(|| format!("writing {}", cu.display()))?;
    println!(
        "created {} and {} (check it with `glossary verify --node NODE --only {name} --dry-run`)",
        yaml.display(),
        cu.display()
    );
    Ok(())
}
