//! Leaf widgets with hand-written Verilog bodies, used by every trimswitch block.
//!
//! rust-hdl's own `DFF` has no reset and `RAM` has no read enable. The blocks in
//! this crate need both: every stateful block takes an explicit synchronous,
//! active-high `reset` (ASIC flows ignore `initial` blocks), and block-RAM
//! inference wants a registered read with an enable. Data-path registers that
//! need no reset (their contents are qualified by a reset valid bit) use
//! rust-hdl's `DFF` directly.
use rust_hdl::prelude::*;

/// A D flip-flop with a synchronous, active-high reset to a fixed value.
///
/// Ports:
/// - `clock`: rising-edge clock.
/// - `reset`: synchronous reset; while high at a rising edge `q` takes the reset value.
/// - `d`: next value, taken at the rising edge when `reset` is low.
/// - `q`: registered output.
///
/// The reset value is fixed when the block is built ([`DffR::new`]) and appears
/// as a literal in the emitted Verilog. In `hdl_gen` code connect it with
/// rust-hdl's `dff_setup!` (clock, and `d` defaulting to `q`) plus an explicit
/// `x.reset.next = self.reset.val();`.
#[derive(Clone, Debug, LogicBlock)]
pub struct DffR<T: Synth> {
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    _init: T,
}

impl<T: Synth> DffR<T> {
    /// A flip-flop that resets to `init`.
    pub fn new(init: T) -> Self {
        Self { d: Default::default(), q: Default::default(), clock: Default::default(), reset: Default::default(), _init: init }
    }
}

impl<T: Synth> Default for DffR<T> {
    /// A flip-flop that resets to zero.
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: Synth> Logic for DffR<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = if self.reset.val() { self._init } else { self.d.val() };
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "always @(posedge clock) begin\n   if (reset) q <= {init:x};\n   else q <= d;\nend\n",
            init = self._init.verilog()
        ))
    }
}

/// A D flip-flop without reset that synthesis keeps apart from its equal
/// twins: a replica of a register whose fan-out is wide, so each copy drives
/// a share of the loads and is placed near them (issue 14). Yosys merges
/// flip-flops with the same inputs (`opt_merge`) unless their process is
/// marked `keep`, which this one is; Verilator ignores the attribute.
///
/// Ports: `clock` (rising edge), `d` (next value), `q` (registered output).
#[derive(Clone, Debug, LogicBlock, Default)]
pub struct DffKeep<T: Synth> {
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    pub clock: Signal<In, Clock>,
}

impl<T: Synth> Logic for DffKeep<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = self.d.val();
        }
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom("(* keep *) always @(posedge clock) q <= d;\n".into())
    }
}

/// Zero extension of an `A`-bit value to `B` bits (`B >= A`). Pure wiring.
/// `#[hdl_gen]` code cannot widen an element of a `Vec` inside a loop
/// (`bit_cast` is evaluated when the Verilog is written, outside the loop), so
/// a block that must keeps one of these per element.
///
/// Ports: `a` in (`A` bits); `y` out (`B` bits, `a` in the low bits).
#[derive(Clone, Debug, LogicBlock, Default)]
pub struct Zext<const A: usize, const B: usize> {
    pub a: Signal<In, Bits<A>>,
    pub y: Signal<Out, Bits<B>>,
}

impl<const A: usize, const B: usize> Logic for Zext<A, B> {
    fn update(&mut self) {
        self.y.next = bit_cast::<B, A>(self.a.val());
    }
    fn connect(&mut self) {
        self.y.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!(B >= A, "Zext<{A}, {B}> narrows");
        if B == A {
            Verilog::Custom("always @(*) y = a;\n".into())
        } else {
            Verilog::Custom(format!("always @(*) y = {{{}'d0, a}};\n", B - A))
        }
    }
}

/// The sum of up to [`SumTree::TERMS`] 16-bit terms by a binary tree of
/// registered adders, one level per cycle: [`SumTree::LATENCY`] cycles from
/// `t_i` to `sum`, one 16-bit add per level (a serial sum of `n` terms would be
/// `n` carry chains in a row). Terms not driven are tied to 0 by the user;
/// synthesis removes their adders. Sums wrap at 2¹⁶. Issue 15: the PL2 ALU's
/// per-counter events (`crate::pl2::alu`).
///
/// Ports: `clock`, `reset` (synchronous, clears the tree), `t_i` in (`i` in
/// `0..TERMS`), `sum` out.
#[derive(LogicBlock)]
pub struct SumTree {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub t: Vec<Signal<In, Bits<16>>>,
    pub sum: Signal<Out, Bits<16>>,
    l1: Vec<DffR<Bits<16>>>,
    l2: Vec<DffR<Bits<16>>>,
    l3: Vec<DffR<Bits<16>>>,
    l4: Vec<DffR<Bits<16>>>,
    l5: Vec<DffR<Bits<16>>>,
    l6: Vec<DffR<Bits<16>>>,
    l7: Vec<DffR<Bits<16>>>,
}

impl SumTree {
    /// Terms summed.
    pub const TERMS: usize = 128;
    /// Cycles from the terms to their sum.
    pub const LATENCY: u64 = 7;
}

impl Default for SumTree {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            t: vec_of(Self::TERMS),
            sum: Default::default(),
            l1: vec_of(64),
            l2: vec_of(32),
            l3: vec_of(16),
            l4: vec_of(8),
            l5: vec_of(4),
            l6: vec_of(2),
            l7: vec_of(1),
        }
    }
}

