//! Images in bodies: where an entry's figures live, how a reference is checked, and the
//! HTML a figure becomes.
//!
//! A relative reference `![alt](fig.svg)` is looked up beside the entry's file
//! (`content/terms/fig.svg`), then in `content/figures/` (shared figures). The file is
//! copied into the site under `media/`, mirroring its place below `content/`
//! (`media/terms/fig.svg`, `media/figures/fig.svg`). A dark variant beside it
//! (`fig.dark.svg`) turns the image into a `<picture>` whose dark source is chosen by
//! `prefers-color-scheme`. Remote (`https://...`, any scheme) and site-absolute (`/x.png`)
//! references are errors unless glossary.toml allows them; so are a missing file, a file
//! that is not an image, a path that leaves `content/`, and empty alt text.

use std::path::{Path, PathBuf};

use crate::config::{ContentConfig, Layout};

use super::escape::escape;
use super::links::{decode, encode, has_scheme};

/// Image types a figure may have.
const EXTENSIONS: &[&str] = &["svg", "png", "webp", "jpg", "jpeg", "gif", "avif"];

/// How the renderer checks and places images, for one build.
#[derive(Clone, Copy)]
pub struct Figures<'a> {
    pub layout: &'a Layout,
    pub allow: &'a ContentConfig,
}

/// A checked image reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Image {
    /// A file of the project, copied into the site.
    Local {
        /// The file, and its dark variant if there is one.
        source: PathBuf,
        dark: Option<PathBuf>,
        /// Site path of the copy, e.g. `media/terms/fig.svg` (and of the dark one).
        site_path: String,
        dark_site_path: Option<String>,
    },
    /// A reference glossary.toml allows and nobody checks (remote or site-absolute).
    Unchecked(String),
}

impl Image {
    /// The files to copy into the site: (source, site path).
    pub fn copies(&self) -> Vec<(PathBuf, String)> {
        match self {
            Image::Local {
                source,
                dark,
                site_path,
                dark_site_path,
            } => std::iter::once((source.clone(), site_path.clone()))
                .chain(dark.clone().zip(dark_site_path.clone()))
                .collect(),
            Image::Unchecked(_) => Vec::new(),
        }
    }

    /// The HTML for this image on the page at `page_path` (e.g. `terms/occupancy/`).
    pub fn html(&self, page_path: &str, alt: &str, title: &str) -> String {
        let up = "../".repeat(page_path.matches('/').count());
        let title = if title.is_empty() {
            String::new()
        } else {
            format!(r#" title="{}""#, escape(title))
        };
        // A file name may hold a space or non-ASCII (`my pic.png`); a URL may not.
        let img = |src: &str| {
            format!(
                r#"<img src="{}" alt="{}"{title} loading="lazy">"#,
                escape(&encode(src)),
                escape(alt)
            )
        };
        match self {
            Image::Local {
                site_path,
                dark_site_path: Some(dark),
                ..
            } => format!(
                r#"<picture><source srcset="{}" media="(prefers-color-scheme: dark)">{}</picture>"#,
                escape(&encode(&format!("{up}{dark}"))),
                img(&format!("{up}{site_path}"))
            ),
            Image::Local { site_path, .. } => img(&format!("{up}{site_path}")),
            Image::Unchecked(src) => img(src),
        }
    }
}

impl Figures<'_> {
    /// Check `dest`, written in the entry at `entry_path`.
    pub fn resolve(&self, entry_path: &Path, dest: &str) -> Result<Image, String> {
        if has_scheme(dest) || crate::link_scheme::is_network_path(dest) {
            return if self.allow.allow_remote_images {
                Ok(Image::Unchecked(dest.to_string()))
            } else {
                Err(format!(
                    "image `{dest}` is not a file of this project (remote images need \
                     `allow_remote_images = true` under [content] in glossary.toml)"
                ))
            };
        }
        if dest.starts_with('/') {
            return if self.allow.allow_absolute_images {
                Ok(Image::Unchecked(dest.to_string()))
            } else {
                Err(format!(
                    "image `{dest}` is an absolute path; write it relative to the entry \
                     (beside it or in content/figures/), or set `allow_absolute_images = true` \
                     under [content] in glossary.toml"
                ))
            };
        }
        // As a browser reads it: `my%20pic.png` is the file `my pic.png`.
        let path = decode(dest.split(['?', '#']).next().unwrap_or_default());
        let path = path.as_ref();
        let ext = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        if !EXTENSIONS.contains(&ext.as_str()) {
            return Err(format!(
                "image `{dest}` is not an image file (use {})",
                EXTENSIONS.join(", ")
            ));
        }
        let content = self.layout.content();
        let beside = entry_path.parent().unwrap_or(&content).join(path);
        let shared = self.layout.figures().join(path);
        let Some(source) = [beside, shared].into_iter().find(|p| p.is_file()) else {
            return Err(format!(
                "image `{dest}` not found beside the entry or in content/figures/"
            ));
        };
        let site_path = self.site_path(&source, dest)?;
        let dark = dark_variant(&source).filter(|d| d.is_file());
        let dark_site_path = dark.as_ref().map(|d| self.site_path(d, dest)).transpose()?;
        // An SVG is copied as it is: one that could run or fetch anything is refused.
        if ext == "svg" {
            for file in std::iter::once(&source).chain(&dark) {
                let name = file.strip_prefix(&self.layout.root).unwrap_or(file);
                super::svg::check_file(file, name)
                    .map_err(|why| format!("image `{dest}`: {why}"))?;
            }
        }
        Ok(Image::Local {
            source,
            dark,
            site_path,
            dark_site_path,
        })
    }

