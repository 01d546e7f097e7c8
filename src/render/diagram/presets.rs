//! Preset files: `templates/diagrams/<kind>/<preset>.yaml`. A preset is data that a
//! diagram kind's code reads, so a new preset is a new file, never new code.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use super::DiagramError;

/// The folder holding one kind's presets.
pub fn kind_dir(templates: &Path, kind: &str) -> PathBuf {
    templates.join("diagrams").join(kind)
}

/// Read and parse one preset. The name must be a plain slug: it becomes a file name.
pub fn load_preset<T: DeserializeOwned>(
    templates: &Path,
    kind: &str,
    name: &str,
) -> Result<(PathBuf, T), DiagramError> {
    let dir = kind_dir(templates, kind);
    let path = dir.join(format!("{name}.yaml"));
    let unknown = || DiagramError::UnknownPreset {
        kind: kind.to_string(),
        preset: name.to_string(),
        path: path.clone(),
        known: known_presets(&dir),
    };
    let is_slug = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !is_slug {
        return Err(unknown());
    }
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(unknown()),
        Err(e) => {
            return Err(DiagramError::BadPreset {
                path,
                line: None,
                message: e.to_string(),
            })
        }
    };
    // Before serde_norway, which is slow on deep nesting (see `yaml_depth`).
    crate::yaml_depth::check(&text).map_err(|d| DiagramError::BadPreset {
        path: path.clone(),
        line: Some(d.line),
        message: d.to_string(),
    })?;
    let preset = serde_yaml::from_str(&text).map_err(|e| DiagramError::BadPreset {
        path: path.clone(),
        line: e.location().map(|l| l.line()),
        message: e.to_string(),
    })?;
    Ok((path, preset))
}

/// Preset names found for a kind, sorted, for "known: ..." in error messages.
fn known_presets(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".yaml").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Sample {
        title: String,
    }

    fn templates_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let kind = kind_dir(dir.path(), "sample");
        std::fs::create_dir_all(&kind).unwrap();
        for (name, text) in files {
            std::fs::write(kind.join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn reads_a_preset_by_name() {
        let dir = templates_with(&[("one.yaml", "title: One\n")]);
        let (path, s): (_, Sample) = load_preset(dir.path(), "sample", "one").unwrap();
        assert_eq!(s.title, "One");
        assert!(path.ends_with("diagrams/sample/one.yaml"));
    }

    #[test]
    fn unknown_preset_lists_the_known_ones() {
        let dir = templates_with(&[("one.yaml", "title: One\n"), ("two.yaml", "title: Two\n")]);
        let err = load_preset::<Sample>(dir.path(), "sample", "three").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("unknown sample preset `three`"), "{msg}");
        assert!(msg.contains("known: one, two"), "{msg}");
    }

    #[test]
    fn a_name_that_is_not_a_slug_is_unknown_not_a_path() {
        let dir = templates_with(&[("one.yaml", "title: One\n")]);
        for name in ["../one", "One", "", "a/b"] {
            let err = load_preset::<Sample>(dir.path(), "sample", name).unwrap_err();
            assert!(
                matches!(err, DiagramError::UnknownPreset { .. }),
                "{name}: {err}"
            );
        }
    }

    #[test]
    fn unknown_field_names_the_preset_file_and_line() {
        let dir = templates_with(&[("one.yaml", "title: One\ncolour: red\n")]);
        let err = load_preset::<Sample>(dir.path(), "sample", "one").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("one.yaml:2"), "{msg}");
        assert!(msg.contains("colour"), "{msg}");
    }
}
