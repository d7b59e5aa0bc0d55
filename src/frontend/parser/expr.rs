//! Expressions (part of [`super::Parser`]): precedence climbing for binary operators,
//! unary operators, casts, `sizeof`, postfix forms and primaries.
//!
//! Nesting is limited to [`MAX_NESTING`] levels: the recursion (assignments, unary operators,
//! parentheses) counts in `Parser::depth`, chains of binary operators and postfix forms
//! (which the parser builds in loops) count one level per operator, and every expression a
//! statement holds is measured once, iteratively ([`Parser::checked`]).

use super::{PResult, Parser, QUALS};
use crate::frontend::ast::*;
use crate::frontend::diag::{Pos, MAX_NESTING};
use crate::frontend::lexer::TokKind;

impl Parser<'_> {
    /// The error for input nested deeper than [`MAX_NESTING`], at the current token.
    pub(super) fn too_deep<T>(&self) -> PResult<T> {
        Err(self.sm.limit(
            self.pos(),
            format!("nesting too deep: more than warpcert's limit of {MAX_NESTING} levels (statements, subexpressions and parentheses)"),
        ))
    }

    /// Counts one more link of an operator chain built in a loop (`a + b + …`, `a[i][j]…`,
    /// `a, b, …`); the chain and the recursion around it stay within [`MAX_NESTING`].
    fn chained(&self, chain: &mut usize) -> PResult<()> {
        *chain += 1;
        if self.depth + *chain > MAX_NESTING {
            return self.too_deep();
        }
        Ok(())
    }

    /// Parses an expression of a statement with `parse` and checks its depth exactly
    /// (iteratively): at most [`MAX_NESTING`] levels, else an error at its position.
    pub(super) fn checked(&mut self, parse: fn(&mut Self) -> PResult<Expr>) -> PResult<Expr> {
        let at = self.i;
        let e = parse(self)?;
        if depth_exceeds(&e, MAX_NESTING) {
            let pos = self.toks.get(at).map_or(e.pos, |t| t.pos);
            return Err(self.sm.limit(
                pos,
                format!("this expression nests deeper than warpcert's limit of {MAX_NESTING} levels (each operator of a chain `a + b + …` is one level)"),
            ));
        }
        Ok(e)
    }

    /// Full expression including the comma operator.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        let mut e = self.assign_expr()?;
        let mut chain = 0;
        while self.at(",") {
            self.chained(&mut chain)?;
            let pos = self.pos();
            self.i += 1;
            let r = self.assign_expr()?;
            e = Expr {
                kind: ExprKind::Binary(BinaryOp::Comma, Box::new(e), Box::new(r)),
                pos,
            };
        }
        Ok(e)
    }

    pub(super) fn assign_expr(&mut self) -> PResult<Expr> {
        self.depth += 1;
        let r = if self.depth > MAX_NESTING {
            self.too_deep()
        } else {
            self.assign_expr_inner()
        };
        self.depth -= 1;
        r
    }

    pub(super) fn assign_expr_inner(&mut self) -> PResult<Expr> {
        let lhs = self.cond_expr()?;
        let op = match self.peek().map(|t| &t.kind) {
            Some(TokKind::Punct(p)) => match *p {
                "=" => Some(None),
                "+=" => Some(Some(BinaryOp::Add)),
                "-=" => Some(Some(BinaryOp::Sub)),
                "*=" => Some(Some(BinaryOp::Mul)),
                "/=" => Some(Some(BinaryOp::Div)),
                "%=" => Some(Some(BinaryOp::Rem)),
                "<<=" => Some(Some(BinaryOp::Shl)),
                ">>=" => Some(Some(BinaryOp::Shr)),
                "&=" => Some(Some(BinaryOp::BitAnd)),
                "|=" => Some(Some(BinaryOp::BitOr)),
                "^=" => Some(Some(BinaryOp::BitXor)),
                _ => None,
            },
            _ => None,
        };
        match op {
            Some(op) => {
                let pos = lhs.pos;
                self.i += 1;
                let rhs = self.assign_expr()?;
                Ok(Expr {
                    kind: ExprKind::Assign(op, Box::new(lhs), Box::new(rhs)),
                    pos,
                })
            }
            None => Ok(lhs),
        }
    }

    pub(super) fn cond_expr(&mut self) -> PResult<Expr> {
        let c = self.bin_expr(0)?;
        if self.at("?") {
            let pos = c.pos;
            self.i += 1;
            let a = self.expr()?;
            self.expect(":")?;
            let b = self.cond_expr()?;
            return Ok(Expr {
                kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                pos,
            });
        }
        Ok(c)
    }

    pub(super) fn bin_op(p: &str) -> Option<(BinaryOp, u8)> {
        use BinaryOp::*;
        Some(match p {
            "||" => (LOr, 1),
            "&&" => (LAnd, 2),
            "|" => (BitOr, 3),
            "^" => (BitXor, 4),
            "&" => (BitAnd, 5),
            "==" => (Eq, 6),
            "!=" => (Ne, 6),
            "<" => (Lt, 7),
            ">" => (Gt, 7),
            "<=" => (Le, 7),
            ">=" => (Ge, 7),
            "<<" => (Shl, 8),
            ">>" => (Shr, 8),
            "+" => (Add, 9),
            "-" => (Sub, 9),
            "*" => (Mul, 10),
            "/" => (Div, 10),
            "%" => (Rem, 10),
            _ => return None,
        })
    }

    pub(super) fn bin_expr(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        let mut chain = 0;
        while let Some(TokKind::Punct(p)) = self.peek().map(|t| &t.kind) {
            let Some((op, prec)) = Self::bin_op(p) else {
                break;
            };
            if prec <= min {
                break;
            }
            self.chained(&mut chain)?;
            let pos = self.pos();
            self.i += 1;
            let rhs = self.bin_expr(prec)?;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                pos,
            };
        }
        Ok(lhs)
    }

    pub(super) fn cast_ahead(&self) -> bool {
        self.at("(")
            && self
                .peek_at(1)
                .map(|t| self.is_type_word(t))
                .unwrap_or(false)
    }

    pub(super) fn unary(&mut self) -> PResult<Expr> {
        self.depth += 1;
        let r = if self.depth > MAX_NESTING {
            self.too_deep()
        } else {
            self.unary_inner()
        };
        self.depth -= 1;
        r
    }

    pub(super) fn unary_inner(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let Some(t) = self.peek() else {
            return self.err("expected an expression, found end of file");
        };
        let un = match &t.kind {
            TokKind::Punct("-") => Some(UnaryOp::Neg),
            TokKind::Punct("+") => Some(UnaryOp::Plus),
            TokKind::Punct("!") => Some(UnaryOp::Not),
            TokKind::Punct("~") => Some(UnaryOp::BitNot),
            TokKind::Punct("*") => Some(UnaryOp::Deref),
            TokKind::Punct("&") => Some(UnaryOp::AddrOf),
            _ => None,
        };
        if let Some(op) = un {
            self.i += 1;
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                pos,
            });
        }
        if t.is("++") || t.is("--") {
            let inc = t.is("++");
            self.i += 1;
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::IncDec {
                    pre: true,
                    inc,
                    e: Box::new(e),
                },
                pos,
            });
        }
        if self.cast_ahead() {
            self.i += 1;
            let ty = self.parse_type(true)?;
            self.expect(")")?;
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Cast(ty, Box::new(e)),
                pos,
            });
        }
        if t.ident() == Some("sizeof") {
            self.i += 1;
            if self.cast_ahead() {
                self.i += 1;
                let ty = self.parse_type(true)?;
                self.expect(")")?;
                if ty.ptr == 0 && matches!(&ty.base, BaseTy::Named(n) if self.is_tparam_type(n)) {
                    return Ok(Expr {
                        kind: ExprKind::SizeofType(ty),
                        pos,
                    });
                }
                let n = if ty.ptr > 0 { Some(8) } else { ty.base_bytes() };
                return Ok(Expr {
                    kind: ExprKind::Sizeof(n),
                    pos,
                });
            }
            let _ = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Sizeof(None),
                pos,
            });
        }
        self.postfix()
    }

    pub(super) fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        let mut chain = 0;
        loop {
            self.chained(&mut chain)?;
            let pos = self.pos();
            if self.at("[") {
                self.i += 1;
                let idx = self.expr()?;
                self.expect("]")?;
                let bp = e_pos(&e);
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(idx)),
                    pos: bp,
                };
            } else if self.at("(") {
                self.i += 1;
                let mut args = Vec::new();
                while !self.at(")") {
                    args.push(self.assign_expr()?);
                    if !self.at(")") {
                        self.expect(",")?;
                    }
                }
                self.i += 1;
                e = Expr {
                    kind: ExprKind::Call(Box::new(e.clone()), args),
                    pos: e.pos,
                };
            } else if self.at(".") || self.at("->") {
                let arrow = self.at("->");
                self.i += 1;
                let (f, _) = self.ident()?;
                let p = e.pos;
                e = Expr {
                    kind: if arrow {
                        ExprKind::Arrow(Box::new(e), f)
                    } else {
                        ExprKind::Member(Box::new(e), f)
                    },
                    pos: p,
                };
            } else if self.at("++") || self.at("--") {
                let inc = self.at("++");
                self.i += 1;
                let p = e.pos;
                e = Expr {
                    kind: ExprKind::IncDec {
                        pre: false,
                        inc,
                        e: Box::new(e),
                    },
                    pos: p,
                };
            } else if self.at("<<<")
                || (self.at("<<") && self.peek_at(1).map(|t| t.is("<")) == Some(true))
            {
                let _ = pos;
                return self.err(
                    "kernel launch `<<<…>>>` inside device code is not supported by warpcert",
                );
            } else {
                break;
            }
        }
        Ok(e)
    }

    pub(super) fn primary(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let Some(t) = self.peek() else {
            return self.err("expected an expression, found end of file");
        };
        let kind = match &t.kind {
            TokKind::Int(n) => ExprKind::Int(*n),
            TokKind::Float(x) => ExprKind::Float(*x),
            TokKind::Str(s) => ExprKind::Str(s.clone()),
            TokKind::Ident(s) => {
                if s == "true" || s == "false" {
                    ExprKind::Int((s == "true") as i64)
                } else if self.peek_at(1).map(|n| n.is("::")) == Some(true) {
                    return self.err(format!(
                        "C++ scope `{s}::…` (namespaces, cooperative groups) is not supported by warpcert"
                    ));
                } else if self.peek_at(1).map(|n| n.is("<")) == Some(true)
                    && self.templates.contains(s.as_str())
                {
                    // `f<T1, T2>`: explicit template arguments (types only)
                    let name = s.clone();
                    self.i += 2;
                    let mut targs = Vec::new();
                    loop {
                        if !self.peek().map(|t| self.is_type_word(t)).unwrap_or(false) {
                            return self.err(format!(
                                "template argument {} of `{name}<…>` is not a type: non-type template arguments are not supported by warpcert",
                                self.found()
                            ));
                        }
                        targs.push(self.parse_type(true)?);
                        if self.at(",") {
                            self.i += 1;
                            continue;
                        }
                        break;
                    }
                    if !self.at(">") {
                        return self.err(format!(
                            "template arguments of `{name}<…>`: expected `>` after a type, found {} (only type arguments are supported by warpcert)",
                            self.found()
                        ));
                    }
                    self.i += 1;
                    return Ok(Expr {
                        kind: ExprKind::Inst(name, targs),
                        pos,
                    });
                } else if self.peek_at(1).map(|n| n.is("(")) == Some(true)
                    && self.is_type_word(t)
                    && !QUALS.contains(&s.as_str())
                {
                    // functional cast `T(e)`, `float(e)`, `uint(e)`
                    let ty = self.parse_type(false)?;
                    self.expect("(")?;
                    let e = self.expr()?;
                    self.expect(")")?;
                    return Ok(Expr {
                        kind: ExprKind::Cast(ty, Box::new(e)),
                        pos,
                    });
                } else {
                    ExprKind::Ident(s.clone())
                }
            }
            TokKind::Punct("(") => {
                self.i += 1;
                let e = self.expr()?;
                self.expect(")")?;
                return Ok(e);
            }
            _ => return self.err(format!("expected an expression, found {}", t.describe())),
        };
        self.i += 1;
        Ok(Expr { kind, pos })
    }
}

