//! The trimmer's two combinational stages over its 128-byte header buffer
//! (`docs/trimming.md`, "Trim length and the trimmer"): [`TrimEdit`] rewrites
//! fields, [`TrimSum`] sums the bytes the checksums cover, [`TrimInsert`]
//! folds the sums and inserts the checksums. `ts_trimmer` ([`crate::tm::trimmer`])
//! registers between them.
//!
//! Both are leaf widgets with generated Verilog bodies, like
//! [`crate::prim::widgets::KeepExpand`]: per-byte muxes at variable header offsets
//! are 128 small continuous assignments, which rust-hdl's `hdl_gen` can only
//! express as long `replace_bits` chains (too deep for Yosys' parser). The
//! Verilog is generated per byte with only the alternatives that byte can
//! take; `update()` is the same function in Rust for rust-hdl's simulator.
//! The Verilator tests hold the Verilog to the golden model
//! (`sim/src/model/tm.rs`).
//!
//! Buffer layout: byte `i` of the packet in bits `8i+7 .. 8i` (lane order of
//! the AXI4-Stream beats). `info` is a slice of `tuser` ([`crate::meta`]):
//! [`TrimEdit`] takes bits 56..74 (`l3` \[1:0\], `l4` \[3:2\], `l3_off` \[10:4\],
//! `l4_off` \[17:11\]), [`TrimSum`] and [`TrimInsert`] bits 60..74 (`l3_off` \[6:0\], `l4_off` \[13:7\]).
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

/// Verilog preamble shared by both stages: the `info` fields. `edit` selects
/// [`TrimEdit`]'s set (kinds and lengths) over the checksum stages' (IHL and the UDP length).
fn info_wires(edit: bool, len4: bool) -> String {
    // The checksum stages' `info` starts at l3_off (tuser bit 60), TrimEdit's at l3 (56).
    let o = if edit { 4 } else { 0 };
    let mut v = format!(
        "wire [7:0] l3o = {{1'b0, info[{}:{}]}};\nwire [7:0] l4o = {{1'b0, info[{}:{}]}};\nwire [7:0] keep8 = keep;\n",
        o + 6,
        o,
        o + 13,
        o + 7
    );
    if len4 {
        v.push_str("wire [15:0] len4 = {8'd0, keep8} - {8'd0, l4o};\n");
    }
    if edit {
        v.push_str(
            "wire [1:0] l3 = info[1:0];\nwire [1:0] l4 = info[3:2];\nwire v4 = l3 == 2'd1;\nwire v6 = l3 == 2'd2;\nwire udp = l4 == 2'd1;\nwire ndp = l4 == 2'd2;\n\
             wire [15:0] len3 = {8'd0, keep8} - {8'd0, l3o};\nwire [15:0] len6 = len3 - 16'd40;\n",
        );
    }
    v
}

/// Verilog for "byte `i` is at offset `c` from the header at `off`" (`off`
/// is `l3o` or `l4o`): a comparison of `off` with a constant, so synthesis
/// shares one decoder of `off` across all bytes instead of a subtractor per byte.
fn at(off: &str, i: usize, c: usize) -> String {
    if i >= c {
        format!("({off} == 8'd{})", i - c)
    } else {
        "1'b0".into()
    }
}

/// Verilog for "byte `i` is at an offset in `[a, b)` from the header at `off`".
fn within(off: &str, i: usize, a: usize, b: usize) -> String {
    if i < a {
        return "1'b0".into();
    }
    let hi = i - a;
    let lo = (i + 1).saturating_sub(b);
    if lo == 0 {
        format!("({off} <= 8'd{hi})")
    } else {
        format!("({off} <= 8'd{hi} & {off} >= 8'd{lo})")
    }
}

fn b(i: usize) -> String {
    format!("buf_in[{}:{}]", 8 * i + 7, 8 * i)
}

/// Stage 1: field rewrites of a trimmed or returned packet.
///
/// Ports (all combinational):
/// - `buf_in` (1024): the first 128 bytes of the packet as received.
/// - `keep` (8): bytes kept (1..=128); bytes from `keep` on are zeroed.
/// - `cut`: bytes were removed (the packet was longer than `keep`): lengths
///   are rewritten, the NDP TRIMMED flag set or the DSCP rewritten, and the
///   UDP checksum field zeroed.
/// - `rts`: return to sender: MACs and IP addresses swapped, NDP RETURNED set.
/// - `info` (18): header locations without `ihl` (module docs).
/// - `dscp_en`, `dscp` (6): the TRIMMED codepoint and whether to write it.
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
    pub buf_out: Signal<Out, Bits<BUF_BITS>>,
}

