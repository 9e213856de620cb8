//! Parser stage S2: the IPv4/IPv6/PL2 fields, the IPv4 checksum's words
//! reduced by compressors, the L4 offset and the IP packet's end, and the L4
//! header aligned (`docs/ingress.md`, "parser").
use super::layout::*;
use crate::prim::widgets::{AddSub, DffR, OnesSum};
use crate::proto::hlen;
use crate::proto::{ethertype, wire16};
use rust_hdl::prelude::*;

/// S2: what the L3 header says ([`L3Info`]), the IPv4 header's 16-bit words
/// (words past `4 * IHL` bytes count zero) reduced to [`PSUMS`] words of the
/// same ones'-complement sum by [`OnesSum`] (compressors, no carry chain) and the
/// L4 header aligned to byte 0 (after 40 bytes of IPv6 or `4 * IHL` of IPv4,
/// IHL 5..15).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset (of `v`).
/// - `s_v`, `s_hdr`, `s_l3_off`, `s_l2_rec` in: S1's outputs.
/// - `v` out, and with it:
///   - `l4o`: the L4 header's byte offset, `l3_off` plus 40 for IPv6 or
///     `4 * IHL` otherwise (18 bits);
///   - `ip_end`: where the IP packet ends, `l3_off` plus the total length for
///     IPv4, `l3_off + 40` plus the payload length for IPv6 (18 bits); both
///     computed here so each of S3's checks is one carry chain;
///   - `psum`: [`PSUMS`] 16-bit words (word `i` in bits `16i ..`) whose
///     ones'-complement sum is the header's;
///   - `l3_rec`, `l4b` (the L4 header, [`L4_HDR_BITS`]) and `l2_rec` (passed on).
#[derive(LogicBlock)]
pub struct ParseL3 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_v: Signal<In, Bit>,
    pub s_hdr: Signal<In, Bits<L3_HDR_BITS>>,
    pub s_l3_off: Signal<In, Bits<8>>,
    pub s_l2_rec: Signal<In, L2Info>,
    pub v: Signal<Out, Bit>,
    pub psum: Signal<Out, Bits<PSUM_BITS>>,
    pub l4o: Signal<Out, Bits<18>>,
    pub ip_end: Signal<Out, Bits<18>>,
    pub l3_rec: Signal<Out, L3Info>,
    pub l4b: Signal<Out, Bits<L4_HDR_BITS>>,
    pub l2_rec: Signal<Out, L2Info>,
    et_ipv4: Constant<Bits<16>>,
    et_pl2: Constant<Bits<16>>,
    et_protego: Constant<Bits<16>>,
    r_v: DffR<Bit>,
    r_psum: DFF<Bits<PSUM_BITS>>,
    /// The first five header words (20 bytes, 10 checksum words) always
    /// count (an IHL below 5 is reported before the checksum, which is then
    /// not read): they enter compressors at once (10 -> 7 words) while the
    /// other 20 are masked by IHL, then all 27 go to [`PSUMS`]: 4 compressor
    /// levels in all, not a mask level and 5 (issue 14; S3's first cycle
    /// takes the rest of the fold).
    pre: OnesSum<CSUM_FIXED_BITS, CSUM_PRE_BITS>,
    csa: OnesSum<CSUM_TREE_BITS, PSUM_BITS>,
    pre_shift: Constant<Bits<16>>,
    /// Bits of IPv4 header word `h` (32 bits) in the checksum's words.
    hword: Vec<Constant<Bits<CSUM_BITS>>>,
    r_l3: DFF<L3Info>,
    r_l4o: DFF<Bits<18>>,
    r_end: DFF<Bits<18>>,
    /// `l3_off + iplen (+ 40)`: the 40 subtracted as its negative, one carry chain.
    end_sum: AddSub<18>,
    /// `2^18 - 40`: IPv6's header length, negative.
    neg_v6: Constant<Bits<18>>,
    v6_hlen: Constant<Bits<18>>,
    l3o: Signal<Local, Bits<18>>,
    iplen: Signal<Local, Bits<16>>,
    r_l4b: DFF<Bits<L4_HDR_BITS>>,
    r_l2: DFF<L2Info>,
    ihl: Signal<Local, Bits<4>>,
    is_v6: Signal<Local, Bit>,
    wmask: Signal<Local, Bits<CSUM_BITS>>,
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
            psum: Default::default(),
            l4o: Default::default(),
            ip_end: Default::default(),
            l3_rec: Default::default(),
            l4b: Default::default(),
            l2_rec: Default::default(),
            et_ipv4: Constant::new(wire16(ethertype::IPV4).to_bits()),
            et_pl2: Constant::new(wire16(ethertype::PL2).to_bits()),
            et_protego: Constant::new(wire16(ethertype::PROTEGO).to_bits()),
            r_v: Default::default(),
            r_psum: Default::default(),
            pre: Default::default(),
            pre_shift: Constant::new((CSUM_PRE_BITS as u64).to_bits()),
            csa: Default::default(),
            hword: (0..CSUM_WORDS / 2)
                .map(|h| {
                    let mut m = Bits::<CSUM_BITS>::default();
                    m.set_bits::<32>(V4_WORD * h, 0xffff_ffffu64.to_bits());
                    Constant::new(m)
                })
                .collect(),
            r_l3: Default::default(),
            r_l4o: Default::default(),
            r_end: Default::default(),
            end_sum: Default::default(),
            neg_v6: Constant::new(((1u64 << 18) - hlen::IPV6 as u64).to_bits()),
            v6_hlen: Constant::new((hlen::IPV6 as u64).to_bits()),
            l3o: Default::default(),
            iplen: Default::default(),
            r_l4b: Default::default(),
            r_l2: Default::default(),
            ihl: Default::default(),
            is_v6: Default::default(),
            wmask: Default::default(),
            al4: Default::default(),
        }
    }
}

