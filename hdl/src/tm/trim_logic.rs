//! The trimmer's combinational stages over its 128-byte header buffer
//! (`docs/trimming.md`, "Trim length and the trimmer"): [`TrimThermo`] codes
//! the header offsets and the keep length as thermometers, [`TrimEdit`]
//! rewrites fields, [`TrimMask`] marks the bytes each checksum covers,
//! [`TrimSumA`] and two [`TrimAdd`] stages sum them, [`TrimFoldA`] and [`TrimFoldB`]
//! make the checksums, [`TrimInsert`] puts them in place. `ts_trimmer`
//! ([`crate::tm::trimmer`]) registers between every two, so each stage is a few
//! LUT levels (issue 14).
//!
//! They are leaf widgets with generated Verilog bodies, like
//! [`crate::prim::widgets::KeepExpand`]: per-byte muxes at variable header offsets
//! are 128 small continuous assignments, which rust-hdl's `hdl_gen` can only
//! express as long `replace_bits` chains (too deep for Yosys' parser). The
//! Verilog is generated per byte with only the alternatives that byte can
//! take; `update()` is the same function in Rust for rust-hdl's simulator.
//! The Verilator tests hold the Verilog to the golden model
//! (`sim/src/model/tm.rs`); `staged_checksums_match_one_step` holds the staged
//! checksum functions to RFC 1071's one-step form.
//!
//! Buffer layout: byte `i` of the packet in bits `8i+7 .. 8i` (lane order of
//! the AXI4-Stream beats). `info` is a slice of `tuser` ([`crate::meta`]):
//! [`TrimEdit`] takes bits 56..74 (`l3` \[1:0\], `l4` \[3:2\], `l3_off` \[10:4\],
//! `l4_off` \[17:11\]), [`TrimThermo`] and [`TrimInsert`] bits 60..74 (`l3_off` \[6:0\], `l4_off` \[13:7\]).
use rust_hdl::prelude::*;

/// Bytes of the buffer: the most a trimmed packet keeps.
pub const BUF_BYTES: usize = 128;
/// Bits of the buffer.
pub const BUF_BITS: usize = 8 * BUF_BYTES;

fn bytes_of(b: &Bits<BUF_BITS>) -> [u8; BUF_BYTES] {
    let mut out = [0u8; BUF_BYTES];
    for (i, o) in out.iter_mut().enumerate() {
        *o = (0..8).fold(0u8, |acc, k| acc | (b.get_bit(8 * i + k) as u8) << k);
    }
    out
}

fn bits_of(bytes: &[u8; BUF_BYTES]) -> Bits<BUF_BITS> {
    let mut b = Bits::<BUF_BITS>::default();
    for (i, v) in bytes.iter().enumerate() {
        for k in 0..8 {
            b = b.replace_bit(8 * i + k, v >> k & 1 == 1);
        }
    }
    b
}

/// The header-location fields of `info`.
#[derive(Clone, Copy, Debug)]
struct Info {
    v4: bool,
    v6: bool,
    udp: bool,
    ndp: bool,
    l3o: usize,
    l4o: usize,
}

fn info_of(info: u64) -> Info {
    Info {
        v4: info & 3 == 1,
        v6: info & 3 == 2,
        udp: info >> 2 & 3 == 1,
        ndp: info >> 2 & 3 == 2,
        l3o: (info >> 4 & 0x7f) as usize,
        l4o: (info >> 11 & 0x7f) as usize,
    }
}

/// Verilog preamble: `l3o` and `l4o` from a 14-bit `info` (`tuser` bits 60..74).
fn offset_wires() -> String {
    "wire [7:0] l3o = {1'b0, info[6:0]};\nwire [7:0] l4o = {1'b0, info[13:7]};\n".into()
}

/// Verilog for "byte `i` is at offset `c` from the header at offset `off`",
/// given a thermometer code `t` of `off` (bit `k`: `off >= k`; registered by
/// the caller): `off == i - c` is one LUT input pair, not a comparator.
fn at_t(t: &str, i: usize, c: usize) -> String {
    if i < c {
        return "1'b0".into();
    }
    let k = i - c;
    if k + 1 < BUF_BYTES {
        format!("({t}[{k}] & ~{t}[{}])", k + 1)
    } else {
        format!("{t}[{k}]")
    }
}

/// Verilog for "byte `i` is at an offset in `[a, b)` from the header" on a
/// thermometer code `t` (see [`at_t`]): `off` in `[i + 1 - b, i - a]`.
fn within_t(t: &str, i: usize, a: usize, b: usize) -> String {
    if i < a {
        return "1'b0".into();
    }
    let hi = i - a;
    let lo = (i + 1).saturating_sub(b);
    let mut parts = vec![];
    if lo > 0 {
        parts.push(format!("{t}[{lo}]"));
    }
    if hi + 1 < BUF_BYTES {
        parts.push(format!("~{t}[{}]", hi + 1));
    }
    if parts.is_empty() {
        "1'b1".into()
    } else {
        format!("({})", parts.join(" & "))
    }
}

fn b(i: usize) -> String {
    format!("buf_in[{}:{}]", 8 * i + 7, 8 * i)
}

/// Stage 1b: field rewrites of a trimmed or returned packet (after [`TrimSwap`]).
///
/// Ports (all combinational):
/// - `buf_in` (1024): [`TrimSwap`]'s output (registered).
/// - `keep` (8): bytes kept (1..=128); bytes from `keep` on are zeroed.
/// - `cut`: bytes were removed (the packet was longer than `keep`): lengths
///   are rewritten, the NDP TRIMMED flag set or the DSCP rewritten, and the
///   UDP checksum field zeroed.
/// - `rts`: return to sender: NDP RETURNED set (the addresses were swapped by [`TrimSwap`]).
/// - `info` (18): header locations without `ihl` (module docs).
/// - `dscp_en`, `dscp` (6): the TRIMMED codepoint and whether to write it.
/// - `lens` (48): the lengths written into a cut packet, `[15:0]` IPv4 total
///   length `keep - l3_off`, `[31:16]` IPv6 payload length `keep - l3_off -
///   40`, `[47:32]` UDP length `keep - l4_off` (16 bits each, modulo 2^16),
///   from registers (issue 14: the subtractions in front of the byte
///   multiplexers were the trimmer's critical path).
/// - `ec` ([`COND_BITS`]): [`TrimCond`]'s conditions of every byte for the
///   same packet, registered by the caller, so a byte is an AND-OR of
///   flip-flops (issue 14). The Verilog decides by these, `lens`, `dscp`,
///   `rts` and `cut`; `keep`, `info` and `dscp_en` must agree with them (the
///   Rust model decides by those).
/// - `buf_out` (1024): the rewritten bytes; the IPv4 header checksum field is
///   zeroed whenever the header changes (`cut` or `rts`), for the checksum stages.
#[derive(LogicBlock, Default)]
pub struct TrimEdit {
    pub buf_in: Signal<In, Bits<BUF_BITS>>,
    pub keep: Signal<In, Bits<8>>,
    pub cut: Signal<In, Bit>,
    pub rts: Signal<In, Bit>,
    pub info: Signal<In, Bits<18>>,
    pub dscp_en: Signal<In, Bit>,
    pub dscp: Signal<In, Bits<6>>,
    pub lens: Signal<In, Bits<48>>,
    pub ec: Signal<In, Bits<COND_BITS>>,
    pub buf_out: Signal<Out, Bits<BUF_BITS>>,
}

/// A rewrite of [`TrimEdit`]: flag [`FLAGS`]`[f]` and the byte at offset `c`
/// from the L3 header (`l3`) or the L4 header.
pub struct At {
    pub f: usize,
    pub l3: bool,
    pub c: usize,
}