impl Logic for SumTree {
    #[hdl_gen]
    fn update(&mut self) {
        for k in 0..self.l1.len() {
            self.l1[k].clock.next = self.clock.val();
            self.l1[k].reset.next = self.reset.val();
            self.l1[k].d.next = self.t[2 * k].val() + self.t[2 * k + 1].val();
        }
        for k in 0..self.l2.len() {
            self.l2[k].clock.next = self.clock.val();
            self.l2[k].reset.next = self.reset.val();
            self.l2[k].d.next = self.l1[2 * k].q.val() + self.l1[2 * k + 1].q.val();
        }
        for k in 0..self.l3.len() {
            self.l3[k].clock.next = self.clock.val();
            self.l3[k].reset.next = self.reset.val();
            self.l3[k].d.next = self.l2[2 * k].q.val() + self.l2[2 * k + 1].q.val();
        }
        for k in 0..self.l4.len() {
            self.l4[k].clock.next = self.clock.val();
            self.l4[k].reset.next = self.reset.val();
            self.l4[k].d.next = self.l3[2 * k].q.val() + self.l3[2 * k + 1].q.val();
        }
        for k in 0..self.l5.len() {
            self.l5[k].clock.next = self.clock.val();
            self.l5[k].reset.next = self.reset.val();
            self.l5[k].d.next = self.l4[2 * k].q.val() + self.l4[2 * k + 1].q.val();
        }
        for k in 0..self.l6.len() {
            self.l6[k].clock.next = self.clock.val();
            self.l6[k].reset.next = self.reset.val();
            self.l6[k].d.next = self.l5[2 * k].q.val() + self.l5[2 * k + 1].q.val();
        }
        self.l7[0].clock.next = self.clock.val();
        self.l7[0].reset.next = self.reset.val();
        self.l7[0].d.next = self.l6[0].q.val() + self.l6[1].q.val();
        self.sum.next = self.l7[0].q.val();
    }
}

/// Simple dual-port RAM, one clock, registered read with read enable: the shape
/// that Yosys and Vivado map to block RAM (`RAMB36`/`RAMB18`, ECP5 `DP16KD`).
///
/// Ports:
/// - `clock`: rising-edge clock for both ports.
/// - `write_enable`, `write_address`, `write_data`: write port.
/// - `read_enable`, `read_address`: read port; `read_data` holds the word at
///   `read_address` from the rising edge after `read_enable` was high, and keeps
///   its value otherwise. A read and a write of the same address in one cycle
///   return the old word (read-first); the FIFOs here never do that.
///
/// `A` is the address width; the memory has `depth` words (at most `2^A`),
/// set by [`SdpRam::new`], so depths need not be powers of two.
///
/// [`SdpRam::lut`] builds the other read mode: `read_data` is the word at
/// `read_address` in the same cycle (combinational; a word written in this
/// cycle is seen from the next; `read_enable` is unused), the shape Yosys
/// and Vivado map to LUT RAM (ECP5 `DPR16X4`, Xilinx `RAM32M`/`RAM64M`): for
/// a few bits per word needed in the cycle of their address (a queue's next
/// head). Wide words belong in the registered mode.
///
/// Memory contents have no reset (block RAM cannot be reset); users qualify them
/// with reset pointers.
#[derive(LogicBlock)]
pub struct SdpRam<D: Synth, const A: usize> {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_address: Signal<In, Bits<A>>,
    pub write_data: Signal<In, D>,
    pub read_enable: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<A>>,
    pub read_data: Signal<Out, D>,
    _mem: std::collections::BTreeMap<Bits<A>, D>,
    _depth: usize,
    /// [`SdpRam::lut`]: the read is combinational.
    _comb: bool,
}

impl<D: Synth, const A: usize> SdpRam<D, A> {
    /// A RAM of `depth` words (1..=2^A) with a combinational read: LUT RAM
    /// (see the type's docs).
    pub fn lut(depth: usize) -> Self {
        Self { _comb: true, ..Self::new(depth) }
    }

    /// A RAM of `depth` words (1..=2^A).
    pub fn new(depth: usize) -> Self {
        assert!(depth >= 1 && (A >= 64 || depth <= 1usize << A), "SdpRam: depth {depth} does not fit {A} address bits");
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_enable: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _mem: Default::default(),
            _depth: depth,
            _comb: false,
        }
    }
}

impl<D: Synth, const A: usize> Logic for SdpRam<D, A> {
    fn update(&mut self) {
        if self._comb {
            if self.clock.pos_edge() && self.write_enable.val() {
                self._mem.insert(self.write_address.val(), self.write_data.val());
            }
            self.read_data.next = *self._mem.get(&self.read_address.val()).unwrap_or(&D::default());
            return;
        }
        if self.clock.pos_edge() {
            if self.read_enable.val() {
                self.read_data.next = *self._mem.get(&self.read_address.val()).unwrap_or(&D::default());
            }
            if self.write_enable.val() {
                self._mem.insert(self.write_address.val(), self.write_data.val());
            }
        }
    }
    fn connect(&mut self) {
        self.read_data.connect();
    }
    fn hdl(&self) -> Verilog {
        if self._comb {
            return Verilog::Custom(format!(
                "reg [{msb}:0] mem [0:{last}];\n\
                 always @(posedge clock) begin\n   \
                    if (write_enable) mem[write_address] <= write_data;\n\
                 end\n\
                 always @(*) read_data = mem[read_address];\n",
                msb = D::BITS - 1,
                last = self._depth - 1
            ));
        }
        Verilog::Custom(format!(
            "(* no_rw_check *) reg [{msb}:0] mem [0:{last}];\n\
             always @(posedge clock) begin\n   \
                if (write_enable) mem[write_address] <= write_data;\n   \
                if (read_enable) read_data <= mem[read_address];\n\
             end\n",
            msb = D::BITS - 1,
            last = self._depth - 1
        ))
    }
}

