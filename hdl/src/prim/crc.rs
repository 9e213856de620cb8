//! CRC-32 of IEEE 802.3, bytewise (the reference) and per beat (hardware).
//!
//! [`crc32_update`] is the reference the software model uses, and it also
//! computes the masks of the hardware block [`Crc32Beat`]. That block processes a
//! whole beat of `K` bytes per cycle as an XOR network, with no per-length CRC
//! units. The trick for the last beat is linearity:
//! - A packet's last beat is processed as a full beat, with the lanes past
//!   `tkeep` zeroed: `p` zero bytes follow the frame.
//! - Running the register over a frame and its correct FCS leaves the constant
//!   [`RESIDUE`]. Zero bytes act on the register linearly (there is no affine
//!   term after the initial value), so `p` more zeros leave the constant `R_p`.
//! - The frame is good iff the register equals `R_p`, a comparison against one
//!   of `K` build-time constants. The comparison reads the *registered* state:
//!   the verdict comes one cycle after the last beat. Comparing the XOR network's
//!   output directly makes Yosys/ABC spend minutes on the joint cone (measured:
//!   183 s for 64 bits, 500 s for 512, against 13 s without it).
//! - The beat's own term (the XOR of its masked data bits, per register bit)
//!   does not depend on the register, so it is computed a cycle early and
//!   registered per group of 8 lanes: `data` and `keep` come one cycle before
//!   their `valid`, and the register's update XORs the state's bits with one
//!   registered bit per group (issue 14: inside
//!   `rx_fcs` the whole network after the beat register mapped to 8 Xilinx
//!   LUT levels; alone, 5).
use crate::prim::widgets::{vec_of, DffR, KeepExpand};
use rust_hdl::prelude::*;

/// Lanes per group of [`Crc32Beat`]'s registered data term.
pub const GROUP_LANES: usize = 8;

/// Reflected polynomial 0x04C11DB7.
pub const POLY: u32 = 0xEDB8_8320;

/// The CRC register after a frame and its correct FCS (no final complement).
pub const RESIDUE: u32 = 0xDEBB_20E3;

const fn table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

static TABLE: [u32; 256] = table();

/// Runs the CRC register over `data` from `state` (no initial value, no final
/// complement): linear in `(state, data)`.
pub fn crc32_update(mut state: u32, data: &[u8]) -> u32 {
    for &b in data {
        state = TABLE[((state ^ b as u32) & 0xff) as usize] ^ (state >> 8);
    }
    state
}

/// CRC-32 engine for one beat per cycle.
///
/// Type parameters: `D` data bits, `K` lanes (`D / 8`, at most 64).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (the register returns to the initial value 0xFFFFFFFF).
/// - `valid` in: process this beat. `start` in: the beat is a packet's first (the
///   register restarts from 0xFFFFFFFF).
/// - `data`, `keep` in: the beat, **one cycle before** its `valid` and
///   `start` (sampled every cycle; a cycle whose next cycle has `valid` low
///   may carry anything). Lanes past the packed `keep` are ignored (treated
///   as zero).
/// - `crc` out: the register after the beats so far (registered).
/// - `next` out: the register value this beat produces (combinational, in
///   the cycle of `valid`).
/// - `residue_ok` out: in the cycle after a packet's last beat was processed,
///   high iff that frame's FCS was correct: `crc` equals the residue for that
///   beat's padding, which was selected and registered with the beat (one
///   32-bit equality after the registers, no count or multiplexer in front;
///   issue 14).
#[derive(LogicBlock)]
pub struct Crc32Beat<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
    pub start: Signal<In, Bit>,
    pub data: Signal<In, Bits<D>>,
    pub keep: Signal<In, Bits<K>>,
    pub crc: Signal<Out, Bits<32>>,
    pub next: Signal<Out, Bits<32>>,
    pub residue_ok: Signal<Out, Bit>,
    state: DffR<Bits<32>>,
    /// The beat's term of the update, registered a cycle before the beat's
    /// `valid`, per group of [`GROUP_LANES`] lanes (`ceil(K / 8)` groups), so
    /// each register's cone is an XOR of at most 64 data bits and the
    /// update's of 32 state bits and one bit per group.
    dterm: Vec<Signal<Local, Bits<32>>>,
    dterm_q: Vec<DFF<Bits<32>>>,
    dsum: Signal<Local, Bits<32>>,
    /// The beat's residue and whether its `keep` is not empty, registered
    /// with the term.
    exp_e: DFF<Bits<32>>,
    any_e: DFF<Bit>,
    /// The residue a good frame leaves with the last beat's padding, and
    /// whether there is one (`tkeep` not empty).
    exp_q: DFF<Bits<32>>,
    exp_v: DffR<Bit>,
    keep_expand: KeepExpand<K, D>,
    state_masks: Vec<Constant<Bits<32>>>,
    /// `data_masks[32 g + j]`: the data bits of group `g` in register bit `j`.
    data_masks: Vec<Constant<Bits<D>>>,
    /// Per bit `j` of the residue: the lanes `i` for which a beat ending in
    /// lane `i` (`K - 1 - i` zero bytes of padding) leaves bit `j` set.
    res_masks: Vec<Constant<Bits<K>>>,
    /// The lane `tkeep`'s run ends in (one-hot for a packed `tkeep`).
    last_lane: Signal<Local, Bits<K>>,
    exp: Signal<Local, Bits<32>>,
    init: Constant<Bits<32>>,
    base: Signal<Local, Bits<32>>,
    masked: Signal<Local, Bits<D>>,
}

