//! Parser stage S2: the IPv4/IPv6/PL2 fields, the IPv4 checksum in partial
//! sums and the L4 header aligned (`docs/ingress.md`, "parser").
use super::layout::*;
use crate::prim::widgets::{vec_of, DffR};
use crate::proto::{ethertype, wire16};
use rust_hdl::prelude::*;

/// S2: what the L3 header says ([`L3Info`]), the IPv4 header's 16-bit words
/// summed in [`PSUMS`] groups (words past `4 * IHL` bytes count zero) and the
/// L4 header aligned to byte 0 (after 40 bytes of IPv6 or `4 * IHL` of IPv4,
/// IHL 5..15).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset (of `v`).
/// - `s_v`, `s_hdr`, `s_l3_off`, `s_l2_rec` in: S1's outputs.
/// - `v` out, and with it `psum` (the partial sums, 20 bits), `l3_rec`, `l4b`
///   (the L4 header, [`L4_HDR_BITS`]) and `l2_rec` (passed on).
#[derive(LogicBlock)]
pub struct ParseL3 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_v: Signal<In, Bit>,
    pub s_hdr: Signal<In, Bits<L3_HDR_BITS>>,
    pub s_l3_off: Signal<In, Bits<8>>,
    pub s_l2_rec: Signal<In, L2Info>,
    pub v: Signal<Out, Bit>,
    pub psum: Vec<Signal<Out, Bits<20>>>,
    pub l3_rec: Signal<Out, L3Info>,
    pub l4b: Signal<Out, Bits<L4_HDR_BITS>>,
    pub l2_rec: Signal<Out, L2Info>,
    et_ipv4: Constant<Bits<16>>,
    et_ipv6: Constant<Bits<16>>,
    et_pl2: Constant<Bits<16>>,
    et_protego: Constant<Bits<16>>,
    r_v: DffR<Bit>,
    r_psum: Vec<DFF<Bits<20>>>,
    r_l3: DFF<L3Info>,
    r_l4b: DFF<Bits<L4_HDR_BITS>>,
    r_l2: DFF<L2Info>,
    ihl: Signal<Local, Bits<4>>,
    is_v6: Signal<Local, Bit>,
    sum: Signal<Local, Bits<20>>,
    word: Signal<Local, Bits<16>>,
    al4: Signal<Local, Bits<L4_HDR_BITS>>,
}

impl Default for ParseL3 {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_v: Default::default(),
            s_hdr: Default::default(),
            s_l3_off: Default::default(),
            s_l2_rec: Default::default(),
            v: Default::default(),
            psum: vec_of(PSUMS),
            l3_rec: Default::default(),
            l4b: Default::default(),
            l2_rec: Default::default(),
            et_ipv4: Constant::new(wire16(ethertype::IPV4).to_bits()),
            et_ipv6: Constant::new(wire16(ethertype::IPV6).to_bits()),
            et_pl2: Constant::new(wire16(ethertype::PL2).to_bits()),
            et_protego: Constant::new(wire16(ethertype::PROTEGO).to_bits()),
            r_v: Default::default(),
            r_psum: vec_of(PSUMS),
            r_l3: Default::default(),
            r_l4b: Default::default(),
            r_l2: Default::default(),
            ihl: Default::default(),
            is_v6: Default::default(),
            sum: Default::default(),
            word: Default::default(),
            al4: Default::default(),
        }
    }
}

