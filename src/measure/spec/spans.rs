//! Where each key and value of an experiment file is, from the YAML parser's own marks.
//!
//! serde gives the spec's values but not their places, so the file is read a second time
//! by yaml-rust2's event parser, which marks every scalar and collection it meets. Each
//! mark is stored under the path of the value it starts (`axes.variant[2]`,
//! `launches[0].grid`). A problem found after parsing names a path ([`Site`]); [`Spans`]
//! turns it into a line and column, whatever else in the file repeats the value's text.

use std::collections::HashMap;
use std::fmt;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

use crate::error::Location;

/// The path from the document's root to one value: keys of mappings, indices of lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct YamlPath(Vec<Seg>);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Seg {
    Key(String),
    Index(usize),
}

impl YamlPath {
    /// The path of the top-level key `key`.
    pub fn top(key: &str) -> YamlPath {
        YamlPath(vec![Seg::Key(key.to_string())])
    }

    /// The value under `key` of the mapping at this path.
    pub fn key(&self, key: &str) -> YamlPath {
        let mut p = self.clone();
        p.0.push(Seg::Key(key.to_string()));
        p
    }

    /// The `i`th (0-based) item of the list at this path.
    pub fn index(&self, i: usize) -> YamlPath {
        let mut p = self.clone();
        p.0.push(Seg::Index(i));
        p
    }

    /// This path's value, as a site.
    pub fn value(&self) -> Site {
        Site {
            path: self.clone(),
            part: Part::Value,
        }
    }

    /// This path's key (the name written before the colon), as a site.
    pub fn name(&self) -> Site {
        Site {
            path: self.clone(),
            part: Part::Key,
        }
    }

    fn parent(&self) -> Option<YamlPath> {
        let mut p = self.clone();
        p.0.pop().map(|_| p)
    }
}

impl fmt::Display for YamlPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            match s {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Which part of a mapping entry a problem is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    /// The key: a bad name.
    Key,
    /// The value.
    Value,
}

/// What a problem is about: one key or value of the file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Site {
    pub path: YamlPath,
    pub part: Part,
}

impl From<YamlPath> for Site {
    fn from(path: YamlPath) -> Site {
        path.value()
    }
}

/// The place of every key and value of one YAML document.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    values: HashMap<YamlPath, Location>,
    keys: HashMap<YamlPath, Location>,
}

impl Spans {
    /// The places in `text`. A file the parser refuses keeps the places read before the
    /// error (serde reports the error itself, with its own location).
    pub fn of(text: &str) -> Spans {
        let mut walk = Walk {
            chars: text.chars().collect(),
            spans: Spans::default(),
            stack: Vec::new(),
            ignored: 0,
            started: false,
        };
        let _ = Parser::new_from_str(text).load(&mut walk, false);
        walk.spans
    }

    /// Where `site` is: its own place; else the other part of its entry (a key for a
    /// value, or a value for a key); else the nearest enclosing value that has a place (a
    /// default never written has none of its own, but its mapping has). The document
    /// itself is no answer: a site outside every written entry has no place.
    pub fn locate(&self, site: &Site) -> Option<Location> {
        let (first, second) = match site.part {
            Part::Key => (&self.keys, &self.values),
            Part::Value => (&self.values, &self.keys),
        };
        if let Some(l) = first.get(&site.path).or_else(|| second.get(&site.path)) {
            return Some(*l);
        }
        let mut p = site.path.parent();
        while let Some(path) = p.filter(|p| !p.0.is_empty()) {
            if let Some(l) = self.keys.get(&path).or_else(|| self.values.get(&path)) {
                return Some(*l);
            }
            p = path.parent();
        }
        None
    }
}

/// An open collection while walking the events.
enum Frame {
    Map {
        path: YamlPath,
        /// The key whose value comes next; None while a key is expected.
        key: Option<String>,
        /// Inside a key that is itself a collection (never valid in an experiment file):
        /// its contents get no places.
        complex_key: bool,
    },
    Seq {
        path: YamlPath,
        next: usize,
    },
}

struct Walk {
    /// The text by characters: the parser's marks count characters, not bytes.
    chars: Vec<char>,
    spans: Spans,
    stack: Vec<Frame>,
    /// Depth of collections opened inside a complex key.
    ignored: usize,
    started: bool,
}

impl Walk {
    /// The path the next value takes, or None where it is a key (handled by the caller).
    fn slot(&mut self) -> Option<YamlPath> {
        match self.stack.last_mut() {
            None => Some(YamlPath::default()),
            Some(Frame::Seq { path, next }) => {
                let p = path.index(*next);
                *next += 1;
                Some(p)
            }
            Some(Frame::Map { path, key, .. }) => key.take().map(|k| path.key(&k)),
        }
    }

