//! One expression, as an experiment file's param, size or metric holds it: parsed, then
//! evaluated exactly (every name a small or extreme integer) and as an interval.
#![no_main]

use glossary::measure::spec::{Expr, Num};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let Ok(e) = Expr::parse(text) else {
        return;
    };
    let _ = e.names();
    for value in [Num::Int(3), Num::Int(-1), Num::Int(i64::MIN), Num::Int(i64::MAX), Num::Float(0.5)] {
        let _ = e.eval(&|_| Some(value));
        let _ = e.eval_int(&|_| Some(value));
    }
    let _ = e.eval_interval(&|_| Some((0.5, 2.0)));
});