/// [`TrimEdit`]'s function on bytes (the rust-hdl simulation of the widget).
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
        } else if rts && i < 6 {
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
        let mut v = info_wires(true, true);
        v.push_str("wire mark = cut & dscp_en & ~ndp;\nwire [7:0] flagbits = {2'b00, rts, cut, 4'b0000};\n");
        for i in 0..BUF_BYTES {
            let mut alt: Vec<(String, String)> = vec![];
            alt.push((format!("8'd{i} >= keep8"), "8'd0".into()));
            if i < 6 {
                alt.push(("rts".into(), b(i + 6)));
            } else if i < 12 {
                alt.push(("rts".into(), b(i - 6)));
            }
            if i + 4 < BUF_BYTES && i >= 12 {
                alt.push((format!("rts & v4 & {}", within("l3o", i, 12, 16)), b(i + 4)));
            }
            if i >= 16 {
                alt.push((format!("rts & v4 & {}", within("l3o", i, 16, 20)), b(i - 4)));
            }
            if i + 16 < BUF_BYTES && i >= 8 {
                alt.push((format!("rts & v6 & {}", within("l3o", i, 8, 24)), b(i + 16)));
            }
            if i >= 24 {
                alt.push((format!("rts & v6 & {}", within("l3o", i, 24, 40)), b(i - 16)));
            }
            let x = b(i);
            alt.push((format!("ndp & {}", at("l4o", i, 0)), format!("{x} | flagbits")));
            alt.push((format!("mark & v4 & {}", at("l3o", i, 1)), format!("{{dscp, buf_in[{}:{}]}}", 8 * i + 1, 8 * i)));
            alt.push((format!("mark & v6 & {}", at("l3o", i, 0)), format!("{{buf_in[{}:{}], dscp[5:2]}}", 8 * i + 7, 8 * i + 4)));
            alt.push((format!("mark & v6 & {}", at("l3o", i, 1)), format!("{{dscp[1:0], buf_in[{}:{}]}}", 8 * i + 5, 8 * i)));
            alt.push((format!("cut & v4 & {}", at("l3o", i, 2)), "len3[15:8]".into()));
            alt.push((format!("cut & v4 & {}", at("l3o", i, 3)), "len3[7:0]".into()));
            alt.push((format!("cut & v6 & {}", at("l3o", i, 4)), "len6[15:8]".into()));
            alt.push((format!("cut & v6 & {}", at("l3o", i, 5)), "len6[7:0]".into()));
            alt.push((format!("cut & udp & {}", at("l4o", i, 4)), "len4[15:8]".into()));
            alt.push((format!("cut & udp & {}", at("l4o", i, 5)), "len4[7:0]".into()));
            alt.push((
                format!(
                    "(cut & udp & ({} | {})) | (v4 & (cut | rts) & ({} | {}))",
                    at("l4o", i, 6),
                    at("l4o", i, 7),
                    at("l3o", i, 10),
                    at("l3o", i, 11)
                ),
                "8'd0".into(),
            ));
            // The alternatives are mutually exclusive for any header layout
            // (they sit at distinct offsets), so the byte is an AND-OR of them
            // (shallow) rather than a priority chain; `trim_edit` is the
            // priority form and the tests hold the two equal. The first
            // alternative (beyond `keep`) gates the rest.
            let (gate, rest) = alt.split_first().unwrap();
            let mut terms = vec![];
            let mut conds = vec![];
            for (k, (c, val)) in rest.iter().enumerate() {
                v.push_str(&format!("wire e{i}_{k} = {c};\n"));
                terms.push(format!("({{8{{e{i}_{k}}}}} & ({val}))"));
                conds.push(format!("e{i}_{k}"));
            }
            terms.push(format!("({{8{{~({})}}}} & {x})", conds.join(" | ")));
            v.push_str(&format!("assign buf_out[{}:{}] = ({}) ? {} : ({});\n", 8 * i + 7, 8 * i, gate.0, gate.1, terms.join("\n    | ")));
        }
        Verilog::Custom(v)
    }
}