fn e_pos(e: &Expr) -> Pos {
    e.pos
}

/// Whether the expression tree `e` is more than `limit` levels deep (iterative: no
/// recursion along the tree).
pub(crate) fn depth_exceeds(e: &Expr, limit: usize) -> bool {
    let mut stack: Vec<(&Expr, usize)> = vec![(e, 1)];
    while let Some((e, d)) = stack.pop() {
        if d > limit {
            return true;
        }
        match &e.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Ident(_)
            | ExprKind::Sizeof(_)
            | ExprKind::SizeofType(_)
            | ExprKind::Inst(..) => {}
            ExprKind::Member(a, _)
            | ExprKind::Arrow(a, _)
            | ExprKind::Unary(_, a)
            | ExprKind::IncDec { e: a, .. }
            | ExprKind::Cast(_, a) => stack.push((a, d + 1)),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => {
                stack.push((a, d + 1));
                stack.push((b, d + 1));
            }
            ExprKind::Cond(a, b, c) => {
                stack.extend([(&**a, d + 1), (&**b, d + 1), (&**c, d + 1)]);
            }
            ExprKind::Call(f, args) => {
                stack.push((f, d + 1));
                stack.extend(args.iter().map(|a| (a, d + 1)));
            }
            ExprKind::Opaque(_, args, _) => stack.extend(args.iter().map(|a| (a, d + 1))),
        }
    }
    false
}
