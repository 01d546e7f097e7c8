//! LEB128: an unsigned number seven bits a byte, low bits first, the high bit set on every
//! byte but the last. The search index's postings and the body words a build holds are
//! both lists of small numbers kept this way.

/// Append `n`.
pub fn push(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The next number in `bytes`; None at the end.
pub fn next(bytes: &mut std::slice::Iter<'_, u8>) -> Option<u64> {
    let mut n = 0u64;
    let mut shift = 0;
    loop {
        let b = *bytes.next()?;
        n |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(n);
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_across_the_byte_boundaries() {
        let numbers = [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            2_097_151,
            2_097_152,
            u64::from(u32::MAX),
            u64::MAX,
        ];
        let mut bytes = Vec::new();
        numbers.iter().for_each(|&n| push(&mut bytes, n));
        let mut iter = bytes.iter();
        let read: Vec<u64> = std::iter::from_fn(|| next(&mut iter)).collect();
        assert_eq!(read, numbers);
        // One byte below 128, two below 16,384, ten for the largest.
        let sizes: Vec<usize> = [127, 128, 16_383, 16_384, u64::MAX]
            .iter()
            .map(|&n| {
                let mut b = Vec::new();
                push(&mut b, n);
                b.len()
            })
            .collect();
        assert_eq!(sizes, [1, 2, 2, 3, 10]);
    }
}