    /// `media/` plus the file's path below `content/`, which it must not leave: a `..` is
    /// refused, and so is a symlink whose target is not an image file inside `content/`
    /// or `static/` (`.git/config`, `glossary.toml`, `content/people.toml`): the site
    /// would publish that file under the figure's name.
    fn site_path(&self, file: &Path, dest: &str) -> Result<String, String> {
        let outside = || format!("image `{dest}` is outside content/");
        let content = self
            .layout
            .content()
            .canonicalize()
            .map_err(|_| outside())?;
        let real = file.canonicalize().map_err(|_| outside())?;
        let statics = self.layout.static_files().canonicalize().ok();
        let inside =
            real.starts_with(&content) || statics.as_ref().is_some_and(|s| real.starts_with(s));
        if !inside {
            return Err(format!(
                "image `{dest}` is a symlink to {}, outside content/ and static/; copy the \
                 image into content/ instead",
                real.display()
            ));
        }
        let is_image = real
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()));
        if !is_image {
            return Err(format!(
                "image `{dest}` is a symlink to {}, which is not an image file (use {})",
                real.display(),
                EXTENSIONS.join(", ")
            ));
        }
        // The name the author wrote (a symlink inside content/ keeps its own place).
        let written = normalize(file);
        let rel = written
            .strip_prefix(normalize(&self.layout.content()))
            .ok()
            .or_else(|| real.strip_prefix(&content).ok())
            .ok_or_else(outside)?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if parts.iter().any(|p| p == "..") {
            return Err(outside());
        }
        Ok(format!("media/{}", parts.join("/")))
    }
}

/// The image references of a body (Markdown, after its calls are expanded), in order,
/// as the renderer meets them (`markdown::render` checks each with [`Figures::resolve`]):
/// what the sign-off binds the figure files by. Reference-style images are resolved by
/// the parser, as when rendering.
pub fn referenced(markdown: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Parser, Tag};
    // Every image reference holds `![`; most bodies have none, and need no parse.
    if !markdown.contains("![") {
        return Vec::new();
    }
    Parser::new_ext(markdown, super::markdown::options())
        .filter_map(|event| match event {
            Event::Start(Tag::Image { dest_url, .. }) => Some(dest_url.into_string()),
            _ => None,
        })
        .collect()
}

/// `fig.svg` -> `fig.dark.svg`.
fn dark_variant(file: &Path) -> Option<PathBuf> {
    let stem = file.file_stem()?.to_str()?;
    let ext = file.extension()?.to_str()?;
    if stem.ends_with(".dark") {
        return None;
    }
    Some(file.with_file_name(format!("{stem}.dark.{ext}")))
}

/// `a/b/../c` -> `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, Layout) {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        std::fs::create_dir_all(layout.content().join("terms")).unwrap();
        std::fs::create_dir_all(layout.figures()).unwrap();
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
        std::fs::write(layout.content().join("terms/own.svg"), svg).unwrap();
        std::fs::write(layout.content().join("terms/own.dark.svg"), svg).unwrap();
        std::fs::write(layout.figures().join("shared.png"), "png").unwrap();
        (dir, layout)
    }

    #[test]
    fn finds_figures_beside_the_entry_and_in_content_figures() {
        let (_dir, layout) = setup();
        let allow = ContentConfig::default();
        let f = Figures {
            layout: &layout,
            allow: &allow,
        };
        let entry = layout.content().join("terms/x.md");
        let own = f.resolve(&entry, "own.svg").unwrap();
        let html = own.html("terms/x/", "Own figure", "");
        assert_eq!(
            html,
            r#"<picture><source srcset="../../media/terms/own.dark.svg" media="(prefers-color-scheme: dark)"><img src="../../media/terms/own.svg" alt="Own figure" loading="lazy"></picture>"#
        );
        let shared = f.resolve(&entry, "shared.png").unwrap();
        assert_eq!(
            shared.html("terms/x/", "S", ""),
            r#"<img src="../../media/figures/shared.png" alt="S" loading="lazy">"#
        );
        let climbed = f.resolve(&entry, "../figures/shared.png").unwrap();
        assert_eq!(
            climbed.html("terms/x/", "S", ""),
            shared.html("terms/x/", "S", "")
        );
    }

    #[test]
    fn refuses_what_it_cannot_check_unless_allowed() {
        let (_dir, layout) = setup();
        let entry = layout.content().join("terms/x.md");
        let mut allow = ContentConfig::default();
        let f = Figures {
            layout: &layout,
            allow: &allow,
        };
        for (dest, why) in [
            ("https://example.org/a.png", "remote images need"),
            ("data:image/png;base64,AAAA", "remote images need"),
            ("/img/a.png", "absolute path"),
            (
                "missing.svg",
                "not found beside the entry or in content/figures/",
            ),
            ("own.txt", "is not an image file"),
            ("../../../etc/x.png", "not found"),
        ] {
            let err = f.resolve(&entry, dest).unwrap_err();
            assert!(err.contains(why), "{dest}: {err}");
        }
        allow.allow_remote_images = true;
        allow.allow_absolute_images = true;
        let f = Figures {
            layout: &layout,
            allow: &allow,
        };
        assert!(f.resolve(&entry, "https://example.org/a.png").is_ok());
        assert!(f.resolve(&entry, "/img/a.png").is_ok());
    }
}
