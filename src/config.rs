//! `glossary.toml`: the site's settings and the verification nodes it trusts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Location, Result};

pub const CONFIG_FILE: &str = "glossary.toml";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub title: String,
    /// Absolute URL the site is served from; canonical links and the feed use it.
    pub base_url: String,
    #[serde(default)]
    pub description: String,
    /// The footer line of every page (inline Markdown; links are written relative to the
    /// site root, as in `guides/reading-a-table/`).
    #[serde(default)]
    pub footer: Option<String>,
    /// The sections of the contents, in reading order. Entries name one with `section:`.
    #[serde(default)]
    pub sections: Vec<Section>,
    #[serde(default)]
    pub review: ReviewConfig,
    #[serde(default)]
    pub content: ContentConfig,
    /// Verification nodes by name (`h200`, `t4`): the GPUs whose records the site may cite.
    #[serde(default)]
    pub nodes: BTreeMap<String, Node>,
    /// Where each node's `public_key` is written in glossary.toml (line:column of the
    /// string), so the key checks (`trust::node::check_node_keys`) point at it.
    #[serde(skip)]
    pub public_key_at: BTreeMap<String, Location>,
}

/// The spans of the nodes' `public_key` strings: glossary.toml read a second time, for
/// nothing else (the full parse above keeps `Node` plain data).
#[derive(Deserialize)]
struct KeySpans {
    #[serde(default)]
    nodes: BTreeMap<String, NodeKeySpan>,
}

#[derive(Deserialize)]
struct NodeKeySpan {
    #[serde(default)]
    public_key: Option<toml::Spanned<String>>,
    arch: Option<toml::Spanned<String>>,
    compute_capability: Option<toml::Spanned<String>>,
    datasheet: Option<toml::Spanned<String>>,
}

/// `"9.0"` as (9, 0): one or two digits, a dot, one or two digits.
fn parse_capability(cc: &str) -> Option<(u32, u32)> {
    let (major, minor) = cc.split_once('.')?;
    let digits = |s: &str| (1..=2).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    (digits(major) && digits(minor)).then(|| Some((major.parse().ok()?, minor.parse().ok()?)))?
}

/// `"sm_90"`, `"sm_90a"`, `"sm_120"` as the capability it targets, (9, 0) or (12, 0):
/// `sm_`, two or three digits (the last one the minor version), an optional letter.
fn parse_arch(arch: &str) -> Option<(u32, u32)> {
    let rest = arch.strip_prefix("sm_")?;
    let digits = rest.trim_end_matches(|c: char| c.is_ascii_lowercase());
    if rest.len() - digits.len() > 1
        || !(2..=3).contains(&digits.len())
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    Some((n / 10, n % 10))
}

/// A node's `datasheet`, a link on the nodes page: an https address only, as a reader's
/// browser opens it.
pub fn check_datasheet(url: &str) -> std::result::Result<(), String> {
    match url.starts_with("https://") && url.len() <= 2048 && !url.contains(char::is_whitespace) {
        true => Ok(()),
        false => Err(format!(
            "datasheet = \"{url}\": write the https:// address of the GPU's datasheet"
        )),
    }
}

/// Each node's `arch` and `compute_capability` checked while glossary.toml loads, with or
/// without NVRTC: a malformed one (`sm90`, `"9"`) or a pair that disagree (`sm_80` with
/// `"9.0"`) is an error at its line, every one of them. A profile that names the wrong
/// architecture would compile kernels for another GPU, or refuse the right one's records.
fn check_node_arches(path: &Path, text: &str, spans: &KeySpans) -> Vec<Error> {
    let mut errors = Vec::new();
    for (name, n) in &spans.nodes {
        let at = |v: &toml::Spanned<String>| Some(location(text, v.span().start));
        let arch = n.arch.as_ref().map(|a| (a, parse_arch(a.get_ref())));
        let cc = n
            .compute_capability
            .as_ref()
            .map(|c| (c, parse_capability(c.get_ref())));
        if let Some((a, None)) = &arch {
            errors.push(Error::content(
                path,
                at(a),
                format!(
                    "[nodes.{name}] arch = \"{}\" is not an architecture: write sm_ and the compute capability's digits, as \"sm_90\" for 9.0 (or \"sm_90a\")",
                    a.get_ref()
                ),
            ));
        }
        if let Some((c, None)) = &cc {
            errors.push(Error::content(
                path,
                at(c),
                format!(
                    "[nodes.{name}] compute_capability = \"{}\" is not a compute capability: write major.minor, as \"9.0\"",
                    c.get_ref()
                ),
            ));
        }
        if let Some(d) = &n.datasheet {
            if let Err(why) = check_datasheet(d.get_ref()) {
                errors.push(Error::content(path, at(d), format!("[nodes.{name}] {why}")));
            }
        }
        if let (Some((a, Some(from_arch))), Some((c, Some(from_cc)))) = (&arch, &cc) {
            if from_arch != from_cc {
                errors.push(Error::content(
                    path,
                    at(a),
                    format!(
                        "[nodes.{name}] arch = \"{}\" is for compute capability {}.{}, but compute_capability = \"{}\" (line {}): make them agree (the driver reports the capability; `glossary verify init-node` writes both)",
                        a.get_ref(),
                        from_arch.0,
                        from_arch.1,
                        c.get_ref(),
                        location(text, c.span().start).line
                    ),
                ));
            }
        }
    }
    errors
}