/// `n` default-constructed items: the ports and registers of an n-way block.
pub fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// Byte count of an AXI4-Stream beat from its packed `tkeep`, in logarithmic
/// depth.
///
/// A packed `tkeep` is a run of ones from lane 0, so the count is the position
/// of the last one plus one. `last_lane = keep & !(keep >> 1)` marks that
/// lane (one-hot); bit `j` of the count is the OR of the lanes `i` whose
/// `i + 1` has bit `j` set. Each output bit is a wide OR that synthesizes as a
/// balanced tree (2-3 LUT levels for 64 lanes), where the obvious "highest set
/// lane" loop becomes a priority chain one LUT per few lanes deep. For a
/// `tkeep` with holes the result is the OR of every run's end (lane + 1).
///
/// Built with [`KeepCount::thermo`], bit `j` of the count is the parity of
/// lanes `2^j - 1`, `2 * 2^j - 1`, `3 * 2^j - 1`, ...: with `c` lanes set
/// from lane 0, `floor(c / 2^j)` of them are, whose parity is bit `j` of
/// `c`. A parity of `K / 2^j` lanes instead of an OR of `K / 2` lane pairs:
/// one LUT level fewer at 32 lanes, and the last level leaves room for the
/// logic after it (issue 14: the arbiter's beat bytes into its deficit).
/// For a `tkeep` with holes the result is some value below `2^clog2(K+1)`.
///
/// Type parameters: `K` lanes (1..=64), `C` count bits (at least `clog2(K+1)`,
/// at most 32; extra high bits are zero).
///
/// Ports: `keep` in; `count` out (0..=K).
#[derive(LogicBlock)]
pub struct KeepCount<const K: usize, const C: usize> {
    pub keep: Signal<In, Bits<K>>,
    pub count: Signal<Out, Bits<C>>,
    masks: Vec<Constant<Bits<K>>>,
    thermo_masks: Vec<Constant<Bits<K>>>,
    thermo_on: Constant<Bit>,
    last_lane: Signal<Local, Bits<K>>,
}

impl<const K: usize, const C: usize> Default for KeepCount<K, C> {
    fn default() -> Self {
        Self::build(false)
    }
}

impl<const K: usize, const C: usize> KeepCount<K, C> {
    /// The count of a `tkeep` known to be packed, by parities (type docs).
    pub fn thermo() -> Self {
        Self::build(true)
    }

    fn build(thermo: bool) -> Self {
        assert!((1..=64).contains(&K) && C >= clog2(K + 1) && C <= 32, "KeepCount: K in 1..=64 and clog2(K+1) <= C <= 32");
        let mask = |j: usize| {
            let m = (0..K).filter(|i| (i + 1) >> j & 1 == 1).fold(0u64, |m, i| m | 1 << i);
            Constant::new(m.to_bits())
        };
        let thermo_mask = |j: usize| {
            let m = (0..K).filter(|i| (i + 1) % (1 << j) == 0).fold(0u64, |m, i| m | 1 << i);
            Constant::new(m.to_bits())
        };
        Self {
            keep: Default::default(),
            count: Default::default(),
            masks: (0..C).map(mask).collect(),
            thermo_masks: (0..C).map(thermo_mask).collect(),
            thermo_on: Constant::new(thermo),
            last_lane: Default::default(),
        }
    }
}

impl<const K: usize, const C: usize> Logic for KeepCount<K, C> {
    #[hdl_gen]
    fn update(&mut self) {
        self.last_lane.next = self.keep.val() & !(self.keep.val() >> 1);
        self.count.next = 0.into();
        for j in 0..C {
            if self.thermo_on.val() {
                self.count.next = self.count.val().replace_bit(j, (self.keep.val() & self.thermo_masks[j].val()).xor());
            } else {
                self.count.next = self.count.val().replace_bit(j, (self.last_lane.val() & self.masks[j].val()).any());
            }
        }
    }
}

/// A MAC address as it lies in `tdata`: the value holds the first byte on the
/// wire in bits 47:40 (as registers and tables do), `tdata` holds frame byte
/// `j` in lane `j` (bits `8j .. 8j+7`), so the bytes reverse. Pure wiring.
///
/// Ports: `mac` in (48 bits); `lanes` out (48 bits, byte 0 in bits 7:0).
#[derive(LogicBlock, Default)]
pub struct MacLanes {
    pub mac: Signal<In, Bits<48>>,
    pub lanes: Signal<Out, Bits<48>>,
}

impl Logic for MacLanes {
    fn update(&mut self) {
        let mut v = Bits::<48>::default();
        for j in 0..6 {
            v.set_bits::<8>(8 * j, self.mac.val().get_bits::<8>(8 * (5 - j)));
        }
        self.lanes.next = v;
    }
    fn connect(&mut self) {
        self.lanes.connect();
    }
    fn hdl(&self) -> Verilog {
        let bytes: Vec<String> = (0..6).map(|j| format!("mac[{}:{}]", 8 * j + 7, 8 * j)).collect();
        Verilog::Custom(format!("always @(*) lanes = {{{}}};\n", bytes.join(", ")))
    }
}

