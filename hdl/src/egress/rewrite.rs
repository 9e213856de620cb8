//! `EgressRewrite`: the egress rewrite of one switch port, between the
//! port's scheduler (or, with several pipelines, its merge) and the MAC's
//! transmit side (`docs/switch.md`, "Data path").
//!
//! A routed packet (`tuser.routed`, [`crate::meta::ROUTED_BIT`]) leaves with
//! the router MAC as its source MAC (bytes 6..12). The ingress has already
//! written the next hop's MAC into bytes 0..6 and left the source MAC as it
//! arrived, so that a packet returned to its sender (seed 000 §2, step 3:
//! "reverse the source and destination addresses") is addressed to the MAC
//! it came from: the trimmer's swap puts the arrival source MAC into bytes
//! 0..6, and this stage writes the router MAC into bytes 6..12 as for any
//! routed packet. Every other packet, and every byte past 12, passes
//! untouched.
//!
//! The stage is combinational (no added latency; one 2:1 mux level on the
//! bytes it may write): `m_tvalid = s_tvalid`, `s_tready = m_tready`,
//! `m_tkeep`, `m_tlast`, `m_tuser` pass. A frame shorter than 12 bytes keeps
//! its short length (its lanes past `tkeep` are written but not valid).
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset (of
//!   the beat index and the packet's routed flag).
//! - `s_tdata` … `s_tready`: packets from the scheduler; `tuser` is the wide
//!   switch `tuser` ([`crate::meta`]), read at the first beat.
//! - `m_tdata` … `m_tready`: packets for the MAC.
//! - `router_mac_lo`, `router_mac_hi` in: the router MAC (bits 31:0, 47:32),
//!   as in the ingress' `ROUTER_MAC_LO`/`_HI` registers.
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::meta::ROUTED_BIT;
use crate::prim::widgets::{DffR, KeepExpand, MacLanes};
use rust_hdl::prelude::*;

/// First byte of the source MAC in an Ethernet frame.
pub const SRC_MAC_BYTE: usize = 6;

/// Lanes of the beat whose first byte is `base` that hold bytes
/// `lo..hi` of the frame.
pub fn lanes_of<const K: usize>(base: usize, lo: usize, hi: usize) -> Bits<K> {
    let mut m = Bits::<K>::default();
    for l in 0..K {
        if (lo..hi).contains(&(base + l)) {
            m = m.replace_bit(l, true);
        }
    }
    m
}

/// The egress rewrite. `D` data bits, `K = D / 8` lanes (at least 8, so the
/// source MAC lies in the first two beats), `U` tuser bits (more than
/// [`ROUTED_BIT`]).
#[derive(LogicBlock)]
pub struct EgressRewrite<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub router_mac_lo: Signal<In, Bits<32>>,
    pub router_mac_hi: Signal<In, Bits<32>>,
    mask0: Constant<Bits<K>>,
    mask1: Constant<Bits<K>>,
    shift1: Constant<Bits<16>>,
    routed_bit: Constant<Bits<16>>,
    exp0: KeepExpand<K, D>,
    exp1: KeepExpand<K, D>,
    /// Beat index in the packet, saturating at 2 (0 = first beat).
    bidx: DffR<Bits<2>>,
    /// The packet's routed flag, from its first beat.
    routed_q: DffR<Bit>,
    routed: Signal<Local, Bit>,
    rmac: Signal<Local, Bits<48>>,
    /// Bytes 0..12 of a routed frame's header as this stage writes them
    /// (only bytes 6..12, the router MAC, are used).
    rv: Signal<Local, Bits<96>>,
    swap: MacLanes,
    /// Bit of the source MAC's first byte in a 12-byte window.
    src_shift: Constant<Bits<8>>,
    xfer: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize> Default for EgressRewrite<D, K, U> {
    fn default() -> Self {
        assert!(K * 8 == D && K >= 8 && U > ROUTED_BIT, "EgressRewrite: D = 8K, K >= 8 lanes, U > {ROUTED_BIT}");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            router_mac_lo: Default::default(),
            router_mac_hi: Default::default(),
            mask0: Constant::new(lanes_of::<K>(0, SRC_MAC_BYTE, 12)),
            mask1: Constant::new(lanes_of::<K>(K, SRC_MAC_BYTE, 12)),
            shift1: Constant::new(((8 * K).min(96) as u64).to_bits()),
            routed_bit: Constant::new((ROUTED_BIT as u64).to_bits()),
            exp0: Default::default(),
            exp1: Default::default(),
            bidx: Default::default(),
            routed_q: Default::default(),
            routed: Default::default(),
            rmac: Default::default(),
            rv: Default::default(),
            swap: Default::default(),
            src_shift: Constant::new(((8 * SRC_MAC_BYTE) as u64).to_bits()),
            xfer: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for EgressRewrite<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, bidx, routed_q);
        self.bidx.reset.next = self.reset.val();
        self.routed_q.reset.next = self.reset.val();
        self.routed.next = self.routed_q.q.val();
        if self.bidx.q.val() == 0 {
            self.routed.next = self.s.tuser.val().get_bit(self.routed_bit.val().index());
        }
        // MAC values hold the first byte on the wire in bits 47:40; frame
        // byte j is lane j (bits 8j+7:8j).
        self.rmac.next =
            bit_cast::<48, 32>(self.router_mac_lo.val()) | (bit_cast::<48, 16>(self.router_mac_hi.val().get_bits::<16>(0)) << 32);
        self.swap.mac.next = self.rmac.val();
        self.rv.next = bit_cast::<96, 48>(self.swap.lanes.val()) << self.src_shift.val();
        self.exp0.keep.next = self.mask0.val();
        self.exp1.keep.next = self.mask1.val();
        self.m.tdata.next = self.s.tdata.val();
        if self.routed.val() & (self.bidx.q.val() == 0) {
            self.m.tdata.next = (self.s.tdata.val() & !self.exp0.mask.val()) | (bit_cast::<D, 96>(self.rv.val()) & self.exp0.mask.val());
        }
        if self.routed.val() & (self.bidx.q.val() == 1) {
            self.m.tdata.next = (self.s.tdata.val() & !self.exp1.mask.val())
                | (bit_cast::<D, 96>(self.rv.val() >> self.shift1.val()) & self.exp1.mask.val());
        }
        self.m.tkeep.next = self.s.tkeep.val();
        self.m.tlast.next = self.s.tlast.val();
        self.m.tuser.next = self.s.tuser.val();
        self.m.tvalid.next = self.s.tvalid.val();
        self.s.tready.next = self.m.tready.val();
        self.xfer.next = self.s.tvalid.val() & self.m.tready.val();
        if self.xfer.val() {
            self.routed_q.d.next = self.routed.val();
            if self.s.tlast.val() {
                self.bidx.d.next = 0.into();
            } else if self.bidx.q.val() != 2 {
                self.bidx.d.next = self.bidx.q.val() + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `frames` (bytes, routed) through the block in rust-hdl's
    /// simulator with the output always ready and returns the frames out.
    fn run<const D: usize, const K: usize>(frames: &[(Vec<u8>, bool)], rmac: u64) -> Vec<Vec<u8>> {
        let mut uut = EgressRewrite::<D, K, 128>::default();
        uut.connect_all();
        let mut out = vec![];
        let mut cur = vec![];
        // Drive beat by beat: settle the combinational logic, read the output,
        // then clock.
        let beats: Vec<(Vec<u8>, bool, bool)> = frames
            .iter()
            .flat_map(|(f, r)| {
                let n = f.len().div_ceil(K);
                // tuser.routed on the first beat only: later beats must use the
                // latched flag.
                (0..n).map(move |b| (f[b * K..((b + 1) * K).min(f.len())].to_vec(), b + 1 == n, *r && b == 0)).collect::<Vec<_>>()
            })
            .collect();
        let mut clock = false;
        let step = |uut: &mut EgressRewrite<D, K, 128>, clk: bool| {
            uut.clock.next = Clock::from(clk);
            for _ in 0..8 {
                uut.update_all();
                if !uut.has_changed() {
                    break;
                }
            }
        };
        uut.router_mac_lo.next = (rmac & 0xffff_ffff).into();
        uut.router_mac_hi.next = (rmac >> 32).into();
        uut.m.tready.next = true;
        uut.reset.next = true;
        step(&mut uut, true);
        step(&mut uut, false);
        uut.reset.next = false;
        for (bytes, last, routed) in beats {
            let mut d = Bits::<D>::default();
            let mut keep = Bits::<K>::default();
            for (i, b) in bytes.iter().enumerate() {
                for k in 0..8 {
                    d = d.replace_bit(8 * i + k, (b >> k) & 1 == 1);
                }
                keep = keep.replace_bit(i, true);
            }
            uut.s.tdata.next = d;
            uut.s.tkeep.next = keep;
            uut.s.tlast.next = last;
            uut.s.tuser.next = Bits::<128>::default().replace_bit(ROUTED_BIT, routed);
            uut.s.tvalid.next = true;
            step(&mut uut, clock);
            assert!(uut.s.tready.val() && uut.m.tvalid.val());
            let o = uut.m.tdata.val();
            for i in 0..bytes.len() {
                cur.push((0..8).fold(0u8, |a, k| a | (o.get_bit(8 * i + k) as u8) << k));
            }
            if uut.m.tlast.val() {
                out.push(std::mem::take(&mut cur));
            }
            clock = true;
            step(&mut uut, clock);
            clock = false;
            step(&mut uut, clock);
        }
        out
    }

    fn frame(n: usize, seed: u8) -> Vec<u8> {
        (0..n).map(|i| (i as u8).wrapping_mul(7) ^ seed).collect()
    }

    fn expect(f: &[u8], routed: bool, rmac: u64) -> Vec<u8> {
        let mut e = f.to_vec();
        if routed {
            for i in 0..6 {
                e[6 + i] = (rmac >> (8 * (5 - i))) as u8;
            }
        }
        e
    }

    #[test]
    fn routed_packets_get_the_router_mac_as_source_at_64_bits() {
        // At 64 bits the source MAC spans beats 0 (bytes 6, 7) and 1 (8..12).
        let rmac = 0x0200_5e10_2030;
        let frames = vec![(frame(60, 1), true), (frame(64, 2), false), (frame(13, 3), true), (frame(100, 4), true)];
        let out = run::<64, 8>(&frames, rmac);
        assert_eq!(out.len(), frames.len());
        for ((f, r), o) in frames.iter().zip(&out) {
            assert_eq!(o, &expect(f, *r, rmac), "routed {r}");
        }
    }

    #[test]
    fn routed_packets_get_the_router_mac_as_source_at_128_bits() {
        let rmac = 0x0a0b_0c0d_0e0f;
        let frames = vec![(frame(16, 9), true), (frame(64, 5), true), (frame(64, 6), false)];
        let out = run::<128, 16>(&frames, rmac);
        for ((f, r), o) in frames.iter().zip(&out) {
            assert_eq!(o, &expect(f, *r, rmac), "routed {r}");
        }
    }
}
