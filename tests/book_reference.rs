//! The book names every key the parsers accept, and no other, with examples that parse:
//! - each file format's reference table (a table whose header starts with `key`, under a
//!   named heading) lists exactly the keys the parser's own types accept, read from the
//!   types themselves through serde (the `fields` a derived `Deserialize` hands its
//!   deserializer), so a field added to a struct and not to the book fails here, and a
//!   key in the book that the parser refuses fails too;
//! - the examples under that heading (fenced blocks whose info string names a file, as in
//!   ```` ```yaml file=measurements/scale/experiment.yaml ````) parse with the real parser,
//!   and together use every key of the table, so every key is shown as well as named;
//! - the raw HTML subset table lists exactly the tags and attributes of
//!   `glossary::render::raw_html::SUBSET`.

use std::collections::BTreeSet;
use std::path::Path;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde::de::{self, Deserialize, Deserializer, Visitor};

use glossary::config::{Config, ContentConfig, Node, RawPeak, ReviewConfig, Section, SlurmProfile};
use glossary::content::{Claim, DiagramRef, FrontMatter, LineChartRef, Source, TableRef};
use glossary::measure::spec::{
    BufferSpec, ExperimentSpec, LaunchSpec, MetricSpec, Override, ReferenceSpec, TimingPolicy,
    Tolerance,
};

// ---------------------------------------------------------------------------------------
// The keys a parser accepts, from its types
// ---------------------------------------------------------------------------------------

/// A deserializer that answers nothing, and keeps the field names a derived `Deserialize`
/// passes to `deserialize_struct`: serde's own list of the names a struct accepts (renames
/// applied, `#[serde(skip)]` fields left out), the list `deny_unknown_fields` checks
/// against.
struct FieldNames<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(de::Error::custom("fields read"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The keys `T` accepts, as serde derived them.
fn fields_of<'de, T: Deserialize<'de>>() -> Vec<&'static str> {
    let mut fields = None;
    let _ = T::deserialize(FieldNames(&mut fields));
    fields
        .unwrap_or_else(|| panic!("{} is not a struct", std::any::type_name::<T>()))
        .to_vec()
}

/// `prefix` + each key of `T` (`sources[].` + `title`).
fn keys<'de, T: Deserialize<'de>>(prefix: &str) -> Vec<String> {
    fields_of::<T>()
        .into_iter()
        .map(|f| format!("{prefix}{f}"))
        .collect()
}

/// Every key of an entry's front matter. A list of structs is `key[].field`, a struct
/// `key.field`. `terms` takes a slug or `{slug, note}` (an untagged enum, which serde does
/// not describe), so its two keys are named here.
fn front_matter_keys() -> BTreeSet<String> {
    [
        keys::<FrontMatter>(""),
        keys::<Source>("sources[]."),
        keys::<TableRef>("measured[]."),
        keys::<LineChartRef>("measured[].chart."),
        keys::<Claim>("claims[]."),
        keys::<DiagramRef>("diagram."),
        vec!["terms[].slug".into(), "terms[].note".into()],
    ]
    .concat()
    .into_iter()
    .collect()
}

/// Every key of glossary.toml; a table keyed by the author's names is `NAME`.
fn settings_keys() -> BTreeSet<String> {
    [
        keys::<Config>(""),
        keys::<Section>("sections[]."),
        keys::<ReviewConfig>("review."),
        keys::<ContentConfig>("content."),
        keys::<Node>("nodes.NAME."),
        keys::<SlurmProfile>("nodes.NAME.slurm."),
        keys::<RawPeak>("nodes.NAME.peaks.ROOF."),
    ]
    .concat()
    .into_iter()
    .collect()
}

/// Every key of experiment.yaml. `fill`'s forms (`{uniform: [...]}`, ...) are values,
/// described with `fill`.
fn experiment_keys() -> BTreeSet<String> {
    [
        keys::<ExperimentSpec>(""),
        keys::<Override>("overrides[]."),
        keys::<BufferSpec>("buffers.NAME."),
        keys::<Tolerance>("buffers.NAME.tolerance."),
        keys::<LaunchSpec>("launches[]."),
        keys::<ReferenceSpec>("reference."),
        keys::<MetricSpec>("metrics.NAME."),
        keys::<TimingPolicy>("timing."),
    ]
    .concat()
    .into_iter()
    .collect()
}

// ---------------------------------------------------------------------------------------
// What the book says
// ---------------------------------------------------------------------------------------

fn chapter(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/src")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_HEADING_ATTRIBUTES
}

/// The part of `text` under the heading `heading` (any level), up to the next heading of
/// the same or a higher level.
fn under_heading(text: &str, heading: &str) -> String {
    let mut start = None;
    let mut level = None;
    let mut in_heading: Option<(pulldown_cmark::HeadingLevel, String, usize)> = None;
    for (event, range) in Parser::new_ext(text, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level: l, .. }) => {
                in_heading = Some((l, String::new(), range.start))
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, s, _)) = in_heading.as_mut() {
                    s.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let (l, s, at) = in_heading.take().unwrap();
                if let (Some(from), Some(lv)) = (start, level) {
                    if l <= lv {
                        return text[from..at].to_string();
                    }
                } else if s == heading {
                    start = Some(range.end);
                    level = Some(l);
                }
            }
            _ => {}
        }
    }
    let from = start.unwrap_or_else(|| panic!("no heading `{heading}`"));
    text[from..].to_string()
}

