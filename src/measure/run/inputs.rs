//! Seeded inputs: the same values on every run and every machine, never zero.

use rayon::prelude::*;

/// Values per independently seeded chunk: the output does not depend on thread count.
const CHUNK: usize = 1 << 16;

/// `n` floats with magnitudes in [0.25, 2) and random signs, from SplitMix64 seeded by
/// (`seed`, `stream`): two streams of one seed are unrelated.
pub fn seeded_floats(n: usize, seed: u64, stream: u64) -> Vec<f32> {
    let mut out = vec![0f32; n];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let mut state = seed
                ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03)
                ^ (c as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            for v in chunk {
                let r = splitmix64(&mut state);
                // 24 bits of mantissa-sized uniform in [0, 1).
                let u = (r >> 40) as f32 / (1u64 << 24) as f32;
                let magnitude = 0.25 + 1.75 * u;
                *v = if r & 1 == 0 { magnitude } else { -magnitude };
            }
        });
    out
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

    #[test]
    fn same_seed_same_values_and_never_zero() {
        let a = seeded_floats(200_000, 7, 0);
        assert_eq!(a, seeded_floats(200_000, 7, 0));
        assert_ne!(a, seeded_floats(200_000, 7, 1));
        assert!(a.iter().all(|v| v.abs() >= 0.25 && v.abs() < 2.0));
        let negative = a.iter().filter(|v| **v < 0.0).count();
        assert!((90_000..110_000).contains(&negative), "{negative}");
    }
}