/// [`TrimEdit`]'s rewrites in [`TrimCond`]'s order: NDP flags; DSCP over
/// IPv4, over IPv6 (two bytes); IPv4 total length, IPv6 payload length, UDP
/// length (two bytes each). Then two conditions that are not one offset:
/// zeroed (the UDP checksum of a cut packet, the IPv4 header checksum of a
/// changed header) and kept.
pub const EDIT_AT: [At; 10] = [
    At { f: 3, l3: false, c: 0 },
    At { f: 4, l3: true, c: 1 },
    At { f: 5, l3: true, c: 0 },
    At { f: 5, l3: true, c: 1 },
    At { f: 6, l3: true, c: 2 },
    At { f: 6, l3: true, c: 3 },
    At { f: 7, l3: true, c: 4 },
    At { f: 7, l3: true, c: 5 },
    At { f: 8, l3: false, c: 4 },
    At { f: 8, l3: false, c: 5 },
];
/// Conditions per byte: the [`EDIT_AT`] rewrites, zeroed, kept.
pub const CONDS: usize = EDIT_AT.len() + 2;
/// Bits of [`TrimCond`]'s output: condition `k` of byte `i` in bit `CONDS i + k`.
pub const COND_BITS: usize = CONDS * BUF_BYTES;
/// Copies of the flags [`TrimCond`] reads, each for `BUF_BYTES / FL_COPIES`
/// consecutive bytes.
pub const FL_COPIES: usize = 4;

/// The conditions of [`TrimEdit`]'s bytes, one flip-flop each once the
/// caller registers them (phase 2 of the trimmer, beside the swap), so the
/// edit is an AND-OR of registers and the flags do not fan out into it
/// (issue 14).
///
/// Ports (all combinational): `ge3`, `ge4`, `kt` (128 each): [`TrimThermo`]'s
/// codes (registered); `fl[q]` ([`FL_COPIES`] of 10 bits, Verilog `fl$<q>`, `fl_<q>` once emitted):
/// copies of its flags, copy `q` read by the bytes of the `q`-th part of the buffer (the caller
/// registers them as replicas, [`crate::prim::widgets::DffKeep`], so no flag
/// register drives all 128 bytes); `ec` ([`COND_BITS`]): for byte `i`,
/// bits `CONDS i ..`: the [`EDIT_AT`] rewrites, then "zeroed", then "kept"
/// (none of the others), each false from `keep` on (the byte is zeroed).
#[derive(LogicBlock)]
pub struct TrimCond {
    pub ge3: Signal<In, Bits<BUF_BYTES>>,
    pub ge4: Signal<In, Bits<BUF_BYTES>>,
    pub kt: Signal<In, Bits<BUF_BYTES>>,
    pub fl: Vec<Signal<In, Bits<10>>>,
    pub ec: Signal<Out, Bits<COND_BITS>>,
}

impl Default for TrimCond {
    fn default() -> Self {
        Self {
            ge3: Default::default(),
            ge4: Default::default(),
            kt: Default::default(),
            fl: (0..FL_COPIES).map(|_| Default::default()).collect(),
            ec: Default::default(),
        }
    }
}

/// "Byte `i` is at offset `c` from the header whose thermometer code is `t`"
/// (the Rust form of [`at_t`]).
fn at(t: u128, i: usize, c: usize) -> bool {
    i >= c && t >> (i - c) & 1 == 1 && (i - c + 1 >= BUF_BYTES || t >> (i - c + 1) & 1 == 0)
}

/// [`TrimCond`]'s function: per byte, bit `k` condition `k`.
pub fn trim_conds(ge3: u128, ge4: u128, kt: u128, fl: u16) -> [u16; BUF_BYTES] {
    let f = |k: usize| fl >> k & 1 == 1;
    let mut out = [0u16; BUF_BYTES];
    for (i, o) in out.iter_mut().enumerate() {
        let inside = kt >> i & 1 == 1;
        let mut any = false;
        for (k, a) in EDIT_AT.iter().enumerate() {
            let e = f(a.f) && at(if a.l3 { ge3 } else { ge4 }, i, a.c);
            any |= e;
            *o |= ((e && inside) as u16) << k;
        }
        let zero = (f(8) && (at(ge4, i, 6) || at(ge4, i, 7))) || (f(9) && (at(ge3, i, 10) || at(ge3, i, 11)));
        *o |= ((zero && !any && inside) as u16) << EDIT_AT.len();
        *o |= ((!zero && !any && inside) as u16) << (EDIT_AT.len() + 1);
    }
    out
}

/// [`TrimEdit`]'s Verilog as a Rust function: the byte's AND-OR over
/// [`TrimCond`]'s conditions; equal to [`trim_edit`] (`edit_by_conds_matches_the_model`).
pub fn edit_of_conds(x: &[u8; BUF_BYTES], ec: &[u16; BUF_BYTES], lens: [u16; 3], dscp: u8, rts: bool, cut: bool) -> [u8; BUF_BYTES] {
    let mut o = [0u8; BUF_BYTES];
    for i in 0..BUF_BYTES {
        let vals = edit_values(x[i], lens, dscp, rts, cut);
        o[i] = (0..CONDS).filter(|k| ec[i] >> k & 1 == 1).fold(0, |acc, k| acc | vals[k]);
    }
    o
}

/// A byte's value under each of [`TrimCond`]'s conditions.
fn edit_values(x: u8, [l3, l6, l4]: [u16; 3], dscp: u8, rts: bool, cut: bool) -> [u8; CONDS] {
    [
        x | (rts as u8) << 5 | (cut as u8) << 4,
        dscp << 2 | (x & 3),
        (x & 0xf0) | dscp >> 2,
        (dscp & 3) << 6 | (x & 0x3f),
        (l3 >> 8) as u8,
        l3 as u8,
        (l6 >> 8) as u8,
        l6 as u8,
        (l4 >> 8) as u8,
        l4 as u8,
        0,
        x,
    ]
}

/// [`TrimThermo`]'s `fl`, bit by bit: which rewrites apply (`mark`: DSCP
/// rewrite, `cut & dscp_en & !ndp`; `hdr_v4`: the IPv4 header changed).
pub const FLAGS: [&str; 10] = ["rts", "rts_v4", "rts_v6", "ndp", "mark_v4", "mark_v6", "cut_v4", "cut_v6", "cut_udp", "hdr_v4"];

/// [`TrimSwap`]'s function on bytes: a returned packet's MACs and IP
/// addresses swapped.
pub fn trim_swap(x: &[u8; BUF_BYTES], rts: bool, info: u64) -> [u8; BUF_BYTES] {
    let n = info_of(info);
    let mut o = *x;
    for (i, v) in o.iter_mut().enumerate() {
        let r3 = i.wrapping_sub(n.l3o) & 0xff;
        *v = if rts && i < 6 {
            x[i + 6]
        } else if rts && (6..12).contains(&i) {
            x[i - 6]
        } else if rts && n.v4 && (12..16).contains(&r3) && i + 4 < BUF_BYTES {
            x[i + 4]
        } else if rts && n.v4 && (16..20).contains(&r3) {
            x[i - 4]
        } else if rts && n.v6 && (8..24).contains(&r3) && i + 16 < BUF_BYTES {
            x[i + 16]
        } else if rts && n.v6 && (24..40).contains(&r3) {
            x[i - 16]
        } else {
            x[i]
        };
    }
    o
}

