//! An experiment's kernel sources as NVRTC compiles them: the files listed under
//! `kernels`, in order, each after a `#line 1 "FILE"` directive so that the compiler's
//! messages name the file and its own line, and the compiler's log with each such place
//! rewritten as the path a reader opens (`measurements/axpy/axpy.cu:77`).

use std::path::PathBuf;

use crate::error::{Error, Result};

/// The concatenated sources and where each file starts in them.
#[derive(Debug, Clone)]
pub struct KernelSource {
    /// What NVRTC is given.
    pub text: String,
    /// Each file's name as listed, its path, and the line of `text` holding its `#line`.
    files: Vec<(String, PathBuf, usize)>,
}

/// The name NVRTC gives a program it was not given a name for; a place before the first
/// `#line` (there is none) or in a compiler that ignores `#line` would carry it.
const NVRTC_DEFAULT_NAME: &str = "default_program";

impl KernelSource {
    /// Read `files` (name as listed, path). A file the checker allowed has a name of
    /// letters, digits, '_', '-' and '.', so it needs no escaping inside `#line "..."`.
    pub fn read(files: &[(String, PathBuf)]) -> Result<KernelSource> {
        let mut parts = Vec::new();
        for (name, path) in files {
            let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
            if text.contains('\0') {
                return Err(Error::content(
                    path,
                    None,
                    "kernel source contains a NUL byte",
                ));
            }
            parts.push((name.clone(), path.clone(), text));
        }
        Ok(KernelSource::join(parts))
    }

    fn join(parts: Vec<(String, PathBuf, String)>) -> KernelSource {
        let mut text = String::new();
        let mut files = Vec::new();
        let mut line = 1;
        for (name, path, body) in parts {
            files.push((name.clone(), path, line));
            text.push_str(&format!("#line 1 \"{name}\"\n"));
            text.push_str(&body);
            text.push('\n');
            // The directive's line, the body's, and the one the pushed '\n' ends.
            line += 1 + body.matches('\n').count() + 1;
        }
        KernelSource { text, files }
    }

    /// The compiler's log with every `NAME(LINE)` that starts a line rewritten as
    /// `PATH:LINE`: NAME one of the listed files, or NVRTC's default program name,
    /// mapped back through the concatenation. Other lines are kept as they are.
    pub fn locate_log(&self, log: &str) -> String {
        log.lines()
            .map(|l| self.locate_line(l).unwrap_or_else(|| l.to_string()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn locate_line(&self, line: &str) -> Option<String> {
        let open = line.find('(')?;
        let close = open + line[open..].find(')')?;
        let name = &line[..open];
        let n: usize = line[open + 1..close].parse().ok()?;
        let rest = &line[close + 1..];
        let (path, file_line) = if name == NVRTC_DEFAULT_NAME {
            let (_, path, start) = self.files.iter().rev().find(|f| f.2 < n)?;
            (path, n - start)
        } else {
            let (_, path, _) = self.files.iter().find(|f| f.0 == name)?;
            (path, n)
        };
        Some(format!("{}:{file_line}{rest}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_files() -> KernelSource {
        KernelSource::join(vec![
            (
                "common.cuh".into(),
                PathBuf::from("measurements/axpy/common.cuh"),
                "#pragma once\n// two lines\n".into(),
            ),
            (
                "axpy.cu".into(),
                PathBuf::from("measurements/axpy/axpy.cu"),
                "extern \"C\" __global__ void axpy() {\n    undefined_name;\n}".into(),
            ),
        ])
    }

    #[test]
    fn each_file_starts_with_a_line_directive_naming_it() {
        let s = two_files();
        let lines: Vec<&str> = s.text.lines().collect();
        assert_eq!(lines[0], "#line 1 \"common.cuh\"");
        let at = lines
            .iter()
            .position(|l| *l == "#line 1 \"axpy.cu\"")
            .unwrap();
        // The directive is the line `files` records for it (1-based).
        assert_eq!(s.files[1].2, at + 1);
        assert_eq!(lines[at + 2], "    undefined_name;");
    }

    #[test]
    fn a_compile_log_names_the_kernel_file_and_its_line() {
        let s = two_files();
        // As NVRTC writes it, with the #line directives in force.
        let log = "axpy.cu(2): error: identifier \"undefined_name\" is undefined\n\n1 error detected in the compilation of \"axpy.cu\".";
        assert_eq!(
            s.locate_log(log),
            "measurements/axpy/axpy.cu:2: error: identifier \"undefined_name\" is undefined\n\n1 error detected in the compilation of \"axpy.cu\"."
        );
    }

    #[test]
    fn the_default_program_name_is_mapped_back_through_the_concatenation() {
        let s = two_files();
        let start = s.files[1].2;
        let log = format!(
            "default_program({}): error: expected a \";\"\ndefault_program(2): warning: x",
            start + 2
        );
        assert_eq!(
            s.locate_log(&log),
            "measurements/axpy/axpy.cu:2: error: expected a \";\"\nmeasurements/axpy/common.cuh:1: warning: x"
        );
    }

    #[test]
    fn lines_that_are_not_places_are_kept() {
        let s = two_files();
        for l in [
            "other.h(3): error: from an include",
            "axpy.cu(x): not a number",
            "plain text (with parentheses)",
        ] {
            assert_eq!(s.locate_log(l), l);
        }
    }
}