/// The rows of the first table in `text` whose first header cell is `first`: each row's
/// cells, as the code spans in them.
fn table_codes(text: &str, first: &str) -> Vec<Vec<Vec<String>>> {
    let mut rows = Vec::new();
    let mut in_head = false;
    let mut head: Vec<String> = Vec::new();
    let mut row: Vec<Vec<String>> = Vec::new();
    let mut taking = false;
    let mut in_table = false;
    for event in Parser::new_ext(text, options()) {
        match event {
            Event::Start(Tag::Table(_)) if rows.is_empty() && !taking => {
                in_table = true;
                head.clear();
            }
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => {
                in_head = false;
                taking = in_table && head.first().map(|h| h.trim()) == Some(first);
            }
            Event::Start(Tag::TableCell) => {
                if in_head {
                    head.push(String::new());
                } else {
                    row.push(Vec::new());
                }
            }
            Event::Text(t) if in_head => {
                if let Some(h) = head.last_mut() {
                    h.push_str(&t);
                }
            }
            Event::Code(c) if taking && !in_head => {
                if let Some(cell) = row.last_mut() {
                    cell.push(c.to_string());
                }
            }
            Event::End(TagEnd::TableRow) => {
                if taking {
                    rows.push(std::mem::take(&mut row));
                }
                row.clear();
            }
            Event::End(TagEnd::Table) => {
                in_table = false;
                if taking {
                    return rows;
                }
            }
            _ => {}
        }
    }
    rows
}

/// The keys a chapter's reference table names (every code span of each row's first cell).
fn named_keys(section: &str) -> BTreeSet<String> {
    table_codes(section, "key")
        .into_iter()
        .flat_map(|row| row.into_iter().next().unwrap_or_default())
        .collect()
}

/// Fenced blocks whose info string names a file (`yaml file=glossary.toml`): (the file,
/// the text).
pub fn file_blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    for event in Parser::new_ext(text, options()) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                current = info
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix("file="))
                    .map(|f| (f.to_string(), String::new()));
            }
            Event::Text(t) => {
                if let Some((_, s)) = current.as_mut() {
                    s.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.extend(current.take()),
            _ => {}
        }
    }
    out
}

