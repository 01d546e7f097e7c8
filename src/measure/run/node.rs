//! Is this GPU the node's? A pure check over what the driver reported and the profile in
//! `glossary.toml`, so the refusal message is tested without a GPU.

use crate::config::Node;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("this GPU is {found_name} (compute capability {found_cc}), but node {node} is {expected_name} ({expected_cc}); run verify on that node or pick the node that matches this GPU")]
pub struct NodeMismatch {
    pub node: String,
    pub found_name: String,
    pub found_cc: String,
    pub expected_name: String,
    pub expected_cc: String,
}

pub fn check_node(
    found_name: &str,
    found_cc: &str,
    node: &str,
    profile: &Node,
) -> Result<(), NodeMismatch> {
    if found_name.trim() == profile.gpu && found_cc == profile.compute_capability {
        Ok(())
    } else {
        Err(NodeMismatch {
            node: node.to_string(),
            found_name: found_name.trim().to_string(),
            found_cc: found_cc.to_string(),
            expected_name: profile.gpu.clone(),
            expected_cc: profile.compute_capability.clone(),
        })
    }
}

/// The rest of the profile: SM count, architecture, and the pinned GPU UUIDs if any. A
/// GPU of the right model but another configuration (a MIG slice, another SKU) is not the
/// node the records are cited as.
pub fn check_node_shape(
    info: &crate::measure::record::GpuInfo,
    arch: &str,
    node: &str,
    profile: &Node,
) -> Result<(), String> {
    let mut wrong = Vec::new();
    if info.sm_count != profile.sm_count {
        wrong.push(format!(
            "{} SMs, not the profile's {}",
            info.sm_count, profile.sm_count
        ));
    }
    if arch != profile.arch {
        wrong.push(format!(
            "architecture {arch}, not the profile's {}",
            profile.arch
        ));
    }
    if !profile.gpu_uuids.is_empty() && !profile.gpu_uuids.contains(&info.uuid) {
        wrong.push(format!(
            "UUID {}, not one of the profile's ({})",
            info.uuid,
            profile.gpu_uuids.join(", ")
        ));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "this GPU does not match node {node}'s profile in glossary.toml: {}",
            wrong.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t4() -> Node {
        Node {
            gpu: "Tesla T4".into(),
            compute_capability: "7.5".into(),
            arch: "sm_75".into(),
            sm_count: 40,
            public_key: None,
            previous_keys: Vec::new(),
            key: None,
            gpu_uuids: Vec::new(),
            l2_bytes: None,
            mem_bytes: None,
            slurm: None,
            datasheet: None,
            contributed_by: None,
            peaks: Default::default(),
        }
    }

    #[test]
    fn refuses_t4_node_on_an_h200_naming_both() {
        let e = check_node("NVIDIA H200", "9.0", "t4", &t4()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "this GPU is NVIDIA H200 (compute capability 9.0), but node t4 is Tesla T4 (7.5); run verify on that node or pick the node that matches this GPU"
        );
    }

    #[test]
    fn same_name_other_capability_is_refused() {
        assert!(check_node("Tesla T4", "8.0", "t4", &t4()).is_err());
    }

    #[test]
    fn matching_gpu_passes() {
        assert_eq!(check_node("Tesla T4", "7.5", "t4", &t4()), Ok(()));
    }
}
