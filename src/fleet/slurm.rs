//! Slurm: one job array per node, a task per experiment, each on the node's partition
//! (and `--gres` when the profile names one), running `glossary verify --node N --only ID
//! --out DIR`. Records land in the output folder, never in `measurements/`: they enter
//! the project only through `glossary records import`, which checks them first.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::config::{Config, SlurmProfile, CONFIG_FILE};
use crate::error::{Error, Result};

/// What every task needs to know, shared by all the node scripts of one submission.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The glossary binary as the compute nodes see it.
    pub glossary: PathBuf,
    /// The project root as the compute nodes see it (a shared folder).
    pub root: PathBuf,
    /// Where task outputs go: `<out>/<node>/<experiment>/…` (a shared folder).
    pub out: PathBuf,
    /// Tasks run `verify --dry-run`: they check the node and compile, and record nothing.
    pub verify_dry_run: bool,
}

/// One node's job array.
#[derive(Debug, Clone)]
pub struct NodeJob {
    pub node: String,
    pub experiments: Vec<String>,
    /// The sbatch script, complete.
    pub script: String,
}

impl NodeJob {
    /// `<out>/<node>/job.sbatch`: where the script is written before sbatch reads it.
    pub fn script_path(&self, sub: &Submission) -> PathBuf {
        sub.out.join(&self.node).join("job.sbatch")
    }
}

/// Quote one word for bash, refusing what no quoting makes safe (a NUL byte).
fn quote(word: &str) -> Result<String> {
    shlex::try_quote(word)
        .map(|q| q.into_owned())
        .map_err(|e| Error::Other(format!("cannot put {word:?} in a job script: {e}")))
}

fn quote_path(p: &Path) -> Result<String> {
    let s = p.to_str().ok_or_else(|| {
        Error::Other(format!(
            "{}: not UTF-8, cannot go in a job script",
            p.display()
        ))
    })?;
    quote(s)
}

/// Check a profile's values before they reach `#SBATCH` lines: one line each, options
/// that sbatch reads as options.
fn check_profile(node: &str, p: &SlurmProfile) -> Vec<String> {
    let mut problems = Vec::new();
    let one_line = |problems: &mut Vec<String>, what: &str, v: &str| {
        if v.trim().is_empty() || v.contains(['\n', '\r']) {
            problems.push(format!(
                "[nodes.{node}.slurm] {what} must be one non-empty line, found {v:?}"
            ));
        }
    };
    one_line(&mut problems, "partition", &p.partition);
    if let Some(g) = &p.gres {
        one_line(&mut problems, "gres", g);
    }
    if let Some(t) = &p.time {
        one_line(&mut problems, "time", t);
    }
    for o in &p.options {
        one_line(&mut problems, "options", o);
        if !o.starts_with('-') {
            problems.push(format!(
                "[nodes.{node}.slurm] options: {o:?} is not an sbatch option (they start with -)"
            ));
        }
    }
    problems
}

/// The job scripts for a plan grouped by node. Every node must have a Slurm profile;
/// all problems are reported together, naming glossary.toml.
pub fn scripts(
    config: &Config,
    root: &Path,
    groups: &[(&str, Vec<&str>)],
    sub: &Submission,
) -> Result<Vec<NodeJob>> {
    let mut problems = Vec::new();
    let mut jobs = Vec::new();
    for (node, experiments) in groups {
        let profile = config.node(node)?;
        let Some(slurm) = &profile.slurm else {
            problems.push(format!(
                "node {node} has no [nodes.{node}.slurm] profile (partition, and gres where the partition mixes GPUs); add one, or leave the node out with --node"
            ));
            continue;
        };
        let p = check_profile(node, slurm);
        if !p.is_empty() {
            problems.extend(p);
            continue;
        }
        jobs.push(NodeJob {
            node: node.to_string(),
            experiments: experiments.iter().map(|e| e.to_string()).collect(),
            script: script(node, slurm, experiments, sub)?,
        });
    }
    if problems.is_empty() {
        Ok(jobs)
    } else {
        Err(Error::Config {
            path: root.join(CONFIG_FILE),
            message: problems.join("; "),
        })
    }
}