/// Stage 2: the byte sums the checksums need, over the edited buffer.
///
/// Ports (all combinational):
/// - `buf_in` (1024): [`TrimEdit`]'s output (checksum fields zeroed where they
///   are recomputed).
/// - `keep` (8), `info` (14): `tuser` bits 60..74 (`l3_off`, `l4_off`).
/// - `ipend` (8): `l3_off + 4 * ihl`, the end of the IPv4 header (registered by
///   the caller, so no adder sits in front of the sums).
/// - `sums` (64): four 16-bit sums of bytes, `\[15:0\]` the even-indexed and
///   `\[31:16\]` the odd-indexed bytes of the IPv4 header (`4 * ihl` bytes at
///   `l3_off`), `\[47:32\]` and `\[63:48\]` the same of the UDP-over-IPv6 checksum
///   coverage (the addresses, `l3_off + 8 .. l3_off + 40`, and the UDP bytes
///   `l4_off .. keep`).
///
/// The sums add bytes, not words: [`TrimInsert`] weighs even- and odd-indexed
/// bytes by the parity of `l3_off` (`256 * high + low`) before folding, so the
/// odd `l3_off` of a Protego-tagged frame costs nothing.
#[derive(LogicBlock, Default)]
pub struct TrimSum {
    pub buf_in: Signal<In, Bits<BUF_BITS>>,
    pub keep: Signal<In, Bits<8>>,
    pub info: Signal<In, Bits<14>>,
    pub ipend: Signal<In, Bits<8>>,
    pub sums: Signal<Out, Bits<64>>,
}

/// Stage 3: the checksums, inserted.
///
/// Ports (all combinational):
/// - `buf_in` (1024), `keep` (8): as for [`TrimSum`]; `info` (14): `tuser` bits 60..74 (`l3_off`, `l4_off`).
/// - `sums` (64): [`TrimSum`]'s output for the same buffer (registered).
/// - `fix_ip4`: write the IPv4 header checksum at `l3_off + 10`.
/// - `fix_udp6`: write the UDP checksum over IPv6 at `l4_off + 6`: the sum plus
///   next header 17 and the UDP length `keep - l4_off`; a result of 0 is sent as
///   0xFFFF (RFC 8200).
/// - `buf_out` (1024): `buf_in` with the checksums in place.
#[derive(LogicBlock, Default)]
pub struct TrimInsert {
    pub buf_in: Signal<In, Bits<BUF_BITS>>,
    pub keep: Signal<In, Bits<8>>,
    pub info: Signal<In, Bits<14>>,
    pub sums: Signal<In, Bits<64>>,
    pub fix_ip4: Signal<In, Bit>,
    pub fix_udp6: Signal<In, Bit>,
    pub buf_out: Signal<Out, Bits<BUF_BITS>>,
}