/// [`TrimEdit`]'s function on bytes (after [`trim_swap`]; the rust-hdl
/// simulation of the widget): the field rewrites of a cut or returned packet.
pub fn trim_edit(x: &[u8; BUF_BYTES], keep: usize, cut: bool, rts: bool, info: u64, dscp: Option<u8>) -> [u8; BUF_BYTES] {
    let n = info_of(info);
    let r = |i: usize, o: usize| i.wrapping_sub(o) & 0xff;
    let len3 = keep.wrapping_sub(n.l3o) & 0xffff;
    let len6 = len3.wrapping_sub(40) & 0xffff;
    let len4 = keep.wrapping_sub(n.l4o) & 0xffff;
    let mark = cut && dscp.is_some() && !n.ndp;
    let d = dscp.unwrap_or(0);
    let mut o = [0u8; BUF_BYTES];
    for i in 0..BUF_BYTES {
        let (r3, r4) = (r(i, n.l3o), r(i, n.l4o));
        o[i] = if i >= keep {
            0
        } else if n.ndp && r4 == 0 {
            x[i] | (rts as u8) << 5 | (cut as u8) << 4
        } else if mark && n.v4 && r3 == 1 {
            d << 2 | (x[i] & 3)
        } else if mark && n.v6 && r3 == 0 {
            (x[i] & 0xf0) | d >> 2
        } else if mark && n.v6 && r3 == 1 {
            (d & 3) << 6 | (x[i] & 0x3f)
        } else if cut && n.v4 && r3 == 2 {
            (len3 >> 8) as u8
        } else if cut && n.v4 && r3 == 3 {
            len3 as u8
        } else if cut && n.v6 && r3 == 4 {
            (len6 >> 8) as u8
        } else if cut && n.v6 && r3 == 5 {
            len6 as u8
        } else if cut && n.udp && r4 == 4 {
            (len4 >> 8) as u8
        } else if cut && n.udp && r4 == 5 {
            len4 as u8
        } else if (cut && n.udp && (r4 == 6 || r4 == 7)) || (n.v4 && (cut || rts) && (r3 == 10 || r3 == 11)) {
            0
        } else {
            x[i]
        };
    }
    o
}

/// The AND-OR of a byte's alternatives (Verilog): `alt` are (condition,
/// value) pairs, mutually exclusive for any header layout (they sit at
/// distinct offsets), so the byte is shallow logic rather than a priority
/// chain (the Rust functions are the priority form; the tests hold the two
/// equal); no condition leaves `x`.
fn and_or(v: &mut String, i: usize, alt: &[(String, String)]) {
    let x = b(i);
    let mut terms = vec![];
    let mut conds = vec![];
    for (k, (c, val)) in alt.iter().enumerate() {
        v.push_str(&format!("wire e{i}_{k} = {c};\n"));
        terms.push(format!("({{8{{e{i}_{k}}}}} & ({val}))"));
        conds.push(format!("e{i}_{k}"));
    }
    if conds.is_empty() {
        terms.push(x);
    } else {
        terms.push(format!("({{8{{~({})}}}} & {x})", conds.join(" | ")));
    }
    v.push_str(&format!("assign buf_out[{}:{}] = {};\n", 8 * i + 7, 8 * i, terms.join("\n    | ")));
}

/// The flag combinations `range` of [`FLAGS`] as wires `f_<name>` (Verilog).
fn flag_wires(range: std::ops::Range<usize>) -> String {
    range.map(|k| format!("wire f_{} = fl[{k}];\n", FLAGS[k])).collect()
}

/// Stage 1a: a returned packet's addresses swapped (MACs, IPv4 or IPv6).
///
/// Ports (all combinational): `buf_in` (1024): the first 128 bytes as
/// received; `rts`, `info` (18, as for [`TrimEdit`]): for the Rust model;
/// `ge3` (128), `fl` (10): [`TrimThermo`]'s codes (registered), for the
/// Verilog; `buf_out` (1024).
#[derive(LogicBlock, Default)]
pub struct TrimSwap {
    pub buf_in: Signal<In, Bits<BUF_BITS>>,
    pub rts: Signal<In, Bit>,
    pub info: Signal<In, Bits<18>>,
    pub ge3: Signal<In, Bits<BUF_BYTES>>,
    pub fl: Signal<In, Bits<10>>,
    pub buf_out: Signal<Out, Bits<BUF_BITS>>,
}

impl Logic for TrimSwap {
    fn update(&mut self) {
        let o = trim_swap(&bytes_of(&self.buf_in.val()), self.rts.val(), self.info.val().index() as u64);
        self.buf_out.next = bits_of(&o);
    }
    fn connect(&mut self) {
        self.buf_out.connect();
    }
    fn hdl(&self) -> Verilog {
        // The swapped ranges start 8 or more bytes past l3_off and the
        // thermometer's bit 0 is always set, so those bits are not needed;
        // the other flags are the field stage's.
        let mut v = format!("wire _unused_ok = &{{1'b0, rts, info, fl[9:3], ge3[0], ge3[{}:{}]}};\n", BUF_BYTES - 1, BUF_BYTES - 15);
        v.push_str(&flag_wires(0..3));
        for i in 0..BUF_BYTES {
            let mut alt: Vec<(String, String)> = vec![];
            if i < 6 {
                alt.push(("f_rts".into(), b(i + 6)));
            } else if i < 12 {
                alt.push(("f_rts".into(), b(i - 6)));
            }
            if i + 4 < BUF_BYTES && i >= 12 {
                alt.push((format!("f_rts_v4 & {}", within_t("ge3", i, 12, 16)), b(i + 4)));
            }
            if i >= 16 {
                alt.push((format!("f_rts_v4 & {}", within_t("ge3", i, 16, 20)), b(i - 4)));
            }
            if i + 16 < BUF_BYTES && i >= 8 {
                alt.push((format!("f_rts_v6 & {}", within_t("ge3", i, 8, 24)), b(i + 16)));
            }
            if i >= 24 {
                alt.push((format!("f_rts_v6 & {}", within_t("ge3", i, 24, 40)), b(i - 16)));
            }
            and_or(&mut v, i, &alt);
        }
        Verilog::Custom(v)
    }
}

impl Logic for TrimCond {
    fn update(&mut self) {
        let t = |b: &Bits<BUF_BYTES>| u128_of(b);
        // The copies are equal; the first stands for all.
        let fl = self.fl[0].val().index() as u16;
        let c = trim_conds(t(&self.ge3.val()), t(&self.ge4.val()), t(&self.kt.val()), fl);
        self.ec.next = pack(&c, CONDS);
    }
    fn connect(&mut self) {
        self.ec.connect();
    }
    fn hdl(&self) -> Verilog {
        // The swap's flags (0..3) are not read here.
        let unused: Vec<String> = (0..FL_COPIES).map(|q| format!("fl${q}[2:0]")).collect();
        let mut v = format!("wire _unused_ok = &{{1'b0, {}}};\n", unused.join(", "));
        for q in 0..FL_COPIES {
            for (k, name) in FLAGS.iter().enumerate().skip(3) {
                v.push_str(&format!("wire f{q}_{name} = fl${q}[{k}];\n"));
            }
        }
        for i in 0..BUF_BYTES {
            let q = i * FL_COPIES / BUF_BYTES;
            let mut any = vec![];
            for (k, a) in EDIT_AT.iter().enumerate() {
                let e = format!("c{i}_{k}");
                v.push_str(&format!("wire {e} = f{q}_{} & {};\n", FLAGS[a.f], at_t(if a.l3 { "ge3" } else { "ge4" }, i, a.c)));
                v.push_str(&format!("assign ec[{}] = {e} & kt[{i}];\n", CONDS * i + k));
                any.push(e);
            }
            v.push_str(&format!(
                "wire z{i} = (f{q}_cut_udp & ({} | {})) | (f{q}_hdr_v4 & ({} | {}));\n",
                at_t("ge4", i, 6),
                at_t("ge4", i, 7),
                at_t("ge3", i, 10),
                at_t("ge3", i, 11)
            ));
            let none = any.join(" | ");
            v.push_str(&format!("assign ec[{}] = z{i} & ~({none}) & kt[{i}];\n", CONDS * i + CONDS - 2));
            v.push_str(&format!("assign ec[{}] = ~z{i} & ~({none}) & kt[{i}];\n", CONDS * i + CONDS - 1));
        }
        Verilog::Custom(v)
    }
}

