//! Loop unrolling and index resolution for `#[hdl_gen]` code that indexes
//! twice: `self.tm[i].m_tdata[p]`, a vector port of a block in a vector.
//!
//! rust-hdl 0.46 names such a signal `tm[i]$m_tdata[p]` in its AST, and its
//! Verilog writer resolves only the first `[...]` of a name, so the second
//! index is left in the Verilog as text. A block that needs nested indexing
//! puts its `#[hdl_gen] fn update` in an inherent `impl` and implements
//! `Logic` by hand, passing the generated AST through [`resolve`]:
//!
//! ```text
//! impl Logic for Switch { fn update(&mut self) { Self::update(self) }
//!     fn connect(&mut self) { Self::connect(self) }
//!     fn hdl(&self) -> Verilog { unroll::resolve(Self::hdl(self)) } }
//! ```
//!
//! [`resolve`] unrolls every `for` loop (as the Verilog writer would) and
//! replaces every `[expr]` in a name by `$value`, evaluating `expr` (integer
//! literals, loop variables, `+ - * / %` and parentheses) with the loop
//! variables in scope. The result has no loops left and fully resolved
//! names, so the writer has nothing to resolve.
use rust_hdl::core::ast::{
    Verilog, VerilogBlock, VerilogBlockOrConditional, VerilogConditional, VerilogExpression, VerilogLink, VerilogLinkDetails, VerilogMatch,
    VerilogStatement,
};

type Env = Vec<(String, usize)>;

/// The index in a register file's `rw` (or `ro`) of the register at byte
/// offset `addr` from the file's first register.
pub const fn word(addr: u32) -> usize {
    (addr / 4) as usize
}