/// Every key path a YAML or TOML document uses, spelled as the reference tables spell
/// them: `a[].b` in lists of maps, `NAME` for the keys of a map of the author's names
/// (`maps`: the paths whose keys are names, such as `nodes.`).
fn used_keys(value: &serde_json::Value, prefix: &str, maps: &[&str], out: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                // A node's peaks are keyed by roof (`dram`, `fp32`): `ROOF`, as the
                // table names them.
                let key = if maps.contains(&prefix) {
                    "NAME"
                } else if prefix == "nodes.NAME.peaks." {
                    "ROOF"
                } else {
                    k.as_str()
                };
                let path = format!("{prefix}{key}");
                out.insert(path.clone());
                used_keys(v, &format!("{path}."), maps, out);
            }
        }
        serde_json::Value::Array(items) => {
            let list = format!("{}[].", prefix.trim_end_matches('.'));
            for item in items {
                if item.is_object() {
                    used_keys(item, &list, maps, out);
                }
            }
        }
        _ => {}
    }
}

/// Both directions of "the book names what the parser accepts", with what differs.
fn compare(what: &str, accepted: &BTreeSet<String>, named: &BTreeSet<String>) {
    let unnamed: Vec<_> = accepted.difference(named).collect();
    let refused: Vec<_> = named.difference(accepted).collect();
    assert!(
        unnamed.is_empty() && refused.is_empty(),
        "{what}: keys the parser accepts that the book does not name: {unnamed:?}; \
         keys the book names that the parser refuses: {refused:?}"
    );
}

/// The keys a set of example documents use, none of them outside `accepted`, together
/// every key of it (values of maps keyed by names are not keys: `maps`).
fn check_examples(what: &str, used: BTreeSet<String>, accepted: &BTreeSet<String>) {
    let missing: Vec<_> = accepted.difference(&used).collect();
    assert!(
        missing.is_empty(),
        "{what}: keys no example of the book uses: {missing:?}"
    );
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// The heading of each reference section.
const FRONT_MATTER: &str = "Every front-matter key";
const SETTINGS: &str = "Every key of glossary.toml";
const EXPERIMENT: &str = "Every key of experiment.yaml";

#[test]
fn the_book_names_every_front_matter_key_and_its_examples_parse() {
    let section = under_heading(&chapter("writing-entries.md"), FRONT_MATTER);
    let accepted = front_matter_keys();
    compare("front matter", &accepted, &named_keys(&section));
    let mut used = BTreeSet::new();
    let examples = file_blocks(&section);
    assert!(examples.len() >= 2, "front-matter examples: {examples:?}");
    for (file, text) in examples {
        let split = glossary::content::split_front_matter(Path::new(&file), &text)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let meta: FrontMatter = serde_yaml::from_str(split.yaml)
            .unwrap_or_else(|e| panic!("{file}: the book's example does not parse: {e}"));
        assert!(!meta.title.is_empty());
        let value: serde_json::Value = serde_yaml::from_str(split.yaml).unwrap();
        used_keys(&value, "", &[], &mut used);
    }
    check_examples("front matter", used, &accepted);
}

#[test]
fn the_book_names_every_glossary_toml_key_and_its_example_parses() {
    let section = under_heading(&chapter("settings.md"), SETTINGS);
    let accepted = settings_keys();
    compare("glossary.toml", &accepted, &named_keys(&section));
    let examples = file_blocks(&section);
    assert_eq!(examples.len(), 1, "one glossary.toml example: {examples:?}");
    let (file, text) = &examples[0];
    assert_eq!(file, "glossary.toml");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("glossary.toml"), text).unwrap();
    Config::load(dir.path()).unwrap_or_else(|e| panic!("the book's glossary.toml: {e}"));
    let value: serde_json::Value = toml::from_str(text).unwrap();
    let mut used = BTreeSet::new();
    used_keys(&value, "", &["nodes."], &mut used);
    check_examples("glossary.toml", used, &accepted);
}