impl Logic for TrimEdit {
    fn update(&mut self) {
        let dscp = self.dscp_en.val().then_some(self.dscp.val().index() as u8);
        let o = trim_edit(
            &bytes_of(&self.buf_in.val()),
            self.keep.val().index(),
            self.cut.val(),
            self.rts.val(),
            self.info.val().index() as u64,
            dscp,
        );
        self.buf_out.next = bits_of(&o);
    }
    fn connect(&mut self) {
        self.buf_out.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("wire [15:0] len3 = lens[15:0];\nwire [15:0] len6 = lens[31:16];\nwire [15:0] len4 = lens[47:32];\n");
        // `keep`, `info` and `dscp_en` reach the Verilog through `ec` and
        // `lens`; the Rust model reads them.
        v.push_str("wire [7:0] flagbits = {2'b00, rts, cut, 4'b0000};\n");
        // Bits of `ec` the AND-OR does not read: "zeroed" (no term), and the
        // rewrites a byte is too near the start for (constant 0).
        let mut unused: Vec<String> = ["1'b0", "dscp_en", "info", "keep"].iter().map(|s| s.to_string()).collect();
        for i in 0..BUF_BYTES {
            unused.push(format!("ec[{}]", CONDS * i + CONDS - 2));
            unused.extend((0..EDIT_AT.len()).filter(|k| EDIT_AT[*k].c > i).map(|k| format!("ec[{}]", CONDS * i + k)));
        }
        v.push_str(&format!("wire _unused_ok = &{{{}}};\n", unused.join(", ")));
        for i in 0..BUF_BYTES {
            let x = b(i);
            // The values in `edit_values`' order; "zeroed" adds no term.
            let vals = [
                format!("{x} | flagbits"),
                format!("{{dscp, buf_in[{}:{}]}}", 8 * i + 1, 8 * i),
                format!("{{buf_in[{}:{}], dscp[5:2]}}", 8 * i + 7, 8 * i + 4),
                format!("{{dscp[1:0], buf_in[{}:{}]}}", 8 * i + 5, 8 * i),
                "len3[15:8]".into(),
                "len3[7:0]".into(),
                "len6[15:8]".into(),
                "len6[7:0]".into(),
                "len4[15:8]".into(),
                "len4[7:0]".into(),
            ];
            let mut terms: Vec<String> = vals
                .iter()
                .enumerate()
                .filter(|(k, _)| EDIT_AT[*k].c <= i)
                .map(|(k, val)| format!("({{8{{ec[{}]}}}} & ({val}))", CONDS * i + k))
                .collect();
            terms.push(format!("({{8{{ec[{}]}}}} & {x})", CONDS * i + CONDS - 1));
            v.push_str(&format!("assign buf_out[{}:{}] = {};\n", 8 * i + 7, 8 * i, terms.join("\n    | ")));
        }
        Verilog::Custom(v)
    }
}

/// Thermometer codes for [`TrimEdit`] (phase 1 of the trimmer, registered).
///
/// Ports (all combinational):
/// - `info` (14): `tuser` bits 60..74 (`l3_off`, `l4_off`).
/// - `want` (16, at most 128), `total` (16): the wanted keep length and the
///   bytes that arrived (`keep = min(want, total)`).
/// - `tbig`, `tbig8`: whether `total` is at least 128 and at least 256,
///   registered by the caller (issue 14: as ORs of `total`'s high bits they
///   fanned out to all 128 bits of `kt`, which ABC mapped as a chain of
///   LUT2s).
/// - `ge3`, `ge4` (128): bit `k` is `l3_off >= k`, `l4_off >= k`.
/// - `kt` (128): bit `i` is `i < keep`, i.e. `i < want` and `i < total`
///   (7-bit compares: `want <= 128`, and `total >= 128` is one OR).
/// - `ipend` (9): the end of the IPv4 header, `l3_off + 4 * ihl`, from a
///   register (issue 14: the add was in series with the 128 compares);
///   `ipt` (128): bit `i` is `i < ipend`.
/// - `kind` (4): `tuser` bits 56..60 (`l3`, `l4`); `rts`, `dscp_en`; `fl`
///   (10): the [`FLAGS`] combinations, with `cut = total > want`.
#[derive(LogicBlock, Default)]
pub struct TrimThermo {
    pub kind: Signal<In, Bits<4>>,
    pub rts: Signal<In, Bit>,
    pub dscp_en: Signal<In, Bit>,
    pub fl: Signal<Out, Bits<10>>,
    pub info: Signal<In, Bits<14>>,
    pub ipend: Signal<In, Bits<9>>,
    pub ipt: Signal<Out, Bits<BUF_BYTES>>,
    pub want: Signal<In, Bits<16>>,
    pub total: Signal<In, Bits<16>>,
    pub tbig: Signal<In, Bit>,
    pub tbig8: Signal<In, Bit>,
    pub ge3: Signal<Out, Bits<BUF_BYTES>>,
    pub ge4: Signal<Out, Bits<BUF_BYTES>>,
    pub kt: Signal<Out, Bits<BUF_BYTES>>,
}

/// [`TrimThermo`]'s function: `(ge3, ge4, kt)`. `info` in [`TrimEdit`]'s
/// layout (the caller shifts the 14-bit slice left by 4).
pub fn trim_thermo(info: u64, want: usize, total: usize, ipend: usize) -> [u128; 4] {
    let n = info_of(info);
    let mut t = [0u128; 4];
    for k in 0..BUF_BYTES {
        t[0] |= ((n.l3o >= k) as u128) << k;
        t[1] |= ((n.l4o >= k) as u128) << k;
        t[2] |= ((k < want && k < total) as u128) << k;
        t[3] |= ((k < ipend) as u128) << k;
    }
    t
}

/// [`TrimMask`]'s function on the thermometer codes; equal to [`trim_masks`]
/// on the values they code (`staged_checksums_match_one_step`).
pub fn masks_of_thermo(ge3: u128, ge4: u128, kt: u128, ipt: u128) -> (u128, u128) {
    // Bit i: `off <= i`, i.e. not `off >= i + 1`.
    let le = |ge: u128| !(ge >> 1);
    let addr = (0..BUF_BYTES).fold(0u128, |acc, i| {
        let (lo, hi) = ((i + 1).saturating_sub(40), i.checked_sub(8));
        let inside = hi.is_some_and(|hi| (lo == 0 || ge3 >> lo & 1 == 1) && (hi + 1 >= BUF_BYTES || ge3 >> (hi + 1) & 1 == 0));
        acc | (inside as u128) << i
    });
    (le(ge3) & ipt, addr | (le(ge4) & kt))
}

/// [`TrimThermo`]'s `fl`: the [`FLAGS`] of a packet of `kind` (`tuser`
/// bits 56..60).
pub fn trim_flags(kind: u64, rts: bool, cut: bool, dscp_en: bool) -> u16 {
    let n = info_of(kind);
    let mark = cut && dscp_en && !n.ndp;
    let f =
        [rts, rts && n.v4, rts && n.v6, n.ndp, mark && n.v4, mark && n.v6, cut && n.v4, cut && n.v6, cut && n.udp, n.v4 && (cut || rts)];
    f.iter().enumerate().fold(0, |acc, (k, b)| acc | (*b as u16) << k)
}

