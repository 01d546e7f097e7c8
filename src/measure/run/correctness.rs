//! Correct before timed: compare a kernel's output with a CPU reference computed in f64.

use rayon::prelude::*;

/// Why an output is wrong: how many elements, and the first one.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub wrong: usize,
    pub first_index: usize,
    pub got: f32,
    pub expected: f64,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} element(s) wrong; first at index {}: got {}, expected {}",
            self.wrong, self.first_index, self.got, self.expected
        )
    }
}

/// fp32 with one fused multiply-add rounds once: allow a few ulps of the operands' scale,
/// which still catches any wrong, missing (NaN-poisoned) or misplaced element.
const ULPS: f64 = 4.0;

/// Check `out[i] == a * x[i] + y[i]` for every element.
pub fn check_axpy(a: f32, x: &[f32], y: &[f32], out: &[f32]) -> Result<(), Mismatch> {
    if x.len() != out.len() || y.len() != out.len() {
        return Err(Mismatch {
            wrong: out.len().abs_diff(x.len()).max(1),
            first_index: out.len().min(x.len()),
            got: f32::NAN,
            expected: f64::NAN,
        });
    }
    let bad = |i: usize| -> Option<f64> {
        let ax = a as f64 * x[i] as f64;
        let expected = ax + y[i] as f64;
        let scale = ax.abs() + (y[i] as f64).abs();
        let ok = (out[i] as f64 - expected).abs() <= ULPS * f32::EPSILON as f64 * scale;
        (!ok).then_some(expected)
    };
    let wrong = (0..out.len())
        .into_par_iter()
        .filter(|&i| bad(i).is_some())
        .count();
    if wrong == 0 {
        return Ok(());
    }
    let (first_index, expected) = (0..out.len())
        .find_map(|i| bad(i).map(|e| (i, e)))
        .unwrap_or((0, f64::NAN));
    Err(Mismatch {
        wrong,
        first_index,
        got: out[first_index],
        expected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::run::inputs::seeded_floats;

    fn axpy(a: f32, x: &[f32], y: &[f32]) -> Vec<f32> {
        x.iter().zip(y).map(|(x, y)| a.mul_add(*x, *y)).collect()
    }

    #[test]
    fn a_correct_fused_result_passes_and_an_unfused_one_too() {
        let (x, y) = (seeded_floats(10_000, 1, 0), seeded_floats(10_000, 1, 1));
        assert_eq!(check_axpy(0.75, &x, &y, &axpy(0.75, &x, &y)), Ok(()));
        let unfused: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 0.75 * x + y).collect();
        assert_eq!(check_axpy(0.75, &x, &y, &unfused), Ok(()));
    }

    #[test]
    fn an_unwritten_poisoned_element_fails() {
        let (x, y) = (seeded_floats(1000, 2, 0), seeded_floats(1000, 2, 1));
        let mut out = axpy(0.5, &x, &y);
        out[999] = f32::NAN;
        let m = check_axpy(0.5, &x, &y, &out).unwrap_err();
        assert_eq!((m.wrong, m.first_index), (1, 999));
    }

    #[test]
    fn a_shifted_index_fails_nearly_everywhere() {
        let (x, y) = (seeded_floats(1000, 3, 0), seeded_floats(1000, 3, 1));
        let mut out = axpy(0.5, &x, &y);
        out.rotate_left(1);
        assert!(check_axpy(0.5, &x, &y, &out).unwrap_err().wrong > 900);
    }
}
