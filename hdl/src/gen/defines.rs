//! rust-hdl's Verilog writer (`generate_verilog_unchecked`), indexed.
//!
//! rust-hdl 0.46 answers "is this child port linked to a module argument?" by
//! scanning every link of the module for every port of every child, and "is
//! this argument passed through to a child?" by scanning every port of every
//! child times every link, per argument: cubic in the size of a module. The
//! interface bundles (`crate::axis::bundle`) wire ports with `link`, one link
//! per signal, so the switch top of `sim-16x100g` (459 bundle signals, 16
//! ports of children) took 283 s of a 5.5-minute emission in that scan.
//!
//! [`generate_verilog`] collects the same per-module details with the same
//! [`Probe`] walk and writes the same text, byte for byte (the test below
//! compares it with rust-hdl's writer on a whole 4-port switch; all 88 files
//! of the four configurations were byte-identical when it was written), but
//! answers those questions from hash maps built once per module:
//! `sim-16x100g` emits in 14 s instead of 332 s (`target/debug/trimswitch`,
//! the workspace's optimized dev profile).
//!
//! Each block's AST goes through [`crate::gen::unroll::resolve`] before
//! rust-hdl's statement writer (`verilog_combinatorial`) sees it: that writer
//! compiles a regular expression for every indexed name it meets (`x[i]` in
//! a loop), 70% of an emission's time by `perf`. Resolved first, with the
//! same names, the files stay byte-identical (the three targets' 66 files
//! compared) and `sim-16x100g` emits in 2.3 s instead of 24.7 s,
//! netfpga-sume in 0.5 s.
use rust_hdl::core::ast::{Verilog, VerilogLink, VerilogLiteral};
use rust_hdl::core::atom::is_atom_signed;
use rust_hdl::core::verilog_gen::{verilog_combinatorial, verilog_link_extraction};
use rust_hdl::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The Verilog of `uut` and every block below it, as rust-hdl's
/// `generate_verilog_unchecked` writes it (no design checks).
pub fn generate_verilog<U: Block>(uut: &U) -> String {
    let mut walk = Walk::default();
    uut.accept("top", &mut walk);
    walk.defines()
}

struct Child {
    /// The child module's path (`top$fifo`), the key of its details.
    kind: String,
    /// The instance name (`fifo`).
    name: String,
}

#[derive(Clone, PartialEq)]
struct EnumDef {
    type_name: String,
    discriminant: String,
    value: usize,
}

#[derive(Clone)]
struct AtomDetails {
    name: String,
    kind: AtomKind,
    width: usize,
    const_val: VerilogLiteral,
    signed: bool,
}

#[derive(Default)]
struct Module {
    atoms: Vec<AtomDetails>,
    children: Vec<Child>,
    enums: Vec<EnumDef>,
    code: Option<Verilog>,
    links: Vec<VerilogLink>,
}

#[derive(Default)]
struct Walk {
    path: Vec<String>,
    namespace: Vec<String>,
    modules: BTreeMap<String, Module>,
}

impl Walk {
    fn module(&mut self, path: &str) -> &mut Module {
        if !self.modules.contains_key(path) {
            self.modules.insert(path.to_string(), Module::default());
        }
        self.modules.get_mut(path).expect("inserted")
    }

    fn add_enums(&mut self, module: &str, descriptor: &TypeDescriptor) {
        match &descriptor.kind {
            TypeKind::Enum(labels) => {
                let entry = self.module(module);
                for (value, label) in labels.iter().enumerate() {
                    let def = EnumDef { type_name: descriptor.name.clone(), discriminant: label.clone(), value };
                    if !entry.enums.contains(&def) {
                        entry.enums.push(def);
                    }
                }
            }
            TypeKind::Composite(fields) => {
                for f in fields {
                    self.add_enums(module, &f.kind);
                }
            }
            _ => {
                self.module(module);
            }
        }
    }
}