/// Expands a `K`-lane `tkeep` into a `D`-bit byte mask (lane `l` drives bits
/// `8l .. 8l+7`). Pure wiring, written as a concatenation so synthesis sees
/// no logic at all.
///
/// Ports: `keep` in (`K` bits); `mask` out (`D = 8K` bits).
#[derive(LogicBlock, Default)]
pub struct KeepExpand<const K: usize, const D: usize> {
    pub keep: Signal<In, Bits<K>>,
    pub mask: Signal<Out, Bits<D>>,
}

impl<const K: usize, const D: usize> Logic for KeepExpand<K, D> {
    fn update(&mut self) {
        let mut m = Bits::<D>::default();
        for i in 0..D {
            m = m.replace_bit(i, self.keep.val().get_bit(i / 8));
        }
        self.mask.next = m;
    }
    fn connect(&mut self) {
        self.mask.connect();
    }
    fn hdl(&self) -> Verilog {
        assert_eq!(D, 8 * K, "KeepExpand: D must be 8K");
        let lanes: Vec<String> = (0..K).rev().map(|l| format!("{{8{{keep[{l}]}}}}")).collect();
        Verilog::Custom(format!("always @(*) mask = {{{}}};\n", lanes.join(", ")))
    }
}

/// `a + b <= c` (or, built with [`SumLe::lt`], `a + b < c`) for unsigned
/// `N`-bit values with a single carry chain: the three operands `a`, `b` and
/// `!c` go through one carry-save layer (one LUT level), and the sign of the
/// `N + 2`-bit sum `a + b - c - 1` (`a + b - c` for `<`: the `+ 1` enters as
/// the carry into bit 0) is the answer. The obvious form is an adder feeding
/// a comparator, two carry chains in series (issue 14: admission's fit tests,
/// the receive check's length limits).
///
/// Built with [`SumLe::within`], only the low `w` bits of each operand take
/// part: for operands the caller knows to be below `2^w` (admission's
/// occupancies, sizes and clamped limits), a shorter carry chain and `N - w`
/// fewer LUTs per test.
///
/// Ports: `a`, `b`, `c` in (`N` bits, 1..=62); `sum_le` out (the comparison).
#[derive(LogicBlock)]
pub struct SumLe<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub b: Signal<In, Bits<N>>,
    pub c: Signal<In, Bits<N>>,
    pub sum_le: Signal<Out, Bit>,
    _strict: bool,
    _width: usize,
}

impl<const N: usize> Default for SumLe<N> {
    fn default() -> Self {
        Self { a: Default::default(), b: Default::default(), c: Default::default(), sum_le: Default::default(), _strict: false, _width: N }
    }
}

impl<const N: usize> SumLe<N> {
    /// `a + b < c`.
    pub fn lt() -> Self {
        Self { _strict: true, ..Default::default() }
    }

    /// `a + b <= c` on the low `w` bits of each operand (`1..=N`): exact when
    /// all three are below `2^w`; the caller guarantees that.
    pub fn within(w: usize) -> Self {
        assert!((1..=N).contains(&w), "SumLe::within: 1..=N bits");
        Self { _width: w, ..Default::default() }
    }
}

impl<const N: usize> Logic for SumLe<N> {
    fn update(&mut self) {
        let m = (1u128 << self._width) - 1;
        let (a, b, c) = (self.a.val().index() as u128 & m, self.b.val().index() as u128 & m, self.c.val().index() as u128 & m);
        self.sum_le.next = if self._strict { a + b < c } else { a + b <= c };
    }
    fn connect(&mut self) {
        self.sum_le.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!((1..=62).contains(&N), "SumLe: 1..=62 bits");
        let w = self._width + 2;
        // The operands' bits above `_width` are not read (`within`).
        let (unused, sel) = if self._width == N {
            ("", String::new())
        } else {
            let lint = "/* verilator lint_off UNUSEDSIGNAL */\nwire unused_hi = &{a, b, c};\n/* verilator lint_on UNUSEDSIGNAL */\n";
            (lint, format!("[{}:0]", self._width - 1))
        };
        Verilog::Custom(format!(
            "{unused}wire [{m}:0] x = {{2'b0, a{sel}}};\n\
             wire [{m}:0] y = {{2'b0, b{sel}}};\n\
             wire [{m}:0] z = ~{{2'b0, c{sel}}};\n\
             wire [{m}:0] sv = x ^ y ^ z;\n\
             wire [{m}:0] cv = {{(x[{n}:0] & y[{n}:0]) | (x[{n}:0] & z[{n}:0]) | (y[{n}:0] & z[{n}:0]), 1'b{cin}}};\n\
             /* verilator lint_off UNUSEDSIGNAL */\n\
             wire [{m}:0] t = sv + cv; // only the sign is the answer\n\
             /* verilator lint_on UNUSEDSIGNAL */\n\
             always @(*) sum_le = t[{m}];\n",
            m = w - 1,
            n = w - 2,
            cin = u8::from(self._strict)
        ))
    }
}

/// One 3:2 compressor of [`OnesSum`] in ones'-complement arithmetic: `a + b + c`
/// is congruent to `s + c'` modulo `0xFFFF`, where `s = a ^ b ^ c` and `c'` is
/// the majority `maj(a, b, c)` rotated left by one bit (the carry out of bit 15
/// weighs `2^16`, which is 1 modulo `0xFFFF`, so it wraps to bit 0).
pub fn ones_csa(a: u16, b: u16, c: u16) -> (u16, u16) {
    (a ^ b ^ c, ((a & b) | (a & c) | (b & c)).rotate_left(1))
}

