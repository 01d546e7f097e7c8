//! The work list: every (node, experiment) pair whose record is missing, unreadable, from
//! another GPU than the node's, or older than the experiment (its digest differs). It is
//! scheduler-neutral: `submit` turns it into Slurm jobs, a CI workflow can read `--json`.

use serde::Serialize;

use crate::config::Config;
use crate::measure::library::short_digest;
use crate::measure::{Library, Staleness};

/// Why a pair needs measuring.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Reason {
    /// No record for this node.
    Missing,
    /// A record file that does not parse.
    Unreadable { why: String },
    /// The record names another node or came from another GPU than the node's profile.
    WrongGpu { expected: String, found: String },
    /// The experiment (its file or kernels) changed since the record was captured.
    Stale { recorded: String, current: String },
    /// The node's signature is missing or does not verify (edited by hand, or not the
    /// node's): only a new run on the node replaces it.
    NotSigned { why: String },
}

impl Reason {
    fn from_staleness(s: Staleness) -> Reason {
        match s {
            Staleness::Missing { .. } => Reason::Missing,
            Staleness::Unreadable { why, .. } => Reason::Unreadable { why },
            Staleness::WrongNode { expected, found } => Reason::WrongGpu { expected, found },
            Staleness::Changed { recorded, current } => Reason::Stale { recorded, current },
            Staleness::NotSigned { why, .. } => Reason::NotSigned { why },
            // Row-level staleness belongs to a citation, not to the record as a whole.
            other => Reason::Unreadable {
                why: other.to_string(),
            },
        }
    }

    /// One line for people, the same words `check` uses.
    pub fn describe(&self) -> String {
        match self {
            Reason::Missing => "missing: no record from this node".into(),
            Reason::Unreadable { why } => format!("unreadable: {why}"),
            Reason::WrongGpu { expected, found } => {
                format!("wrong GPU: expected {expected}, the record is from {found}")
            }
            Reason::Stale { recorded, current } => format!(
                "stale: the experiment changed since it was measured (recorded {}, now {})",
                short_digest(recorded),
                short_digest(current)
            ),
            Reason::NotSigned { why } => format!("not signed by the node: {why}"),
        }
    }
}

/// One (node, experiment) pair to measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkItem {
    pub node: String,
    pub experiment: String,
    #[serde(flatten)]
    pub reason: Reason,
}

/// The whole work list, and how many pairs are already current.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub work: Vec<WorkItem>,
    pub current: usize,
}

impl Plan {
    /// Every (node, experiment) pair of the project, nodes restricted to `nodes` and
    /// experiments to `only` when given (both checked against the project by the caller).
    pub fn make(config: &Config, library: &Library, nodes: &[String], only: &[String]) -> Plan {
        let mut work = Vec::new();
        let mut current = 0;
        for node in config.nodes.keys() {
            if !nodes.is_empty() && !nodes.contains(node) {
                continue;
            }
            for id in library.experiments.keys() {
                if !only.is_empty() && !only.contains(id) {
                    continue;
                }
                match library.cite(config, id, node) {
                    Ok(_) => current += 1,
                    Err(s) => work.push(WorkItem {
                        node: node.clone(),
                        experiment: id.clone(),
                        reason: Reason::from_staleness(s),
                    }),
                }
            }
        }
        Plan { work, current }
    }

    /// The work grouped by node, in node order: one Slurm job array per node.
    pub fn by_node(&self) -> Vec<(&str, Vec<&str>)> {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for item in &self.work {
            match groups.last_mut() {
                Some((node, ids)) if *node == item.node => ids.push(&item.experiment),
                _ => groups.push((&item.node, vec![&item.experiment])),
            }
        }
        groups
    }
}