fn script(
    node: &str,
    slurm: &SlurmProfile,
    experiments: &[&str],
    sub: &Submission,
) -> Result<String> {
    let node_out = sub.out.join(node);
    let mut s = String::new();
    s.push_str("#!/bin/bash\n");
    s.push_str(&format!(
        "# glossary verify submit: node {node}, {} experiment(s), one array task each.\n",
        experiments.len()
    ));
    // #SBATCH lines are read by sbatch, not by bash: they take no shell quoting, so the
    // profile's values were checked to be single lines instead.
    s.push_str(&format!("#SBATCH --job-name=glossary-verify-{node}\n"));
    s.push_str(&format!("#SBATCH --partition={}\n", slurm.partition.trim()));
    if let Some(g) = &slurm.gres {
        s.push_str(&format!("#SBATCH --gres={}\n", g.trim()));
    }
    if let Some(t) = &slurm.time {
        s.push_str(&format!("#SBATCH --time={}\n", t.trim()));
    }
    for o in &slurm.options {
        s.push_str(&format!("#SBATCH {}\n", o.trim()));
    }
    s.push_str(&format!("#SBATCH --array=0-{}\n", experiments.len() - 1));
    let log = node_out.join("slurm-%A_%a.out");
    s.push_str(&format!(
        "#SBATCH --output={}\n",
        log.to_str()
            .ok_or_else(|| Error::Other(format!("{}: not UTF-8", log.display())))?
    ));
    s.push_str("set -euo pipefail\n");
    let ids: Vec<String> = experiments
        .iter()
        .map(|e| quote(e))
        .collect::<Result<_>>()?;
    s.push_str(&format!("experiments=({})\n", ids.join(" ")));
    s.push_str("id=${experiments[$SLURM_ARRAY_TASK_ID]}\n");
    s.push_str(&format!("node_out={}\n", quote_path(&node_out)?));
    s.push_str("mkdir -p \"$node_out/$id\"\n");
    s.push_str(
        "echo \"glossary verify: node $SLURM_JOB_PARTITION task $SLURM_ARRAY_TASK_ID ($id) on $(hostname)\"\n",
    );
    let mut cmd = vec![
        quote_path(&sub.glossary)?,
        "verify".into(),
        "--root".into(),
        quote_path(&sub.root)?,
        "--node".into(),
        quote(node)?,
        "--only".into(),
        "\"$id\"".into(),
        "--out".into(),
        "\"$node_out\"".into(),
    ];
    if sub.verify_dry_run {
        cmd.push("--dry-run".into());
    }
    // verify writes its record atomically into $node_out/$id/; its report goes beside it.
    s.push_str(&format!(
        "{} > \"$node_out/$id/verify.log\" 2>&1 || {{ status=$?; cat \"$node_out/$id/verify.log\"; exit $status; }}\n",
        cmd.join(" ")
    ));
    s.push_str("cat \"$node_out/$id/verify.log\"\n");
    Ok(s)
}

/// A job sbatch accepted.
#[derive(Debug, Clone)]
pub struct Submitted {
    pub node: String,
    pub job_id: String,
    pub tasks: usize,
    /// With `wait`: sbatch's exit status once the whole array finished (0: every task did).
    pub finished_ok: Option<bool>,
}