/// The 1-based line and column of byte `offset` of `text`.
fn location(text: &str, offset: usize) -> Location {
    let before = &text[..offset.min(text.len())];
    Location {
        line: before.matches('\n').count() + 1,
        column: before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
    }
}

/// A section of the contents sidebar: entries that say `section: <slug>` are listed under
/// its title, in their `order`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Section {
    pub slug: String,
    pub title: String,
}

/// What entry bodies may contain beyond Markdown. Everything is refused by default: each
/// is an error at its file:line unless allowed here.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentConfig {
    /// Raw HTML in bodies, sanitized (ammonia) before it reaches a page.
    #[serde(default)]
    pub allow_html: bool,
    /// Images from other sites (`https://...`, any `scheme:` reference), not checked.
    #[serde(default)]
    pub allow_remote_images: bool,
    /// Site-absolute image paths (`/img/x.png`), not checked.
    #[serde(default)]
    pub allow_absolute_images: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewConfig {
    /// Sources checked longer ago than this are warnings (errors under `check --strict`).
    #[serde(default = "default_source_age")]
    pub source_max_age_days: i64,
}

fn default_source_age() -> i64 {
    365
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            source_max_age_days: default_source_age(),
        }
    }
}

/// A verification node: the GPU a record must come from to be cited as this node's.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Node {
    /// The device name the driver reports (`cuDeviceGetName`), e.g. "NVIDIA H200".
    pub gpu: String,
    /// Compute capability as "major.minor".
    pub compute_capability: String,
    /// The NVRTC/PTX architecture, e.g. "sm_90".
    pub arch: String,
    /// Number of SMs, used by the occupancy model for waves.
    pub sm_count: u32,
    /// The node's SSH public key (`ssh-ed25519 AAAA...`): a record is cited only if this
    /// key signed it (see `trust::node`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
    /// Keys the node signed with before `public_key`, each with the time it was retired
    /// (`glossary verify rotate-key` moves the current key here). A record signed with one
    /// of them is trusted only if it was captured before that key's retirement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_keys: Vec<PreviousKey>,
    /// Where the node's private key is on the machine that runs `verify` (`~/` expanded,
    /// relative to the project root otherwise). The key itself is never in the repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<PathBuf>,
    /// The GPUs this node is, pinned by UUID (`nvidia-smi -L`); empty means any GPU of the
    /// profile's model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_uuids: Vec<String>,
    /// L2 size in bytes, for `verify --dry-run` without a GPU (on the node it is read
    /// from the device and recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub l2_bytes: Option<u64>,
    /// Device memory in bytes, for `verify --dry-run` without a GPU: buffers larger than
    /// this are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_bytes: Option<u64>,
    /// How a Slurm cluster reaches this node's GPU, for `glossary verify submit --slurm`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmProfile>,
    /// The GPU model's datasheet (an https address), linked from the verification nodes
    /// page beside what the card reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datasheet: Option<String>,
    /// A reader's GPU, whose records come back through `glossary reproduce`: the id of the
    /// registered person (content/people.toml) who measures on it. The profile's
    /// `public_key` must then be one of that person's keys, and pages label its columns
    /// "measured by <name>'s <GPU>".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contributed_by: Option<String>,
    /// The GPU's physical limits (`[nodes.NAME.peaks]`), by roof name (`dram`, `fp32`,
    /// `tensor_bf16`...; `rates::ROOFS` is the list): what a metric's `roof:` is read
    /// against, and what no recorded row may exceed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub peaks: BTreeMap<RoofName, Peak>,
}

