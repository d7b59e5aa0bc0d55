//! The published bounds `warpcert bench` compares with: `spec/published-bounds.csv`, one row
//! per kernel, metric and paper (RaCUDA Tables 4–7, Pico Table 1; `../shared/targets.md`),
//! compiled into the binary. The value column is a small expression language (numbers,
//! names, `+ - * /`, parentheses, `max(a, b)`) evaluated in floating point: the papers
//! print decimals, and the comparison allows a relative tolerance.

use crate::core::MetricName;
use std::collections::BTreeMap;

/// The table's text (`spec/published-bounds.csv`).
pub const TABLE: &str = include_str!("../../spec/published-bounds.csv");

/// Parameter values of a comparison point (a missing parameter counts as 0).
pub type Env = BTreeMap<String, f64>;

/// A published bound's value as a function of the parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    /// A number.
    Num(f64),
    /// A parameter.
    Var(String),
    /// `a + b`, `a - b`, `a * b`, `a / b` (the operator character).
    Bin(char, Box<Formula>, Box<Formula>),
    /// `max(a, b)`.
    Max(Box<Formula>, Box<Formula>),
}

impl Formula {
    /// The value at `env`.
    pub fn eval(&self, env: &Env) -> f64 {
        match self {
            Formula::Num(x) => *x,
            Formula::Var(v) => env.get(v).copied().unwrap_or(0.0),
            Formula::Bin(op, a, b) => {
                let (a, b) = (a.eval(env), b.eval(env));
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    _ => a / b,
                }
            }
            Formula::Max(a, b) => b.eval(env).max(a.eval(env)),
        }
    }

    /// Parses `text`; errors name what was expected.
    pub fn parse(text: &str) -> Result<Formula, String> {
        let toks = tokens(text)?;
        let mut p = Parser { toks, i: 0 };
        let f = p.sum()?;
        match p.toks.get(p.i) {
            None => Ok(f),
            Some(t) => Err(format!("unexpected `{t}` in `{text}`")),
        }
    }
}

fn tokens(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let cs: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if "+-*/(),".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
            let start = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '.' || cs[i] == '_') {
                i += 1;
            }
            out.push(cs[start..i].iter().collect());
        } else {
            return Err(format!("unexpected character `{c}` in `{text}`"));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<String>,
    i: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(String::as_str)
    }
    fn expect(&mut self, t: &str) -> Result<(), String> {
        if self.peek() == Some(t) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected `{t}`, found {:?}", self.peek()))
        }
    }
    /// `sum := product (('+' | '-') product)*`, left-associative.
    fn sum(&mut self) -> Result<Formula, String> {
        let mut f = self.product()?;
        while let Some(op @ ("+" | "-")) = self.peek() {
            let op = op.chars().next().unwrap_or('+');
            self.i += 1;
            f = Formula::Bin(op, Box::new(f), Box::new(self.product()?));
        }
        Ok(f)
    }
    /// `product := atom (('*' | '/') atom)*`, left-associative.
    fn product(&mut self) -> Result<Formula, String> {
        let mut f = self.atom()?;
        while let Some(op @ ("*" | "/")) = self.peek() {
            let op = op.chars().next().unwrap_or('*');
            self.i += 1;
            f = Formula::Bin(op, Box::new(f), Box::new(self.atom()?));
        }
        Ok(f)
    }
    /// `atom := number | name | 'max' '(' sum ',' sum ')' | '(' sum ')'`.
    fn atom(&mut self) -> Result<Formula, String> {
        let Some(t) = self.peek().map(str::to_string) else {
            return Err("unexpected end of the formula".into());
        };
        self.i += 1;
        if t == "(" {
            let f = self.sum()?;
            self.expect(")")?;
            return Ok(f);
        }
        if t == "max" {
            self.expect("(")?;
            let a = self.sum()?;
            self.expect(",")?;
            let b = self.sum()?;
            self.expect(")")?;
            return Ok(Formula::Max(Box::new(a), Box::new(b)));
        }
        if let Ok(x) = t.parse::<f64>() {
            return Ok(Formula::Num(x));
        }
        if t.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Ok(Formula::Var(t));
        }
        Err(format!("unexpected `{t}`"))
    }
}

/// A published bound: its text as printed, its value (`None`: no bound), and whether it is
/// known incorrect (tags M and R of Pico Table 1).
#[derive(Clone, Debug, PartialEq)]
pub struct Published {
    /// The bound as printed in the paper.
    pub text: &'static str,
    /// The value column: the bound as a claim (`warpcert claim`'s notation).
    pub value: &'static str,
    /// Its value.
    pub f: Option<Formula>,
    /// Known incorrect.
    pub incorrect: bool,
}

