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
}

impl<D: Synth, const A: usize> SdpRam<D, A> {
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
        }
    }
}

impl<D: Synth, const A: usize> Logic for SdpRam<D, A> {
    fn update(&mut self) {
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
        Verilog::Custom(format!(
            "reg [{msb}:0] mem [0:{last}];\n\
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
/// `tkeep` with holes the result is the count of the highest run's end.
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
    last_lane: Signal<Local, Bits<K>>,
}

impl<const K: usize, const C: usize> Default for KeepCount<K, C> {
    fn default() -> Self {
        assert!((1..=64).contains(&K) && C >= clog2(K + 1) && C <= 32, "KeepCount: K in 1..=64 and clog2(K+1) <= C <= 32");
        let mask = |j: usize| {
            let m = (0..K).filter(|i| (i + 1) >> j & 1 == 1).fold(0u64, |m, i| m | 1 << i);
            Constant::new(m.to_bits())
        };
        Self { keep: Default::default(), count: Default::default(), masks: (0..C).map(mask).collect(), last_lane: Default::default() }
    }
}

impl<const K: usize, const C: usize> Logic for KeepCount<K, C> {
    #[hdl_gen]
    fn update(&mut self) {
        self.last_lane.next = self.keep.val() & !(self.keep.val() >> 1);
        self.count.next = 0.into();
        for j in 0..C {
            self.count.next = self.count.val().replace_bit(j, (self.last_lane.val() & self.masks[j].val()).any());
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
        let cin = u8::from(!self._minus_one);
        let cv = if N == 1 {
            format!("1'b{cin}")
        } else {
            format!("{{(a[{n}:0] & b[{n}:0]) | (a[{n}:0] & ~c[{n}:0]) | (b[{n}:0] & ~c[{n}:0]), 1'b{cin}}}", n = N - 2)
        };
        Verilog::Custom(format!("wire [{m}:0] sv = a ^ b ^ ~c;\nwire [{m}:0] cv = {cv};\nalways @(*) add_sub = sv + cv;\n", m = N - 1))
    }
}

/// `v - b` (or `v - b - 1`) for a small `b`, by carry select: `v` and `v_m
/// = v - 2^w` come ready (from registers, through their own chains), `b`
/// comes off `v`'s low `w` bits in one short chain, and that chain's borrow
/// picks the high bits of `v` or `v_m` (issue 14: the arbiter's beat bytes,
/// counted from `tkeep`, reach a 32-bit deficit through an 8-bit chain and a
/// 2:1 multiplexer, not a 32-bit chain).
///
/// Ports: `v`, `v_m` in (`N` bits); `b` in (8 bits, below `2^w`, or `2^w -
/// 1` with `minus_one`); `diff` out (`N` bits, modulo `2^N`). `w` from
/// [`SmallSub::new`], 1..=7.
#[derive(LogicBlock)]
pub struct SmallSub<const N: usize> {
    pub v: Signal<In, Bits<N>>,
    pub v_m: Signal<In, Bits<N>>,
    pub b: Signal<In, Bits<8>>,
    pub diff: Signal<Out, Bits<N>>,
    lo_mask: Constant<Bits<N>>,
    lo_mask8: Constant<Bits<8>>,
    low: AddSub<8>,
}

impl<const N: usize> SmallSub<N> {
    /// Subtracting from the low `w` bits (1..=7, below `N`); with
    /// `minus_one` the result is `v - b - 1`.
    pub fn new(w: usize, minus_one: bool) -> Self {
        assert!((1..=7).contains(&w) && w < N, "SmallSub: 1 <= w <= 7, w < N");
        let mask = (1u64 << w) - 1;
        Self {
            v: Default::default(),
            v_m: Default::default(),
            b: Default::default(),
            diff: Default::default(),
            lo_mask: Constant::new(mask.to_bits()),
            lo_mask8: Constant::new(mask.to_bits()),
            low: if minus_one { AddSub::minus_one() } else { AddSub::default() },
        }
    }
}

impl<const N: usize> Logic for SmallSub<N> {
    #[hdl_gen]
    fn update(&mut self) {
        // The low part lies in [-2^w, 2^w - 1] and `w <= 7`: bit 7 is the borrow.
        self.low.a.next = bit_cast::<8, N>(self.v.val()) & self.lo_mask8.val();
        self.low.b.next = 0.into();
        self.low.c.next = self.b.val();
        self.diff.next = self.v.val();
        if self.low.add_sub.val().get_bit(7) {
            self.diff.next = self.v_m.val();
        }
        self.diff.next = (self.diff.val() & !self.lo_mask.val()) | (bit_cast::<N, 8>(self.low.add_sub.val()) & self.lo_mask.val());
    }
}