impl Logic for TrimThermo {
    fn update(&mut self) {
        let [ge3, ge4, kt, ipt] =
            trim_thermo((self.info.val().index() as u64) << 4, self.want.val().index(), self.total.val().index(), self.ipend.val().index());
        self.ge3.next = bits128(ge3);
        self.ge4.next = bits128(ge4);
        self.kt.next = bits128(kt);
        self.ipt.next = bits128(ipt);
        let cut = self.total.val().index() > self.want.val().index();
        self.fl.next = (trim_flags(self.kind.val().index() as u64, self.rts.val(), cut, self.dscp_en.val()) as u64).to_bits();
    }
    fn connect(&mut self) {
        self.ge3.connect();
        self.ge4.connect();
        self.kt.connect();
        self.ipt.connect();
        self.fl.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = offset_wires();
        // `want` is at most 128: bits 8.. are zero (the caller clamps it).
        v.push_str("wire _unused_want = &{1'b0, want[15:8], total[15:8]};\n");
        // `v[6:4] > h`, `v[6:4] == h`, `v[3:0] > l` for `kt`'s compares.
        for x in ["want", "total"] {
            v.push_str(&format!("wire [7:0] {x}_hgt;\nwire [7:0] {x}_heq;\nwire [15:0] {x}_lgt;\n"));
            // Nothing is above the largest value (constant 0, not a compare).
            let gt = |bits: &str, n: usize, c: usize| if c + 1 < n { format!("{x}[{bits}] > {}'d{c}", n.ilog2()) } else { "1'b0".into() };
            for h in 0..8 {
                v.push_str(&format!("assign {x}_hgt[{h}] = {};\nassign {x}_heq[{h}] = {x}[6:4] == 3'd{h};\n", gt("6:4", 8, h)));
            }
            for l in 0..16 {
                v.push_str(&format!("assign {x}_lgt[{l}] = {};\n", gt("3:0", 16, l)));
            }
        }
        v.push_str(
            "wire v4 = kind[1:0] == 2'd1;\nwire v6 = kind[1:0] == 2'd2;\nwire udp = kind[3:2] == 2'd1;\nwire ndp = kind[3:2] == 2'd2;\n\
             wire cut = tbig8 | (total[7:0] > want[7:0]);\nwire mark = cut & dscp_en & ~ndp;\n\
             assign fl = {v4 & (cut | rts), cut & udp, cut & v6, cut & v4, mark & v6, mark & v4, ndp, rts & v6, rts & v4, rts};\n",
        );
        for k in 0..BUF_BYTES {
            // `v > k` for a 7-bit `v` (never, for the last byte), from the
            // shared decodes of its high 3 and low 4 bits (below): two LUT
            // levels, no carry chain.
            let gt7 = |v: &str| {
                if k + 1 < BUF_BYTES {
                    format!("({v}_hgt[{}] | ({v}_heq[{}] & {v}_lgt[{}]))", k / 16, k / 16, k % 16)
                } else {
                    "1'b0".into()
                }
            };
            v.push_str(&format!(
                "assign ge3[{k}] = {};\nassign ge4[{k}] = {};\nassign kt[{k}] = (want[7] | {}) & (tbig | {});\nassign ipt[{k}] = ipend > 9'd{k};\n",
                if k == 0 { "1'b1".into() } else { format!("l3o >= 8'd{k}") },
                if k == 0 { "1'b1".into() } else { format!("l4o >= 8'd{k}") },
                gt7("want"),
                gt7("total")
            ));
        }
        Verilog::Custom(v)
    }
}

/// Bytes in one partial sum of [`TrimSumA`]: two levels of adders after the
/// mask (issue 14: eight bytes, three levels, were the trimmer's critical path).
pub const PART_BYTES: usize = 4;
/// Bits of one partial sum of [`TrimSumA`]: four bytes (at most 1020).
pub const PART_BITS: usize = 10;
/// Partial sums per checksum sum: each covers [`PART_BYTES`] bytes of one
/// parity, so the 128-byte buffer's 64 bytes of that parity.
pub const GROUPS: usize = BUF_BYTES / 2 / PART_BYTES;
/// Width of [`TrimSumA`]'s output: four sums of [`GROUPS`] partials.
pub const PARTS_BITS: usize = 4 * GROUPS * PART_BITS;
/// Terms each [`TrimAdd`] stage adds into one: two levels of adders.
pub const ADD_GROUP: usize = 4;
/// Bits of one of the middle sums ([`TrimAdd`] after [`TrimSumA`]): four
/// partials (at most 4080).
pub const MID_BITS: usize = 12;
/// Width of the middle sums: four sums of `GROUPS / ADD_GROUP` terms.
pub const MIDS_BITS: usize = 4 * GROUPS / ADD_GROUP * MID_BITS;

/// Which bytes the checksums cover, as masks over the buffer (the first stage
/// of the sums; registered by the caller, so the sums start from flip-flops).
///
/// Ports (all combinational):
/// - `ge3`, `ge4`, `kt`, `ipt` (128 each): [`TrimThermo`]'s thermometer codes
///   (registered), so each mask bit is one LUT (issue 14).
/// - `m_ip` (128): byte `i` is in the IPv4 header, `l3_off <= i < ipend`.
/// - `m_ud` (128): byte `i` is covered by the UDP-over-IPv6 checksum: the
///   addresses (`l3_off + 8 .. l3_off + 40`) or the UDP bytes (`l4_off <= i < keep`).
#[derive(LogicBlock, Default)]
pub struct TrimMask {
    pub ge3: Signal<In, Bits<BUF_BYTES>>,
    pub ge4: Signal<In, Bits<BUF_BYTES>>,
    pub kt: Signal<In, Bits<BUF_BYTES>>,
    pub ipt: Signal<In, Bits<BUF_BYTES>>,
    pub m_ip: Signal<Out, Bits<BUF_BYTES>>,
    pub m_ud: Signal<Out, Bits<BUF_BYTES>>,
}

/// [`TrimMask`]'s function: `(m_ip, m_ud)`, bit `i` for byte `i`. `info` is
/// in [`TrimEdit`]'s layout (the caller shifts the 14-bit slice left by 4).
pub fn trim_masks(keep: usize, info: u64, ipend: usize) -> (u128, u128) {
    let n = info_of(info);
    let (mut ip, mut ud) = (0u128, 0u128);
    for i in 0..BUF_BYTES {
        let r3 = i.wrapping_sub(n.l3o) & 0xff;
        if n.l3o <= i && i < ipend {
            ip |= 1 << i;
        }
        if (8..40).contains(&r3) || (n.l4o <= i && i < keep) {
            ud |= 1 << i;
        }
    }
    (ip, ud)
}

/// The bytes of [`TrimSumA`]'s group `g` of sum `s` (0 IPv4 even-indexed, 1
/// IPv4 odd, 2 UDP even, 3 UDP odd): the [`PART_BYTES`] bytes of parity
/// `s & 1` from byte `2 PART_BYTES g`.
fn group(s: usize, g: usize) -> impl Iterator<Item = usize> {
    (0..PART_BYTES).map(move |j| 2 * PART_BYTES * g + (s & 1) + 2 * j)
}

