//! Parser stage S3: checksum test, lengths and offsets, every check as a flag
//! (`docs/ingress.md`, "parser").
use super::layout::*;
use crate::prim::widgets::{DffR, OnesSum, SumLe};
use crate::proto::{hlen, ipproto, pl2kind};
use rust_hdl::prelude::*;

/// S3, two cycles: reduces the checksum's words to two (first cycle), then
/// tests them and evaluates every check of `docs/ingress.md` at once
/// ([`Checks`]) from S2's L4 offset and IP end; reads the L4 header
/// ([`L4Info`]).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset (of `v`).
/// - `s_v`, `s_psum`, `s_l4o`, `s_ip_end`, `s_l3_rec`, `s_l4b`, `s_l2_rec` in: S2's outputs.
/// - `v` out, and with it `flags` (the flags), `l4_rec`, and `l3_rec`, `l2_rec` (passed on).
#[derive(LogicBlock)]
pub struct ParseChecks {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_v: Signal<In, Bit>,
    pub s_psum: Signal<In, Bits<PSUM_BITS>>,
    pub s_l4o: Signal<In, Bits<18>>,
    pub s_ip_end: Signal<In, Bits<18>>,
    pub s_l3_rec: Signal<In, L3Info>,
    pub s_l4b: Signal<In, Bits<L4_HDR_BITS>>,
    pub s_l2_rec: Signal<In, L2Info>,
    pub v: Signal<Out, Bit>,
    pub flags: Signal<Out, Checks>,
    pub l4_rec: Signal<Out, L4Info>,
    pub l3_rec: Signal<Out, L3Info>,
    pub l2_rec: Signal<Out, L2Info>,
    ip_udp: Constant<Bits<8>>,
    ip_ndp: Constant<Bits<8>>,
    pl2_rsv: Constant<Bits<8>>,
    pl2_grt: Constant<Bits<8>>,
    udp_hlen: Constant<Bits<18>>,
    ndp_hlen: Constant<Bits<18>>,
    pl2_len: Constant<Bits<18>>,
    /// S3's first cycle (issue 14): the checksum's words reduced to two and
    /// registered with S2's outputs; the tests and flags in the second.
    a_v: DffR<Bit>,
    a_ca: DFF<Bits<16>>,
    a_cb: DFF<Bits<16>>,
    a_l4o: DFF<Bits<18>>,
    a_ip_end: DFF<Bits<18>>,
    a_l3: DFF<L3Info>,
    /// The protocol tests, registered with the record: the L4 header's
    /// length selected from flip-flops in front of its bound's carry chain.
    a_udp: DFF<Bit>,
    a_ndp: DFF<Bit>,
    a_l4b: DFF<Bits<L4_HDR_BITS>>,
    a_l2: DFF<L2Info>,
    r_v: DffR<Bit>,
    r_f: DFF<Checks>,
    r_l4: DFF<L4Info>,
    r_l3: DFF<L3Info>,
    r_l2: DFF<L2Info>,
    fin: OnesSum<PSUM_BITS, 32>,
    /// `l4o + l4h <= ip_end`, `l4o + udp_len <= ip_end`, `l3o + PL2 length <= lenx`.
    le_l4: SumLe<18>,
    le_udp: SumLe<18>,
    le_pl2: SumLe<18>,
    ca: Signal<Local, Bits<16>>,
    cb: Signal<Local, Bits<16>>,
    hdr4: Signal<Local, Bits<18>>,
    l3o: Signal<Local, Bits<18>>,
    lenx: Signal<Local, Bits<18>>,
    iplx: Signal<Local, Bits<18>>,
    l4o: Signal<Local, Bits<18>>,
    ip_end: Signal<Local, Bits<18>>,
    l4h: Signal<Local, Bits<18>>,
    udp_len: Signal<Local, Bits<18>>,
    is_udp: Signal<Local, Bit>,
    is_ndp: Signal<Local, Bit>,
    pl2w: Signal<Local, Bits<32>>,
}