impl Probe for Walk {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        let parent = self.path.join("$");
        self.path.push(name.to_string());
        self.namespace.clear();
        let kind = self.path.join("$");
        self.module(&parent).children.push(Child { kind: kind.clone(), name: name.to_string() });
        // Loops unrolled and indices resolved first ([`crate::gen::unroll`],
        // the same names): rust-hdl's writer resolves an indexed name with
        // a regular expression compiled anew for each name, which was 70% of
        // an emission's time (`sim-16x100g`: 24.7 s).
        let code = crate::gen::unroll::resolve(node.hdl());
        let entry = self.module(&kind);
        entry.links = match &code {
            Verilog::Combinatorial(block) => verilog_link_extraction(block),
            _ => vec![],
        };
        entry.code = Some(code);
    }

    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        self.namespace.push(name.to_string());
    }

    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let module_path = self.path.join("$");
        let parent_path = self.path[..self.path.len() - 1].join("$");
        let module_name = self.path.last().expect("inside a scope").clone();
        let name = if self.namespace.is_empty() { name.to_owned() } else { format!("{}${}", self.namespace.join("$"), name) };
        let details = AtomDetails {
            name: name.clone(),
            kind: signal.kind(),
            width: signal.bits(),
            const_val: signal.verilog(),
            signed: is_atom_signed(signal),
        };
        if details.kind.is_parameter() {
            let kind = if details.kind == AtomKind::InputParameter { AtomKind::StubInputSignal } else { AtomKind::StubOutputSignal };
            let stub = AtomDetails { name: format!("{module_name}${name}"), kind, ..details.clone() };
            self.module(&parent_path).atoms.push(stub);
        }
        let descriptor = signal.descriptor();
        self.add_enums(&module_path, &descriptor);
        self.add_enums(&parent_path, &descriptor);
        self.module(&module_path).atoms.push(details);
    }

    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.namespace.pop();
    }

    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.path.pop();
    }
}

/// The two names a link makes equal, as rust-hdl orders them.
fn link_ends(link: &VerilogLink) -> (String, String) {
    match link {
        VerilogLink::Forward(l) => (format!("{}${}", l.other_name, l.my_name), format!("{}${}", l.owner_name, l.my_name)),
        VerilogLink::Backward(l) => (format!("{}${}", l.owner_name, l.my_name), format!("{}${}", l.other_name, l.my_name)),
        VerilogLink::Bidirectional(l) if l.my_name.is_empty() => (l.owner_name.clone(), l.other_name.clone()),
        VerilogLink::Bidirectional(l) => (format!("{}${}", l.other_name, l.my_name), format!("{}${}", l.owner_name, l.my_name)),
    }
}

/// What rust-hdl's writer asks of a module's links, answered once.
struct LinkIndex {
    ends: Vec<(String, String)>,
    /// A name's partner in the first link that names it.
    partner: HashMap<String, String>,
    /// Names of the module's arguments (ports).
    args: HashSet<String>,
    /// Names linked (by any link) to a module argument.
    linked_to_arg: HashSet<String>,
    /// The names child ports resolve to through the links.
    child_ports: HashSet<String>,
}

impl LinkIndex {
    fn new(module: &Module, modules: &BTreeMap<String, Module>) -> Self {
        let ends: Vec<(String, String)> = module.links.iter().map(link_ends).collect();
        let mut partner = HashMap::new();
        for (a, b) in &ends {
            partner.entry(a.clone()).or_insert_with(|| b.clone());
            partner.entry(b.clone()).or_insert_with(|| a.clone());
        }
        let args: HashSet<String> = module.atoms.iter().filter(|a| a.kind.is_parameter()).map(|a| a.name.clone()).collect();
        let mut linked_to_arg = HashSet::new();
        for (a, b) in &ends {
            if args.contains(b) {
                linked_to_arg.insert(a.clone());
            }
            if a != b && args.contains(a) {
                linked_to_arg.insert(b.clone());
            }
        }
        let mut index = LinkIndex { ends, partner, args, linked_to_arg, child_ports: HashSet::new() };
        for child in &module.children {
            for atom in &modules[&child.kind].atoms {
                let port = index.linked(&format!("{}${}", child.name, atom.name));
                index.child_ports.insert(port);
            }
        }
        index
    }

