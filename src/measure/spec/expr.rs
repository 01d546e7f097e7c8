//! Arithmetic expressions in experiment files: sizes, grids, scalar arguments, metrics.
//!
//! Integers stay exact (checked i64 arithmetic everywhere, `i64::MIN / -1` included:
//! overflow is an error, never a wrap or a panic);
//! anything that meets a decimal becomes f64. `/` divides exactly: two integers that divide
//! evenly stay an integer, otherwise the result is a decimal, and a place that needs an
//! integer (a length, a grid) refuses a value that is not whole. Errors say what went wrong
//! and quote the expression; the caller adds the file and line.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// The value where a whole number is needed.
    pub fn whole(self) -> Result<i64, String> {
        match self {
            Num::Int(i) => Ok(i),
            Num::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(f as i64),
            Num::Float(f) => Err(format!("{f} is not a whole number")),
        }
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) => write!(f, "{x}"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Lit(Num),
    Var(String),
    Neg(Box<Node>),
    Bin(Op, Box<Node>, Box<Node>),
    Call(String, Vec<Node>),
}

/// A parsed expression and the text it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    src: String,
    node: Node,
}

/// How deep an expression may nest: each parenthesis, sign, call and chained operator is a
/// level of the tree that evaluation (and dropping it) walks recursively, so a file of
/// 20,000 `(` would overflow the stack. Real sizes and metrics nest a handful deep.
pub const MAX_DEPTH: usize = 64;

/// The functions an expression may call, with their argument counts.
pub const FUNCTIONS: &[(&str, usize)] = &[
    ("ceil_div", 2),
    ("floor_div", 2),
    ("min", 2),
    ("max", 2),
    ("pow", 2),
];

impl Expr {
    pub fn parse(src: &str) -> Result<Expr, String> {
        let tokens = lex(src)?;
        let mut p = Parser {
            t: &tokens,
            i: 0,
            depth: 0,
        };
        let (node, _) = p.expr(0).map_err(|e| match e.strip_prefix(TOO_DEEP) {
            // Quoting a 20,000-character expression would bury the message: its start will do.
            Some(_) => format!("{e} in `{}`", start_of(src)),
            None => e,
        })?;
        if let Some(t) = p.t.get(p.i) {
            return Err(format!("unexpected `{}` in `{src}`", t.text()));
        }
        Ok(Expr {
            src: src.trim().to_string(),
            node,
        })
    }

    pub fn source(&self) -> &str {
        &self.src
    }

    /// Every variable name the expression reads, in order of appearance.
    pub fn names(&self) -> Vec<&str> {
        fn walk<'a>(n: &'a Node, out: &mut Vec<&'a str>) {
            match n {
                Node::Lit(_) => {}
                Node::Var(v) => {
                    if !out.contains(&v.as_str()) {
                        out.push(v)
                    }
                }
                Node::Neg(a) => walk(a, out),
                Node::Bin(_, a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                Node::Call(_, args) => args.iter().for_each(|a| walk(a, out)),
            }
        }
        let mut out = Vec::new();
        walk(&self.node, &mut out);
        out
    }

    /// Evaluate with `lookup` giving each name's value. The error quotes the expression.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<Num>) -> Result<Num, String> {
        eval(&self.node, lookup).map_err(|e| format!("{e} in `{}`", self.src))
    }

    /// Evaluate where a whole number is needed.
    pub fn eval_int(&self, lookup: &dyn Fn(&str) -> Option<Num>) -> Result<i64, String> {
        self.eval(lookup)?
            .whole()
            .map_err(|e| format!("{e} (`{}` must give a whole number)", self.src))
    }
}

/// An interval `(lo, hi)` of the values a name may take.
pub type Span = (f64, f64);

impl Expr {
    /// The interval of the expression's values when each name lies anywhere in its
    /// `lookup` interval (a point for an exact name): interval arithmetic, so the result
    /// contains every value the expression takes over those intervals. `+ - * /`, `min`,
    /// `max` and `pow` (of a positive base) take intervals; `%`, shifts, `ceil_div` and
    /// `floor_div` take exact operands only. Dividing by an interval that contains zero
    /// has no interval (an error, as a name without one is).
    pub fn eval_interval(&self, lookup: &dyn Fn(&str) -> Option<Span>) -> Result<Span, String> {
        eval_span(&self.node, lookup).map_err(|e| format!("{e} in `{}`", self.src))
    }
}

