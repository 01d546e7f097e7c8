//! Rules that turn occupancy numbers into advice, following the seed
//! workflow "occupancy and its limiting factor" (seed 002): block size,
//! waves, theoretical-vs-achieved gap, binding resource, and whether
//! occupancy is worth chasing at all.
//!
//! The rules take a [`Reading`], which both the model ([`Occupancy`]) and an
//! Nsight Compute export can fill, so a computed launch and a measured one
//! are read the same way.

use serde::Serialize;

use super::model::{Occupancy, Resource};

/// Waves below this leave SMs idle for the whole kernel.
pub const UNDERFILLED_WAVES: f64 = 1.0;
/// Below this, the partly filled last wave is a large share of the run.
pub const TAIL_WAVES: f64 = 2.0;
/// From here on, the last wave is a small share of the run.
pub const BALANCED_WAVES: f64 = 4.0;
/// Achieved below this fraction of theoretical counts as a large gap.
pub const GAP_RATIO: f64 = 0.8;
/// Theoretical occupancy below this counts as capped by the launch itself.
pub const LOW_THEORETICAL: f64 = 0.5;

/// The numbers the rules read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reading {
    pub block_size: u32,
    pub binding: Resource,
    pub tied: Vec<Resource>,
    /// Theoretical occupancy, 0..=1.
    pub theoretical: f64,
    /// Achieved occupancy, 0..=1, when measured.
    pub achieved: Option<f64>,
    pub waves: Option<f64>,
    pub last_wave_fill: Option<f64>,
}

impl From<&Occupancy> for Reading {
    fn from(occ: &Occupancy) -> Reading {
        Reading {
            block_size: occ.block_size,
            binding: occ.binding,
            tied: occ.tied.clone(),
            theoretical: occ.occupancy,
            achieved: None,
            waves: occ.waves,
            last_wave_fill: occ.last_wave_fill,
        }
    }
}

/// Which rule produced a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    BlockSize,
    Waves,
    Gap,
    Binding,
    WorthChasing,
}

/// One conclusion: a stable `verdict` key for machines, a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: Rule,
    pub verdict: &'static str,
    pub message: String,
}

impl Finding {
    fn new(rule: Rule, verdict: &'static str, message: String) -> Finding {
        Finding {
            rule,
            verdict,
            message,
        }
    }
}

/// All findings for one reading, in the order the seed workflow reads them.
pub fn interpret(reading: &Reading) -> Vec<Finding> {
    let mut findings = vec![block_size(reading), waves(reading)];
    findings.extend(gap(reading));
    findings.push(binding(reading));
    findings.push(worth_chasing(reading));
    findings
}

fn block_size(r: &Reading) -> Finding {
    let lanes = r.block_size % 32;
    if lanes != 0 {
        let warps = r.block_size.div_ceil(32);
        let idle = 32 - lanes;
        return Finding::new(
            Rule::BlockSize,
            "not_warp_multiple",
            format!(
                "{} threads is not a multiple of 32: each block's last warp runs {lanes} of 32 lanes, \
                 so {idle} of every {} lanes the block occupies do nothing. Round the block to {} threads.",
                r.block_size,
                warps * 32,
                warps * 32
            ),
        );
    }
    if r.binding == Resource::Blocks && r.theoretical < 1.0 {
        return Finding::new(
            Rule::BlockSize,
            "too_small",
            format!(
                "{} threads per block is small enough that the SM runs out of block slots before warp \
                 slots; larger blocks would fill the warps left empty.",
                r.block_size
            ),
        );
    }
    if r.block_size >= 512
        && matches!(r.binding, Resource::Registers | Resource::SharedMemory)
        && r.theoretical < 1.0
    {
        return Finding::new(
            Rule::BlockSize,
            "coarse",
            format!(
                "{} threads per block makes each block a big unit of {}: the SM can only take or \
                 refuse it whole, so smaller blocks may pack the leftover space.",
                r.block_size,
                r.binding.label()
            ),
        );
    }
    Finding::new(
        Rule::BlockSize,
        "ok",
        format!(
            "{} threads per block is a whole number of warps.",
            r.block_size
        ),
    )
}