    fn linked(&self, name: &str) -> String {
        self.partner.get(name).cloned().unwrap_or_else(|| name.to_string())
    }
}

/// rust-hdl's `CodeWriter`: lines indented four spaces per level.
#[derive(Default)]
struct Writer {
    out: String,
    indent: usize,
}

impl Writer {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }
    fn add(&mut self, s: &str) {
        for piece in s.split_terminator('\n') {
            self.line(piece);
        }
    }
}

fn decl(x: &AtomDetails) -> String {
    let kind = match x.kind {
        AtomKind::InputParameter => "input wire",
        AtomKind::OutputParameter => "output reg",
        AtomKind::StubInputSignal => "reg",
        AtomKind::StubOutputSignal => "wire",
        AtomKind::Constant => "localparam",
        AtomKind::LocalSignal => "reg",
        AtomKind::InOutParameter => "inout wire",
        AtomKind::OutputPassthrough => "output wire",
    };
    let signed = if x.signed { "signed" } else { "" };
    if x.kind == AtomKind::Constant {
        format!("{kind} {signed} {} = {};", x.name, x.const_val)
    } else if x.width == 1 {
        format!("{kind} {signed} {};", x.name)
    } else {
        format!("{kind} {signed} [{}:0] {};", x.width - 1, x.name)
    }
}

impl Walk {
    fn defines(&self) -> String {
        let mut io = Writer::default();
        for (name, module) in &self.modules {
            if !name.is_empty() && !matches!(module.code, Some(Verilog::Blackbox(_))) {
                self.module_text(name, module, &mut io);
            }
        }
        for module in self.modules.values() {
            match &module.code {
                Some(Verilog::Blackbox(b)) => io.add(&b.code),
                Some(Verilog::Wrapper(w)) => io.add(&w.cores),
                _ => {}
            }
        }
        io.out
    }

    fn module_text(&self, module_name: &str, module: &Module, io: &mut Writer) {
        let index = LinkIndex::new(module, &self.modules);
        let wrapper = matches!(module.code, Some(Verilog::Wrapper(_)));
        let passthrough: Vec<AtomDetails>;
        let atoms = if wrapper {
            io.add("\n// v-- Setting output parameters to net type for wrapped code.\n");
            passthrough = module
                .atoms
                .iter()
                .map(|a| {
                    let mut a = a.clone();
                    if a.kind == AtomKind::OutputParameter {
                        a.kind = AtomKind::OutputPassthrough;
                    }
                    a
                })
                .collect();
            &passthrough
        } else {
            &module.atoms
        };
        let args: Vec<&AtomDetails> = atoms.iter().filter(|a| a.kind.is_parameter()).collect();
        let names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
        io.add(&format!("\n\nmodule {}({});", module_name, names.join(",")));
        io.indent += 1;
        if !args.is_empty() {
            io.add("\n// Module arguments");
            for a in &args {
                if a.kind == AtomKind::OutputParameter && index.child_ports.contains(&a.name) {
                    // A port driven by a child is a net (some tools reject a
                    // `reg` connected to an instance output).
                    let mut a = (*a).clone();
                    a.kind = AtomKind::OutputPassthrough;
                    io.add(&decl(&a));
                } else {
                    io.add(&decl(a));
                }
            }
        }
        let consts: Vec<&AtomDetails> = atoms.iter().filter(|a| a.kind == AtomKind::Constant).collect();
        if !consts.is_empty() {
            io.add("\n// Constant declarations");
            consts.iter().for_each(|a| io.add(&decl(a)));
        }
        if !module.enums.is_empty() && !wrapper {
            io.add("\n// Enums");
            for e in &module.enums {
                io.add(&format!("localparam {} = {};", e.discriminant.replace("::", "$"), e.value));
            }
        }
        let stubs: Vec<&AtomDetails> = atoms.iter().filter(|a| a.kind.is_stub()).collect();
        if !stubs.is_empty() && !wrapper {
            io.add("\n// Stub signals");
            stubs.iter().filter(|a| !index.linked_to_arg.contains(&a.name)).for_each(|a| io.add(&decl(a)));
        }
        let locals: Vec<&AtomDetails> = atoms.iter().filter(|a| a.kind == AtomKind::LocalSignal).collect();
        if !locals.is_empty() && !wrapper {
            io.add("\n// Local signals");
            locals.iter().for_each(|a| io.add(&decl(a)));
        }
        if !module.children.is_empty() && !wrapper {
            io.add("\n// Sub module instances");
            for child in &module.children {
                self.instance(&index, child, io);
            }
        }
        match &module.code {
            Some(Verilog::Combinatorial(code)) => {
                io.add("\n// Update code");
                io.add(&verilog_combinatorial(code));
            }
            Some(Verilog::Custom(code)) => {
                io.add("\n// Update code (custom)");
                io.add(code);
            }
            Some(Verilog::Wrapper(c)) => {
                io.add("\n// Update code (wrapper)");
                io.add(&c.code);
            }
            _ => {}
        }
        for (link, (a, b)) in module.links.iter().zip(&index.ends) {
            if index.args.contains(a) || index.args.contains(b) {
                continue;
            }
            let unbracket = |s: &str| s.replace('[', "$").replace(']', "");
            let text = match link {
                VerilogLink::Forward(x) => {
                    format!("always @(*) {}${} = {}${};", unbracket(&x.other_name), x.my_name, unbracket(&x.owner_name), x.my_name)
                }
                VerilogLink::Backward(x) => {
                    format!("always @(*) {}${} = {}${};", unbracket(&x.owner_name), x.my_name, unbracket(&x.other_name), x.my_name)
                }
                VerilogLink::Bidirectional(x) if x.my_name.is_empty() => format!("assign {} = {};", x.owner_name, x.other_name),
                VerilogLink::Bidirectional(x) => format!("assign {}${} = {}${};", x.owner_name, x.my_name, x.other_name, x.my_name),
            };
            io.line(&text);
        }
        io.indent -= 1;
        io.add(&format!("endmodule // {module_name}"));
    }