/// The compressors of [`OnesSum`] reducing `n` words to `m`, in order: compressor
/// `k` reads words `3k`, `3k + 1`, `3k + 2` of the list that starts with the `n`
/// inputs and grows by each compressor's two outputs (words `n + 2k`, `n + 2k + 1`);
/// the result is the list's last `m` words. Taken in this order (a queue) the
/// compressors form a Wallace tree: each layer reads the layer before.
/// Returns each word's depth in compressor levels.
pub fn ones_sum_depths(n: usize, m: usize) -> Vec<usize> {
    assert!(m >= 2 && m <= n, "OnesSum: 2 <= outputs <= inputs");
    let mut d = vec![0; n];
    for k in 0..n - m {
        let l = 1 + d[3 * k].max(d[3 * k + 1]).max(d[3 * k + 2]);
        d.push(l);
        d.push(l);
    }
    d.split_off(3 * (n - m))
}

/// [`OnesSum`]'s function in Rust: `words` reduced to `m` words by the
/// compressors of [`ones_sum_depths`], bit for bit what the Verilog computes.
pub fn ones_sum(words: &[u16], m: usize) -> Vec<u16> {
    let n = words.len();
    ones_sum_depths(n, m);
    let mut v = words.to_vec();
    for k in 0..n - m {
        let (s, c) = ones_csa(v[3 * k], v[3 * k + 1], v[3 * k + 2]);
        v.push(s);
        v.push(c);
    }
    v.split_off(3 * (n - m))
}

/// The Internet checksum's sum (RFC 1071) without a carry chain: `W / 16`
/// 16-bit words go through a tree of ones'-complement 3:2 compressors
/// ([`ones_csa`], one LUT level each) down to `O / 16` words whose
/// ones'-complement sum is congruent modulo `0xFFFF` to the inputs'. With two
/// words `a`, `b` left, the sum is zero modulo `0xFFFF` exactly when `a == !b`,
/// or both are `0` or both `0xFFFF` (a bitwise test, no adder). Issue 14: the
/// parser's IPv4 checksum, 30 words, was five adders in a row.
///
/// Type parameters: `W` input bits (a multiple of 16), `O` output bits (a
/// multiple of 16, at least 32 and at most `W`). Word `i` is bits `16i .. 16i+15`.
///
/// Ports: `words` in; `sum` out.
#[derive(LogicBlock, Default)]
pub struct OnesSum<const W: usize, const O: usize> {
    pub words: Signal<In, Bits<W>>,
    pub sum: Signal<Out, Bits<O>>,
}

impl<const W: usize, const O: usize> Logic for OnesSum<W, O> {
    fn update(&mut self) {
        let v: Vec<u16> = (0..W / 16).map(|i| self.words.val().get_bits::<16>(16 * i).index() as u16).collect();
        let mut out = Bits::<O>::default();
        for (j, x) in ones_sum(&v, O / 16).into_iter().enumerate() {
            out.set_bits::<16>(16 * j, (x as u64).to_bits());
        }
        self.sum.next = out;
    }
    fn connect(&mut self) {
        self.sum.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!(W.is_multiple_of(16) && O.is_multiple_of(16), "OnesSum: widths are multiples of 16");
        let (n, m) = (W / 16, O / 16);
        ones_sum_depths(n, m);
        let mut s = String::new();
        for i in 0..n {
            s += &format!("wire [15:0] v{i} = words[{}:{}];\n", 16 * i + 15, 16 * i);
        }
        for k in 0..n - m {
            let (a, b, c) = (3 * k, 3 * k + 1, 3 * k + 2);
            s += &format!("wire [15:0] v{} = v{a} ^ v{b} ^ v{c};\n", n + 2 * k);
            s += &format!("wire [15:0] j{k} = (v{a} & v{b}) | (v{a} & v{c}) | (v{b} & v{c});\n");
            s += &format!("wire [15:0] v{} = {{j{k}[14:0], j{k}[15]}};\n", n + 2 * k + 1);
        }
        let last: Vec<String> = (0..m).rev().map(|j| format!("v{}", 3 * (n - m) + j)).collect();
        s += &format!("always @(*) sum = {{{}}};\n", last.join(", "));
        Verilog::Custom(s)
    }
}

/// `a + b - c` modulo `2^N` with a single carry chain: `a`, `b` and `!c` go
/// through one carry-save layer (one LUT level) and the `+ 1` of the two's
/// complement enters as the carry into bit 0, where two adders in series
/// would be two chains (issue 14: the arbiter's deficit update).
///
/// Built with [`AddSub::minus_one`] it gives `a + b - c - 1` (the carry into
/// bit 0 is 0), whose sign says whether `a + b - c > 0` in signed
/// arithmetic, without an OR over every bit after the chain.
///
/// Ports: `a`, `b`, `c` in (`N` bits, 1..=64); `add_sub` out.
#[derive(LogicBlock, Default)]
pub struct AddSub<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub b: Signal<In, Bits<N>>,
    pub c: Signal<In, Bits<N>>,
    pub add_sub: Signal<Out, Bits<N>>,
    _minus_one: bool,
}

impl<const N: usize> AddSub<N> {
    /// `a + b - c - 1` modulo `2^N`.
    pub fn minus_one() -> Self {
        Self { _minus_one: true, ..Default::default() }
    }
}