/// A name of [`crate::rates::ROOFS`], checked when glossary.toml is read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RoofName(String);

impl RoofName {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for RoofName {
    type Error = String;
    fn try_from(name: String) -> std::result::Result<RoofName, String> {
        match crate::rates::roof(&name) {
            Some(_) => Ok(RoofName(name)),
            None => Err(format!(
                "`{name}` is not a roof; peaks are named {}",
                crate::rates::roof_names()
            )),
        }
    }
}

impl From<RoofName> for String {
    fn from(n: RoofName) -> String {
        n.0
    }
}

impl std::borrow::Borrow<str> for RoofName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// One physical limit of a node, with where it comes from: `dram = { rate = "4.8 TB/s",
/// source = "...", checked = 2026-12-06 }`. Exactly one of `rate` (with `at_mhz` when the
/// datasheet rate assumes an SM clock), `per_clock_per_sm` (`"128 B"`) or
/// `fma_lanes_per_sm` (FP lanes, each one FMA, two FLOPs, a clock). Checked as it is read
/// (the unit's kind against the roof's is checked by the map's key in `check_peaks`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
#[serde(try_from = "RawPeak", into = "RawPeak")]
pub struct Peak {
    pub raw: RawPeak,
    pub form: crate::rates::PeakForm,
    /// What the form counts (bytes, FLOP, warp exchanges).
    pub work: crate::rates::Work,
}

/// A peak as glossary.toml writes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPeak {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    /// The SM clock (MHz) a datasheet `rate` assumes; the rate then scales with the clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_mhz: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_clock_per_sm: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fma_lanes_per_sm: Option<u32>,
    /// Where the figure is from: a URL or a document's name (and where in it).
    pub source: String,
    /// When someone last checked the figure against its source: a TOML date.
    #[serde(deserialize_with = "checked_on", serialize_with = "ymd")]
    pub checked: chrono::NaiveDate,
}

impl TryFrom<RawPeak> for Peak {
    type Error = String;
    fn try_from(raw: RawPeak) -> std::result::Result<Peak, String> {
        use crate::rates::{parse_rate, parse_work, PeakForm, Per, Work};
        if raw.source.trim().is_empty() {
            return Err("a peak needs a `source` (a URL or a document's name)".into());
        }
        let (form, work) = match (&raw.rate, &raw.per_clock_per_sm, raw.fma_lanes_per_sm) {
            (Some(rate), None, None) => {
                let (v, unit) = parse_rate(rate).map_err(|e| format!("rate: {e}"))?;
                if unit.per != Per::Second {
                    return Err(format!("rate = \"{rate}\": a rate is per second; per clock, write per_clock_per_sm"));
                }
                let per_s = v * unit.scale;
                let form = match raw.at_mhz {
                    Some(0) => return Err("at_mhz must be above 0".into()),
                    Some(mhz) => PeakForm::AtClock { per_s, mhz: mhz.into() },
                    None => PeakForm::Fixed { per_s },
                };
                (form, unit.work)
            }
            (None, Some(w), None) if raw.at_mhz.is_none() => {
                let (n, work) = parse_work(w).map_err(|e| format!("per_clock_per_sm: {e} (write a count and B, FLOP or warp exchanges, e.g. \"128 B\")"))?;
                (PeakForm::PerClock { per_sm_per_cycle: n }, work)
            }
            (None, None, Some(lanes)) if raw.at_mhz.is_none() && lanes > 0 => (
                PeakForm::PerClock { per_sm_per_cycle: 2.0 * f64::from(lanes) },
                Work::Flop,
            ),
            _ => {
                return Err("a peak is exactly one of `rate` (with `at_mhz` when it assumes an SM clock), `per_clock_per_sm` or `fma_lanes_per_sm` (above 0)".into())
            }
        };
        Ok(Peak { raw, form, work })
    }
}

impl From<Peak> for RawPeak {
    fn from(p: Peak) -> RawPeak {
        p.raw
    }
}

