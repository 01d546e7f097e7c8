//! Claims: statements in an entry that its record must support, checked at every build.

use crate::content::ClaimTest;

use super::library::Citation;

/// Check one claim against the record. `Err` carries the numbers that contradict it.
pub fn check_claim(test: &ClaimTest, column: &str, citation: &Citation<'_>) -> Result<(), String> {
    let value = |row: &str| citation.number(row, column).map_err(|s| s.to_string());
    match test {
        ClaimTest::Within { rows, tolerance } => {
            let values = rows
                .iter()
                .map(|r| value(r).map(|v| (r.as_str(), v)))
                .collect::<Result<Vec<_>, _>>()?;
            let min = values.iter().map(|v| v.1).fold(f64::INFINITY, f64::min);
            let max = values.iter().map(|v| v.1).fold(f64::NEG_INFINITY, f64::max);
            let spread = if min > 0.0 {
                max / min - 1.0
            } else {
                f64::INFINITY
            };
            let listed = values
                .iter()
                .map(|(r, v)| format!("{r} = {v:.4}"))
                .collect::<Vec<_>>()
                .join(", ");
            if spread <= *tolerance {
                Ok(())
            } else {
                Err(format!(
                    "{column}: {listed}; spread {:.1}% exceeds {:.1}%",
                    spread * 100.0,
                    tolerance * 100.0
                ))
            }
        }
        ClaimTest::Ratio {
            of,
            to,
            below,
            above,
        } => {
            let (a, b) = (value(of)?, value(to)?);
            let r = a / b;
            let shown = format!("{column}: {of} = {a:.4}, {to} = {b:.4}, ratio {r:.3}");
            check_bounds(r, *below, *above).map_err(|why| format!("{shown}, {why}"))
        }
        ClaimTest::Value { row, below, above } => {
            let v = value(row)?;
            check_bounds(v, *below, *above)
                .map_err(|why| format!("{column}: {row} = {v:.4}, {why}"))
        }
    }
}

/// NaN fails every bound: a value that is not a number supports nothing.
fn check_bounds(v: f64, below: Option<f64>, above: Option<f64>) -> Result<(), String> {
    if let Some(below) = below {
        if v.is_nan() || v >= below {
            return Err(format!("not below {below}"));
        }
    }
    if let Some(above) = above {
        if v.is_nan() || v <= above {
            return Err(format!("not above {above}"));
        }
    }
    Ok(())
}