impl<const N: usize> Logic for AddSub<N> {
    fn update(&mut self) {
        self.add_sub.next = self.a.val() + self.b.val() - self.c.val();
        if self._minus_one {
            self.add_sub.next = self.add_sub.next - 1;
        }
    }
    fn connect(&mut self) {
        self.add_sub.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!((1..=64).contains(&N), "AddSub: 1..=64 bits");
        add_sub_verilog(N, if self._minus_one { "1'b0" } else { "1'b1" })
    }
}

/// [`AddSub`]'s body: `a`, `b` and `!c` through one carry-save layer, `cin`
/// (a Verilog expression) the carry into bit 0 of the one chain.
fn add_sub_verilog(n: usize, cin: &str) -> Verilog {
    let cv = if n == 1 {
        cin.to_string()
    } else {
        format!("{{(a[{n}:0] & b[{n}:0]) | (a[{n}:0] & ~c[{n}:0]) | (b[{n}:0] & ~c[{n}:0]), {cin}}}", n = n - 2)
    };
    Verilog::Custom(format!("wire [{m}:0] sv = a ^ b ^ ~c;\nwire [{m}:0] cv = {cv};\nalways @(*) add_sub = sv + cv;\n", m = n - 1))
}

/// `a + b - c - borrow` modulo `2^N` with one carry chain: [`AddSub`] with
/// its `- 1` chosen by a signal (the carry into bit 0 is `!borrow`), where
/// a rounding step in front of `c` would be a chain of its own (issue 14: a
/// dequeued packet's `ceil(bytes / K)` words are `bytes >> log2 K` and a
/// borrow from the low bits, subtracted from the occupancy in one chain).
///
/// Ports: `a`, `b`, `c` in (`N` bits, 1..=64), `borrow` in; `add_sub` out.
#[derive(LogicBlock, Default)]
pub struct AddSubBorrow<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub b: Signal<In, Bits<N>>,
    pub c: Signal<In, Bits<N>>,
    pub borrow: Signal<In, Bit>,
    pub add_sub: Signal<Out, Bits<N>>,
}

impl<const N: usize> Logic for AddSubBorrow<N> {
    fn update(&mut self) {
        self.add_sub.next = self.a.val() + self.b.val() - self.c.val();
        if self.borrow.val() {
            self.add_sub.next = self.add_sub.next - 1;
        }
    }
    fn connect(&mut self) {
        self.add_sub.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!((1..=64).contains(&N), "AddSubBorrow: 1..=64 bits");
        add_sub_verilog(N, "~borrow")
    }
}

/// `a + b + cin` with its carry out, one `N + 1`-bit carry chain: the carry
/// in rides as an extra low bit (`{a, 1} + {b, cin}`), so a one-bit late
/// change (`- 1` or not) costs no second chain and no multiplexer after the
/// sum; the carry out is the chain's top bit, not a compare of the sum's
/// sign bits after it (issue 15: the PL2 ALU's saturating counters).
///
/// Ports: `a`, `b` in (`N` bits, 1..=63), `cin` in; `sum` out (`N` bits,
/// modulo `2^N`), `cout` out (`a + b + cin >= 2^N`).
#[derive(LogicBlock, Default)]
pub struct AddCarry<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub b: Signal<In, Bits<N>>,
    pub cin: Signal<In, Bit>,
    pub sum: Signal<Out, Bits<N>>,
    pub cout: Signal<Out, Bit>,
}

impl<const N: usize> Logic for AddCarry<N> {
    fn update(&mut self) {
        let t = self.a.val().index() as u128 + self.b.val().index() as u128 + u128::from(self.cin.val());
        self.sum.next = ((t as u64) & if N == 64 { u64::MAX } else { (1u64 << N) - 1 }).to_bits();
        self.cout.next = (t >> N) & 1 == 1;
    }
    fn connect(&mut self) {
        self.sum.connect();
        self.cout.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!((1..=63).contains(&N), "AddCarry: 1..=63 bits");
        Verilog::Custom(format!(
            "/* verilator lint_off UNUSEDSIGNAL */\nwire [{t}:0] add_carry_t = {{1'b0, a, 1'b1}} + {{1'b0, b, cin}}; // bit 0 is the carry in's slot\n/* verilator lint_on UNUSEDSIGNAL */\nalways @(*) begin\n  sum = add_carry_t[{n}:1];\n  cout = add_carry_t[{t}];\nend\n",
            n = N,
            t = N + 1
        ))
    }
}

/// `a + b - s` (or `a + b - s - 1`) for a small, late `s`, by three-way
/// carry select: the low `w` bits of `a`, `b` and `!s` go through one
/// carry-save layer and a `w + 2`-bit chain whose carry out (0, 1 or 2)
/// picks the high part among `a_hi + b_hi - 1`, `a_hi + b_hi` and `a_hi +
/// b_hi + 1` (`!s` is all ones above bit `w`, hence the `- 1`), each one
/// carry chain from `a` and `b` alone. No chain follows another: `a` and
/// `b` (registers) reach the result through one chain and a 3:1
/// multiplexer, `s` through the short chain and the same multiplexer
/// (issue 14: the arbiter's beat bytes, counted from `tkeep`, against a
/// 32-bit deficit plus one or two quanta).
///
/// Ports: `a`, `b` in (`N` bits); `s` in (8 bits, below `2^w`; the bits
/// from `w` up are not read); `diff` out (`N` bits, modulo `2^N`). `w`
/// from [`LateSub::new`], 1..=7, at most `N - 2`.
#[derive(LogicBlock)]
pub struct LateSub<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub b: Signal<In, Bits<N>>,
    pub s: Signal<In, Bits<8>>,
    pub diff: Signal<Out, Bits<N>>,
    _w: usize,
    _minus_one: bool,
}