fn eval_span(n: &Node, lookup: &dyn Fn(&str) -> Option<Span>) -> Result<Span, String> {
    let hull = |c: [f64; 4]| -> Result<Span, String> {
        let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() && hi.is_finite() {
            Ok((lo, hi))
        } else {
            Err("overflow (the interval is not finite)".into())
        }
    };
    // Operators without interval rules give an interval only on exact operands, through
    // the ordinary evaluation.
    let exact = |f: &dyn Fn(Num, Num) -> Result<Num, String>, a: Span, b: Span| {
        if a.0 == a.1 && b.0 == b.1 {
            let v = f(Num::Float(a.0), Num::Float(b.0))?.as_f64();
            Ok((v, v))
        } else {
            Err("this operator has no interval rule for a measured operand".to_string())
        }
    };
    Ok(match n {
        Node::Lit(v) => (v.as_f64(), v.as_f64()),
        Node::Var(name) => lookup(name).ok_or_else(|| format!("no interval for `{name}`"))?,
        Node::Neg(a) => {
            let (lo, hi) = eval_span(a, lookup)?;
            (-hi, -lo)
        }
        Node::Bin(op, a, b) => {
            let (x, y) = (eval_span(a, lookup)?, eval_span(b, lookup)?);
            match op {
                Op::Add => (x.0 + y.0, x.1 + y.1),
                Op::Sub => (x.0 - y.1, x.1 - y.0),
                Op::Mul => hull([x.0 * y.0, x.0 * y.1, x.1 * y.0, x.1 * y.1])?,
                Op::Div => {
                    if y.0 <= 0.0 && y.1 >= 0.0 {
                        return Err("the divisor's interval contains zero".into());
                    }
                    hull([x.0 / y.0, x.0 / y.1, x.1 / y.0, x.1 / y.1])?
                }
                op => exact(&|p, q| binary(*op, p, q), x, y)?,
            }
        }
        Node::Call(f, args) => {
            let v: Vec<Span> = args
                .iter()
                .map(|a| eval_span(a, lookup))
                .collect::<Result<_, _>>()?;
            let (x, y) = (v[0], v[1]);
            match f.as_str() {
                "min" => (x.0.min(y.0), x.1.min(y.1)),
                "max" => (x.0.max(y.0), x.1.max(y.1)),
                // x^y is monotone in each argument for x > 0: its extremes are at corners.
                "pow" if x.0 > 0.0 => {
                    hull([x.0.powf(y.0), x.0.powf(y.1), x.1.powf(y.0), x.1.powf(y.1)])?
                }
                f => exact(&|p, q| call(f, p, q), x, y)?,
            }
        }
    })
}

fn eval(n: &Node, lookup: &dyn Fn(&str) -> Option<Num>) -> Result<Num, String> {
    Ok(match n {
        Node::Lit(v) => *v,
        Node::Var(name) => lookup(name).ok_or_else(|| format!("unknown name `{name}`"))?,
        Node::Neg(a) => match eval(a, lookup)? {
            Num::Int(i) => Num::Int(i.checked_neg().ok_or("integer overflow")?),
            Num::Float(f) => Num::Float(-f),
        },
        Node::Bin(op, a, b) => binary(*op, eval(a, lookup)?, eval(b, lookup)?)?,
        Node::Call(f, args) => {
            let v: Vec<Num> = args
                .iter()
                .map(|a| eval(a, lookup))
                .collect::<Result<_, _>>()?;
            call(f, v[0], v[1])?
        }
    })
}

fn float(f: f64) -> Result<Num, String> {
    if f.is_finite() {
        Ok(Num::Float(f))
    } else {
        Err("overflow (the result is not a finite number)".into())
    }
}