    fn instance(&self, index: &LinkIndex, child: &Child, io: &mut Writer) {
        let entry = &self.modules[&child.kind];
        let kind = match &entry.code {
            Some(Verilog::Blackbox(b)) => b.name.as_str(),
            _ => child.kind.as_str(),
        };
        let ports: Vec<String> = entry
            .atoms
            .iter()
            .filter(|a| a.kind.is_parameter())
            .map(|a| {
                let arg = format!("{}${}", child.name, a.name);
                let arg = if index.linked_to_arg.contains(&arg) { index.linked(&arg) } else { arg };
                format!(".{}({})", a.name, arg)
            })
            .collect();
        io.add(&format!("{} {}(\n", kind, child.name));
        io.indent += 1;
        io.add(&ports.join(",\n"));
        io.indent -= 1;
        io.add(");\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::top::switch::Switch;

    /// The indexed writer and rust-hdl's own give the same text for the
    /// whole switch (bundles, links, vectors of children, custom Verilog) of
    /// a 4-port, 64-bit configuration.
    #[test]
    fn same_text_as_rust_hdl() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/netfpga-sume.toml");
        let cfg = Config::load_with(&path, &["datapath.data_width=64".into(), "tm.queue_d_words=1200".into(), "fifo.depth=2048".into()])
            .expect("config");
        let (ours, theirs) = crate::with_geometry!(64, 128, [(64, 128)], |D, K, U, M, W| {
            let mut top = Switch::<D, K, U, M, W>::new(&cfg).expect("switch");
            top.connect_all();
            (generate_verilog(&top), generate_verilog_unchecked(&top))
        })
        .expect("geometry");
        assert!(ours.len() > 100_000 && ours.matches("\nendmodule").count() > 20, "the switch text is too small: {} bytes", ours.len());
        if ours != theirs {
            let line = ours.lines().zip(theirs.lines()).position(|(a, b)| a != b);
            panic!("the indexed writer differs from rust-hdl's at line {line:?} ({} vs {} bytes)", ours.len(), theirs.len());
        }
    }
}
