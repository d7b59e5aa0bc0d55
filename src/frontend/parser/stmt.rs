//! Statements and declarations of device-function bodies (part of [`super::Parser`]):
//! blocks, `if`/`while`/`do`/`for`, jumps, declarations `T d1, d2 = e, a[N];`, the
//! cooperative-groups barrier idioms, and errors naming every unsupported statement.

use super::{PResult, Parser, BASE_WORDS, QUALS};
use crate::frontend::ast::*;
use crate::frontend::diag::{Pos, MAX_NESTING};

impl Parser<'_> {
    pub(super) fn block_body(&mut self) -> PResult<Vec<Stmt>> {
        self.expect("{")?;
        let mut v = Vec::new();
        while !self.at("}") {
            if self.peek().is_none() {
                return self.err("unterminated block: expected `}` before end of file");
            }
            v.push(self.stmt()?);
        }
        self.i += 1;
        Ok(v)
    }

    pub(super) fn starts_decl(&self) -> bool {
        match self.peek() {
            Some(t) if self.is_type_word(t) => {
                // `uint(x)` style constructor casts are not declarations; identifiers used as
                // typedef names followed by `(` neither.
                !self.peek_at(1).map(|n| n.is("(")).unwrap_or(false)
                    || BASE_WORDS.contains(&t.ident().unwrap_or(""))
            }
            _ => false,
        }
    }

    pub(super) fn stmt(&mut self) -> PResult<Stmt> {
        self.depth += 1;
        let r = if self.depth > MAX_NESTING {
            self.too_deep()
        } else {
            self.stmt_inner()
        };
        self.depth -= 1;
        r
    }

    pub(super) fn stmt_inner(&mut self) -> PResult<Stmt> {
        let pos = self.pos();
        let Some(t) = self.peek() else {
            return self.err("expected a statement, found end of file");
        };
        if t.is("{") {
            let b = self.block_body()?;
            return Ok(Stmt {
                kind: StmtKind::Block(b),
                pos,
            });
        }
        if t.is(";") {
            self.i += 1;
            return Ok(Stmt {
                kind: StmtKind::Empty,
                pos,
            });
        }
        if let Some(w) = t.ident() {
            if let Some(st) = self.keyword_stmt(w, pos)? {
                return Ok(st);
            }
            // cooperative groups: `[cg::]thread_block b = [cg::]this_thread_block();` is
            // dropped; `[cg::]sync(b);`, `[cg::]synchronize(b);`, `b.sync();` are the barrier
            // of the whole block, i.e. `__syncthreads()`. Other groups are errors.
            if let Some(st) = self.cooperative_groups(pos)? {
                return Ok(st);
            }
            // a label `name:`
            if self.peek_at(1).map(|n| n.is(":")) == Some(true) {
                return self.err(format!(
                    "label `{w}:` (goto targets) is not supported by warpcert"
                ));
            }
        }
        if self.starts_decl() {
            let k = self.decl_stmt()?;
            return Ok(Stmt { kind: k, pos });
        }
        let e = self.checked(Self::expr)?;
        self.expect(";")?;
        Ok(Stmt {
            kind: StmtKind::Expr(e),
            pos,
        })
    }

    /// The statement starting with keyword `w` at `pos` (`if`, loops, jumps), an error
    /// naming an unsupported statement, or `None` when `w` starts no such statement.
    fn keyword_stmt(&mut self, w: &str, pos: Pos) -> PResult<Option<Stmt>> {
        match w {
            "if" => {
                self.i += 1;
                self.expect("(")?;
                let c = self.checked(Self::expr)?;
                self.expect(")")?;
                let a = self.stmt()?;
                let b = if self.at_ident("else") {
                    self.i += 1;
                    Some(Box::new(self.stmt()?))
                } else {
                    None
                };
                return Ok(Some(Stmt {
                    kind: StmtKind::If(c, Box::new(a), b),
                    pos,
                }));
            }
            "while" => {
                self.i += 1;
                self.expect("(")?;
                let c = self.checked(Self::expr)?;
                self.expect(")")?;
                let b = self.stmt()?;
                return Ok(Some(Stmt {
                    kind: StmtKind::While(c, Box::new(b)),
                    pos,
                }));
            }
            "do" => return self.do_stmt(pos).map(Some),
            "for" => return self.for_stmt(pos).map(Some),
            "break" | "continue" => {
                self.i += 1;
                self.expect(";")?;
                return Ok(Some(Stmt {
                    kind: if w == "break" {
                        StmtKind::Break
                    } else {
                        StmtKind::Continue
                    },
                    pos,
                }));
            }
            "return" => {
                self.i += 1;
                let e = if self.at(";") {
                    None
                } else {
                    Some(self.checked(Self::expr)?)
                };
                self.expect(";")?;
                return Ok(Some(Stmt {
                    kind: StmtKind::Return(e),
                    pos,
                }));
            }
            "goto" | "switch" | "case" | "default" | "asm" | "__asm__" | "try" | "throw" => {
                return self.err(format!(
                    "`{w}` is not supported by warpcert (cannot be modelled in miniCUDA)"
                ));
            }
            "struct" | "union" | "class" | "enum" => {
                return self.err(format!(
                    "`{w}` declarations are not supported by warpcert (structs cannot be modelled)"
                ));
            }
            "template" => return self.err("templates are not supported by warpcert"),
            _ => {}
        }
        Ok(None)
    }

    /// `for (init; cond; step) body`, after the keyword `for` (at `pos`).
    fn for_stmt(&mut self, pos: Pos) -> PResult<Stmt> {
        self.i += 1;
        self.expect("(")?;
        let init = if self.at(";") {
            self.i += 1;
            None
        } else if self.starts_decl() {
            let ipos = self.pos();
            let k = self.decl_stmt()?;
            Some(Box::new(Stmt { kind: k, pos: ipos }))
        } else {
            let ipos = self.pos();
            let e = self.checked(Self::expr)?;
            self.expect(";")?;
            Some(Box::new(Stmt {
                kind: StmtKind::Expr(e),
                pos: ipos,
            }))
        };
        let cond = if self.at(";") {
            None
        } else {
            Some(self.checked(Self::expr)?)
        };
        self.expect(";")?;
        let step = if self.at(")") {
            None
        } else {
            Some(self.checked(Self::expr)?)
        };
        self.expect(")")?;
        let body = self.stmt()?;
        Ok(Stmt {
            kind: StmtKind::For(init, cond, step, Box::new(body)),
            pos,
        })
    }

    /// `do body while (cond);`, after the keyword `do` (at `pos`).
    fn do_stmt(&mut self, pos: Pos) -> PResult<Stmt> {
        self.i += 1;
        let b = self.stmt()?;
        if !self.at_ident("while") {
            return self.err(format!(
                "expected `while` after `do` body, found {}",
                self.found()
            ));
        }
        self.i += 1;
        self.expect("(")?;
        let c = self.checked(Self::expr)?;
        self.expect(")")?;
        self.expect(";")?;
        Ok(Stmt {
            kind: StmtKind::DoWhile(Box::new(b), c),
            pos,
        })
    }

    /// Recognizes the cooperative-groups idioms at the current statement (see `stmt`).
    pub(super) fn cooperative_groups(&mut self, pos: Pos) -> PResult<Option<Stmt>> {
        let ns = usize::from(self.peek_at(1).map(|n| n.is("::")) == Some(true)) * 2;
        let what = self.peek_at(ns).and_then(|t| t.ident()).unwrap_or("");
        let next_ident = self.peek_at(ns + 1).and_then(|t| t.ident());
        if what == "thread_block" {
            if let Some(h) = next_ident {
                self.cg_handles.insert(h.to_string());
                while !self.at(";") && self.peek().is_some() {
                    self.i += 1;
                }
                self.expect(";")?;
                return Ok(Some(Stmt {
                    kind: StmtKind::Empty,
                    pos,
                }));
            }
        }
        if next_ident.is_some()
            && matches!(
                what,
                "grid_group"
                    | "thread_group"
                    | "thread_block_tile"
                    | "coalesced_group"
                    | "multi_grid_group"
            )
        {
            return self.err(format!(
                "cooperative group `{what}` (grid-wide or sub-block synchronization) cannot be modelled in miniCUDA"
            ));
        }
        let arg = self.peek_at(ns + 2).and_then(|t| t.ident()).unwrap_or("");
        if matches!(what, "sync" | "synchronize")
            && self.peek_at(ns + 1).map(|t| t.is("(")) == Some(true)
            && self.cg_handles.contains(arg)
            && self.peek_at(ns + 3).map(|t| t.is(")")) == Some(true)
        {
            self.i += ns + 4;
            self.expect(";")?;
            return Ok(Some(sync_stmt(pos)));
        }
        if ns == 0
            && self.cg_handles.contains(what)
            && self.peek_at(1).map(|t| t.is(".")) == Some(true)
            && self.peek_at(2).and_then(|t| t.ident()) == Some("sync")
            && self.peek_at(3).map(|t| t.is("(")) == Some(true)
            && self.peek_at(4).map(|t| t.is(")")) == Some(true)
        {
            self.i += 5;
            self.expect(";")?;
            return Ok(Some(sync_stmt(pos)));
        }
        Ok(None)
    }

    /// `T d1, d2 = e, *p, a[N][M];` (consumes the `;`).
    pub(super) fn decl_stmt(&mut self) -> PResult<StmtKind> {
        let mut shared = false;
        let mut is_extern = false;
        let mut k = self.i;
        while let Some(t) = self.toks.get(k) {
            match t.ident() {
                Some("__shared__") => shared = true,
                Some("extern") => is_extern = true,
                Some(w) if QUALS.contains(&w) || BASE_WORDS.contains(&w) => {}
                _ => break,
            }
            k += 1;
        }
        let base = self.parse_type(false)?;
        let mut decls = Vec::new();
        loop {
            let mut ty = base.clone();
            self.ptr_part(&mut ty);
            let (name, pos) = self.ident()?;
            let mut dims = Vec::new();
            while self.at("[") {
                self.i += 1;
                if self.at("]") {
                    dims.push(None);
                } else {
                    dims.push(Some(self.checked(Self::expr)?));
                }
                self.expect("]")?;
            }
            let init = if self.at("=") {
                self.i += 1;
                if self.at("{") {
                    return self.err("initializer lists `{…}` are not supported by warpcert");
                }
                Some(self.checked(Self::assign_expr)?)
            } else if self.at("(") {
                return self.err(format!(
                    "constructor-style initialization of `{name}` is not supported by warpcert"
                ));
            } else {
                None
            };
            decls.push(Decl {
                name,
                ty,
                dims,
                init,
                shared,
                is_extern,
                pos,
            });
            if self.at(",") {
                self.i += 1;
                continue;
            }
            break;
        }
        self.expect(";")?;
        Ok(StmtKind::Decl(decls))
    }
}

fn sync_stmt(pos: Pos) -> Stmt {
    let callee = Expr {
        kind: ExprKind::Ident("__syncthreads".to_string()),
        pos,
    };
    Stmt {
        kind: StmtKind::Expr(Expr {
            kind: ExprKind::Call(Box::new(callee), Vec::new()),
            pos,
        }),
        pos,
    }
}