#[test]
fn the_book_names_every_experiment_yaml_key_and_its_examples_parse() {
    let text = chapter("experiments.md");
    let section = under_heading(&text, EXPERIMENT);
    let accepted = experiment_keys();
    compare("experiment.yaml", &accepted, &named_keys(&section));
    // The examples are the chapter's whole-file ones (the complete example and the
    // string-axis one), each parsed and planned by the real parser.
    let mut used = BTreeSet::new();
    let examples: Vec<_> = file_blocks(&text)
        .into_iter()
        .filter(|(f, _)| f.ends_with("experiment.yaml"))
        .collect();
    assert!(examples.len() >= 2, "experiment examples: {examples:?}");
    for (file, yaml) in examples {
        let spec: ExperimentSpec = serde_yaml::from_str(&yaml)
            .unwrap_or_else(|e| panic!("{file}: the book's example does not parse: {e}"));
        assert!(!spec.launches.is_empty());
        let value: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
        used_keys(&value, "", &["buffers.", "metrics."], &mut used);
    }
    // Values, not keys: params, axes, configs, override conditions and scalar arguments
    // are the author's names.
    used.retain(|k| {
        ![
            "params.",
            "axes.",
            "configs[].",
            "overrides[].where.",
            "overrides[].set.",
            "launches[].args[].",
            "reference.launches[].",
            "buffers.NAME.fill.",
        ]
        .iter()
        .any(|p| k.starts_with(p))
    });
    // `buffers.NAME` and `metrics.NAME` are the author's names for what follows.
    let unknown: Vec<_> = used
        .difference(&accepted)
        .filter(|k| !k.ends_with(".NAME"))
        .collect();
    assert!(unknown.is_empty(), "examples use unknown keys: {unknown:?}");
    check_examples("experiment.yaml", used, &accepted);
}

/// The raw HTML a body may hold without `allow_html`, tag by tag with its attributes,
/// exactly as `raw_html::SUBSET` allows it.
#[test]
fn the_book_lists_the_raw_html_subset_tag_by_tag() {
    let section = under_heading(&chapter("writing-entries.md"), "Raw HTML");
    let rows = table_codes(&section, "tag");
    let listed: BTreeSet<(String, Vec<String>)> = rows
        .into_iter()
        .map(|row| {
            let mut cells = row.into_iter();
            let tag = cells.next().unwrap_or_default().concat();
            let mut attrs = cells.next().unwrap_or_default();
            attrs.sort();
            (tag.trim_matches(['<', '>']).to_string(), attrs)
        })
        .collect();
    let allowed: BTreeSet<(String, Vec<String>)> = glossary::render::raw_html::SUBSET
        .iter()
        .map(|(tag, attrs)| {
            let mut attrs: Vec<String> = attrs.iter().map(|a| a.to_string()).collect();
            attrs.sort();
            (tag.to_string(), attrs)
        })
        .collect();
    assert_eq!(listed, allowed, "the book's table against raw_html::SUBSET");
}

/// The checks above can fail: a key the parser does not know, or one left out, is found.
#[test]
fn the_comparison_finds_an_extra_and_a_missing_key() {
    let accepted: BTreeSet<String> = ["a", "b"].map(String::from).into();
    let named: BTreeSet<String> = ["a", "c"].map(String::from).into();
    let failed = std::panic::catch_unwind(|| compare("t", &accepted, &named)).unwrap_err();
    let message = failed.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("[\"b\"]") && message.contains("[\"c\"]"),
        "{message}"
    );
    // serde's list really is the parser's: a field of FrontMatter is in it, a made-up
    // one is not, and a renamed one appears under its YAML name.
    let fm = fields_of::<FrontMatter>();
    assert!(fm.contains(&"redirect_from") && !fm.contains(&"alias"));
    assert!(fields_of::<Override>().contains(&"where"));
    assert!(fields_of::<BufferSpec>().contains(&"type"));
    let mut used = BTreeSet::new();
    let doc: serde_json::Value =
        serde_yaml::from_str("a: 1\nlist: [{x: 1}]\nnodes: {h200: {gpu: g}}\n").unwrap();
    used_keys(&doc, "", &["nodes."], &mut used);
    assert_eq!(
        used,
        [
            "a",
            "list",
            "list[].x",
            "nodes",
            "nodes.NAME",
            "nodes.NAME.gpu"
        ]
        .map(String::from)
        .into()
    );
}
