//! Element and scalar types, fills and tolerances as an experiment file names them.

use serde::{Deserialize, Serialize};

/// A buffer's element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ElemType {
    F32,
    F16,
    Bf16,
    F64,
    I32,
    U32,
    U8,
}

impl ElemType {
    pub fn size(self) -> usize {
        match self {
            ElemType::F64 => 8,
            ElemType::F32 | ElemType::I32 | ElemType::U32 => 4,
            ElemType::F16 | ElemType::Bf16 => 2,
            ElemType::U8 => 1,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElemType::F32 | ElemType::F16 | ElemType::Bf16 | ElemType::F64
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::F16 => "f16",
            ElemType::Bf16 => "bf16",
            ElemType::F64 => "f64",
            ElemType::I32 => "i32",
            ElemType::U32 => "u32",
            ElemType::U8 => "u8",
        }
    }
}

/// A scalar argument's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarType {
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl ScalarType {
    pub fn from_name(s: &str) -> Option<ScalarType> {
        Some(match s {
            "i32" => ScalarType::I32,
            "u32" => ScalarType::U32,
            "i64" => ScalarType::I64,
            "u64" => ScalarType::U64,
            "f32" => ScalarType::F32,
            "f64" => ScalarType::F64,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            ScalarType::I32 => "i32",
            ScalarType::U32 => "u32",
            ScalarType::I64 => "i64",
            ScalarType::U64 => "u64",
            ScalarType::F32 => "f32",
            ScalarType::F64 => "f64",
        }
    }

    pub fn size(self) -> usize {
        match self {
            ScalarType::I32 | ScalarType::U32 | ScalarType::F32 => 4,
            _ => 8,
        }
    }

    /// The argument's bytes (little-endian, as the device reads them), or why the value
    /// does not fit the type.
    pub fn encode(self, v: super::Num) -> Result<Vec<u8>, String> {
        use super::Num;
        let int = |v: Num| v.whole();
        let range = |i: i64, lo: i64, hi: i64| {
            if i < lo || i > hi {
                Err(format!("{i} does not fit {}", self.name()))
            } else {
                Ok(i)
            }
        };
        Ok(match self {
            ScalarType::I32 => (range(int(v)?, i32::MIN.into(), i32::MAX.into())? as i32)
                .to_le_bytes()
                .to_vec(),
            ScalarType::U32 => (range(int(v)?, 0, u32::MAX.into())? as u32)
                .to_le_bytes()
                .to_vec(),
            ScalarType::I64 => int(v)?.to_le_bytes().to_vec(),
            ScalarType::U64 => (range(int(v)?, 0, i64::MAX)? as u64).to_le_bytes().to_vec(),
            ScalarType::F32 => (v.as_f64() as f32).to_le_bytes().to_vec(),
            ScalarType::F64 => v.as_f64().to_le_bytes().to_vec(),
        })
    }
}

/// A buffer's contents before the launches, generated on the host from the seed.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "FillText", into = "FillText")]
pub enum Fill {
    Zeros,
    /// 0, 1, 2, ... (wrapping at the type's range for u8).
    Iota,
    Constant(f64),
    /// Seeded uniform in [lo, hi); integers in [lo, hi].
    Uniform(f64, f64),
    /// Seeded normal with mean and standard deviation.
    Normal(f64, f64),
}

#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum FillText {
    Word(String),
    Map(FillMap),
}

#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
struct FillMap {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uniform: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    normal: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    constant: Option<f64>,
}

impl TryFrom<FillText> for Fill {
    type Error = String;
    fn try_from(t: FillText) -> Result<Fill, String> {
        match t {
            FillText::Word(w) if w == "zeros" => Ok(Fill::Zeros),
            FillText::Word(w) if w == "iota" => Ok(Fill::Iota),
            FillText::Word(w) => Err(format!(
                "fill `{w}`: use zeros, iota, {{constant: V}}, {{uniform: [LO, HI]}} or {{normal: [MEAN, SD]}}"
            )),
            FillText::Map(m) => match (m.uniform, m.normal, m.constant) {
                (Some([a, b]), None, None) => Ok(Fill::Uniform(a, b)),
                (None, Some([a, b]), None) => Ok(Fill::Normal(a, b)),
                (None, None, Some(c)) => Ok(Fill::Constant(c)),
                _ => Err("a fill is one of constant, uniform or normal".into()),
            },
        }
    }
}

impl From<Fill> for FillText {
    fn from(f: Fill) -> FillText {
        match f {
            Fill::Zeros => FillText::Word("zeros".into()),
            Fill::Iota => FillText::Word("iota".into()),
            Fill::Constant(c) => FillText::Map(FillMap {
                constant: Some(c),
                ..Default::default()
            }),
            Fill::Uniform(a, b) => FillText::Map(FillMap {
                uniform: Some([a, b]),
                ..Default::default()
            }),
            Fill::Normal(a, b) => FillText::Map(FillMap {
                normal: Some([a, b]),
                ..Default::default()
            }),
        }
    }
}

impl Fill {
    // `!(lo < hi)` rather than `lo >= hi`: a NaN bound compares false both ways and must
    // be refused too.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn check(&self, ty: ElemType) -> Result<(), String> {
        match *self {
            Fill::Uniform(lo, hi) if !(lo < hi) || !lo.is_finite() || !hi.is_finite() => {
                Err(format!("uniform range [{lo}, {hi}] is empty"))
            }
            Fill::Normal(_, sd) if !(sd > 0.0) => {
                Err(format!("normal standard deviation {sd} must be positive"))
            }
            Fill::Normal(..) if !ty.is_float() => Err(format!(
                "a normal fill needs a float type, not {}",
                ty.name()
            )),
            _ => Ok(()),
        }
    }
}

/// How far a float output may be from the reference: an element passes when
/// `|got - expected| <= abs + rel * |expected|`, or when it is at most `ulps` units in the
/// last place away.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abs: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ulps: Option<u64>,
}

impl Tolerance {
    // `!(v >= 0.0)` rather than `v < 0.0`: NaN must be refused too.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub fn check(&self) -> Result<(), String> {
        if self.abs.is_none() && self.rel.is_none() && self.ulps.is_none() {
            return Err("a tolerance needs abs, rel or ulps".into());
        }
        for (n, v) in [("abs", self.abs), ("rel", self.rel)] {
            if let Some(v) = v {
                if !(v >= 0.0) || !v.is_finite() {
                    return Err(format!("tolerance {n} {v} must be a finite number >= 0"));
                }
            }
        }
        Ok(())
    }
}
