//! Declarations: locals, `__shared__` and `__device__` arrays and scalars, and array
//! dimensions evaluated under the launch constants.

use crate::core::{ArrayDecl, BinOp, Const, Dim, Expr, Operand, Space, Stmt, Ty};
use crate::frontend::ast::{self, ExprKind};
use crate::frontend::lower::expr::{bin_of, fold};
use crate::frontend::lower::{int, loc, var, Binding, Lw, R};

impl Lw<'_> {
    pub(super) fn const_dim(&mut self, e: &ast::Expr, arr: &str) -> R<Option<u64>> {
        let mut notes = Vec::new();
        let v = self.eval_dim(e, &mut notes)?;
        for n in notes {
            self.warnings.push(self.sm.warning(
                e.pos,
                format!("`__shared__` array `{arr}` sized by {n} (RaCUDA dialect, not valid CUDA)"),
            ));
        }
        Ok(v.and_then(|v| u64::try_from(v).ok()))
    }

    pub(super) fn eval_dim(&mut self, e: &ast::Expr, notes: &mut Vec<String>) -> R<Option<i64>> {
        Ok(match &e.kind {
            ExprKind::Int(n) => Some(*n),
            ExprKind::Sizeof(Some(n)) => Some(*n as i64),
            ExprKind::SizeofType(t) => Some(self.sizeof_type(t, e.pos)? as i64),
            ExprKind::Member(..) => match self.builtin(e) {
                Some(r) => {
                    let (o, _) = r?;
                    notes.push("the runtime value `blockDim`/`gridDim`".to_string());
                    match o {
                        Operand::Const(Const::Int(n)) => Some(n),
                        _ => None,
                    }
                }
                None => return self.err(e.pos, "array size must be a constant"),
            },
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Value(o, _)) => {
                    notes.push(format!("the parameter `{n}`"));
                    match o {
                        Operand::Const(Const::Int(v)) => Some(v),
                        _ => None,
                    }
                }
                Some(Binding::Local(..)) => {
                    notes.push(format!("the local variable `{n}`"));
                    None
                }
                _ if n == "warpSize" => Some(self.hw.warp_size as i64),
                _ => return self.err(e.pos, format!("array size `{n}` is not a constant")),
            },
            ExprKind::Binary(op, a, b) => {
                let x = self.eval_dim(a, notes)?;
                let y = self.eval_dim(b, notes)?;
                match (x, y, bin_of(*op)) {
                    (Some(x), Some(y), Some(o)) => fold(o, x, y),
                    _ => None,
                }
            }
            _ => return self.err(e.pos, "array size must be a constant expression"),
        })
    }

    /// A file-scope `__device__` variable: a global array (length 1 for a scalar, read and
    /// written at index 0 like a `__shared__` scalar). Its initializer is ignored with a
    /// warning: like every global array its contents are an input.
    /// The sizes of `d`'s dimensions (`None`: constant but not known, e.g. from a
    /// parameter). The first may be left out (`[]`) when `open_first` (an `extern`
    /// array); another missing size is the error `missing` (its `{}` is the array's name),
    /// a size 0 is an error at that size.
    fn array_dims(
        &mut self,
        d: &ast::Decl,
        open_first: bool,
        missing: &str,
    ) -> R<Vec<Option<u64>>> {
        let mut dims = Vec::new();
        for (k, de) in d.dims.iter().enumerate() {
            match de {
                Some(x) => {
                    let n = self.const_dim(x, &d.name)?;
                    if n == Some(0) {
                        return self.err(
                            x.pos,
                            format!("array `{}` has a dimension of size 0 (not valid C)", d.name),
                        );
                    }
                    dims.push(n)
                }
                None if k == 0 && open_first => dims.push(None),
                None => return self.err(d.pos, missing.replace("{}", &d.name)),
            }
        }
        Ok(dims)
    }

    pub(super) fn device_var_decl(&mut self, d: &ast::Decl) -> R<Binding> {
        if d.init.is_some() {
            self.warnings.push(self.sm.warning(
                d.pos,
                format!(
                    "initializer of `__device__`/`__constant__` variable `{}` ignored: global and constant memory contents are inputs of the analysis (any value)",
                    d.name
                ),
            ));
        }
        let (elem, bytes) = self.elem_of(&d.ty, d.pos)?;
        let dims = self.array_dims(d, false, "`__device__` array `{}` needs a size")?;
        let core = self.unique(&d.name);
        if self.unit.constant_vars.contains(&d.name) {
            self.constants.insert(core.clone());
        }
        let len = dims
            .iter()
            .try_fold(1u64, |acc, x| x.and_then(|x| acc.checked_mul(x)));
        self.arrays.push(ArrayDecl {
            name: core.clone(),
            space: Space::Global,
            elem,
            elem_bytes: bytes,
            len,
        });
        if dims.is_empty() {
            Ok(Binding::SharedScalar {
                core,
                elem,
                idx: int(0),
            })
        } else {
            Ok(Binding::Array { core, dims, elem })
        }
    }

    pub(super) fn shared_decl(&mut self, d: &ast::Decl) -> R<Binding> {
        if d.ty.ptr > 0 {
            return self.err(
                d.pos,
                format!("`__shared__` pointer `{}` cannot be modelled", d.name),
            );
        }
        if d.init.is_some() {
            return self.err(
                d.pos,
                format!(
                    "initializer on `__shared__` array `{}` is not valid CUDA",
                    d.name
                ),
            );
        }
        let (elem, bytes) = self.elem_of(&d.ty, d.pos)?;
        if d.dims.is_empty() {
            let core = match self.shared_by_pos.get(&d.pos) {
                Some(c) => c.clone(),
                None => {
                    let c = self.unique(&d.name);
                    self.arrays.push(ArrayDecl {
                        name: c.clone(),
                        space: Space::Shared,
                        elem,
                        elem_bytes: bytes,
                        len: Some(1),
                    });
                    self.shared_by_pos.insert(d.pos, c.clone());
                    c
                }
            };
            return Ok(Binding::SharedScalar {
                core,
                elem,
                idx: int(0),
            });
        }
        let dims = self.array_dims(
            d,
            d.is_extern,
            "`__shared__` array `{}` needs a size (or `extern`)",
        )?;
        let core = match self.shared_by_pos.get(&d.pos) {
            Some(c) => c.clone(),
            None => {
                let c = self.unique(&d.name);
                let len = dims
                    .iter()
                    .try_fold(1u64, |acc, x| x.and_then(|x| acc.checked_mul(x)));
                self.arrays.push(ArrayDecl {
                    name: c.clone(),
                    space: Space::Shared,
                    elem,
                    elem_bytes: bytes,
                    len,
                });
                self.shared_by_pos.insert(d.pos, c.clone());
                c
            }
        };
        Ok(Binding::Array { core, dims, elem })
    }

    /// A thread-local array `T r[N];` (spec/lowering.md §5): one `local` array of `N·B`
    /// cells for the block's `B` threads, and `r` a pointer to the thread's `N` cells at
    /// `base ← tl · N` (`tl` the block-linear thread id), so `r[i]` is `r[base + i]`.
    fn local_array_decl(&mut self, d: &ast::Decl, out: &mut Vec<Stmt>) -> R<()> {
        let n = match d.dims.as_slice() {
            [Some(x)] => self.const_dim(x, &d.name)?,
            _ => None,
        };
        let Some(n) = n.filter(|n| *n > 0) else {
            return self.err(
                d.pos,
                format!(
                    "thread-local array `{}` must have one dimension of constant positive size",
                    d.name
                ),
            );
        };
        if d.init.is_some() || d.ty.ptr > 0 {
            return self.err(
                d.pos,
                format!(
                    "thread-local array `{}` with an initializer or of pointers is not supported",
                    d.name
                ),
            );
        }
        let (elem, bytes) = self.elem_of(&d.ty, d.pos)?;
        let [bx, by, bz] = self.launch.block.map(i64::from);
        let cells = (n as i64)
            .checked_mul(bx * by * bz)
            .filter(|c| *c <= 1 << 40)
            .ok_or_else(|| {
                self.sm.error(
                    d.pos,
                    format!("thread-local array `{}` is too large", d.name),
                )
            })?;
        let core = self.unique(&d.name);
        self.arrays.push(ArrayDecl {
            name: core.clone(),
            space: Space::Local,
            elem,
            elem_bytes: bytes,
            len: Some(cells as u64),
        });
        // tl = threadIdx.x + Bx·threadIdx.y + Bx·By·threadIdx.z (dimensions of size 1 dropped)
        let p = d.pos;
        let mut tl = Operand::Tid(Dim::X);
        for (dim, stride, size) in [(Dim::Y, bx, by), (Dim::Z, bx * by, bz)] {
            if size > 1 {
                let t = self.bind(
                    Expr::Bin(BinOp::Mul, Operand::Tid(dim), int(stride)),
                    Ty::Int,
                    p,
                    out,
                );
                tl = self.bind(Expr::Bin(BinOp::Add, tl, t), Ty::Int, p, out);
            }
        }
        let base = self.temp(Ty::Int);
        out.push(Stmt::Assign(
            base.clone(),
            Expr::Bin(BinOp::Mul, tl, int(n as i64)),
            loc(p),
        ));
        self.scopes.last_mut().map(|s| {
            s.insert(
                d.name.clone(),
                Binding::Ptr {
                    array: core,
                    offset: var(&base),
                    elem,
                },
            )
        });
        Ok(())
    }

    pub(super) fn decl(&mut self, d: &ast::Decl, out: &mut Vec<Stmt>) -> R<()> {
        if d.shared {
            let b = self.shared_decl(d)?;
            self.scopes.last_mut().map(|s| s.insert(d.name.clone(), b));
            return Ok(());
        }
        if !d.dims.is_empty() {
            return self.local_array_decl(d, out);
        }
        if d.ty.ptr > 0 {
            let Some(init) = &d.init else {
                if d.ty.ptr > 1 {
                    return self.err(
                        d.pos,
                        format!("pointer-to-pointer local `{}` cannot be modelled", d.name),
                    );
                }
                // `T *q;`: bound by a later `q = ptr;` in the same block (§5)
                let (elem, _) = self.elem_of(&d.ty, d.pos)?;
                let off = if self.f.moved.contains(&d.name) {
                    let o = self.new_local(&format!("{}_off", d.name), Ty::Int);
                    out.push(Stmt::Assign(o.clone(), Expr::Opd(int(0)), loc(d.pos)));
                    Some(o)
                } else {
                    None
                };
                self.scopes
                    .last_mut()
                    .map(|s| s.insert(d.name.clone(), Binding::UnsetPtr { elem, off }));
                return Ok(());
            };
            let (array, off, elem) = self.ptr_expr(init, out)?;
            let moved = self.f.moved.contains(&d.name);
            let b = self.bind_ptr(&d.name, moved, array, off, elem, d.pos, out);
            self.scopes.last_mut().map(|s| s.insert(d.name.clone(), b));
            return Ok(());
        }
        let ty = self.scalar_ty(&d.ty, d.pos)?;
        let init = match &d.init {
            Some(i) => {
                let (x, t) = self.rv(i, out)?;
                Some(self.convert_expr(x, t, ty, i.pos, out))
            }
            None => None,
        };
        let core = self.new_local(&d.name, ty);
        if let Some(x) = init {
            out.push(Stmt::Assign(core.clone(), x, loc(d.pos)));
        }
        self.scopes
            .last_mut()
            .map(|s| s.insert(d.name.clone(), Binding::Local(core, ty)));
        Ok(())
    }
}