impl Default for ParseChecks {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_v: Default::default(),
            s_psum: Default::default(),
            s_l4o: Default::default(),
            s_ip_end: Default::default(),
            s_l3_rec: Default::default(),
            s_l4b: Default::default(),
            s_l2_rec: Default::default(),
            v: Default::default(),
            flags: Default::default(),
            l4_rec: Default::default(),
            l3_rec: Default::default(),
            l2_rec: Default::default(),
            ip_udp: Constant::new((ipproto::UDP as u64).to_bits()),
            ip_ndp: Constant::new((ipproto::NDP as u64).to_bits()),
            pl2_rsv: Constant::new((pl2kind::RSV as u64).to_bits()),
            pl2_grt: Constant::new((pl2kind::GRT as u64).to_bits()),
            udp_hlen: Constant::new((hlen::UDP as u64).to_bits()),
            ndp_hlen: Constant::new((hlen::NDP as u64).to_bits()),
            pl2_len: Constant::new((hlen::PL2 as u64).to_bits()),
            a_v: Default::default(),
            a_ca: Default::default(),
            a_cb: Default::default(),
            a_l4o: Default::default(),
            a_ip_end: Default::default(),
            a_l3: Default::default(),
            a_udp: Default::default(),
            a_ndp: Default::default(),
            a_l4b: Default::default(),
            a_l2: Default::default(),
            r_v: Default::default(),
            r_f: Default::default(),
            r_l4: Default::default(),
            r_l3: Default::default(),
            r_l2: Default::default(),
            fin: Default::default(),
            le_l4: Default::default(),
            le_udp: Default::default(),
            le_pl2: Default::default(),
            ca: Default::default(),
            cb: Default::default(),
            hdr4: Default::default(),
            l3o: Default::default(),
            lenx: Default::default(),
            iplx: Default::default(),
            l4o: Default::default(),
            ip_end: Default::default(),
            l4h: Default::default(),
            udp_len: Default::default(),
            is_udp: Default::default(),
            is_ndp: Default::default(),
            pl2w: Default::default(),
        }
    }
}