fn waves(r: &Reading) -> Finding {
    let Some(waves) = r.waves else {
        return Finding::new(
            Rule::Waves,
            "unknown",
            "Waves need the grid size and the SM count (--grid, --sms).".to_string(),
        );
    };
    let fill = r
        .last_wave_fill
        .map(|f| format!(" The last wave keeps {:.0}% of the slots busy.", f * 100.0))
        .unwrap_or_default();
    if waves < UNDERFILLED_WAVES {
        Finding::new(
            Rule::Waves,
            "underfilled",
            format!(
                "{waves:.2} waves: the grid cannot fill every resident slot even once, so part of the \
                 GPU idles for the whole kernel. Give it more blocks (more parallelism per launch) or \
                 fuse it with neighbouring work."
            ),
        )
    } else if waves < TAIL_WAVES && r.last_wave_fill.is_some_and(|f| f >= 1.0) {
        Finding::new(
            Rule::Waves,
            "tail",
            format!(
                "{waves:.2} waves: a whole number, so no slot is left empty by the arithmetic, but \
                 with this few waves any SM whose blocks finish early idles until the slowest is done. \
                 More waves give the scheduler room to even that out."
            ),
        )
    } else if waves < TAIL_WAVES {
        Finding::new(
            Rule::Waves,
            "tail",
            format!(
                "{waves:.2} waves: the partly filled last wave is a large share of the run, and SMs \
                 that finish early wait for it.{fill} Size the grid to a larger whole number of waves."
            ),
        )
    } else if waves < BALANCED_WAVES {
        Finding::new(
            Rule::Waves,
            "some_tail",
            format!(
                "{waves:.2} waves: the tail is smaller than the body but still visible.{fill} Four or \
                 more waves, or a whole number of them, hides it."
            ),
        )
    } else {
        Finding::new(
            Rule::Waves,
            "balanced",
            format!("{waves:.2} waves: enough that the last, partial wave costs little.{fill}"),
        )
    }
}

fn gap(r: &Reading) -> Option<Finding> {
    let achieved = r.achieved?;
    let theoretical = r.theoretical;
    let pct = |x: f64| x * 100.0;
    let finding = if theoretical > 0.0 && achieved < GAP_RATIO * theoretical {
        let hint = match r.waves {
            Some(w) if w < TAIL_WAVES => {
                " With under two waves, partly empty waves alone can account for much of it."
            }
            _ => "",
        };
        Finding::new(
            Rule::Gap,
            "large_gap",
            format!(
                "Achieved {:.1}% against a theoretical {:.1}%: the SMs do not keep the warps the launch \
                 allows resident, because of uneven work per block, tail effects or early exits.{hint}",
                pct(achieved),
                pct(theoretical)
            ),
        )
    } else if theoretical < LOW_THEORETICAL {
        Finding::new(
            Rule::Gap,
            "capped_by_launch",
            format!(
                "Achieved {:.1}% is close to a low theoretical {:.1}%: the launch configuration itself is \
                 the ceiling; see the binding resource.",
                pct(achieved),
                pct(theoretical)
            ),
        )
    } else {
        Finding::new(
            Rule::Gap,
            "small_gap",
            format!(
                "Achieved {:.1}% is close to theoretical {:.1}%: the kernel sustains what the launch allows.",
                pct(achieved),
                pct(theoretical)
            ),
        )
    };
    Some(finding)
}

fn binding(r: &Reading) -> Finding {
    let others: Vec<&str> = r
        .tied
        .iter()
        .filter(|&&t| t != r.binding)
        .map(|t| t.label())
        .collect();
    let tie = if others.is_empty() {
        String::new()
    } else {
        format!(
            " ({} give the same limit, so relaxing only one of them changes nothing.)",
            others.join(" and ")
        )
    };
    if r.theoretical >= 1.0 {
        return Finding::new(
            Rule::Binding,
            "at_ceiling",
            format!(
                "Theoretical occupancy is already 100%: {} set the limit, but there is no warp slot left \
                 to win.{tie}",
                r.binding.label()
            ),
        );
    }
    let lever = match r.binding {
        Resource::Registers => {
            "Registers cap the resident warps. Lower the register count: fewer live values, narrower \
             types, or a __launch_bounds__ / -maxrregcount budget (watch for spills to local memory)."
        }
        Resource::SharedMemory => {
            "Shared memory caps the resident blocks. Allocate less per block (only what the block \
             uses), or check that the carveout preference is not smaller than needed."
        }
        Resource::Warps => {
            "The warp slots are the cap for this block shape. Resize the blocks so a whole number of \
             them fills the SM's warp slots."
        }
        Resource::Blocks => {
            "The per-SM block count is the cap. Use fewer, larger blocks so each block slot brings \
             more warps."
        }
        Resource::Barriers => {
            "Named barriers are the cap. Use fewer named barriers per block (bar.sync ids), or larger \
             blocks that need fewer of them in total."
        }
    };
    Finding::new(Rule::Binding, r.binding.key(), format!("{lever}{tie}"))
}

