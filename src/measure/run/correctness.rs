//! Correct before timed: compare a config's output bytes with the reference's, element by
//! element, within the buffer's tolerance (exactly for integers).

use half::{bf16, f16};
use rayon::prelude::*;

use crate::measure::spec::{ElemType, Tolerance};

/// Why an output is wrong: how many elements, and the first one.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub buffer: String,
    pub wrong: u64,
    pub first_index: u64,
    pub got: f64,
    pub expected: f64,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}`: {} element(s) differ from the reference; first at index {}: got {}, expected {}",
            self.buffer, self.wrong, self.first_index, self.got, self.expected
        )
    }
}

/// Element `i` of `bytes` as f64.
pub fn read(ty: ElemType, bytes: &[u8], i: usize) -> f64 {
    let s = ty.size();
    let b = &bytes[i * s..(i + 1) * s];
    match ty {
        ElemType::F32 => f32::from_le_bytes(b.try_into().unwrap_or_default()) as f64,
        ElemType::F64 => f64::from_le_bytes(b.try_into().unwrap_or_default()),
        ElemType::F16 => f16::from_le_bytes(b.try_into().unwrap_or_default()).to_f64(),
        ElemType::Bf16 => bf16::from_le_bytes(b.try_into().unwrap_or_default()).to_f64(),
        ElemType::I32 => i32::from_le_bytes(b.try_into().unwrap_or_default()) as f64,
        ElemType::U32 => u32::from_le_bytes(b.try_into().unwrap_or_default()) as f64,
        ElemType::U8 => b[0] as f64,
    }
}

/// Units in the last place between two floats of `ty`, from their bit patterns (ordered so
/// that adjacent floats differ by one, across zero too).
fn ulps(ty: ElemType, bytes_a: &[u8], bytes_b: &[u8], i: usize) -> u64 {
    let s = ty.size();
    let bits = |b: &[u8]| -> i64 {
        let raw = &b[i * s..(i + 1) * s];
        let (v, sign_bit) = match s {
            8 => (u64::from_le_bytes(raw.try_into().unwrap_or_default()), 63),
            4 => (
                u32::from_le_bytes(raw.try_into().unwrap_or_default()) as u64,
                31,
            ),
            _ => (
                u16::from_le_bytes(raw.try_into().unwrap_or_default()) as u64,
                15,
            ),
        };
        let magnitude = (v & ((1u64 << sign_bit) - 1)) as i64;
        if v >> sign_bit == 1 {
            -magnitude
        } else {
            magnitude
        }
    };
    bits(bytes_a).abs_diff(bits(bytes_b))
}

fn element_ok(ty: ElemType, tol: &Tolerance, got: &[u8], want: &[u8], i: usize) -> bool {
    let (g, e) = (read(ty, got, i), read(ty, want, i));
    if !ty.is_float() {
        return g == e;
    }
    if g.is_nan() || e.is_nan() {
        // Poison (NaN) where the reference wrote a number is wrong; both NaN means the
        // reference left it unwritten too.
        return g.is_nan() && e.is_nan();
    }
    if g == e {
        return true;
    }
    let bound = tol.abs.unwrap_or(0.0) + tol.rel.unwrap_or(0.0) * e.abs();
    if (tol.abs.is_some() || tol.rel.is_some()) && (g - e).abs() <= bound {
        return true;
    }
    tol.ulps.is_some_and(|u| ulps(ty, got, want, i) <= u)
}

/// Compare `got` with `want` (both `len` elements of `ty`).
pub fn compare(
    buffer: &str,
    ty: ElemType,
    tol: Option<&Tolerance>,
    got: &[u8],
    want: &[u8],
) -> Result<(), Mismatch> {
    let exact = Tolerance::default();
    let tol = tol.unwrap_or(&exact);
    let len = got.len().min(want.len()) / ty.size();
    let wrong = (0..len)
        .into_par_iter()
        .filter(|&i| !element_ok(ty, tol, got, want, i))
        .count() as u64;
    if wrong == 0 && got.len() == want.len() {
        return Ok(());
    }
    let first = (0..len)
        .into_par_iter()
        .find_first(|&i| !element_ok(ty, tol, got, want, i))
        .unwrap_or(len);
    let at = |b: &[u8]| {
        if first < len {
            read(ty, b, first)
        } else {
            f64::NAN
        }
    };
    Err(Mismatch {
        buffer: buffer.to_string(),
        wrong: wrong.max(1),
        first_index: first as u64,
        got: at(got),
        expected: at(want),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn ulps_and_relative_bounds() {
        let want = f32s(&[1.0, -2.0, 0.0, 3.0]);
        let near = f32s(&[f32::from_bits(1.0f32.to_bits() + 2), -2.0, -0.0, 3.0]);
        let two = Tolerance {
            ulps: Some(2),
            ..Default::default()
        };
        let one = Tolerance {
            ulps: Some(1),
            ..Default::default()
        };
        assert_eq!(
            compare("out", ElemType::F32, Some(&two), &near, &want),
            Ok(())
        );
        let m = compare("out", ElemType::F32, Some(&one), &near, &want).unwrap_err();
        assert_eq!((m.wrong, m.first_index), (1, 0));
        let rel = Tolerance {
            rel: Some(1e-6),
            ..Default::default()
        };
        assert_eq!(
            compare("out", ElemType::F32, Some(&rel), &near, &want),
            Ok(())
        );
    }

    #[test]
    fn poison_left_in_place_fails_and_counts_every_element() {
        let want = f32s(&[1.0; 1000]);
        let mut got = f32s(&[1.0; 1000]);
        got[4 * 999..].copy_from_slice(&[0xff; 4]);
        got[4 * 10..4 * 11].copy_from_slice(&[0xff; 4]);
        let tol = Tolerance {
            abs: Some(1.0),
            ..Default::default()
        };
        let m = compare("out", ElemType::F32, Some(&tol), &got, &want).unwrap_err();
        assert_eq!((m.wrong, m.first_index), (2, 10));
        assert!(m.to_string().contains("`out`: 2 element(s) differ"), "{m}");
    }

    #[test]
    fn integers_match_exactly_and_f16_ulps_work() {
        let a: Vec<u8> = [1u32, 2, 3].iter().flat_map(|x| x.to_le_bytes()).collect();
        let b: Vec<u8> = [1u32, 2, 4].iter().flat_map(|x| x.to_le_bytes()).collect();
        let m = compare("idx", ElemType::U32, None, &a, &b).unwrap_err();
        assert_eq!(
            (m.wrong, m.first_index, m.got, m.expected),
            (1, 2, 3.0, 4.0)
        );
        let h = |v: f32| f16::from_f32(v).to_le_bytes().to_vec();
        let next = f16::from_bits(f16::from_f32(1.0).to_bits() + 1)
            .to_le_bytes()
            .to_vec();
        let one = Tolerance {
            ulps: Some(1),
            ..Default::default()
        };
        assert_eq!(
            compare("o", ElemType::F16, Some(&one), &next, &h(1.0)),
            Ok(())
        );
        assert!(compare(
            "o",
            ElemType::F16,
            Some(&Tolerance {
                ulps: Some(0),
                ..Default::default()
            }),
            &next,
            &h(1.0)
        )
        .is_err());
    }
}