/// A TOML date or date-time as its text, or a string as it is: glossary.toml holds the
/// first, a bundle's JSON copy of a node profile the second.
fn toml_or_text<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Toml(toml::value::Datetime),
        Text(String),
    }
    Ok(match Either::deserialize(d)? {
        Either::Toml(t) => t.to_string(),
        Either::Text(t) => t,
    })
}

/// A TOML date (`2026-12-06`) or the same as a string (a bundle's JSON copy).
fn checked_on<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<chrono::NaiveDate, D::Error> {
    let text = toml_or_text(d)?;
    chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d").map_err(|e| {
        serde::de::Error::custom(format!(
            "checked = {text}: {e}; write a date, as 2026-12-06"
        ))
    })
}

fn ymd<S: serde::Serializer>(d: &chrono::NaiveDate, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&d.format("%Y-%m-%d").to_string())
}

/// Each peak counts what its roof counts (`dram` in bytes, `fp32` in FLOP): the one check
/// a peak cannot make alone, since it needs the name it is filed under.
fn check_peaks(nodes: &BTreeMap<String, Node>) -> std::result::Result<(), String> {
    let mut wrong = Vec::new();
    for (node, profile) in nodes {
        for (name, peak) in &profile.peaks {
            if let Some((work, what)) = crate::rates::roof(name.as_str()) {
                if work != peak.work {
                    wrong.push(format!(
                        "[nodes.{node}.peaks] {}: the {what} counts {}, but this peak counts {}",
                        name.as_str(),
                        work.name(),
                        peak.work.name()
                    ));
                }
            }
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    }
}

/// A key a node used to sign with: `previous_keys = [{key = "ssh-ed25519 ...", retired =
/// 2026-12-02T00:00:00Z}]`.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PreviousKey {
    pub key: String,
    /// When the key stopped signing: a TOML date-time (or an RFC 3339 string), UTC.
    #[serde(deserialize_with = "retired_at", serialize_with = "rfc3339")]
    pub retired: chrono::DateTime<chrono::Utc>,
    /// The sha256 digests (`sha256:<hex>`) of every record file this key signed, fixed
    /// when it was retired (`glossary verify rotate-key` and `glossary verify
    /// seal-retired` write them): a retired key vouches for these records and for nothing
    /// else, so its holder cannot sign a backdated one. Missing: the key vouches for
    /// nothing until `seal-retired` lists its records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<Vec<String>>,
}

/// A TOML date-time (what glossary.toml holds) or an RFC 3339 string (what a bundle's
/// JSON copy of the profile holds), with an offset: a retirement without a time zone
/// would move by hours between readers.
fn retired_at<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<chrono::DateTime<chrono::Utc>, D::Error> {
    let text = toml_or_text(d)?;
    chrono::DateTime::parse_from_rfc3339(&text)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|e| {
            serde::de::Error::custom(format!(
                "retired = {text}: {e}; write a date-time with its offset, as 2026-12-02T00:00:00Z"
            ))
        })
}

fn rfc3339<S: serde::Serializer>(
    t: &chrono::DateTime<chrono::Utc>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// Where a node's GPU lives in a Slurm cluster: `[nodes.<name>.slurm]` in glossary.toml.
#[derive(Debug, Clone, Deserialize, serde::Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlurmProfile {
    /// The partition whose machines carry this node's GPU.
    pub partition: String,
    /// The generic resource each task asks for, e.g. "gpu:h200:1". Left out, the
    /// partition alone decides which GPU a task gets.
    #[serde(default)]
    pub gres: Option<String>,
    /// Wall-clock limit per task, in Slurm's notation ("00:30:00").
    #[serde(default)]
    pub time: Option<String>,
    /// Further sbatch options, one per entry, as written after `#SBATCH` ("--account=gpu").
    #[serde(default)]
    pub options: Vec<String>,
}

