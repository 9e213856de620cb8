//! Parser stage S1: the L3 header aligned to byte 0 (`docs/ingress.md`, "parser").
use super::layout::*;
use crate::prim::widgets::DffR;
use crate::proto::{ethertype, wire16};
use rust_hdl::prelude::*;

/// Bytes of the Ethernet header, of a VLAN tag and of a Protego tag.
pub const ETH_HLEN: u64 = 14;
pub const VLAN_LEN: u64 = 4;
pub const PROTEGO_LEN: u64 = 5;
/// Where the L3 header can start: after the Ethernet header, zero to two
/// VLAN tags and an optional Protego tag.
pub const L3_OFFSETS: [u64; 6] = [
    ETH_HLEN,
    ETH_HLEN + VLAN_LEN,
    ETH_HLEN + 2 * VLAN_LEN,
    ETH_HLEN + PROTEGO_LEN,
    ETH_HLEN + VLAN_LEN + PROTEGO_LEN,
    ETH_HLEN + 2 * VLAN_LEN + PROTEGO_LEN,
];

/// S1: the L3 offset from the tag chain (`14 + 4 * vlans + 5 * protego`) and
/// the window from there on, in one of [`L3_OFFSETS`].
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset (of `v`).
/// - `s_v`, `s_win`, `s_l2_rec` in: S0's outputs.
/// - `v` out, and with it `a` (the window from the L3 header on, [`L3_HDR_BITS`]),
///   `l3_off` (its byte offset) and `l2_rec` (passed on, with its `v6` set).
#[derive(LogicBlock)]
pub struct ParseAlign {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_v: Signal<In, Bit>,
    pub s_win: Signal<In, Bits<WIN_BITS>>,
    pub s_l2_rec: Signal<In, L2Info>,
    pub v: Signal<Out, Bit>,
    pub a: Signal<Out, Bits<L3_HDR_BITS>>,
    pub l3_off: Signal<Out, Bits<8>>,
    pub l2_rec: Signal<Out, L2Info>,
    /// The L3 offset after 0, 1, 2 VLAN tags; what a Protego tag adds.
    after_tags: Vec<Constant<Bits<8>>>,
    protego_len: Constant<Bits<8>>,
    et_ipv6: Constant<Bits<16>>,
    /// [`L3_OFFSETS`] in bytes and bits.
    at: Vec<Constant<Bits<8>>>,
    at_bits: Vec<Constant<Bits<16>>>,
    r_v: DffR<Bit>,
    r_a: DFF<Bits<L3_HDR_BITS>>,
    r_l3_off: DFF<Bits<8>>,
    r_l2: DFF<L2Info>,
    off: Signal<Local, Bits<8>>,
    al: Signal<Local, Bits<L3_HDR_BITS>>,
}

impl Default for ParseAlign {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_v: Default::default(),
            s_win: Default::default(),
            s_l2_rec: Default::default(),
            v: Default::default(),
            a: Default::default(),
            l3_off: Default::default(),
            l2_rec: Default::default(),
            after_tags: (0..3).map(|n| Constant::new((ETH_HLEN + n * VLAN_LEN).to_bits())).collect(),
            protego_len: Constant::new(PROTEGO_LEN.to_bits()),
            et_ipv6: Constant::new(wire16(ethertype::IPV6).to_bits()),
            at: L3_OFFSETS.iter().map(|&o| Constant::new(o.to_bits())).collect(),
            at_bits: L3_OFFSETS.iter().map(|&o| Constant::new((8 * o).to_bits())).collect(),
            r_v: Default::default(),
            r_a: Default::default(),
            r_l3_off: Default::default(),
            r_l2: Default::default(),
            off: Default::default(),
            al: Default::default(),
        }
    }
}

impl Logic for ParseAlign {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_v, r_a, r_l3_off, r_l2);
        self.r_v.reset.next = self.reset.val();
        self.off.next = self.after_tags[0].val();
        if self.s_l2_rec.val().vlans == 1 {
            self.off.next = self.after_tags[1].val();
        }
        if self.s_l2_rec.val().vlans == 2 {
            self.off.next = self.after_tags[2].val();
        }
        if self.s_l2_rec.val().prot {
            self.off.next = self.off.val() + self.protego_len.val();
        }
        self.al.next = 0.into();
        for t in 0..self.at.len() {
            if self.off.val() == self.at[t].val() {
                self.al.next = self.s_win.val().get_bits::<L3_HDR_BITS>(self.at_bits[t].val().index());
            }
        }
        self.r_v.d.next = self.s_v.val();
        if self.s_v.val() {
            self.r_a.d.next = self.al.val();
            self.r_l3_off.d.next = self.off.val();
            self.r_l2.d.next = self.s_l2_rec.val();
            self.r_l2.d.next.v6 = !self.s_l2_rec.val().v3 & (self.s_l2_rec.val().ether == self.et_ipv6.val());
        }
        self.v.next = self.r_v.q.val();
        self.a.next = self.r_a.q.val();
        self.l3_off.next = self.r_l3_off.q.val();
        self.l2_rec.next = self.r_l2.q.val();
    }
}