impl<const D: usize, const K: usize> Default for Crc32Beat<D, K> {
    fn default() -> Self {
        assert!(K * 8 == D && (1..=64).contains(&K), "Crc32Beat: D = 8K with K in 1..=64");
        // Column of the step function for one input bit set.
        let step = |state: u32, data: &[u8]| crc32_update(state, data);
        let zero = vec![0u8; K];
        let groups = K.div_ceil(GROUP_LANES);
        let state_cols: Vec<u32> = (0..32).map(|i| step(1 << i, &zero)).collect();
        let data_cols: Vec<u32> = (0..D)
            .map(|k| {
                let mut d = zero.clone();
                d[k / 8] = 1 << (k % 8);
                step(0, &d)
            })
            .collect();
        let bits_of = |cols: &[u32], j: usize| -> Vec<bool> { cols.iter().map(|c| c >> j & 1 == 1).collect() };
        let to_bits32 = |b: Vec<bool>| -> Bits<32> { b.iter().enumerate().fold(0u64, |m, (i, &x)| m | (x as u64) << i).to_bits() };
        let to_bits_d = |b: Vec<bool>| -> Bits<D> {
            let mut v = Bits::<D>::default();
            for (i, &x) in b.iter().enumerate() {
                v = v.replace_bit(i, x);
            }
            v
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            valid: Default::default(),
            start: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            crc: Default::default(),
            next: Default::default(),
            residue_ok: Default::default(),
            state: DffR::new(0xFFFF_FFFFu64.to_bits()),
            dterm: vec_of(groups),
            dterm_q: vec_of(groups),
            dsum: Default::default(),
            exp_e: Default::default(),
            any_e: Default::default(),
            exp_q: Default::default(),
            exp_v: Default::default(),
            keep_expand: Default::default(),
            state_masks: (0..32).map(|j| Constant::new(to_bits32(bits_of(&state_cols, j)))).collect(),
            data_masks: (0..groups)
                .flat_map(|g| (0..32).map(move |j| (g, j)))
                .map(|(g, j)| {
                    let mut b = bits_of(&data_cols, j);
                    for (k, x) in b.iter_mut().enumerate() {
                        *x &= k / (8 * GROUP_LANES) == g;
                    }
                    Constant::new(to_bits_d(b))
                })
                .collect(),
            res_masks: (0..32)
                .map(|j| {
                    let m = (0..K).filter(|&i| step(RESIDUE, &vec![0u8; K - 1 - i]) >> j & 1 == 1).fold(0u64, |m, i| m | 1 << i);
                    Constant::new(m.to_bits())
                })
                .collect(),
            last_lane: Default::default(),
            exp: Default::default(),
            init: Constant::new(0xFFFF_FFFFu64.to_bits()),
            base: Default::default(),
            masked: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for Crc32Beat<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, exp_q, exp_v, exp_e, any_e);
        self.state.reset.next = self.reset.val();
        self.exp_v.reset.next = self.reset.val();
        if self.start.val() {
            self.base.next = self.init.val();
        } else {
            self.base.next = self.state.q.val();
        }
        self.keep_expand.keep.next = self.keep.val();
        self.masked.next = self.data.val() & self.keep_expand.mask.val();
        self.dsum.next = 0.into();
        for g in 0..self.dterm.len() {
            self.dterm_q[g].clock.next = self.clock.val();
            self.dterm[g].next = 0.into();
            for j in 0..32 {
                self.dterm[g].next = self.dterm[g].val().replace_bit(j, (self.masked.val() & self.data_masks[32 * g + j].val()).xor());
            }
            self.dterm_q[g].d.next = self.dterm[g].val();
            self.dsum.next = self.dsum.val() ^ self.dterm_q[g].q.val();
        }
        self.next.next = self.dsum.val();
        for j in 0..32 {
            self.next.next =
                self.next.val().replace_bit(j, (self.base.val() & self.state_masks[j].val()).xor() ^ self.dsum.val().get_bit(j));
        }
        // The residue of a beat ending in lane `i`, as an AND-OR over the
        // lanes (two LUT levels, no count in front). A `tkeep` with holes ORs
        // the residues of its runs' ends, which a good frame's register
        // matches only by chance (2^-32): such a frame is counted as a bad FCS.
        self.last_lane.next = self.keep.val() & !(self.keep.val() >> 1);
        self.exp.next = 0.into();
        for j in 0..32 {
            self.exp.next = self.exp.val().replace_bit(j, (self.last_lane.val() & self.res_masks[j].val()).any());
        }
        self.exp_e.d.next = self.exp.val();
        self.any_e.d.next = self.keep.val().any();
        self.residue_ok.next = self.exp_v.q.val() & (self.state.q.val() == self.exp_q.q.val());
        if self.valid.val() {
            self.state.d.next = self.next.val();
            self.exp_v.d.next = self.any_e.q.val();
            self.exp_q.d.next = self.exp_e.q.val();
        }
        self.crc.next = self.state.q.val();
    }
}