/// Write each script to `<out>/<node>/job.sbatch` and hand it to sbatch. With `wait`,
/// sbatch stays until the array has finished (all nodes' arrays run at once).
pub fn submit(jobs: &[NodeJob], sub: &Submission, wait: bool) -> Result<Vec<Submitted>> {
    let mut running: Vec<(&NodeJob, Child)> = Vec::new();
    for job in jobs {
        let path = job.script_path(sub);
        let dir = path.parent().expect("script path has a node folder");
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        std::fs::write(&path, &job.script).map_err(|e| Error::io(&path, e))?;
        let mut cmd = Command::new("sbatch");
        cmd.arg("--parsable");
        if wait {
            cmd.arg("--wait");
        }
        cmd.arg(&path).stdout(Stdio::piped()).stderr(Stdio::piped());
        let child = cmd.spawn().map_err(|e| {
            Error::Other(if e.kind() == std::io::ErrorKind::NotFound {
                "sbatch not found: submit from a machine of the Slurm cluster (or see the scripts with --dry-run)".to_string()
            } else {
                format!("sbatch: {e}")
            })
        })?;
        running.push((job, child));
    }
    let mut done = Vec::new();
    let mut errors = Vec::new();
    for (job, child) in running {
        let out = child
            .wait_with_output()
            .map_err(|e| Error::Other(format!("sbatch for node {}: {e}", job.node)))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        // --parsable prints "jobid" or "jobid;cluster".
        let job_id = stdout
            .lines()
            .next()
            .and_then(|l| l.split(';').next())
            .map(str::trim)
            .unwrap_or("")
            .to_string();
        if job_id.is_empty() {
            errors.push(Error::Other(format!(
                "sbatch refused node {}'s job ({}): {}",
                job.node,
                job.script_path(sub).display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
            continue;
        }
        done.push(Submitted {
            node: job.node.clone(),
            job_id,
            tasks: job.experiments.len(),
            finished_ok: wait.then_some(out.status.success()),
        });
    }
    Error::collect(errors)?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(slurm: Option<SlurmProfile>) -> Config {
        let mut c: Config = toml::from_str(
            "title = \"t\"\nbase_url = \"https://x.test\"\n[nodes.node-a]\ngpu = \"Test GPU A\"\ncompute_capability = \"9.0\"\narch = \"sm_90\"\nsm_count = 2\n",
        )
        .unwrap();
        c.nodes.get_mut("node-a").unwrap().slurm = slurm;
        c
    }

    fn sub() -> Submission {
        Submission {
            glossary: "/opt/glossary bin/glossary".into(),
            root: "/shared/project".into(),
            out: "/shared/runs/1".into(),
            verify_dry_run: false,
        }
    }

    #[test]
    fn a_node_array_asks_for_its_partition_and_gres_and_runs_verify_per_experiment() {
        let c = config(Some(SlurmProfile {
            partition: "gpu-a".into(),
            gres: Some("gpu:a:1".into()),
            time: Some("00:20:00".into()),
            options: vec!["--account=lab".into()],
        }));
        let jobs = scripts(
            &c,
            Path::new("/p"),
            &[("node-a", vec!["exp-one", "exp-two"])],
            &sub(),
        )
        .unwrap();
        let s = &jobs[0].script;
        for line in [
            "#SBATCH --partition=gpu-a\n",
            "#SBATCH --gres=gpu:a:1\n",
            "#SBATCH --time=00:20:00\n",
            "#SBATCH --account=lab\n",
            "#SBATCH --array=0-1\n",
            "#SBATCH --output=/shared/runs/1/node-a/slurm-%A_%a.out\n",
            "experiments=(exp-one exp-two)\n",
            "'/opt/glossary bin/glossary' verify --root /shared/project --node node-a --only \"$id\" --out \"$node_out\" > ",
        ] {
            assert!(s.contains(line), "missing {line:?} in\n{s}");
        }
        assert!(!s.contains("--dry-run"), "{s}");
        assert_eq!(
            jobs[0].script_path(&sub()),
            Path::new("/shared/runs/1/node-a/job.sbatch")
        );
    }

    #[test]
    fn a_dry_run_submission_passes_dry_run_to_verify() {
        let c = config(Some(SlurmProfile {
            partition: "p".into(),
            gres: None,
            time: None,
            options: vec![],
        }));
        let mut s = sub();
        s.verify_dry_run = true;
        let jobs = scripts(&c, Path::new("/p"), &[("node-a", vec!["e"])], &s).unwrap();
        assert!(jobs[0].script.contains("--out \"$node_out\" --dry-run >"));
        assert!(!jobs[0].script.contains("--gres"));
    }

    #[test]
    fn a_node_without_a_slurm_profile_is_an_error_naming_the_config() {
        let e = scripts(
            &config(None),
            Path::new("/p"),
            &[("node-a", vec!["e"])],
            &sub(),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("/p/glossary.toml: node node-a has no [nodes.node-a.slurm] profile"),
            "{e}"
        );
    }

    #[test]
    fn a_profile_value_that_would_add_an_sbatch_line_is_refused() {
        let c = config(Some(SlurmProfile {
            partition: "p\n#SBATCH --uid=0".into(),
            gres: None,
            time: None,
            options: vec!["account=x".into()],
        }));
        let e = scripts(&c, Path::new("/p"), &[("node-a", vec!["e"])], &sub())
            .unwrap_err()
            .to_string();
        assert!(e.contains("partition must be one non-empty line"), "{e}");
        assert!(e.contains("\"account=x\" is not an sbatch option"), "{e}");
    }
}