fn binary(op: Op, a: Num, b: Num) -> Result<Num, String> {
    use Num::*;
    let overflow = || "integer overflow".to_string();
    if matches!(op, Op::Div | Op::Rem) && b.as_f64() == 0.0 {
        return Err("division by zero".into());
    }
    match (a, b) {
        (Int(x), Int(y)) => Ok(Int(match op {
            Op::Add => x.checked_add(y).ok_or_else(overflow)?,
            Op::Sub => x.checked_sub(y).ok_or_else(overflow)?,
            Op::Mul => x.checked_mul(y).ok_or_else(overflow)?,
            Op::Div => {
                // `checked_rem`, not `%`: `i64::MIN % -1` overflows (and panics) too.
                if x.checked_rem(y).ok_or_else(overflow)? == 0 {
                    x.checked_div(y).ok_or_else(overflow)?
                } else {
                    return float(x as f64 / y as f64);
                }
            }
            Op::Rem => x.checked_rem(y).ok_or_else(overflow)?,
            Op::Shl | Op::Shr => {
                if !(0..63).contains(&y) {
                    return Err(format!("shift by {y} is outside 0..63"));
                }
                if op == Op::Shr {
                    x >> y
                } else {
                    let r = x.checked_shl(y as u32).ok_or_else(overflow)?;
                    if r >> y != x {
                        return Err(overflow());
                    }
                    r
                }
            }
        })),
        _ => {
            let (x, y) = (a.as_f64(), b.as_f64());
            float(match op {
                Op::Add => x + y,
                Op::Sub => x - y,
                Op::Mul => x * y,
                Op::Div => x / y,
                Op::Rem => x % y,
                Op::Shl | Op::Shr => return Err("shifts need whole numbers".into()),
            })
        }
    }
}

fn call(f: &str, a: Num, b: Num) -> Result<Num, String> {
    use Num::*;
    match f {
        "ceil_div" | "floor_div" => {
            let (x, y) = (
                a.whole().map_err(|e| format!("{f}: {e}"))?,
                b.whole().map_err(|e| format!("{f}: {e}"))?,
            );
            if y == 0 {
                return Err(format!("division by zero in {f}"));
            }
            // Truncating division, then one step toward the floor or the ceiling when
            // there is a remainder: rounds the true quotient for either sign of `y`
            // (`div_euclid` does not for a negative divisor, and panics on MIN / -1).
            let overflow = || format!("integer overflow in {f}");
            let q = x.checked_div(y).ok_or_else(overflow)?;
            let r = x.checked_rem(y).ok_or_else(overflow)?;
            let negative = (r < 0) != (y < 0);
            let q = match (r != 0, f == "ceil_div", negative) {
                (true, true, false) => q.checked_add(1).ok_or_else(overflow)?,
                (true, false, true) => q.checked_sub(1).ok_or_else(overflow)?,
                _ => q,
            };
            Ok(Int(q))
        }
        "min" | "max" => {
            let pick_a = if f == "min" {
                a.as_f64() <= b.as_f64()
            } else {
                a.as_f64() >= b.as_f64()
            };
            Ok(if pick_a { a } else { b })
        }
        "pow" => match (a, b) {
            (Int(x), Int(y)) if (0..=u32::MAX as i64).contains(&y) => x
                .checked_pow(y as u32)
                .map(Int)
                .ok_or_else(|| "integer overflow".into()),
            _ => float(a.as_f64().powf(b.as_f64())),
        },
        _ => Err(format!("unknown function `{f}`")),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(Num),
    Name(String),
    Op(Op),
    Minus,
    Plus,
    LParen,
    RParen,
    Comma,
}

impl Tok {
    fn text(&self) -> String {
        match self {
            Tok::Num(n) => n.to_string(),
            Tok::Name(s) => s.clone(),
            Tok::Op(o) => format!("{o:?}"),
            Tok::Minus => "-".into(),
            Tok::Plus => "+".into(),
            Tok::LParen => "(".into(),
            Tok::RParen => ")".into(),
            Tok::Comma => ",".into(),
        }
    }
}

fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        match c {
            ' ' | '\t' => i += 1,
            '0'..='9' | '.' if c != '.' || b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let start = i;
                let mut is_float = false;
                while i < b.len() {
                    let d = b[i] as char;
                    if d.is_ascii_digit() || d == '_' {
                        i += 1;
                    } else if d == '.' || d == 'e' || d == 'E' {
                        is_float = true;
                        i += 1;
                        if (d == 'e' || d == 'E') && matches!(b.get(i), Some(b'-' | b'+')) {
                            i += 1;
                        }
                    } else {
                        break;
                    }
                }
                let text: String = src[start..i].chars().filter(|c| *c != '_').collect();
                let n = if is_float {
                    Num::Float(
                        text.parse()
                            .map_err(|_| format!("`{text}` is not a number in `{src}`"))?,
                    )
                } else {
                    Num::Int(text.parse().map_err(|_| {
                        format!("`{text}` is not a number that fits 64 bits in `{src}`")
                    })?)
                };
                out.push(Tok::Num(n));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
                out.push(Tok::Name(src[start..i].to_string()));
            }
            '+' => {
                out.push(Tok::Plus);
                i += 1
            }
            '-' => {
                out.push(Tok::Minus);
                i += 1
            }
            '*' => {
                out.push(Tok::Op(Op::Mul));
                i += 1
            }
            '/' => {
                out.push(Tok::Op(Op::Div));
                i += 1
            }
            '%' => {
                out.push(Tok::Op(Op::Rem));
                i += 1
            }
            '<' | '>' if b.get(i + 1) == Some(&b[i]) => {
                out.push(Tok::Op(if c == '<' { Op::Shl } else { Op::Shr }));
                i += 2
            }
            '(' => {
                out.push(Tok::LParen);
                i += 1
            }
            ')' => {
                out.push(Tok::RParen);
                i += 1
            }
            ',' => {
                out.push(Tok::Comma);
                i += 1
            }
            other => return Err(format!("unexpected `{other}` in `{src}`")),
        }
    }
    if out.is_empty() {
        return Err("empty expression".into());
    }
    Ok(out)
}