/// Position of `name` in `list`, at compile time (a name not in the list fails
/// to compile): register indices by the names of a published register list.
pub const fn position(list: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < list.len() {
        let (a, b) = (list[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("name not in the list")
}

/// Declares `pub const NAME: usize = value;` for each entry and `NAMES`, the
/// table of all of them that [`resolve_with`] takes: indices `#[hdl_gen]` code
/// writes by name (`self.regs.ro[RO_PORT0 + RO_PER_PORT * p + P_TX_TRIM]`).
macro_rules! named_indices {
    ($($(#[$m:meta])* $n:ident = $v:expr;)*) => {
        $($(#[$m])* pub const $n: usize = $v;)*
        /// Every index above by name, for [`crate::gen::unroll::resolve_with`].
        pub const NAMES: &[(&str, usize)] = &[$((stringify!($n), $n)),*];
    };
}
pub(crate) use named_indices;

/// As [`named_indices!`] for codes a block writes or compares
/// (`self.code.next = MAL_IPV4_IHL.into()`): `pub const NAME: u64` (rust-hdl's
/// literal type) and `VALUES`, the table the emitter declares them from.
macro_rules! named_values {
    ($($(#[$m:meta])* $n:ident = $v:expr;)*) => {
        $($(#[$m])* pub const $n: u64 = $v as u64;)*
        /// Every value above by name, for the emitter's `localparam`s.
        pub const VALUES: &[(&str, u64)] = &[$((stringify!($n), $n)),*];
    };
}
pub(crate) use named_values;

/// The AST of `v` with loops unrolled and every index resolved.
pub fn resolve(v: Verilog) -> Verilog {
    resolve_with(v, &[])
}

/// As [`resolve`], with `names` (Rust constants the `#[hdl_gen]` code uses in
/// indices, such as a register file's `RO_PORT0 + RO_PER_PORT * p +
/// P_TX_TRIM`) known to the index evaluator.
pub fn resolve_with(v: Verilog, names: &[(&str, usize)]) -> Verilog {
    let mut env: Env = names.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    match v {
        Verilog::Combinatorial(b) => Verilog::Combinatorial(block(&b, &mut env)),
        other => other,
    }
}

fn block(b: &VerilogBlock, env: &mut Env) -> VerilogBlock {
    let mut out = Vec::with_capacity(b.len());
    for s in b {
        match s {
            VerilogStatement::Loop(l) => {
                for i in l.from.as_usize()..l.to.as_usize() {
                    env.push((l.index.clone(), i));
                    out.extend(block(&l.block, env));
                    env.pop();
                }
            }
            other => out.push(statement(other, env)),
        }
    }
    out
}

fn statement(s: &VerilogStatement, env: &mut Env) -> VerilogStatement {
    match s {
        VerilogStatement::Assignment(a, b) => VerilogStatement::Assignment(expr(a, env), expr(b, env)),
        VerilogStatement::SliceAssignment { base, width, offset, replacement } => VerilogStatement::SliceAssignment {
            base: expr(base, env),
            width: *width,
            offset: expr(offset, env),
            replacement: expr(replacement, env),
        },
        VerilogStatement::If(c) => VerilogStatement::If(cond(c, env)),
        VerilogStatement::Match(m) => VerilogStatement::Match(VerilogMatch {
            test: expr(&m.test, env),
            cases: m
                .cases
                .iter()
                .map(|c| rust_hdl::core::ast::VerilogCase { condition: c.condition.clone(), block: block(&c.block, env) })
                .collect(),
        }),
        VerilogStatement::Loop(_) => unreachable!("loops are unrolled by block()"),
        VerilogStatement::Comment(c) => VerilogStatement::Comment(c.clone()),
        VerilogStatement::Link(links) => VerilogStatement::Link(
            links
                .iter()
                .map(|l| match l {
                    VerilogLink::Forward(d) => VerilogLink::Forward(link(d, env)),
                    VerilogLink::Backward(d) => VerilogLink::Backward(link(d, env)),
                    VerilogLink::Bidirectional(d) => VerilogLink::Bidirectional(link(d, env)),
                })
                .collect(),
        ),
        VerilogStatement::Macro(b) => VerilogStatement::Macro(block(b, env)),
    }
}

fn cond(c: &VerilogConditional, env: &mut Env) -> VerilogConditional {
    VerilogConditional {
        test: expr(&c.test, env),
        then: block(&c.then, env),
        otherwise: match &c.otherwise {
            VerilogBlockOrConditional::Block(b) => VerilogBlockOrConditional::Block(block(b, env)),
            VerilogBlockOrConditional::Conditional(s) => VerilogBlockOrConditional::Conditional(Box::new(statement(s, env))),
            VerilogBlockOrConditional::None => VerilogBlockOrConditional::None,
        },
    }
}

fn link(d: &VerilogLinkDetails, env: &Env) -> VerilogLinkDetails {
    VerilogLinkDetails { my_name: name(&d.my_name, env), owner_name: name(&d.owner_name, env), other_name: name(&d.other_name, env) }
}

fn expr(e: &VerilogExpression, env: &Env) -> VerilogExpression {
    use VerilogExpression as E;
    let bx = |x: &VerilogExpression| Box::new(expr(x, env));
    match e {
        E::Signal(s) => E::Signal(name(s, env)),
        E::Literal(l) => E::Literal(l.clone()),
        E::Cast(x, w) => E::Cast(bx(x), *w),
        E::Signed(x) => E::Signed(bx(x)),
        E::Unsigned(x) => E::Unsigned(bx(x)),
        E::Paren(x) => E::Paren(bx(x)),
        E::Binary(a, op, b) => E::Binary(bx(a), op.clone(), bx(b)),
        E::Unary(op, x) => E::Unary(op.clone(), bx(x)),
        E::Index(a, b) => E::Index(bx(a), bx(b)),
        E::Slice(a, w, b) => E::Slice(bx(a), *w, bx(b)),
        E::IndexReplace(a, b, c) => E::IndexReplace(bx(a), bx(b), bx(c)),
    }
}

/// A signal name with every `[expr]` replaced by `$value`; a bare loop
/// variable becomes its value.
fn name(s: &str, env: &Env) -> String {
    if let Some((_, v)) = env.iter().rev().find(|(n, _)| n == s) {
        return v.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map(|c| open + c).unwrap_or_else(|| panic!("unroll: unbalanced '[' in {s}"));
        out.push_str(&rest[..open]);
        out.push('$');
        out.push_str(&eval(&rest[open + 1..close], env, s).to_string());
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Evaluates an index expression: integers (with an optional integer type
/// suffix), loop variables, `+ - * / %`, parentheses.
fn eval(text: &str, env: &Env, whole: &str) -> usize {
    let toks = tokens(text);
    let mut pos = 0;
    let v = sum(&toks, &mut pos, env, whole);
    assert!(pos == toks.len(), "unroll: cannot evaluate index '{text}' in {whole}");
    usize::try_from(v).unwrap_or_else(|_| panic!("unroll: negative index '{text}' in {whole}"))
}

fn tokens(text: &str) -> Vec<String> {
    let mut toks = Vec::new();
    let cs: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut i = 0;
    while i < cs.len() {
        if cs[i].is_alphanumeric() || cs[i] == '_' {
            let j = (i..cs.len()).find(|&j| !(cs[j].is_alphanumeric() || cs[j] == '_')).unwrap_or(cs.len());
            toks.push(cs[i..j].iter().collect());
            i = j;
        } else {
            toks.push(cs[i].to_string());
            i += 1;
        }
    }
    toks
}

fn sum(t: &[String], pos: &mut usize, env: &Env, whole: &str) -> i64 {
    let mut v = product(t, pos, env, whole);
    while *pos < t.len() && (t[*pos] == "+" || t[*pos] == "-") {
        let plus = t[*pos] == "+";
        *pos += 1;
        let r = product(t, pos, env, whole);
        v = if plus { v + r } else { v - r };
    }
    v
}

fn product(t: &[String], pos: &mut usize, env: &Env, whole: &str) -> i64 {
    let mut v = atom(t, pos, env, whole);
    while *pos < t.len() && (t[*pos] == "*" || t[*pos] == "/" || t[*pos] == "%") {
        let op = t[*pos].clone();
        *pos += 1;
        let r = atom(t, pos, env, whole);
        v = match op.as_str() {
            "*" => v * r,
            "/" => v / r,
            _ => v % r,
        };
    }
    v
}

fn atom(t: &[String], pos: &mut usize, env: &Env, whole: &str) -> i64 {
    let tok = t.get(*pos).unwrap_or_else(|| panic!("unroll: index ends early in {whole}")).clone();
    *pos += 1;
    if tok == "(" {
        let v = sum(t, pos, env, whole);
        assert!(t.get(*pos).map(|s| s.as_str()) == Some(")"), "unroll: missing ')' in {whole}");
        *pos += 1;
        return v;
    }
    if tok.starts_with(|c: char| c.is_ascii_digit()) {
        let digits: String = tok.chars().take_while(|c| c.is_ascii_digit()).collect();
        return digits.parse().unwrap();
    }
    env.iter()
        .rev()
        .find(|(n, _)| *n == tok)
        .map(|(_, v)| *v as i64)
        .unwrap_or_else(|| panic!("unroll: '{tok}' in {whole} is not a loop variable in scope"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_every_index() {
        let env = vec![("i".to_string(), 2), ("p".to_string(), 3), ("nq".to_string(), 8)];
        assert_eq!(name("tm[i]$m_tdata[p]", &env), "tm$2$m_tdata$3");
        assert_eq!(name("fifo[i*nq+2*p+1]$s_tvalid", &env), "fifo$23$s_tvalid");
        assert_eq!(name("x[(i+1)%2usize]", &env), "x$1");
        assert_eq!(name("p", &env), "3");
        assert_eq!(name("plain$name", &env), "plain$name");
    }

    #[test]
    #[should_panic(expected = "not a loop variable")]
    fn unknown_variable_is_an_error() {
        name("a[k]", &vec![]);
    }
}