impl<const N: usize> LateSub<N> {
    /// `s` below `2^w` (`w` in 1..=7, at most `N - 2`); with `minus_one`
    /// the result is `a + b - s - 1`.
    pub fn new(w: usize, minus_one: bool) -> Self {
        assert!((1..=7).contains(&w) && w + 2 <= N, "LateSub: 1 <= w <= 7, w <= N - 2");
        Self { a: Default::default(), b: Default::default(), s: Default::default(), diff: Default::default(), _w: w, _minus_one: minus_one }
    }
}

impl<const N: usize> Logic for LateSub<N> {
    fn update(&mut self) {
        let s = self.s.val().index() as u64 & ((1u64 << self._w) - 1);
        let s: Bits<N> = s.to_bits();
        self.diff.next = self.a.val() + self.b.val() - s;
        if self._minus_one {
            self.diff.next = self.diff.next - 1;
        }
    }
    fn connect(&mut self) {
        self.diff.connect();
    }
    fn hdl(&self) -> Verilog {
        let (w, h) = (self._w, N - self._w);
        Verilog::Custom(format!(
            "// The low part: a_lo + b_lo + ~s_lo (+ 1), its carry out in l[{c1}:{w}].\n\
             wire [{c1}:0] x = {{2'b0, a[{w1}:0]}};\n\
             wire [{c1}:0] y = {{2'b0, b[{w1}:0]}};\n\
             wire [{c1}:0] z = {{2'b0, ~s[{w1}:0]}};\n\
             wire [{c1}:0] l = (x ^ y ^ z) + {{(x[{w}:0] & y[{w}:0]) | (x[{w}:0] & z[{w}:0]) | (y[{w}:0] & z[{w}:0]), 1'b{cin}}};\n\
             // The high part's three candidates `ah + bh - 1`, `ah + bh`, `ah + bh + 1`:\n\
             // bit 0 is `ah ^ bh` (flipped for -1 and +1), a LUT; bits 1.. are each\n\
             // one chain from a and b with bit 0's carry as carry-in (`{{x, c}} + {{y, c}}`).\n\
             // With bit 0 inside the chains, ABC took one chain's first sum bit as\n\
             // another's operand: a chain after a chain.\n\
             wire [{h1}:0] ah = a[{n1}:{w}];\n\
             wire [{h1}:0] bh = b[{n1}:{w}];\n\
             wire [{h1}:0] sx = ah ^ bh;\n\
             wire [{h1}:0] tm = {{~sx[{h1}:1], 1'b0}} + {{ah[{h2}:0] | bh[{h2}:0], 1'b0}};\n\
             wire [{h1}:0] t0 = {{ah[{h1}:1], ah[0] & bh[0]}} + {{bh[{h1}:1], ah[0] & bh[0]}};\n\
             wire [{h1}:0] tp = {{sx[{h1}:1], sx[0]}} + {{ah[{h2}:0] & bh[{h2}:0], sx[0]}};\n\
             /* verilator lint_off UNUSEDSIGNAL */\n\
             wire unused_s = &s[7:{w}];\n\
             wire unused_t = tm[0] & t0[0] & tp[0];\n\
             /* verilator lint_on UNUSEDSIGNAL */\n\
             always @(*) begin\n\
             \x20   case (l[{c1}:{w}])\n\
             \x20       2'd0: diff = {{tm[{h1}:1], ~sx[0], l[{w1}:0]}};\n\
             \x20       2'd1: diff = {{t0[{h1}:1], sx[0], l[{w1}:0]}};\n\
             \x20       default: diff = {{tp[{h1}:1], ~sx[0], l[{w1}:0]}};\n\
             \x20   endcase\n\
             end\n",
            c1 = w + 1,
            w1 = w - 1,
            n1 = N - 1,
            h1 = h - 1,
            h2 = h - 2,
            cin = u8::from(!self._minus_one)
        ))
    }
}

/// A one-hot selection written as an AND-OR: `q` is the OR of the `d_i`
/// whose `s_i` is high (zero if none is; with two or more high, their OR).
///
/// Why not an `if` chain: Yosys's `opt_share` (run by `synth_xilinx`'s
/// `opt -full`; `synth_ecp5` does not run it) finds adders that share an
/// operand and feed one multiplexer, and merges them into one adder behind
/// a multiplexer of the other operands. That puts the select logic in front of the carry chain:
/// a counter whose next value is `x + 1`, `x - 1` or `x - n` by the cycle's
/// events becomes events -> operand select -> chain, where the design meant
/// every variant from registers and the events only at the end (issue 14).
/// An AND-OR has no `$mux` to move.
///
/// Ports: `d_0` .. `d_{n-1}` in (`N` bits), `s_0` .. `s_{n-1}` in, `q` out
/// (rust-hdl names them `d$0`, ..., which the emitter renames).
/// `n` from [`AndOr::new`], 1..=16.
#[derive(LogicBlock)]
pub struct AndOr<const N: usize> {
    pub d: Vec<Signal<In, Bits<N>>>,
    pub s: Vec<Signal<In, Bit>>,
    pub q: Signal<Out, Bits<N>>,
}

impl<const N: usize> AndOr<N> {
    /// A selection among `n` values (1..=16).
    pub fn new(n: usize) -> Self {
        assert!((1..=16).contains(&n), "AndOr: 1..=16 inputs");
        Self { d: vec_of(n), s: vec_of(n), q: Default::default() }
    }
}