impl Logic for ParseL3 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_v, r_psum, r_l3, r_l4o, r_end, r_l4b, r_l2);
        self.r_v.reset.next = self.reset.val();
        self.ihl.next = self.s_hdr.val().get_bits::<4>(IP_IHL);
        self.is_v6.next = self.s_l2_rec.val().v6;
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
        // Checksum: header word h (two 16-bit words) counts while h < IHL.
        self.wmask.next = 0.into();
        for h in 0..self.hword.len() {
            if self.ihl.val().index() > h {
                self.wmask.next = self.wmask.val() | self.hword[h].val();
            }
        }
        self.pre.words.next = self.s_hdr.val().get_bits::<CSUM_FIXED_BITS>(0);
        self.csa.words.next = bit_cast::<CSUM_TREE_BITS, CSUM_PRE_BITS>(self.pre.sum.val())
            | (bit_cast::<CSUM_TREE_BITS, CSUM_MASKED_BITS>(
                self.s_hdr.val().get_bits::<CSUM_MASKED_BITS>(CSUM_FIXED_BITS)
                    & self.wmask.val().get_bits::<CSUM_MASKED_BITS>(CSUM_FIXED_BITS),
            ) << self.pre_shift.val());
        self.r_psum.d.next = self.csa.sum.val();
        // The IP packet's extent, for S3's length checks.
        self.l3o.next = bit_cast::<18, 8>(self.s_l3_off.val());
        self.end_sum.c.next = 0.into();
        if self.is_v6.val() {
            self.iplen.next = (bit_cast::<16, 8>(self.s_hdr.val().get_bits::<8>(V6_LEN)) << 8)
                | bit_cast::<16, 8>(self.s_hdr.val().get_bits::<8>(V6_LEN + 8));
            self.end_sum.c.next = self.neg_v6.val();
            self.r_l4o.d.next = self.l3o.val() + self.v6_hlen.val();
        } else {
            self.iplen.next = (bit_cast::<16, 8>(self.s_hdr.val().get_bits::<8>(V4_LEN)) << 8)
                | bit_cast::<16, 8>(self.s_hdr.val().get_bits::<8>(V4_LEN + 8));
            self.r_l4o.d.next = self.l3o.val() + (bit_cast::<18, 4>(self.ihl.val()) << 2);
        }
        self.end_sum.a.next = self.l3o.val();
        self.end_sum.b.next = bit_cast::<18, 16>(self.iplen.val());
        self.r_end.d.next = self.end_sum.add_sub.val();
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
                self.r_l3.d.next.iplen = self.iplen.val();
                self.r_l3.d.next.proto = self.s_hdr.val().get_bits::<8>(V6_NEXT);
                self.r_l3.d.next.dst = 0.into();
            } else {
                self.r_l3.d.next.tos = self.s_hdr.val().get_bits::<8>(V4_TOS);
                self.r_l3.d.next.iplen = self.iplen.val();
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
        self.psum.next = self.r_psum.q.val();
        self.l4o.next = self.r_l4o.q.val();
        self.ip_end.next = self.r_end.q.val();
        self.l3_rec.next = self.r_l3.q.val();
        self.l4b.next = self.r_l4b.q.val();
        self.l2_rec.next = self.r_l2.q.val();
    }
}