/// The byte sums, first stage: per sum [`GROUPS`] partial sums of
/// [`PART_BYTES`] masked bytes each (group `g` of sum `s`: the bytes of parity
/// `s & 1` from byte `2 PART_BYTES g`). Two [`TrimAdd`] stages add them up.
///
/// Ports (all combinational): `buf_in` (1024, [`TrimEdit`]'s output), `m_ip`,
/// `m_ud` (128, [`TrimMask`]'s, registered); `parts` ([`PARTS_BITS`]): partial
/// `g` of sum `s` in bits `PART_BITS (GROUPS s + g) ..`.
#[derive(LogicBlock, Default)]
pub struct TrimSumA {
    pub buf_in: Signal<In, Bits<BUF_BITS>>,
    pub m_ip: Signal<In, Bits<BUF_BYTES>>,
    pub m_ud: Signal<In, Bits<BUF_BYTES>>,
    pub parts: Signal<Out, Bits<PARTS_BITS>>,
}

/// [`TrimSumA`]'s function: partial `GROUPS s + g`.
pub fn trim_parts(x: &[u8; BUF_BYTES], m_ip: u128, m_ud: u128) -> [u16; 4 * GROUPS] {
    let mut p = [0u16; 4 * GROUPS];
    for s in 0..4 {
        let m = if s < 2 { m_ip } else { m_ud };
        for g in 0..GROUPS {
            p[s * GROUPS + g] = group(s, g).filter(|i| m >> i & 1 == 1).map(|i| x[i] as u16).sum();
        }
    }
    p
}

/// The byte sums, later stages: every [`ADD_GROUP`] consecutive terms of `W`
/// bits in `parts` (`I` bits) added into one term of `O / (I / W /
/// ADD_GROUP)` bits in `sums` (`O` bits), two levels of adders. After
/// [`TrimSumA`], `TrimAdd<PARTS_BITS, PART_BITS, MIDS_BITS>` gives four
/// middle sums per checksum sum, then `TrimAdd<MIDS_BITS, MID_BITS, 64>` the
/// byte sums: `[15:0]` the even-indexed and `[31:16]` the odd-indexed bytes of
/// the IPv4 header, `[47:32]` and `[63:48]` the same of the UDP-over-IPv6
/// coverage.
///
/// Ports (all combinational): `parts` (`I`, the previous stage's, registered);
/// `sums` (`O`).
///
/// The sums add bytes, not words: [`TrimFoldA`] weighs even- and odd-indexed
/// bytes by the parity of `l3_off`, so the odd `l3_off` of a Protego-tagged
/// frame costs nothing.
#[derive(LogicBlock, Default)]
pub struct TrimAdd<const I: usize, const W: usize, const O: usize> {
    pub parts: Signal<In, Bits<I>>,
    pub sums: Signal<Out, Bits<O>>,
}

/// [`TrimAdd`]'s function: every [`ADD_GROUP`] consecutive terms added.
pub fn trim_add(p: &[u16]) -> Vec<u16> {
    p.chunks(ADD_GROUP).map(|c| c.iter().sum()).collect()
}

impl<const I: usize, const W: usize, const O: usize> TrimAdd<I, W, O> {
    /// Terms in and bits of one term out.
    const SHAPE: (usize, usize) = {
        assert!(
            I.is_multiple_of(W) && (I / W).is_multiple_of(ADD_GROUP) && O.is_multiple_of(I / W / ADD_GROUP),
            "TrimAdd: I = W x terms, terms a multiple of 4"
        );
        let out_bits = O / (I / W / ADD_GROUP);
        assert!(out_bits >= W + 2 && out_bits <= 16, "TrimAdd: the sums need W + 2 bits, at most 16");
        (I / W, out_bits)
    };
}

/// The checksums' one's-complement sums, first half: the byte sums weighed
/// into 16-bit words, modulo `2^16 - 1` (RFC 1071: `256 hi + lo` is
/// `{hi[7:0], hi[15:8]} + lo` since `2^16` is 1), plus for UDP the pseudo
/// header's next header and length.
///
/// Ports (all combinational): `sums` (64, the last [`TrimAdd`]'s, registered); `odd`:
/// `l3_off` is odd (the odd-indexed bytes are the words' high bytes);
/// `extra` (17): `keep - l4_off + 17` (the UDP length, 16 bits, plus next
/// header 17); `t` (36): `[17:0]` the IPv4 header's, `[35:18]` UDP's
/// unfolded sum (at most three carries above 16 bits).
#[derive(LogicBlock, Default)]
pub struct TrimFoldA {
    pub sums: Signal<In, Bits<64>>,
    pub odd: Signal<In, Bit>,
    pub extra: Signal<In, Bits<17>>,
    pub t: Signal<Out, Bits<36>>,
}

/// [`TrimFoldA`]'s function: `(t_ip, t_ud)`.
pub fn trim_fold_a(sums: [u16; 4], odd: bool, extra: u32) -> (u32, u32) {
    let word = |e: u16, o: u16| -> u32 {
        let (hi, lo) = if odd { (o, e) } else { (e, o) };
        hi.swap_bytes() as u32 + lo as u32
    };
    (word(sums[0], sums[1]), word(sums[2], sums[3]) + extra)
}

/// The checksums, second half: the end-around carry and the complement.
///
/// Ports (all combinational): `t` (36, [`TrimFoldA`]'s, registered); `csum`
/// (32): `[15:0]` the IPv4 header checksum, `[31:16]` the UDP checksum (0 sent
/// as 0xFFFF, RFC 8200).
#[derive(LogicBlock, Default)]
pub struct TrimFoldB {
    pub t: Signal<In, Bits<36>>,
    pub csum: Signal<Out, Bits<32>>,
}

/// One's-complement fold of an 18-bit sum: `t[15:0] + t[17:16]`, and the
/// carry of that (at most 1, leaving at most 3) added back.
fn fold18(t: u32) -> u16 {
    let x = (t & 0xffff) + (t >> 16);
    if x > 0xffff {
        ((x & 0xffff) + 1) as u16
    } else {
        x as u16
    }
}

/// [`TrimFoldB`]'s function: `(c_ip, c_ud)`.
pub fn trim_fold_b(t_ip: u32, t_ud: u32) -> (u16, u16) {
    let ud = fold18(t_ud);
    (!fold18(t_ip), if ud == 0xffff { 0xffff } else { !ud })
}

/// The checksums, inserted.
///
/// Ports (all combinational):
/// - `buf_in` (1024): the edited buffer; `info` (14): `tuser` bits 60..74
///   (`l3_off`, `l4_off`), for the Rust model; `ge3`, `ge4` (128): their
///   [`TrimThermo`] codes (registered), for the Verilog.
/// - `csum` (32): [`TrimFoldB`]'s output (registered).
/// - `fix_ip4`: write the IPv4 header checksum at `l3_off + 10`.
/// - `fix_udp6`: write the UDP checksum over IPv6 at `l4_off + 6`.
/// - `buf_out` (1024): `buf_in` with the checksums in place.
#[derive(LogicBlock, Default)]
pub struct TrimInsert {
    pub buf_in: Signal<In, Bits<BUF_BITS>>,
    pub info: Signal<In, Bits<14>>,
    pub ge3: Signal<In, Bits<BUF_BYTES>>,
    pub ge4: Signal<In, Bits<BUF_BYTES>>,
    pub csum: Signal<In, Bits<32>>,
    pub fix_ip4: Signal<In, Bit>,
    pub fix_udp6: Signal<In, Bit>,
    pub buf_out: Signal<Out, Bits<BUF_BITS>>,
}