impl<const N: usize> Logic for AndOr<N> {
    fn update(&mut self) {
        let mut q = Bits::<N>::default();
        for (d, s) in self.d.iter().zip(&self.s) {
            if s.val() {
                q = q | d.val();
            }
        }
        self.q.next = q;
    }
    fn connect(&mut self) {
        self.q.connect();
    }
    fn hdl(&self) -> Verilog {
        let terms: Vec<String> = (0..self.d.len()).map(|i| format!("({{{N}{{s${i}}}}} & d${i})")).collect();
        Verilog::Custom(format!("always @(*) q = {};\n", terms.join(" | ")))
    }
}

/// Registers per group of [`RegReadMux`]'s first stage.
pub const READ_GROUP: usize = 16;

/// A register file's read multiplexer in two registered stages: the first
/// selects, in every group of [`READ_GROUP`] registers, the one at the low
/// bits of `idx`; the second selects the group at the high bits (issue 14: a
/// file of 128 registers read through one multiplexer ran at 93.5 MHz on
/// ECP5, the address decode and seven multiplexer levels in one cycle).
///
/// Ports:
/// - `clock`: rising edge. No reset: the caller qualifies `q` with its own
///   valid pipeline.
/// - `a_0` .. (`n_a`), `b_0` .. (`n_b`) in (32 bits): the registers, `a`
///   then `b` (a file's read/write then its read-only registers).
/// - `idx` in (`AW` bits): the word index, sampled when `ld1` is high.
/// - `ld1`, `ld2` in: load the first stage (from `idx`), the second (from
///   the first).
/// - `q` out (32 bits): register `idx` (0 past the last), two loads later;
///   `hit` out: `idx` was below `n_a + n_b`. Both hold between loads.
#[derive(LogicBlock)]
pub struct RegReadMux<const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub a: Vec<Signal<In, Bits<32>>>,
    pub b: Vec<Signal<In, Bits<32>>>,
    pub idx: Signal<In, Bits<AW>>,
    pub ld1: Signal<In, Bit>,
    pub ld2: Signal<In, Bit>,
    pub q: Signal<Out, Bits<32>>,
    pub hit: Signal<Out, Bit>,
    // The Rust model's stages.
    _g: Vec<Bits<32>>,
    _gs: usize,
    _gh: bool,
}

impl<const AW: usize> RegReadMux<AW> {
    /// `n_a` and `n_b` registers (at least one in all, at most `2^AW`).
    pub fn new(n_a: usize, n_b: usize) -> Self {
        let n = n_a + n_b;
        assert!(n >= 1 && (n as u64) <= 1u64 << AW, "RegReadMux: 1..=2^AW registers");
        Self {
            clock: Default::default(),
            a: vec_of(n_a),
            b: vec_of(n_b),
            idx: Default::default(),
            ld1: Default::default(),
            ld2: Default::default(),
            q: Default::default(),
            hit: Default::default(),
            _g: vec![Bits::default(); n.div_ceil(READ_GROUP)],
            _gs: 0,
            _gh: false,
        }
    }

    fn entry(&self, i: usize) -> Option<Bits<32>> {
        let n_a = self.a.len();
        if i < n_a {
            Some(self.a[i].val())
        } else {
            self.b.get(i - n_a).map(|s| s.val())
        }
    }
}

impl<const AW: usize> Logic for RegReadMux<AW> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.ld2.val() {
                self.q.next = self._g.get(self._gs).copied().unwrap_or_default();
                self.hit.next = self._gh;
            }
            if self.ld1.val() {
                let i = self.idx.val().index();
                let lo = i % READ_GROUP;
                for k in 0..self._g.len() {
                    self._g[k] = self.entry(k * READ_GROUP + lo).unwrap_or_default();
                }
                self._gs = i / READ_GROUP;
                self._gh = i < self.a.len() + self.b.len();
            }
        }
    }
    fn connect(&mut self) {
        self.q.connect();
        self.hit.connect();
    }
    fn hdl(&self) -> Verilog {
        let (n_a, n) = (self.a.len(), self.a.len() + self.b.len());
        let groups = n.div_ceil(READ_GROUP);
        let lo_bits = AW.min(READ_GROUP.ilog2() as usize);
        let mut v = String::new();
        for k in 0..groups {
            v.push_str(&format!("reg [31:0] g{k};\n"));
        }
        v.push_str(&format!("reg [{}:0] gs;\nreg gh;\n", AW - 1));
        v.push_str("always @(posedge clock) begin\n    if (ld1) begin\n");
        for k in 0..groups {
            v.push_str(&format!("        case (idx[{}:0])\n", lo_bits - 1));
            for l in 0..READ_GROUP.min(1 << lo_bits) {
                let i = k * READ_GROUP + l;
                if i < n {
                    let src = if i < n_a { format!("a${i}") } else { format!("b${}", i - n_a) };
                    v.push_str(&format!("            {lo_bits}'d{l}: g{k} <= {src};\n"));
                }
            }
            v.push_str(&format!("            default: g{k} <= 32'd0;\n        endcase\n"));
        }
        v.push_str(&format!("        gs <= idx >> {lo_bits};\n        gh <= idx < {AW}'d{n};\n    end\n"));
        v.push_str("    if (ld2) begin\n        case (gs)\n");
        for k in 0..groups {
            v.push_str(&format!("            {AW}'d{k}: q <= g{k};\n"));
        }
        v.push_str("            default: q <= 32'd0;\n        endcase\n        hit <= gh;\n    end\nend\n");
        Verilog::Custom(v)
    }
}