struct Parser<'t> {
    t: &'t [Tok],
    i: usize,
    /// How deep the parser has recursed (parentheses, signs, calls, operands).
    depth: usize,
}

/// The start of [`MAX_DEPTH`]'s error: the parser's errors pass through `parse`, which
/// recognizes this one to quote only the start of the expression.
const TOO_DEEP: &str = "the expression nests too deep";

/// A node and the depth of the tree under it.
type Built = (Node, usize);

fn too_deep() -> String {
    format!(
        "{TOO_DEEP}: {MAX_DEPTH} levels at most (each parenthesis, sign, call and chained \
         operator is one)"
    )
}

/// The first 40 characters of `src`, with `...` where it was cut.
fn start_of(src: &str) -> String {
    let src = src.trim();
    match src.char_indices().nth(40) {
        Some((at, _)) => format!("{}...", &src[..at]),
        None => src.to_string(),
    }
}

/// Binding power: shifts bind loosest, then + -, then * / %.
fn power(t: &Tok) -> Option<(u8, Op)> {
    match t {
        Tok::Op(op @ (Op::Shl | Op::Shr)) => Some((1, *op)),
        Tok::Plus => Some((2, Op::Add)),
        Tok::Minus => Some((2, Op::Sub)),
        Tok::Op(op @ (Op::Mul | Op::Div | Op::Rem)) => Some((3, *op)),
        _ => None,
    }
}