fn fold(mut s: u32) -> u16 {
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// [`TrimSum`]'s function: `[ip_even, ip_odd, udp_even, udp_odd]` byte sums.
pub fn trim_sums(x: &[u8; BUF_BYTES], keep: usize, info: u64, ipend: usize) -> [u16; 4] {
    let n = info_of(info);
    let r = |i: usize, o: usize| i.wrapping_sub(o) & 0xff;
    let len4 = keep.wrapping_sub(n.l4o) & 0xffff;
    let mut s = [0u32; 4];
    for (i, v) in x.iter().enumerate() {
        if n.l3o <= i && i < ipend {
            s[i & 1] += *v as u32;
        }
        if (8..40).contains(&r(i, n.l3o)) || r(i, n.l4o) < len4 {
            s[2 + (i & 1)] += *v as u32;
        }
    }
    s.map(|v| v as u16)
}

/// [`TrimInsert`]'s function.
pub fn trim_insert(x: &[u8; BUF_BYTES], sums: [u16; 4], keep: usize, info: u64, fix_ip4: bool, fix_udp6: bool) -> [u8; BUF_BYTES] {
    let n = info_of(info);
    let r = |i: usize, o: usize| i.wrapping_sub(o) & 0xff;
    let len4 = keep.wrapping_sub(n.l4o) & 0xffff;
    let weigh = |e: u16, o: u16| -> u32 {
        let (hi, lo) = if n.l3o & 1 == 0 { (e, o) } else { (o, e) };
        ((hi as u32) << 8) + lo as u32
    };
    let c_ip = !fold(weigh(sums[0], sums[1]));
    let c_udp = !fold(weigh(sums[2], sums[3]) + 17 + len4 as u32);
    let c_udp = if c_udp == 0 { 0xffff } else { c_udp };
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

impl Logic for TrimSum {
    fn update(&mut self) {
        let v = trim_sums(
            &bytes_of(&self.buf_in.val()),
            self.keep.val().index(),
            (self.info.val().index() as u64) << 4,
            self.ipend.val().index(),
        );
        let packed = v.iter().enumerate().fold(0u64, |acc, (k, x)| acc | (*x as u64) << (16 * k));
        self.sums.next = packed.to_bits();
    }
    fn connect(&mut self) {
        self.sums.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = info_wires(false, false);
        for i in 0..BUF_BYTES {
            v.push_str(&format!(
                "wire [15:0] ip_{i} = (l3o <= 8'd{i} & 8'd{i} < ipend) ? {{8'd0, {x}}} : 16'd0;\n\
                 wire [15:0] ud_{i} = ({w} | (l4o <= 8'd{i} & 8'd{i} < keep8)) ? {{8'd0, {x}}} : 16'd0;\n",
                x = b(i),
                w = within("l3o", i, 8, 40)
            ));
        }
        let (even, odd): (Vec<usize>, Vec<usize>) = (0..BUF_BYTES).partition(|i| i % 2 == 0);
        let names = |pre: &str, idx: &[usize]| -> Vec<String> { idx.iter().map(|i| format!("{pre}_{i}")).collect() };
        v.push_str(&format!(
            "assign sums = {{{}, {}, {}, {}}};\n",
            tree(&names("ud", &odd)),
            tree(&names("ud", &even)),
            tree(&names("ip", &odd)),
            tree(&names("ip", &even))
        ));
        Verilog::Custom(v)
    }
}

impl Logic for TrimInsert {
    fn update(&mut self) {
        let p = self.sums.val().index() as u64;
        let sums = [p as u16, (p >> 16) as u16, (p >> 32) as u16, (p >> 48) as u16];
        let o = trim_insert(
            &bytes_of(&self.buf_in.val()),
            sums,
            self.keep.val().index(),
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
        let mut v = info_wires(false, true);
        v.push_str(
            "wire [15:0] ip_e = sums[15:0];\nwire [15:0] ip_o = sums[31:16];\nwire [15:0] ud_e = sums[47:32];\nwire [15:0] ud_o = sums[63:48];\n\
             wire [15:0] ip_hi = l3o[0] ? ip_o : ip_e;\nwire [15:0] ip_lo = l3o[0] ? ip_e : ip_o;\n\
             wire [15:0] ud_hi = l3o[0] ? ud_o : ud_e;\nwire [15:0] ud_lo = l3o[0] ? ud_e : ud_o;\n\
             wire [23:0] ip_s = {ip_hi, 8'd0} + {8'd0, ip_lo};\n\
             wire [23:0] ud_s = {ud_hi, 8'd0} + {8'd0, ud_lo} + {8'd0, len4} + 24'd17;\n\
             wire [16:0] ip_f1 = {1'b0, ip_s[15:0]} + {9'd0, ip_s[23:16]};\n\
             wire [15:0] ip_f2 = ip_f1[15:0] + {15'd0, ip_f1[16]};\n\
             wire [16:0] ud_f1 = {1'b0, ud_s[15:0]} + {9'd0, ud_s[23:16]};\n\
             wire [15:0] ud_f2 = ud_f1[15:0] + {15'd0, ud_f1[16]};\n\
             wire [15:0] c_ip = ~ip_f2;\nwire [15:0] c_ud0 = ~ud_f2;\n\
             wire [15:0] c_ud = (c_ud0 == 16'd0) ? 16'hffff : c_ud0;\n",
        );
        for i in 0..BUF_BYTES {
            let x = b(i);
            v.push_str(&format!(
                "assign buf_out[{hi}:{lo}] = (fix_ip4 & {a10}) ? c_ip[15:8] :\n    \
                 (fix_ip4 & {a11}) ? c_ip[7:0] :\n    \
                 (fix_udp6 & {a6}) ? c_ud[15:8] :\n    \
                 (fix_udp6 & {a7}) ? c_ud[7:0] : {x};\n",
                hi = 8 * i + 7,
                lo = 8 * i,
                a10 = at("l3o", i, 10),
                a11 = at("l3o", i, 11),
                a6 = at("l4o", i, 6),
                a7 = at("l4o", i, 7)
            ));
        }
        Verilog::Custom(v)
    }
}