/// [`TrimInsert`]'s function.
pub fn trim_insert(x: &[u8; BUF_BYTES], c_ip: u16, c_udp: u16, info: u64, fix_ip4: bool, fix_udp6: bool) -> [u8; BUF_BYTES] {
    let n = info_of(info);
    let r = |i: usize, o: usize| i.wrapping_sub(o) & 0xff;
    let mut o = *x;
    // `i` is the byte offset each rewrite is decided by, not just an index into `o`.
    #[allow(clippy::needless_range_loop)]
    for i in 0..BUF_BYTES {
        let (r3, r4) = (r(i, n.l3o), r(i, n.l4o));
        if fix_ip4 && r3 == 10 {
            o[i] = (c_ip >> 8) as u8;
        } else if fix_ip4 && r3 == 11 {
            o[i] = c_ip as u8;
        } else if fix_udp6 && r4 == 6 {
            o[i] = (c_udp >> 8) as u8;
        } else if fix_udp6 && r4 == 7 {
            o[i] = c_udp as u8;
        }
    }
    o
}

/// A balanced sum of `terms` (Verilog text), so synthesis builds a tree.
fn tree(terms: &[String]) -> String {
    match terms.len() {
        0 => "16'd0".into(),
        1 => terms[0].clone(),
        n => format!("({} + {})", tree(&terms[..n / 2]), tree(&terms[n / 2..])),
    }
}

/// `vals` as consecutive fields of `w` bits, the first at bit 0.
fn pack<const N: usize>(vals: &[u16], w: usize) -> Bits<N> {
    let mut out = Bits::<N>::default();
    for (k, v) in vals.iter().enumerate() {
        for bit in 0..w {
            out = out.replace_bit(k * w + bit, v >> bit & 1 == 1);
        }
    }
    out
}

fn bits128(v: u128) -> Bits<BUF_BYTES> {
    (0..BUF_BYTES).fold(Bits::default(), |b, i| b.replace_bit(i, v >> i & 1 == 1))
}

fn u128_of(b: &Bits<BUF_BYTES>) -> u128 {
    (0..BUF_BYTES).fold(0, |acc, i| acc | (b.get_bit(i) as u128) << i)
}

impl Logic for TrimMask {
    fn update(&mut self) {
        let t = |b: &Bits<BUF_BYTES>| u128_of(b);
        let (ip, ud) = masks_of_thermo(t(&self.ge3.val()), t(&self.ge4.val()), t(&self.kt.val()), t(&self.ipt.val()));
        self.m_ip.next = bits128(ip);
        self.m_ud.next = bits128(ud);
    }
    fn connect(&mut self) {
        self.m_ip.connect();
        self.m_ud.connect();
    }
    fn hdl(&self) -> Verilog {
        // Bit 0 of a thermometer code is always set.
        let mut v = String::from("wire _unused_ok = &{1'b0, ge3[0], ge4[0]};\n");
        for i in 0..BUF_BYTES {
            // `off <= i` is `~ge[i + 1]` (always true for the last byte).
            let le = |t: &str| if i + 1 < BUF_BYTES { format!("~{t}[{}]", i + 1) } else { "1'b1".into() };
            v.push_str(&format!(
                "assign m_ip[{i}] = {} & ipt[{i}];\nassign m_ud[{i}] = {} | ({} & kt[{i}]);\n",
                le("ge3"),
                within_t("ge3", i, 8, 40),
                le("ge4")
            ));
        }
        Verilog::Custom(v)
    }
}

impl Logic for TrimSumA {
    fn update(&mut self) {
        let p = trim_parts(&bytes_of(&self.buf_in.val()), u128_of(&self.m_ip.val()), u128_of(&self.m_ud.val()));
        self.parts.next = pack(&p, PART_BITS);
    }
    fn connect(&mut self) {
        self.parts.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        for s in 0..4 {
            let m = if s < 2 { "m_ip" } else { "m_ud" };
            for g in 0..GROUPS {
                let terms: Vec<String> =
                    group(s, g).map(|i| format!("({m}[{i}] ? {{{}'d0, {}}} : {PART_BITS}'d0)", PART_BITS - 8, b(i))).collect();
                let lo = (s * GROUPS + g) * PART_BITS;
                v.push_str(&format!("assign parts[{}:{lo}] = {};\n", lo + PART_BITS - 1, tree(&terms)));
            }
        }
        Verilog::Custom(v)
    }
}

impl<const I: usize, const W: usize, const O: usize> Logic for TrimAdd<I, W, O> {
    fn update(&mut self) {
        let (n, ob) = Self::SHAPE;
        let p = self.parts.val();
        let terms: Vec<u16> = (0..n).map(|k| (0..W).fold(0, |acc, bit| acc | (p.get_bit(k * W + bit) as u16) << bit)).collect();
        self.sums.next = pack(&trim_add(&terms), ob);
    }
    fn connect(&mut self) {
        self.sums.connect();
    }
    fn hdl(&self) -> Verilog {
        let (n, ob) = Self::SHAPE;
        let mut v = String::new();
        for k in 0..n / ADD_GROUP {
            let terms: Vec<String> = (0..ADD_GROUP)
                .map(|j| {
                    let lo = (k * ADD_GROUP + j) * W;
                    format!("{{{}'d0, parts[{}:{lo}]}}", ob - W, lo + W - 1)
                })
                .collect();
            v.push_str(&format!("assign sums[{}:{}] = {};\n", ob * k + ob - 1, ob * k, tree(&terms)));
        }
        Verilog::Custom(v)
    }
}

impl Logic for TrimFoldA {
    fn update(&mut self) {
        let p = self.sums.val().index() as u64;
        let sums = [p as u16, (p >> 16) as u16, (p >> 32) as u16, (p >> 48) as u16];
        let (ip, ud) = trim_fold_a(sums, self.odd.val(), self.extra.val().index() as u32);
        self.t.next = (ip as u64 | (ud as u64) << 18).to_bits();
    }
    fn connect(&mut self) {
        self.t.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "wire [15:0] ip_e = sums[15:0];\nwire [15:0] ip_o = sums[31:16];\nwire [15:0] ud_e = sums[47:32];\nwire [15:0] ud_o = sums[63:48];\n\
             wire [15:0] ip_hi = odd ? ip_o : ip_e;\nwire [15:0] ip_lo = odd ? ip_e : ip_o;\n\
             wire [15:0] ud_hi = odd ? ud_o : ud_e;\nwire [15:0] ud_lo = odd ? ud_e : ud_o;\n\
             assign t[17:0] = {2'd0, ip_hi[7:0], ip_hi[15:8]} + {2'd0, ip_lo};\n\
             assign t[35:18] = {2'd0, ud_hi[7:0], ud_hi[15:8]} + {2'd0, ud_lo} + {1'b0, extra};\n"
                .into(),
        )
    }
}

impl Logic for TrimFoldB {
    fn update(&mut self) {
        let t = self.t.val().index() as u64;
        let (ip, ud) = trim_fold_b((t & 0x3ffff) as u32, (t >> 18) as u32);
        self.csum.next = (ip as u64 | (ud as u64) << 16).to_bits();
    }
    fn connect(&mut self) {
        self.csum.connect();
    }
    fn hdl(&self) -> Verilog {
        // x = t[15:0] + t[17:16]; a carry out leaves x[15:0] <= 2, so adding
        // it back is a 2-bit increment, not a second 16-bit chain.
        let mut v = String::new();
        for (name, lo) in [("ip", 0), ("ud", 18)] {
            v.push_str(&format!(
                "wire [16:0] x_{name} = {{1'b0, t[{}:{lo}]}} + {{15'd0, t[{}:{}]}};\n\
                 wire [15:0] f_{name} = x_{name}[16] ? {{14'd0, x_{name}[1:0]}} + 16'd1 : x_{name}[15:0];\n",
                lo + 15,
                lo + 17,
                lo + 16
            ));
        }
        v.push_str("assign csum[15:0] = ~f_ip;\nassign csum[31:16] = (f_ud == 16'hffff) ? 16'hffff : ~f_ud;\n");
        Verilog::Custom(v)
    }
}