impl Logic for ParseL3 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_v, r_l3, r_l4b, r_l2);
        self.r_v.reset.next = self.reset.val();
        for g in 0..PSUMS {
            self.r_psum[g].clock.next = self.clock.val();
            self.r_psum[g].d.next = self.r_psum[g].q.val();
        }
        self.ihl.next = self.s_hdr.val().get_bits::<4>(IP_IHL);
        self.is_v6.next = !self.s_l2_rec.val().v3 & (self.s_l2_rec.val().ether == self.et_ipv6.val());
        // The L4 header: after 40 bytes of IPv6 or IHL words of IPv4.
        self.al4.next = 0.into();
        if self.is_v6.val() {
            self.al4.next = self.s_hdr.val().get_bits::<L4_HDR_BITS>(V6_HDR);
        }
        for h in 5..16 {
            if !self.is_v6.val() & (self.ihl.val().index() == h) {
                self.al4.next = self.s_hdr.val().get_bits::<L4_HDR_BITS>(V4_WORD * h);
            }
        }
        // Checksum: word i (of 30) counts while it is inside the IHL words.
        for g in 0..PSUMS {
            self.sum.next = 0.into();
            for w in 0..PSUM_WORDS {
                // Word i is in the header while i < 2 * IHL.
                self.word.next = self.s_hdr.val().get_bits::<16>(CSUM_WORD * (PSUM_WORDS * g + w));
                if (self.ihl.val().index() * 2) > (PSUM_WORDS * g + w) {
                    self.sum.next = self.sum.val() + bit_cast::<20, 16>(self.word.val());
                }
            }
            self.r_psum[g].d.next = self.sum.val();
        }
        self.r_v.d.next = self.s_v.val();
        if self.s_v.val() {
            self.r_l3.d.next.is_v4 = !self.s_l2_rec.val().v3 & (self.s_l2_rec.val().ether == self.et_ipv4.val());
            self.r_l3.d.next.is_v6 = self.is_v6.val();
            self.r_l3.d.next.is_pl2 = !self.s_l2_rec.val().v3 & (self.s_l2_rec.val().ether == self.et_pl2.val());
            self.r_l3.d.next.is_pctl =
                !self.s_l2_rec.val().v3 & self.s_l2_rec.val().prot & (self.s_l2_rec.val().ether == self.et_protego.val());
            self.r_l3.d.next.ver = self.s_hdr.val().get_bits::<4>(IP_VER);
            self.r_l3.d.next.ihl = self.ihl.val();
            self.r_l3.d.next.l3_off = self.s_l3_off.val();
            self.r_l3.d.next.pl2 = self.s_hdr.val().get_bits::<32>(PL2_KIND_AT);
            if self.is_v6.val() {
                self.r_l3.d.next.tos = (bit_cast::<8, 4>(self.s_hdr.val().get_bits::<4>(V6_TC_HI)) << 4)
                    | bit_cast::<8, 4>(self.s_hdr.val().get_bits::<4>(V6_TC_LO));
                self.r_l3.d.next.iplen = (bit_cast::<16, 8>(self.s_hdr.val().get_bits::<8>(V6_LEN)) << 8)
                    | bit_cast::<16, 8>(self.s_hdr.val().get_bits::<8>(V6_LEN + 8));
                self.r_l3.d.next.proto = self.s_hdr.val().get_bits::<8>(V6_NEXT);
                self.r_l3.d.next.dst = 0.into();
            } else {
                self.r_l3.d.next.tos = self.s_hdr.val().get_bits::<8>(V4_TOS);
                self.r_l3.d.next.iplen = (bit_cast::<16, 8>(self.s_hdr.val().get_bits::<8>(V4_LEN)) << 8)
                    | bit_cast::<16, 8>(self.s_hdr.val().get_bits::<8>(V4_LEN + 8));
                self.r_l3.d.next.proto = self.s_hdr.val().get_bits::<8>(V4_PROTO);
                self.r_l3.d.next.dst = (bit_cast::<32, 8>(self.s_hdr.val().get_bits::<8>(V4_DST)) << 24)
                    | (bit_cast::<32, 8>(self.s_hdr.val().get_bits::<8>(V4_DST + 8)) << 16)
                    | (bit_cast::<32, 8>(self.s_hdr.val().get_bits::<8>(V4_DST + 16)) << 8)
                    | bit_cast::<32, 8>(self.s_hdr.val().get_bits::<8>(V4_DST + 24));
            }
            self.r_l4b.d.next = self.al4.val();
            self.r_l2.d.next = self.s_l2_rec.val();
        }
        self.v.next = self.r_v.q.val();
        for g in 0..PSUMS {
            self.psum[g].next = self.r_psum[g].q.val();
        }
        self.l3_rec.next = self.r_l3.q.val();
        self.l4b.next = self.r_l4b.q.val();
        self.l2_rec.next = self.r_l2.q.val();
    }
}