impl Parser<'_> {
    fn next(&mut self) -> Option<&Tok> {
        let t = self.t.get(self.i);
        self.i += 1;
        t
    }

    /// A node over `children`, refused past [`MAX_DEPTH`]: the tree, not only the
    /// parser's recursion, is bounded (`1+1+...+1` nests without recursing here, but is
    /// evaluated and dropped recursively).
    fn node(node: Node, children: &[usize]) -> Result<Built, String> {
        let depth = 1 + children.iter().copied().max().unwrap_or(0);
        if depth > MAX_DEPTH {
            return Err(too_deep());
        }
        Ok((node, depth))
    }

    fn expr(&mut self, min: u8) -> Result<Built, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(too_deep());
        }
        let mut lhs = self.atom()?;
        while let Some((p, op)) = self.t.get(self.i).and_then(power) {
            if p <= min {
                break;
            }
            self.i += 1;
            let rhs = self.expr(p)?;
            lhs = Self::node(
                Node::Bin(op, Box::new(lhs.0), Box::new(rhs.0)),
                &[lhs.1, rhs.1],
            )?;
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn atom(&mut self) -> Result<Built, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(too_deep());
        }
        let built = self.atom_inner()?;
        self.depth -= 1;
        Ok(built)
    }

    fn atom_inner(&mut self) -> Result<Built, String> {
        match self.next().cloned() {
            Some(Tok::Num(n)) => Self::node(Node::Lit(n), &[]),
            Some(Tok::Minus) => {
                let (a, d) = self.atom()?;
                Self::node(Node::Neg(Box::new(a)), &[d])
            }
            Some(Tok::Plus) => self.atom(),
            Some(Tok::LParen) => {
                let e = self.expr(0)?;
                match self.next() {
                    Some(Tok::RParen) => Ok(e),
                    _ => Err("missing `)`".into()),
                }
            }
            Some(Tok::Name(name)) => {
                if self.t.get(self.i) != Some(&Tok::LParen) {
                    return Self::node(Node::Var(name), &[]);
                }
                self.i += 1;
                let Some(&(_, arity)) = FUNCTIONS.iter().find(|(f, _)| *f == name) else {
                    let known: Vec<&str> = FUNCTIONS.iter().map(|f| f.0).collect();
                    return Err(format!(
                        "unknown function `{name}` (known: {})",
                        known.join(", ")
                    ));
                };
                let mut args = Vec::new();
                let mut depths = Vec::new();
                if self.t.get(self.i) != Some(&Tok::RParen) {
                    loop {
                        let (a, d) = self.expr(0)?;
                        args.push(a);
                        depths.push(d);
                        match self.next() {
                            Some(Tok::Comma) => continue,
                            Some(Tok::RParen) => break,
                            _ => {
                                return Err(format!("missing `)` after the arguments of `{name}`"))
                            }
                        }
                    }
                } else {
                    self.i += 1;
                }
                if args.len() != arity {
                    return Err(format!(
                        "`{name}` takes {arity} arguments, not {}",
                        args.len()
                    ));
                }
                Self::node(Node::Call(name, args), &depths)
            }
            Some(t) => Err(format!("unexpected `{}`", t.text())),
            None => Err("the expression ends too early".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(src: &str, vars: &[(&str, Num)]) -> Result<Num, String> {
        let e = Expr::parse(src)?;
        e.eval(&|n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| *v))
    }

    #[test]
    fn integer_arithmetic_is_exact_with_precedence() {
        let n = [("n", Num::Int(1000)), ("block", Num::Int(256))];
        assert_eq!(ev("ceil_div(n, block)", &n), Ok(Num::Int(4)));
        assert_eq!(ev("1 + 2 * 3 - 4 / 2", &[]), Ok(Num::Int(5)));
        assert_eq!(ev("(1 + 2) * 3 % 4", &[]), Ok(Num::Int(1)));
        assert_eq!(ev("1 << 27", &[]), Ok(Num::Int(134217728)));
        assert_eq!(ev("-n + 1_000", &n), Ok(Num::Int(0)));
        assert_eq!(ev("floor_div(-7, 2)", &[]), Ok(Num::Int(-4)));
        assert_eq!(
            ev("max(min(3, 9), 2) * pow(2, 10)", &[]),
            Ok(Num::Int(3072))
        );
        assert_eq!(ev("7 / 2", &[]), Ok(Num::Float(3.5)));
        assert_eq!(ev("12 * n / (0.5 * 1e6)", &n), Ok(Num::Float(0.024)));
    }

    #[test]
    fn dotted_names_read_ncu_metrics() {
        let v = [
            ("dram__bytes_read.sum", Num::Float(2.0e9)),
            ("median_ms", Num::Float(1.0)),
        ];
        assert_eq!(
            ev("dram__bytes_read.sum / (median_ms * 1e6)", &v),
            Ok(Num::Float(2000.0))
        );
        assert_eq!(Expr::parse("a + b * a").unwrap().names(), ["a", "b"]);
    }

    #[test]
    fn errors_say_what_and_quote_the_expression() {
        let e = |s: &str| ev(s, &[("n", Num::Int(4)), ("zero", Num::Int(0))]).unwrap_err();
        assert_eq!(e("n / zero"), "division by zero in `n / zero`");
        assert_eq!(e("n % 0"), "division by zero in `n % 0`");
        assert_eq!(
            e("ceil_div(n, zero)"),
            "division by zero in ceil_div in `ceil_div(n, zero)`"
        );
        assert_eq!(e("1.5 / 0.0"), "division by zero in `1.5 / 0.0`");
        assert_eq!(e("rows * cols"), "unknown name `rows` in `rows * cols`");
        assert_eq!(
            e("9223372036854775807 + n"),
            "integer overflow in `9223372036854775807 + n`"
        );
        assert_eq!(e("1 << 62 << 2"), "integer overflow in `1 << 62 << 2`");
        assert_eq!(e("pow(n, 40)"), "integer overflow in `pow(n, 40)`");
        assert_eq!(
            e("1e300 * 1e300"),
            "overflow (the result is not a finite number) in `1e300 * 1e300`"
        );
        assert!(Expr::parse("n +").unwrap_err().contains("ends too early"));
        assert!(Expr::parse("ceil(n)")
            .unwrap_err()
            .contains("unknown function `ceil`"));
        assert!(Expr::parse("min(n)")
            .unwrap_err()
            .contains("takes 2 arguments, not 1"));
        assert!(Expr::parse("n $ 2").unwrap_err().contains("unexpected `$`"));
        assert!(Expr::parse("(n + 1").unwrap_err().contains("missing `)`"));
        assert!(Expr::parse("").unwrap_err().contains("empty"));
        let whole = Expr::parse("n / 3").unwrap();
        let err = whole.eval_int(&|_| Some(Num::Int(4))).unwrap_err();
        assert!(err.contains("is not a whole number"), "{err}");
    }

    #[test]
    fn integer_division_at_the_edge_of_64_bits_is_an_error_not_a_panic() {
        let min = "(-9223372036854775807 - 1)";
        for src in [
            format!("ceil_div({min}, -1)"),
            format!("floor_div({min}, -1)"),
            format!("{min} / -1"),
            format!("{min} % -1"),
        ] {
            let err = ev(&src, &[]).unwrap_err();
            assert!(err.starts_with("integer overflow"), "{src}: {err}");
        }
        assert_eq!(ev(&format!("{min} / 1"), &[]), Ok(Num::Int(i64::MIN)));
        assert_eq!(
            ev(&format!("floor_div({min}, 1)"), &[]),
            Ok(Num::Int(i64::MIN))
        );
    }

    #[test]
    fn ceil_and_floor_division_round_the_true_quotient_for_either_sign() {
        for (x, y) in [
            (7, 2),
            (-7, 2),
            (7, -2),
            (-7, -2),
            (6, 3),
            (-6, 3),
            (6, -3),
            (0, -5),
        ] {
            let exact = x as f64 / y as f64;
            let got = |f: &str| ev(&format!("{f}({x}, {y})"), &[]).unwrap();
            assert_eq!(
                got("ceil_div"),
                Num::Int(exact.ceil() as i64),
                "ceil {x}/{y}"
            );
            assert_eq!(
                got("floor_div"),
                Num::Int(exact.floor() as i64),
                "floor {x}/{y}"
            );
        }
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_an_error_quoting_the_start() {
        let deep = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(ev(&deep(MAX_DEPTH / 2 - 1), &[]), Ok(Num::Int(1)));
        for src in [
            deep(20_000),
            format!("{}1", "-".repeat(20_000)),
            format!("{}1", "+".repeat(20_000)),
            format!("1{}", "+1".repeat(500_000)),
            format!("{}1{}", "min(1, ".repeat(20_000), ")".repeat(20_000)),
        ] {
            let err = Expr::parse(&src).unwrap_err();
            assert!(err.starts_with(TOO_DEEP), "{err}");
            assert!(err.len() < 200, "the message quotes only the start: {err}");
        }
        // A long flat list of terms nests as deep as it is long (the tree is left-deep).
        assert!(Expr::parse(&format!("1{}", "+1".repeat(MAX_DEPTH - 2))).is_ok());
    }

    #[test]
    fn intervals_carry_through_an_expression_and_order_their_ends() {
        let e = Expr::parse("16 * n / (median_ms * 1e6)").unwrap();
        let span = |name: &str| match name {
            "n" => Some((1000.0, 1000.0)),
            "median_ms" => Some((0.9, 1.1)),
            _ => None,
        };
        let (lo, hi) = e.eval_interval(&span).unwrap();
        // Bandwidth falls as time rises: the slow end of time is the low end of bandwidth.
        assert!((lo - 16000.0 / 1.1e6).abs() < 1e-12 && (hi - 16000.0 / 0.9e6).abs() < 1e-12);
        let two = Expr::parse("median_ms - other_ms + min(median_ms, 2)").unwrap();
        let span2 = |n: &str| match n {
            "median_ms" => Some((1.0, 2.0)),
            "other_ms" => Some((0.5, 1.0)),
            _ => None,
        };
        assert_eq!(two.eval_interval(&span2).unwrap(), (1.0, 3.5));
        let zero = Expr::parse("1 / (median_ms - 1.5)").unwrap();
        assert!(zero
            .eval_interval(&span2)
            .unwrap_err()
            .contains("contains zero"));
        let rem = Expr::parse("median_ms % 2").unwrap();
        assert!(rem.eval_interval(&span2).is_err());
        assert_eq!(
            Expr::parse("n % 7").unwrap().eval_interval(&span).unwrap(),
            (6.0, 6.0)
        );
    }
}