impl Logic for TrimInsert {
    fn update(&mut self) {
        let c = self.csum.val().index() as u64;
        let o = trim_insert(
            &bytes_of(&self.buf_in.val()),
            c as u16,
            (c >> 16) as u16,
            (self.info.val().index() as u64) << 4,
            self.fix_ip4.val(),
            self.fix_udp6.val(),
        );
        self.buf_out.next = bits_of(&o);
    }
    fn connect(&mut self) {
        self.buf_out.connect();
    }
    fn hdl(&self) -> Verilog {
        // `info` is the Rust model's; the Verilog reads the thermometer codes,
        // of which the checksum fields (offsets 10 and 6 on) use the low part.
        let mut v = format!(
            "wire _unused_ok = &{{1'b0, info, ge3[{}:{}], ge4[{}:{}]}};\n",
            BUF_BYTES - 1,
            BUF_BYTES - 9,
            BUF_BYTES - 1,
            BUF_BYTES - 5
        );
        v.push_str("wire [15:0] c_ip = csum[15:0];\nwire [15:0] c_ud = csum[31:16];\n");
        for i in 0..BUF_BYTES {
            let x = b(i);
            v.push_str(&format!(
                "assign buf_out[{hi}:{lo}] = (fix_ip4 & {a10}) ? c_ip[15:8] :\n    \
                 (fix_ip4 & {a11}) ? c_ip[7:0] :\n    \
                 (fix_udp6 & {a6}) ? c_ud[15:8] :\n    \
                 (fix_udp6 & {a7}) ? c_ud[7:0] : {x};\n",
                hi = 8 * i + 7,
                lo = 8 * i,
                a10 = at_t("ge3", i, 10),
                a11 = at_t("ge3", i, 11),
                a6 = at_t("ge4", i, 6),
                a7 = at_t("ge4", i, 7)
            ));
        }
        Verilog::Custom(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64: the test's random numbers, without a dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn range(&mut self, lo: usize, hi: usize) -> usize {
            lo + (self.next() % (hi - lo) as u64) as usize
        }
    }

    /// The checksums in one step, as RFC 1071 defines them: the byte sums
    /// weighed into words, folded, complemented.
    fn one_step(x: &[u8; BUF_BYTES], keep: usize, info: u64, ipend: usize) -> (u16, u16) {
        let n = info_of(info);
        let fold = |mut s: u32| {
            while s > 0xffff {
                s = (s & 0xffff) + (s >> 16);
            }
            s as u16
        };
        let (mut ip, mut ud) = (0u32, 0u32);
        for (i, v) in x.iter().enumerate() {
            let w = if (i ^ n.l3o) & 1 == 0 { (*v as u32) << 8 } else { *v as u32 };
            if n.l3o <= i && i < ipend {
                ip += w;
            }
            if (n.l3o + 8..n.l3o + 40).contains(&i) || (n.l4o <= i && i < keep) {
                ud += w;
            }
        }
        let len4 = keep.wrapping_sub(n.l4o) as u32 & 0xffff;
        let c_ud = !fold(ud + 17 + len4);
        (!fold(ip), if c_ud == 0 { 0xffff } else { c_ud })
    }

    /// The edit as the Verilog builds it (registered per-byte conditions,
    /// then an AND-OR) gives the model's rewrites, on random buffers, header
    /// kinds and layouts, keep lengths, return and DSCP settings.
    #[test]
    fn edit_by_conds_matches_the_model() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut rewritten = 0;
        for _ in 0..20_000 {
            let mut x = [0u8; BUF_BYTES];
            for v in x.iter_mut() {
                *v = rng.next() as u8;
            }
            let kind = rng.range(0, 16) as u64;
            let l3o = rng.range(0, 64);
            let l4o = rng.range(l3o + 20, 128);
            let (want, total) = (rng.range(1, 129), rng.range(1, 200));
            let keep = want.min(total);
            let (rts, dscp_en, dscp) = (rng.next() & 1 == 1, rng.next() & 1 == 1, rng.range(0, 64) as u8);
            let info = kind | (l3o as u64) << 4 | (l4o as u64) << 11;
            let cut = total > want;
            let [ge3, ge4, kt, _] = trim_thermo(info, want, total, l3o + 20);
            let ec = trim_conds(ge3, ge4, kt, trim_flags(kind, rts, cut, dscp_en));
            let len3 = keep.wrapping_sub(l3o) as u16;
            let lens = [len3, len3.wrapping_sub(40), keep.wrapping_sub(l4o) as u16];
            let want_o = trim_edit(&x, keep, cut, rts, info, dscp_en.then_some(dscp));
            let got = edit_of_conds(&x, &ec, lens, dscp, rts, cut);
            assert_eq!(got, want_o, "kind {kind} l3o {l3o} l4o {l4o} want {want} total {total} rts {rts} dscp_en {dscp_en}");
            // Exactly one condition per byte below `keep`, none from it on.
            for (i, c) in ec.iter().enumerate() {
                assert_eq!(c.count_ones(), (i < keep) as u32, "byte {i}: conditions {c:#x}");
            }
            rewritten += (0..keep).filter(|i| ec[*i] >> (CONDS - 1) & 1 == 0).count();
        }
        assert!(rewritten > 10_000, "rewrites exercised: {rewritten}");
    }

    /// The four stages (masks, partial sums, sums, fold in two) give the
    /// one-step checksums on random buffers and header layouts, including
    /// buffers of 0xFF bytes (the largest sums, carries in every fold) and of
    /// zeros (a UDP checksum of 0 sent as 0xFFFF).
    #[test]
    fn staged_checksums_match_one_step() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut fills = [0usize; 3];
        for n in 0..20_000 {
            let mut x = [0u8; BUF_BYTES];
            let fill = n % 3;
            fills[fill] += 1;
            for v in x.iter_mut() {
                *v = match fill {
                    0 => rng.next() as u8,
                    1 => 0xff,
                    _ => 0,
                };
            }
            let l3o = rng.range(0, 64);
            let l4o = rng.range(l3o, 128);
            let keep = rng.range(1, 129);
            let ipend = l3o + 4 * rng.range(0, 16);
            let info = ((l3o as u64) << 4) | ((l4o as u64) << 11);
            let (m_ip, m_ud) = trim_masks(keep, info, ipend);
            // The thermometer codes give the same masks, with keep = min(want, total).
            let (want, total) = (rng.range(1, 129), rng.range(1, 200));
            let keep_t = want.min(total);
            let [ge3, ge4, kt, ipt] = trim_thermo(info, want, total, ipend);
            assert_eq!(masks_of_thermo(ge3, ge4, kt, ipt), trim_masks(keep_t, info, ipend), "thermometer masks: l3o {l3o} l4o {l4o}");
            let sums: [u16; 4] = trim_add(&trim_add(&trim_parts(&x, m_ip, m_ud))).try_into().expect("four byte sums");
            let extra = (keep.wrapping_sub(l4o) as u32 & 0xffff) + 17;
            let (t_ip, t_ud) = trim_fold_a(sums, l3o & 1 == 1, extra);
            assert!(t_ip < 1 << 18 && t_ud < 1 << 18);
            let got = trim_fold_b(t_ip, t_ud);
            assert_eq!(got, one_step(&x, keep, info, ipend), "l3o {l3o} l4o {l4o} keep {keep} ipend {ipend} fill {fill}");
        }
        assert!(fills.iter().all(|f| *f > 6000));
    }
}