impl Logic for ParseChecks {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_v, a_ca, a_cb, a_l4o, a_ip_end, a_l3, a_udp, a_ndp, a_l4b, a_l2, r_v, r_f, r_l4, r_l3, r_l2);
        self.a_v.reset.next = self.reset.val();
        self.r_v.reset.next = self.reset.val();
        // First cycle: the checksum's partial sums reduced to two words.
        self.fin.words.next = self.s_psum.val();
        self.a_v.d.next = self.s_v.val();
        if self.s_v.val() {
            self.a_ca.d.next = self.fin.sum.val().get_bits::<16>(0);
            self.a_cb.d.next = self.fin.sum.val().get_bits::<16>(CSUM_WORD);
            self.a_l4o.d.next = self.s_l4o.val();
            self.a_ip_end.d.next = self.s_ip_end.val();
            self.a_l3.d.next = self.s_l3_rec.val();
            self.a_udp.d.next = self.s_l3_rec.val().proto == self.ip_udp.val();
            self.a_ndp.d.next = self.s_l3_rec.val().proto == self.ip_ndp.val();
            self.a_l4b.d.next = self.s_l4b.val();
            self.a_l2.d.next = self.s_l2_rec.val();
        }
        // Second cycle: every test, from those registers.
        self.ca.next = self.a_ca.q.val();
        self.cb.next = self.a_cb.q.val();
        self.hdr4.next = bit_cast::<18, 4>(self.a_l3.q.val().ihl) << 2;
        self.l3o.next = bit_cast::<18, 8>(self.a_l3.q.val().l3_off);
        self.lenx.next = bit_cast::<18, 16>(self.a_l2.q.val().len);
        self.iplx.next = bit_cast::<18, 16>(self.a_l3.q.val().iplen);
        self.l4o.next = self.a_l4o.q.val();
        self.ip_end.next = self.a_ip_end.q.val();
        self.is_udp.next = self.a_udp.q.val();
        self.is_ndp.next = self.a_ndp.q.val();
        self.l4h.next = 0.into();
        if self.is_udp.val() {
            self.l4h.next = self.udp_hlen.val();
        }
        if self.is_ndp.val() {
            self.l4h.next = self.ndp_hlen.val();
        }
        self.udp_len.next = (bit_cast::<18, 8>(self.a_l4b.q.val().get_bits::<8>(UDP_LEN)) << 8)
            | bit_cast::<18, 8>(self.a_l4b.q.val().get_bits::<8>(UDP_LEN + 8));
        self.pl2w.next = self.a_l3.q.val().pl2;
        self.le_l4.a.next = self.l4o.val();
        self.le_l4.b.next = self.l4h.val();
        self.le_l4.c.next = self.ip_end.val();
        self.le_udp.a.next = self.l4o.val();
        self.le_udp.b.next = self.udp_len.val();
        self.le_udp.c.next = self.ip_end.val();
        self.le_pl2.a.next = self.l3o.val();
        self.le_pl2.b.next = self.pl2_len.val();
        self.le_pl2.c.next = self.lenx.val();
        self.r_v.d.next = self.a_v.q.val();
        if self.a_v.q.val() {
            self.r_f.d.next.l2 = self.l3o.val() > self.lenx.val();
            self.r_f.d.next.vlan = self.a_l2.q.val().v3;
            self.r_f.d.next.ver4 = self.a_l3.q.val().ver != 4;
            self.r_f.d.next.ver6 = self.a_l3.q.val().ver != 6;
            self.r_f.d.next.ihl = self.a_l3.q.val().ihl < 5;
            // l4o is l3o + 4 * IHL for IPv4 and l3o + 40 for IPv6 (S2).
            self.r_f.d.next.v4tr = self.l4o.val() > self.lenx.val();
            self.r_f.d.next.v4len = (self.iplx.val() < self.hdr4.val()) | (self.ip_end.val() > self.lenx.val());
            // The header's words sum to 0 modulo 0xFFFF exactly when ca + cb is
            // 0, 0xFFFF or 0x1FFFE: ca == !cb (no carry can occur), or both 0, or
            // both 0xFFFF. (RFC 1071 also asks the sum be nonzero; only an
            // all-zero header sums to 0, and its version 0 fails first.)
            self.r_f.d.next.cks = !(((self.ca.val() ^ self.cb.val()) == 0xFFFF)
                | ((self.ca.val() | self.cb.val()) == 0)
                | ((self.ca.val() & self.cb.val()) == 0xFFFF));
            self.r_f.d.next.v6tr = self.l4o.val() > self.lenx.val();
            self.r_f.d.next.v6len = self.ip_end.val() > self.lenx.val();
            self.r_f.d.next.l4tr = !self.le_l4.sum_le.val();
            self.r_f.d.next.udp = (self.udp_len.val() < self.udp_hlen.val()) | !self.le_udp.sum_le.val();
            self.r_f.d.next.pl2tr = !self.le_pl2.sum_le.val();
            self.r_f.d.next.pl2k = (self.pl2w.val().get_bits::<8>(PL2_KIND_AT) != self.pl2_rsv.val())
                & (self.pl2w.val().get_bits::<8>(PL2_KIND_AT) != self.pl2_grt.val());
            self.r_l4.d.next.is_udp = self.is_udp.val();
            self.r_l4.d.next.is_ndp = self.is_ndp.val();
            self.r_l4.d.next.l4o = self.l4o.val().get_bits::<7>(0);
            self.r_l4.d.next.sport = (bit_cast::<16, 8>(self.a_l4b.q.val().get_bits::<8>(UDP_SPORT)) << 8)
                | bit_cast::<16, 8>(self.a_l4b.q.val().get_bits::<8>(UDP_SPORT + 8));
            self.r_l4.d.next.dport = (bit_cast::<16, 8>(self.a_l4b.q.val().get_bits::<8>(UDP_DPORT)) << 8)
                | bit_cast::<16, 8>(self.a_l4b.q.val().get_bits::<8>(UDP_DPORT + 8));
            self.r_l4.d.next.nflags = self.a_l4b.q.val().get_bits::<8>(NDP_FLAGS_AT);
            self.r_l4.d.next.ndp_sport = (bit_cast::<16, 8>(self.a_l4b.q.val().get_bits::<8>(NDP_SPORT)) << 8)
                | bit_cast::<16, 8>(self.a_l4b.q.val().get_bits::<8>(NDP_SPORT + 8));
            self.r_l4.d.next.ndp_dport = (bit_cast::<16, 8>(self.a_l4b.q.val().get_bits::<8>(NDP_DPORT)) << 8)
                | bit_cast::<16, 8>(self.a_l4b.q.val().get_bits::<8>(NDP_DPORT + 8));
            self.r_l3.d.next = self.a_l3.q.val();
            self.r_l2.d.next = self.a_l2.q.val();
        }
        self.v.next = self.r_v.q.val();
        self.flags.next = self.r_f.q.val();
        self.l4_rec.next = self.r_l4.q.val();
        self.l3_rec.next = self.r_l3.q.val();
        self.l2_rec.next = self.r_l2.q.val();
    }
}
