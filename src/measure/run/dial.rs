//! The occupancy dial: the smallest never-read dynamic shared-memory reservation that
//! brings resident blocks per SM down to a target, found by asking the driver.

/// Find the reservation for `target` blocks per SM. `blocks_at(bytes)` is the driver's
/// `cuOccupancyMaxActiveBlocksPerMultiprocessor` at that much dynamic shared memory;
/// `max_bytes` is the most a block may reserve. Resident blocks never rise as the
/// reservation grows, so a binary search finds the smallest reservation that reaches the
/// target.
pub fn find_reservation<E>(
    target: u32,
    max_bytes: u32,
    mut blocks_at: impl FnMut(u32) -> Result<u32, E>,
) -> Result<Result<u32, String>, E> {
    let unreserved = blocks_at(0)?;
    if unreserved == target {
        return Ok(Ok(0));
    }
    if unreserved < target {
        return Ok(Err(format!(
            "{target} blocks per SM is above the {unreserved} this kernel reaches with no reservation"
        )));
    }
    let at_max = blocks_at(max_bytes)?;
    if at_max > target {
        return Ok(Err(format!(
            "even the largest reservation ({max_bytes} bytes) leaves {at_max} blocks per SM, above the target {target}"
        )));
    }
    // Invariant: blocks_at(lo) > target >= blocks_at(hi).
    let (mut lo, mut hi) = (0u32, max_bytes);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if blocks_at(mid)? > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let reached = blocks_at(hi)?;
    if reached == target {
        Ok(Ok(hi))
    } else {
        Ok(Err(format!(
            "no reservation gives exactly {target} blocks per SM: {lo} bytes gives more, {hi} bytes gives {reached}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy SM: 228 KiB of shared memory, 1 KiB reserved per block, 256-byte granules,
    /// at most 4 blocks by warps.
    fn toy(bytes: u32) -> Result<u32, ()> {
        let per_block = (bytes + 1024).div_ceil(256) * 256;
        Ok((228 * 1024 / per_block).min(4))
    }

    #[test]
    fn finds_the_smallest_reservation_for_each_target() {
        for target in 1..=4 {
            let r = find_reservation(target, 227 * 1024, toy).unwrap().unwrap();
            assert_eq!(toy(r).unwrap(), target);
            if r > 0 {
                assert!(
                    toy(r - 1).unwrap() > target,
                    "target {target}: {r} is not the smallest"
                );
            }
        }
        assert_eq!(find_reservation(4, 227 * 1024, toy).unwrap(), Ok(0));
    }

    #[test]
    fn an_unreachable_target_is_explained() {
        let e = find_reservation(5, 227 * 1024, toy).unwrap().unwrap_err();
        assert!(e.contains("above the 4"), "{e}");
        let e = find_reservation(1, 1024, toy).unwrap().unwrap_err();
        assert!(e.contains("largest reservation"), "{e}");
    }
}
