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
    /// One seeded random cycle through the nodes at element indexes 0, STRIDE, 2·STRIDE,
    /// ...: each node holds the element index of the next, every other element is 0 (a
    /// pointer chase, `i = buf[i]`). Integer buffers of 4 bytes only.
    Cycle(u64),
}

/// A buffer's fill as the file writes it: a fill, or a cycle whose stride is an
/// expression over params and axes (`{cycle: stride}`), made a number by the plan
/// ([`Fill::Cycle`]).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(try_from = "FillText", into = "FillText")]
pub enum FillSpec {
    Fixed(Fill),
    Cycle(super::ExprSrc),
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cycle: Option<StrideText>,
}

/// A cycle's stride: a number (as a plan holds it), or an expression as written.
#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum StrideText {
    Number(u64),
    Expr(super::ExprSrc),
}

impl TryFrom<FillText> for FillSpec {
    type Error = String;
    fn try_from(t: FillText) -> Result<FillSpec, String> {
        let fixed = |f: Fill| Ok(FillSpec::Fixed(f));
        match t {
            FillText::Word(w) if w == "zeros" => fixed(Fill::Zeros),
            FillText::Word(w) if w == "iota" => fixed(Fill::Iota),
            FillText::Word(w) => Err(format!(
                "fill `{w}`: use zeros, iota, {{constant: V}}, {{uniform: [LO, HI]}}, {{normal: [MEAN, SD]}} or {{cycle: STRIDE}}"
            )),
            FillText::Map(m) => match (m.uniform, m.normal, m.constant, m.cycle) {
                (Some([a, b]), None, None, None) => fixed(Fill::Uniform(a, b)),
                (None, Some([a, b]), None, None) => fixed(Fill::Normal(a, b)),
                (None, None, Some(c), None) => fixed(Fill::Constant(c)),
                (None, None, None, Some(StrideText::Number(n))) => {
                    Ok(FillSpec::Cycle(super::ExprSrc(n.to_string())))
                }
                (None, None, None, Some(StrideText::Expr(e))) => Ok(FillSpec::Cycle(e)),
                _ => Err("a fill is one of constant, uniform, normal or cycle".into()),
            },
        }
    }
}

impl From<FillSpec> for FillText {
    fn from(f: FillSpec) -> FillText {
        match f {
            FillSpec::Fixed(f) => f.into(),
            FillSpec::Cycle(e) => FillText::Map(FillMap {
                cycle: Some(match e.0.parse::<u64>() {
                    Ok(n) => StrideText::Number(n),
                    Err(_) => StrideText::Expr(e),
                }),
                ..Default::default()
            }),
        }
    }
}

impl TryFrom<FillText> for Fill {
    type Error = String;
    fn try_from(t: FillText) -> Result<Fill, String> {
        match FillSpec::try_from(t)? {
            FillSpec::Fixed(f) => Ok(f),
            FillSpec::Cycle(e) => {
                e.0.parse::<u64>()
                    .map(Fill::Cycle)
                    .map_err(|_| format!("a planned cycle's stride is a number, not `{}`", e.0))
            }
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
            Fill::Cycle(s) => FillText::Map(FillMap {
                cycle: Some(StrideText::Number(s)),
                ..Default::default()
            }),
        }
    }
}

impl FillSpec {
    /// What can be known before params have values: a cycle's element type (its stride
    /// is checked by the plan, which evaluates it).
    pub fn check(&self, ty: ElemType) -> Result<(), String> {
        match self {
            FillSpec::Fixed(f) => f.check(ty),
            FillSpec::Cycle(_) => cycle_type(ty),
        }
    }
}

fn cycle_type(ty: ElemType) -> Result<(), String> {
    if matches!(ty, ElemType::U32 | ElemType::I32) {
        Ok(())
    } else {
        Err(format!(
            "a cycle fill holds element indexes: it needs u32 or i32, not {}",
            ty.name()
        ))
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
            Fill::Cycle(_) => cycle_type(ty),
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