fn worth_chasing(r: &Reading) -> Finding {
    if r.theoretical >= 1.0 {
        return Finding::new(
            Rule::WorthChasing,
            "nothing_to_chase",
            "The launch already allows every warp slot; if the kernel is slow, look at its memory \
             and instruction behaviour rather than occupancy."
                .to_string(),
        );
    }
    Finding::new(
        Rule::WorthChasing,
        "only_if_latency_bound",
        "Raise occupancy only if the kernel is waiting on latency, i.e. its Speed of Light shows \
         both compute and memory throughput well below their peaks. A kernel near either ceiling \
         is already busy, and extra warps will not make it faster."
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(block_size: u32, binding: Resource, theoretical: f64) -> Reading {
        Reading {
            block_size,
            binding,
            tied: vec![binding],
            theoretical,
            achieved: None,
            waves: None,
            last_wave_fill: None,
        }
    }

    fn verdict(findings: &[Finding], rule: Rule) -> Option<&'static str> {
        findings.iter().find(|f| f.rule == rule).map(|f| f.verdict)
    }

    #[test]
    fn block_of_1000_threads_is_flagged_as_not_a_warp_multiple() {
        let f = interpret(&reading(1000, Resource::Warps, 1.0));
        assert_eq!(verdict(&f, Rule::BlockSize), Some("not_warp_multiple"));
        assert!(f[0].message.contains("1024"));
    }

    #[test]
    fn tiny_blocks_limited_by_block_slots_are_too_small() {
        let f = interpret(&reading(32, Resource::Blocks, 0.5));
        assert_eq!(verdict(&f, Rule::BlockSize), Some("too_small"));
        assert_eq!(verdict(&f, Rule::Binding), Some("blocks"));
    }

    #[test]
    fn waves_thresholds_follow_the_seed_workflow() {
        let with_waves = |w| {
            let mut r = reading(256, Resource::Registers, 0.5);
            r.waves = Some(w);
            r.last_wave_fill = Some(0.5);
            verdict(&interpret(&r), Rule::Waves).unwrap()
        };
        assert_eq!(with_waves(0.38), "underfilled");
        assert_eq!(with_waves(1.0), "tail");
        assert_eq!(with_waves(1.99), "tail");
        assert_eq!(with_waves(3.0), "some_tail");
        assert_eq!(with_waves(4.0), "balanced");
        assert_eq!(with_waves(62.06), "balanced");
        assert_eq!(
            verdict(&interpret(&reading(256, Resource::Warps, 1.0)), Rule::Waves),
            Some("unknown")
        );
    }

    #[test]
    fn gap_rule_separates_imbalance_from_a_capped_launch() {
        let mut r = reading(256, Resource::Registers, 0.5);
        assert_eq!(verdict(&interpret(&r), Rule::Gap), None);
        r.achieved = Some(0.174);
        assert_eq!(verdict(&interpret(&r), Rule::Gap), Some("large_gap"));
        r.theoretical = 0.375;
        r.achieved = Some(0.35);
        assert_eq!(verdict(&interpret(&r), Rule::Gap), Some("capped_by_launch"));
        r.theoretical = 1.0;
        r.achieved = Some(0.9);
        assert_eq!(verdict(&interpret(&r), Rule::Gap), Some("small_gap"));
    }

    #[test]
    fn each_binding_resource_names_its_lever() {
        for (resource, word) in [
            (Resource::Registers, "launch_bounds"),
            (Resource::SharedMemory, "carveout"),
            (Resource::Warps, "Resize"),
            (Resource::Blocks, "larger blocks"),
            (Resource::Barriers, "named barriers"),
        ] {
            let f = interpret(&reading(256, resource, 0.5));
            let b = f.iter().find(|f| f.rule == Rule::Binding).unwrap();
            assert_eq!(b.verdict, resource.key());
            assert!(b.message.contains(word), "{resource}: {}", b.message);
        }
    }

    #[test]
    fn full_occupancy_reports_nothing_to_chase() {
        let mut r = reading(256, Resource::Warps, 1.0);
        r.tied = vec![Resource::Warps, Resource::Registers];
        let f = interpret(&r);
        assert_eq!(verdict(&f, Rule::Binding), Some("at_ceiling"));
        assert_eq!(verdict(&f, Rule::WorthChasing), Some("nothing_to_chase"));
        assert!(f
            .iter()
            .any(|f| f.message.contains("registers give the same limit")));
    }
}