impl Config {
    pub fn load(root: &Path) -> Result<Config> {
        let path = root.join(CONFIG_FILE);
        // It holds the nodes' public keys: a trust file, so a regular file of the project
        // like people.toml (`trust::file`), never a link to one elsewhere.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Error::Config {
                path,
                message: "is a symlink; it holds the nodes' public keys, so it must be a regular file in the project: copy the file in place of the link".into(),
            });
        }
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        let mut config: Config = toml::from_str(&text).map_err(|e| Error::Config {
            path: path.clone(),
            message: e.to_string(),
        })?;
        if let Ok(spans) = toml::from_str::<KeySpans>(&text) {
            let mut errors = check_node_arches(&path, &text, &spans);
            if errors.len() == 1 {
                return Err(errors.remove(0));
            } else if !errors.is_empty() {
                return Err(Error::Many(errors));
            }
            config.public_key_at = spans
                .nodes
                .into_iter()
                .filter_map(|(name, n)| Some((name, location(&text, n.public_key?.span().start))))
                .collect();
        }
        check_peaks(&config.nodes).map_err(|message| Error::Config {
            path: path.clone(),
            message,
        })?;
        let mut seen = std::collections::HashSet::new();
        for s in &config.sections {
            // The same alphabet as entry slugs (config sits below content, so it is spelled out).
            let safe = !s.slug.is_empty()
                && s.slug
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
            if !safe || !seen.insert(&s.slug) {
                return Err(Error::Config {
                    path,
                    message: format!(
                        "[[sections]]: slug `{}` must be unique and match [a-z0-9-]+",
                        s.slug
                    ),
                });
            }
        }
        Ok(config)
    }

    pub fn node(&self, name: &str) -> Result<&Node> {
        self.nodes.get(name).ok_or_else(|| Error::UnknownNode {
            name: name.to_string(),
            known: self.nodes.keys().cloned().collect(),
        })
    }
}

/// Names the build itself writes at the site root: a static file may not replace them nor
/// be written among them (`site::static_files`), nor a redirect take them or go below
/// them, the kinds' folders aside (`content::redirects`).
pub const SITE_ROOT_NAMES: &[&str] = &[
    "index.html",
    "404.html",
    "feed.xml",
    "sitemap.xml",
    "search",
    "static",
    "media",
    "terms",
    "lessons",
    "guides",
    "sections",
    "reproduce",
    // The verification nodes page (`site::nodes_page`).
    "nodes",
    NODES_FILE,
    HEADERS_FILE,
    ".glossary-site",
    ".glossary-drafts",
];

/// The node list the build writes at the site root (`trust::node_list`).
pub const NODES_FILE: &str = "nodes.json";

/// The headers file the build writes for hosts that read one (`render::csp::headers_file`).
pub const HEADERS_FILE: &str = "_headers";

/// The fixed layout of a glossary project below its root.
#[derive(Debug, Clone)]
pub struct Layout {
    pub root: PathBuf,
}

impl Layout {
    pub fn new(root: impl Into<PathBuf>) -> Layout {
        Layout { root: root.into() }
    }
    pub fn content(&self) -> PathBuf {
        self.root.join("content")
    }
    /// Images shared by several entries; an entry's own images may also sit beside it.
    pub fn figures(&self) -> PathBuf {
        self.root.join("content").join("figures")
    }
    /// Files copied as they are to the site root (CNAME, robots.txt, favicon.ico).
    pub fn static_files(&self) -> PathBuf {
        self.root.join("static")
    }
    /// The people registry (see `trust::people`).
    pub fn people(&self) -> PathBuf {
        self.root.join("content").join("people.toml")
    }
    pub fn reviews(&self) -> PathBuf {
        self.root.join("content").join("reviews")
    }
    pub fn templates(&self) -> PathBuf {
        self.root.join("templates")
    }
    pub fn measurements(&self) -> PathBuf {
        self.root.join("measurements")
    }
    pub fn default_output(&self) -> PathBuf {
        self.root.join("site")
    }
    /// Where `build --drafts` writes by default: never the deployable `site/`.
    pub fn drafts_output(&self) -> PathBuf {
        self.root.join("site-drafts")
    }
}

/// The largest entry file (`content/*/*.md`) read: a long lesson is tens of KB.
pub const MAX_ENTRY_BYTES: u64 = 4 << 20;
/// The largest experiment file or kernel source read: a few KB each.
pub const MAX_EXPERIMENT_FILE_BYTES: u64 = 1 << 20;

/// `path`'s bytes, or an error naming it when it holds more than `max`: read through a
/// bound, so a huge file (or a device that never ends) costs at most `max + 1` bytes of
/// reading, never the whole of it.
pub fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // Room for the whole file at once, as `fs::read` makes (a read or two, no regrowing):
    // the size a file claims is only a hint, so the bound is still `take`'s.
    let hint = file.metadata().map_or(0, |m| m.len()).min(max) as usize;
    let mut bytes = Vec::with_capacity(hint + 1);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(Error::content(
            path,
            None,
            format!(
                "the file is over {} KiB; the most a file of its kind may hold is that",
                max >> 10
            ),
        ));
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text.
pub fn read_text_bounded(path: &Path, max: u64) -> Result<String> {
    String::from_utf8(read_bounded(path, max)?).map_err(|_| {
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ),
        )
    })
}