    fn open(&mut self, mark: Marker, map: bool) {
        if self.ignored > 0 {
            self.ignored += 1;
            return;
        }
        let path = match self.slot() {
            Some(p) => p,
            None => {
                // A collection as a key: skip it whole.
                if let Some(Frame::Map { complex_key, .. }) = self.stack.last_mut() {
                    *complex_key = true;
                }
                self.ignored = 1;
                return;
            }
        };
        // A flow collection (`[1, 2]`, `{u64: n}`) is marked at its bracket; a block one is
        // marked past its first key, so it is placed by its key instead.
        let flow = matches!(self.chars.get(mark.index()), Some('[' | '{'));
        if flow {
            self.spans.values.insert(path.clone(), location(mark));
        }
        self.stack.push(if map {
            Frame::Map {
                path,
                key: None,
                complex_key: false,
            }
        } else {
            Frame::Seq { path, next: 0 }
        });
    }

    fn close(&mut self) {
        if self.ignored > 0 {
            self.ignored -= 1;
            if self.ignored == 0 {
                // The complex key is done: its value follows, under a name no path uses.
                if let Some(Frame::Map {
                    key, complex_key, ..
                }) = self.stack.last_mut()
                {
                    *complex_key = false;
                    *key = Some("\u{0}".to_string());
                }
            }
            return;
        }
        self.stack.pop();
    }

    fn scalar(&mut self, text: String, mark: Marker) {
        if self.ignored > 0 {
            return;
        }
        if let Some(Frame::Map {
            path,
            key: key @ None,
            ..
        }) = self.stack.last_mut()
        {
            self.spans.keys.insert(path.key(&text), location(mark));
            *key = Some(text);
            return;
        }
        if let Some(p) = self.slot() {
            self.spans.values.insert(p, location(mark));
        }
    }
}

impl MarkedEventReceiver for Walk {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        match ev {
            Event::DocumentStart if self.started => {
                // Only the first document: serde reads one.
                self.ignored = usize::MAX / 2;
            }
            Event::DocumentStart => self.started = true,
            Event::MappingStart(..) => self.open(mark, true),
            Event::SequenceStart(..) => self.open(mark, false),
            Event::MappingEnd | Event::SequenceEnd => self.close(),
            Event::Scalar(text, ..) => self.scalar(text, mark),
            // An alias stands where it is written.
            Event::Alias(_) => self.scalar("\u{0}alias".to_string(), mark),
            _ => {}
        }
    }
}

fn location(mark: Marker) -> Location {
    Location {
        line: mark.line(),
        column: mark.col() + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(spans: &Spans, site: Site) -> (usize, usize) {
        let l = spans.locate(&site).expect("a place");
        (l.line, l.column)
    }

    #[test]
    fn every_value_has_its_own_line_and_column_whatever_repeats_its_text() {
        let text = "title: tïled and naïve\naxes:\n  variant: [naive, tiled]\n  block: [128, 256]\nlaunches:\n  - kernel: \"k_{variant}\"\n    grid: [1, naive]\n    args: [x, {u64: n}]\n";
        let s = Spans::of(text);
        let axes = YamlPath::top("axes");
        assert_eq!(at(&s, axes.key("variant").index(0).value()), (3, 13));
        assert_eq!(at(&s, axes.key("variant").index(1).value()), (3, 20));
        assert_eq!(at(&s, axes.key("block").name()), (4, 3));
        // A flow list is placed at its bracket, counted in characters after the title's ï.
        assert_eq!(at(&s, axes.key("variant").value()), (3, 12));
        let l0 = YamlPath::top("launches").index(0);
        assert_eq!(at(&s, l0.key("kernel").value()), (6, 13));
        assert_eq!(at(&s, l0.key("grid").index(1).value()), (7, 15));
        assert_eq!(at(&s, l0.key("args").index(1).key("u64").value()), (8, 21));
        assert_eq!(at(&s, YamlPath::top("title").value()), (1, 8));
    }

    #[test]
    fn a_value_never_written_is_placed_at_what_holds_it() {
        let text = "timing:\n  min_samples: 2\nbuffers:\n  x: {type: f32}\n";
        let s = Spans::of(text);
        // `length` is missing: the buffer's name.
        let x = YamlPath::top("buffers").key("x");
        assert_eq!(at(&s, x.key("length").value()), (4, 3));
        // A block mapping is placed at its key.
        assert_eq!(at(&s, YamlPath::top("timing").value()), (1, 1));
        assert_eq!(at(&s, YamlPath::top("timing").name()), (1, 1));
        assert_eq!(s.locate(&YamlPath::top("nothing").value()), None);
    }

    #[test]
    fn complex_keys_and_later_documents_get_no_places() {
        let text = "? [a, b]\n: 1\nc: 2\n---\nd: 3\n";
        let s = Spans::of(text);
        assert_eq!(at(&s, YamlPath::top("c").value()), (3, 4));
        assert_eq!(s.locate(&YamlPath::top("d").value()), None);
        assert_eq!(s.locate(&YamlPath::top("a").value()), None);
    }

    #[test]
    fn a_file_the_parser_refuses_keeps_what_came_before() {
        let s = Spans::of("a: 1\nb: [2\n");
        assert_eq!(at(&s, YamlPath::top("a").value()), (1, 4));
    }

    #[test]
    fn paths_read_as_written() {
        let p = YamlPath::top("launches").index(2).key("grid").index(0);
        assert_eq!(p.to_string(), "launches[2].grid[0]");
    }
}
