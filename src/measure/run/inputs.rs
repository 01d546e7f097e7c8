//! Seeded buffer contents: the same bytes on every run and every machine, generated on
//! the host in parallel chunks (the output does not depend on the thread count).

use half::{bf16, f16};
use rayon::prelude::*;

use crate::measure::spec::plan::BufferPlan;
use crate::measure::spec::{ElemType, Fill};

/// Values per independently seeded chunk.
const CHUNK: usize = 1 << 16;

/// The buffer's initial bytes. Each buffer draws from its own stream of the experiment's
/// seed, keyed by its name, so adding a buffer does not change another's values.
pub fn fill_bytes(b: &BufferPlan, seed: u64) -> Vec<u8> {
    let stream = b.name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, c| {
        (h ^ c as u64).wrapping_mul(0x100_0000_01b3)
    });
    let size = b.ty.size();
    let mut out = vec![0u8; b.len as usize * size];
    match b.fill {
        Fill::Zeros => return out,
        Fill::Cycle(stride) => {
            let state = seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
            write_cycle(&mut out, b.ty, stride, state);
            return out;
        }
        _ => {}
    }
    out.par_chunks_mut(CHUNK * size)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut state = seed
                ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03)
                ^ (c as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            for (k, cell) in chunk.chunks_exact_mut(size).enumerate() {
                let index = (c * CHUNK + k) as u64;
                let v = value(&b.fill, b.ty, index, &mut state);
                write(b.ty, v, cell);
            }
        });
    out
}

/// One cycle through the nodes at element indexes 0, `stride`, 2·`stride`, ... of `out`
/// (zeroed, a whole number of nodes, at least two; the plan checks it): each node holds
/// the element index of the next. Sattolo's algorithm: a uniformly random permutation of
/// the nodes that is a single cycle, so a chase `i = buf[i]` from any node visits every
/// node once before it returns. Sequential (one pass of swaps, 8M nodes in well under a
/// second), then written in parallel.
fn write_cycle(out: &mut [u8], ty: ElemType, stride: u64, mut state: u64) {
    let size = ty.size();
    let stride = stride.max(1) as usize;
    let nodes = out.len() / size / stride;
    if nodes < 2 {
        return;
    }
    // next[k]: the node after node k. Indexes fit u32: the plan checks the last node's
    // element index fits the (4-byte) element type.
    let mut next: Vec<u32> = (0..nodes as u64).map(|k| k as u32).collect();
    for i in (1..nodes).rev() {
        // j uniform in [0, i): Lemire's multiply-shift (bias under 2^-32 for i < 2^32).
        let j = ((splitmix64(&mut state) as u128 * i as u128) >> 64) as usize;
        next.swap(i, j);
    }
    out.par_chunks_mut(stride * size)
        .zip(next.par_iter())
        .for_each(|(node, &to)| {
            let index = to as u64 * stride as u64;
            match ty {
                ElemType::I32 => node[..4].copy_from_slice(&(index as i32).to_le_bytes()),
                _ => node[..4].copy_from_slice(&(index as u32).to_le_bytes()),
            }
        });
}