/// A path (possibly through symlinks) must resolve inside the project root `root`
/// (canonical): content, figures and static files may be symlinks within the project,
/// never to files elsewhere on the machine.
pub fn inside_project(path: &Path, root: &Path) -> std::result::Result<(), String> {
    let real = path
        .canonicalize()
        .map_err(|e| format!("cannot resolve (a broken symlink?): {e}"))?;
    if real.starts_with(root) {
        Ok(())
    } else {
        Err(format!(
            "is a symlink to {}, outside the project; copy the file into the project instead",
            real.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(nodes: &str) -> std::result::Result<Config, String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            format!("title = \"t\"\nbase_url = \"https://example.org\"\n{nodes}"),
        )
        .unwrap();
        Config::load(dir.path()).map_err(|e| e.to_string())
    }

    fn node(name: &str, cc: &str, arch: &str) -> String {
        format!("[nodes.{name}]\ngpu = \"G\"\ncompute_capability = \"{cc}\"\narch = \"{arch}\"\nsm_count = 1\n")
    }

    #[test]
    fn arch_and_capability_are_parsed_strictly() {
        assert_eq!(parse_arch("sm_90"), Some((9, 0)));
        assert_eq!(parse_arch("sm_90a"), Some((9, 0)));
        assert_eq!(parse_arch("sm_120"), Some((12, 0)));
        assert_eq!(parse_arch("sm_75"), Some((7, 5)));
        for bad in [
            "sm90",
            "sm_9",
            "sm_",
            "SM_90",
            "sm_90ab",
            "sm_9x0",
            "compute_90",
            "sm_1000",
            "",
        ] {
            assert_eq!(parse_arch(bad), None, "{bad}");
        }
        assert_eq!(parse_capability("9.0"), Some((9, 0)));
        assert_eq!(parse_capability("12.0"), Some((12, 0)));
        for bad in ["9", "9.", ".0", "9.0.1", "v9.0", "9,0", "123.0", "9.x", ""] {
            assert_eq!(parse_capability(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_malformed_or_disagreeing_arch_is_an_error_at_its_line_every_one() {
        assert!(load(&node("a", "9.0", "sm_90")).is_ok());
        assert!(load(&node("a", "12.0", "sm_120a")).is_ok());
        // Line 6: the arch of the first node (two header lines, then gpu, cc, arch).
        let said = load(&node("a", "9.0", "sm90")).unwrap_err();
        assert!(
            said.contains("glossary.toml:6:")
                && said.contains("arch = \"sm90\" is not an architecture"),
            "{said}"
        );
        let said = load(&node("a", "9", "sm_90")).unwrap_err();
        assert!(
            said.contains("glossary.toml:5:")
                && said.contains("compute_capability = \"9\" is not a compute capability"),
            "{said}"
        );
        let said = load(&node("a", "9.0", "sm_80")).unwrap_err();
        assert!(
            said.contains("glossary.toml:6:")
                && said.contains("[nodes.a] arch = \"sm_80\" is for compute capability 8.0, but compute_capability = \"9.0\" (line 5)"),
            "{said}"
        );
        let said = load(&format!(
            "{}datasheet = \"javascript:x\"\n",
            node("a", "9.0", "sm_90")
        ))
        .unwrap_err();
        assert!(
            said.contains("glossary.toml:8:")
                && said.contains("datasheet = \"javascript:x\": write the https://"),
            "{said}"
        );
        assert!(load(&format!(
            "{}datasheet = \"https://example.org/ds.pdf\"\n",
            node("a", "9.0", "sm_90")
        ))
        .is_ok());
        // Every bad node in one run.
        let said = load(&format!(
            "{}{}",
            node("a", "9.0", "sm_80"),
            node("b", "7", "sm75")
        ))
        .unwrap_err();
        assert!(
            said.contains("[nodes.a] arch")
                && said.contains("[nodes.b] arch")
                && said.contains("[nodes.b] compute_capability"),
            "{said}"
        );
    }
}