/// Which paper a row comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// RaCUDA (Muller & Hoffmann 2024), Tables 4–7.
    RaCuda,
    /// Pico (2026), Table 1.
    Pico,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The bench row's kernel name.
    pub kernel: &'static str,
    /// The metric.
    pub metric: MetricName,
    /// The paper.
    pub source: Source,
    /// The bound.
    pub bound: Published,
    /// Where in the paper.
    pub citation: &'static str,
}

/// Splits one CSV line ([`crate::claim::table::csv_fields`]).
fn fields(line: &'static str) -> Result<Vec<&'static str>, String> {
    crate::claim::table::csv_fields(line)
}

/// The rows of [`TABLE`] (comment lines start with `#`; the first other line is the
/// header). Errors name the line.
pub fn table() -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    let lines = TABLE
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1);
    for (n, line) in lines {
        let at = |e: String| format!("spec/published-bounds.csv:{}: {e}", n + 1);
        let f = fields(line).map_err(at)?;
        let [kernel, metric, source, status, text, value, citation] = f[..] else {
            return Err(at(format!("expected 7 fields, found {}", f.len())));
        };
        let metric: MetricName = metric.parse().map_err(at)?;
        let source = match source {
            "RaCUDA" => Source::RaCuda,
            "Pico" => Source::Pico,
            s => return Err(at(format!("source `{s}` (RaCUDA or Pico)"))),
        };
        let (f, incorrect) = match status {
            "none" => (None, false),
            "ok" | "incorrect" => (
                Some(Formula::parse(value).map_err(at)?),
                status == "incorrect",
            ),
            s => return Err(at(format!("status `{s}` (ok, incorrect or none)"))),
        };
        rows.push(Row {
            kernel,
            metric,
            source,
            bound: Published {
                text,
                value,
                f,
                incorrect,
            },
            citation,
        });
    }
    Ok(rows)
}

/// The bound of `kernel` for `metric` from `source`, if the table has one.
pub fn lookup(rows: &[Row], kernel: &str, source: Source, metric: MetricName) -> Option<Published> {
    rows.iter()
        .find(|r| r.kernel == kernel && r.source == source && r.metric == metric)
        .map(|r| r.bound.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table parses, and has four RaCUDA rows (one per metric) for each of the 18
    /// benchmark kernels of `warpcert bench`.
    #[test]
    fn the_table_parses_and_has_every_racuda_row() {
        let rows = table().unwrap();
        let kernels: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.kernel).collect();
        assert_eq!(kernels.len(), 18, "{kernels:?}");
        for k in &kernels {
            for m in MetricName::ALL {
                assert!(lookup(&rows, k, Source::RaCuda, m).is_some(), "{k} {m}");
            }
        }
    }

    /// Spot checks against `../shared/targets.md` (the papers' tables, read by hand):
    /// vectorAdd steps 27 (RaCUDA Table 7), reduce1 conflicts 23715 (Pico Table 1),
    /// addSub0 sectors 66 w (Pico Table 1), reduce2 divwarps no bound (RaCUDA Table 6),
    /// matrixMul sectors tagged M (incorrect), and the `max(0, …)` of RaCUDA's atoms.
    #[test]
    fn rows_agree_with_the_papers() {
        let rows = table().unwrap();
        let env = |k: &str, x: f64| Env::from([(k.to_string(), x)]);
        let get = |k, s, m| lookup(&rows, k, s, m).unwrap();
        let va = get("vectorAdd", Source::RaCuda, MetricName::Steps);
        assert_eq!(va.f.unwrap().eval(&Env::new()), 27.0);
        let r1 = get("reduce1", Source::Pico, MetricName::Conflicts);
        assert_eq!(r1.f.unwrap().eval(&Env::new()), 23715.0);
        let a0 = get("addSub0", Source::Pico, MetricName::Sectors);
        assert_eq!(
            (a0.text, a0.f.unwrap().eval(&env("w", 3.0))),
            ("66 w", 198.0)
        );
        assert_eq!(get("reduce2", Source::RaCuda, MetricName::Divwarps).f, None);
        assert!(get("matrixMul", Source::RaCuda, MetricName::Sectors).incorrect);
        let a2 = get("addSub2", Source::RaCuda, MetricName::Sectors)
            .f
            .unwrap();
        assert_eq!(
            (a2.eval(&env("h", 2.0)), a2.eval(&env("h", -5.0))),
            (42.0, 0.0)
        );
    }

    #[test]
    fn formulas_parse_left_associatively_and_reject_junk() {
        let f = Formula::parse("75 + 1621/32*max(0, 31 + wA)").unwrap();
        let e = Env::from([("wA".to_string(), 1.0)]);
        assert_eq!(f.eval(&e), 75.0 + 1621.0 / 32.0 * 32.0);
        assert_eq!(Formula::parse("8 - 2 - 1").unwrap().eval(&Env::new()), 5.0);
        assert!(Formula::parse("2 +").is_err());
        assert!(Formula::parse("max(1 2)").is_err());
        assert!(Formula::parse("3 $").is_err());
    }
}