fn value(fill: &Fill, ty: ElemType, index: u64, state: &mut u64) -> f64 {
    match *fill {
        // Written whole by `fill_bytes` before any value is asked for.
        Fill::Zeros | Fill::Cycle(_) => 0.0,
        Fill::Iota => index as f64,
        Fill::Constant(c) => c,
        Fill::Uniform(lo, hi) => {
            let u = (splitmix64(state) >> 11) as f64 / (1u64 << 53) as f64;
            if ty.is_float() {
                lo + (hi - lo) * u
            } else {
                // Integers: every value in [lo, hi] equally likely.
                (lo + ((hi - lo + 1.0) * u).floor()).min(hi)
            }
        }
        Fill::Normal(mean, sd) => {
            // Box-Muller from two uniforms in (0, 1].
            let u1 = ((splitmix64(state) >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
            let u2 = (splitmix64(state) >> 11) as f64 / (1u64 << 53) as f64;
            mean + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        }
    }
}

/// Store `v` as `ty` (integers wrap like a C cast from a wide integer).
pub fn write(ty: ElemType, v: f64, cell: &mut [u8]) {
    match ty {
        ElemType::F32 => cell.copy_from_slice(&(v as f32).to_le_bytes()),
        ElemType::F64 => cell.copy_from_slice(&v.to_le_bytes()),
        ElemType::F16 => cell.copy_from_slice(&f16::from_f64(v).to_le_bytes()),
        ElemType::Bf16 => cell.copy_from_slice(&bf16::from_f64(v).to_le_bytes()),
        ElemType::I32 => cell.copy_from_slice(&(v as i64 as i32).to_le_bytes()),
        ElemType::U32 => cell.copy_from_slice(&(v as i64 as u32).to_le_bytes()),
        ElemType::U8 => cell[0] = v as i64 as u8,
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::run::correctness::read;

    fn buf(name: &str, ty: ElemType, len: u64, fill: Fill) -> BufferPlan {
        BufferPlan {
            name: name.into(),
            ty,
            len,
            fill,
            output: false,
            tolerance: None,
        }
    }

    #[test]
    fn same_seed_same_bytes_other_name_other_bytes() {
        let a = buf("x", ElemType::F32, 200_000, Fill::Uniform(-2.0, 2.0));
        let bytes = fill_bytes(&a, 7);
        assert_eq!(bytes, fill_bytes(&a, 7));
        assert_ne!(
            bytes,
            fill_bytes(
                &buf("y", ElemType::F32, 200_000, Fill::Uniform(-2.0, 2.0)),
                7
            )
        );
        let v: Vec<f64> = (0..200_000)
            .map(|i| read(ElemType::F32, &bytes, i))
            .collect();
        assert!(v.iter().all(|x| (-2.0..2.0).contains(x)));
        let negative = v.iter().filter(|x| **x < 0.0).count();
        assert!((90_000..110_000).contains(&negative), "{negative}");
    }

    #[test]
    fn every_type_and_fill() {
        let iota = fill_bytes(&buf("i", ElemType::U32, 5, Fill::Iota), 1);
        assert_eq!(
            (0..5)
                .map(|i| read(ElemType::U32, &iota, i))
                .collect::<Vec<_>>(),
            [0.0, 1.0, 2.0, 3.0, 4.0]
        );
        let h = fill_bytes(&buf("h", ElemType::F16, 3, Fill::Constant(1.5)), 1);
        assert_eq!(h, [0x00, 0x3e, 0x00, 0x3e, 0x00, 0x3e]);
        let b = fill_bytes(&buf("b", ElemType::Bf16, 1, Fill::Constant(1.0)), 1);
        assert_eq!(b, [0x80, 0x3f]);
        let n = fill_bytes(&buf("n", ElemType::F64, 100_000, Fill::Normal(5.0, 2.0)), 3);
        let mean = (0..100_000)
            .map(|i| read(ElemType::F64, &n, i))
            .sum::<f64>()
            / 1e5;
        assert!((mean - 5.0).abs() < 0.05, "{mean}");
        let u = fill_bytes(&buf("u", ElemType::U8, 10_000, Fill::Uniform(3.0, 5.0)), 3);
        assert!(u.iter().all(|v| (3..=5).contains(v)));
        assert!(u.contains(&5) && u.contains(&3));
        let i = fill_bytes(&buf("k", ElemType::I32, 4, Fill::Zeros), 3);
        assert_eq!(i, [0; 16]);
    }

    /// Follows `i = buf[i]` from element 0: the element indexes visited, until it returns
    /// to 0 or has taken `len` steps.
    fn chase(ty: ElemType, bytes: &[u8], len: u64) -> Vec<u64> {
        let mut seen = vec![0u64];
        let mut i = read(ty, bytes, 0) as u64;
        while i != 0 && (seen.len() as u64) <= len {
            seen.push(i);
            i = read(ty, bytes, i as usize) as u64;
        }
        seen
    }

    #[test]
    fn a_cycle_fill_visits_every_node_once_and_leaves_the_rest_zero() {
        for (ty, stride, nodes) in [
            (ElemType::U32, 32, 10_000u64),
            (ElemType::I32, 1, 2),
            (ElemType::U32, 1, 3),
            (ElemType::I32, 7, 1000),
        ] {
            let len = stride * nodes;
            let bytes = fill_bytes(&buf("chain", ty, len, Fill::Cycle(stride)), 5);
            let visited = chase(ty, &bytes, len);
            assert_eq!(visited.len() as u64, nodes, "{ty:?} stride {stride}");
            let mut sorted = visited.clone();
            sorted.sort_unstable();
            let want: Vec<u64> = (0..nodes).map(|k| k * stride).collect();
            assert_eq!(sorted, want, "every node once, {ty:?} stride {stride}");
            for i in 0..len {
                if i % stride != 0 {
                    assert_eq!(read(ty, &bytes, i as usize), 0.0, "element {i}");
                }
            }
        }
    }

    #[test]
    fn a_cycle_fill_is_the_same_per_seed_and_differs_between_seeds() {
        let b = buf("chain", ElemType::U32, 4096 * 16, Fill::Cycle(16));
        let one = fill_bytes(&b, 1);
        assert_eq!(one, fill_bytes(&b, 1));
        assert_ne!(one, fill_bytes(&b, 2));
        let other_name = buf("other", ElemType::U32, 4096 * 16, Fill::Cycle(16));
        assert_ne!(one, fill_bytes(&other_name, 1));
        // Not the trivial cycle 0 -> 1 -> 2 ...: the order is shuffled.
        let visited = chase(ElemType::U32, &one, 4096 * 16);
        let in_order = visited.windows(2).filter(|w| w[1] == w[0] + 16).count();
        assert!(in_order < 100, "{in_order} steps to the adjacent node");
    }
}
