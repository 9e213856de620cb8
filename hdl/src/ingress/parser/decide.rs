//! Parser stage S4: the first failing check and the PHV (`docs/ingress.md`,
//! "parser").
use super::code::*;
use super::layout::*;
use super::pack::PhvPack;
use crate::ingress::phv::{field, PHV_BITS};
use rust_hdl::prelude::*;

/// S4 (combinational on S3's registers; the parser registers its outputs): the malformed code is the first
/// failing check in the order of [`crate::ingress::phv::malformed`]; the
/// PHV's fields are S0..S3's findings, the L3 fields only for IPv4/IPv6 and
/// the L4 and PL2 fields only for a well-formed packet.
///
/// The fields a malformed packet leaves zero (PHV bits [`GATED`]) are
/// written here as if the packet were well formed; the parser clears them
/// after its register by `ok` (issue 14: the code's priority chain no longer
/// fans out into 150 PHV bits before the register).
///
/// Ports: `flags`, `l4_rec`, `l3_rec`, `l2_rec` in (S3's outputs); `code` out (0: well
/// formed); `ok` out (`code == 0`, as a flat test of the flags); `phv` out
/// (the packed PHV, [`PhvPack`], with the [`GATED`] fields not cleared).
#[derive(LogicBlock, Default)]
pub struct ParseDecide {
    pub flags: Signal<In, Checks>,
    pub l4_rec: Signal<In, L4Info>,
    pub l3_rec: Signal<In, L3Info>,
    pub l2_rec: Signal<In, L2Info>,
    pub code: Signal<Out, Bits<4>>,
    pub ok: Signal<Out, Bit>,
    pub phv: Signal<Out, Bits<PHV_BITS>>,
    pack: PhvPack,
    c: Signal<Local, Bits<4>>,
    l4_ok: Signal<Local, Bit>,
    ether: Signal<Local, Bits<16>>,
    tos: Signal<Local, Bits<8>>,
    pl2w: Signal<Local, Bits<32>>,
    l4bad: Signal<Local, Bit>,
}

/// PHV bits `(lsb, width)` that only a well-formed packet fills: DSCP
/// through the PL2 destination ([`crate::ingress::phv::field`]).
pub const GATED: (usize, usize) = (field::DSCP.0, field::PL2_DST.0 + field::PL2_DST.1 - field::DSCP.0);

impl Logic for ParseDecide {
    #[hdl_gen]
    fn update(&mut self) {
        self.c.next = 0.into();
        self.l4_ok.next = false;
        if self.flags.val().l2 {
            self.c.next = MAL_L2_TRUNCATED.into();
        } else if self.flags.val().vlan {
            self.c.next = MAL_VLAN_DEPTH.into();
        } else if self.l3_rec.val().is_v4 {
            if self.flags.val().ver4 {
                self.c.next = MAL_IP_VERSION.into();
            } else if self.flags.val().ihl {
                self.c.next = MAL_IPV4_IHL.into();
            } else if self.flags.val().v4tr {
                self.c.next = MAL_IPV4_TRUNCATED.into();
            } else if self.flags.val().v4len {
                self.c.next = MAL_IPV4_LENGTH.into();
            } else if self.flags.val().cks {
                self.c.next = MAL_IPV4_CHECKSUM.into();
            } else {
                self.l4_ok.next = true;
            }
        } else if self.l3_rec.val().is_v6 {
            if self.flags.val().ver6 {
                self.c.next = MAL_IP_VERSION.into();
            } else if self.flags.val().v6tr {
                self.c.next = MAL_IPV6_TRUNCATED.into();
            } else if self.flags.val().v6len {
                self.c.next = MAL_IPV6_LENGTH.into();
            } else {
                self.l4_ok.next = true;
            }
        } else if self.l3_rec.val().is_pl2 {
            if self.flags.val().pl2tr {
                self.c.next = MAL_PL2_TRUNCATED.into();
            } else if self.flags.val().pl2k {
                self.c.next = MAL_PL2_KIND.into();
            }
        }
        if self.l4_ok.val() & (self.l4_rec.val().is_udp | self.l4_rec.val().is_ndp) {
            if self.flags.val().l4tr {
                self.c.next = MAL_L4_TRUNCATED.into();
            } else if self.l4_rec.val().is_udp & self.flags.val().udp {
                self.c.next = MAL_UDP_LENGTH.into();
            }
        }
        self.code.next = self.c.val();
        // `c == 0` without the chain: no check fails on the packet's path.
        self.l4bad.next = (self.l4_rec.val().is_udp | self.l4_rec.val().is_ndp)
            & (self.flags.val().l4tr | (self.l4_rec.val().is_udp & self.flags.val().udp));
        if self.l3_rec.val().is_v4 {
            self.ok.next = !(self.flags.val().ver4
                | self.flags.val().ihl
                | self.flags.val().v4tr
                | self.flags.val().v4len
                | self.flags.val().cks
                | self.l4bad.val());
        } else if self.l3_rec.val().is_v6 {
            self.ok.next = !(self.flags.val().ver6 | self.flags.val().v6tr | self.flags.val().v6len | self.l4bad.val());
        } else {
            self.ok.next = !(self.l3_rec.val().is_pl2 & (self.flags.val().pl2tr | self.flags.val().pl2k));
        }
        if self.flags.val().l2 | self.flags.val().vlan {
            self.ok.next = false;
        }
        self.ether.next = self.l2_rec.val().ether;
        self.tos.next = self.l3_rec.val().tos;
        self.pl2w.next = self.l3_rec.val().pl2;
        self.pack.dst_mac.next = self.l2_rec.val().dmac;
        self.pack.ethertype.next =
            (bit_cast::<16, 8>(self.ether.val().get_bits::<8>(BYTE0)) << 8) | bit_cast::<16, 8>(self.ether.val().get_bits::<8>(BYTE1));
        self.pack.vlans.next = self.l2_rec.val().vlans;
        self.pack.pcp.next = self.l2_rec.val().pcp;
        self.pack.vid.next = self.l2_rec.val().vid;
        self.pack.protego.next = self.l2_rec.val().prot;
        self.pack.protego_kind.next = self.l2_rec.val().pkind;
        // A tag chain cut short leaves no L3 header to name (l3 = OTHER).
        self.pack.l3.next = 0.into();
        if !self.flags.val().l2 {
            if self.l3_rec.val().is_v4 {
                self.pack.l3.next = PHV_L3_IPV4.into();
            }
            if self.l3_rec.val().is_v6 {
                self.pack.l3.next = PHV_L3_IPV6.into();
            }
            if self.l3_rec.val().is_pl2 {
                self.pack.l3.next = PHV_L3_PL2.into();
            }
            if self.l3_rec.val().is_pctl {
                self.pack.l3.next = PHV_L3_PCTL.into();
            }
        }
        self.pack.l3_off.next = bit_cast::<7, 8>(self.l3_rec.val().l3_off);
        self.pack.malformed.next = self.c.val();
        self.pack.in_port.next = self.l2_rec.val().port;
        self.pack.dscp.next = 0.into();
        self.pack.ecn.next = 0.into();
        self.pack.proto.next = 0.into();
        self.pack.ip_len.next = 0.into();
        self.pack.ihl.next = 0.into();
        self.pack.ipv4_dst.next = 0.into();
        self.pack.l4.next = 0.into();
        self.pack.l4_off.next = 0.into();
        self.pack.sport.next = 0.into();
        self.pack.dport.next = 0.into();
        self.pack.ndp_flags.next = 0.into();
        self.pack.pl2_kind.next = 0.into();
        self.pack.pl2_demand.next = 0.into();
        self.pack.pl2_src.next = 0.into();
        self.pack.pl2_dst.next = 0.into();
        if self.l3_rec.val().is_v4 | self.l3_rec.val().is_v6 {
            self.pack.dscp.next = self.tos.val().get_bits::<6>(TOS_DSCP);
            self.pack.ecn.next = self.tos.val().get_bits::<2>(TOS_ECN);
            self.pack.proto.next = self.l3_rec.val().proto;
            self.pack.ip_len.next = self.l3_rec.val().iplen;
            if self.l3_rec.val().is_v4 {
                self.pack.ihl.next = self.l3_rec.val().ihl;
                self.pack.ipv4_dst.next = self.l3_rec.val().dst;
            }
            if self.l4_rec.val().is_udp {
                self.pack.l4.next = PHV_L4_UDP.into();
                self.pack.l4_off.next = self.l4_rec.val().l4o;
                self.pack.sport.next = self.l4_rec.val().sport;
                self.pack.dport.next = self.l4_rec.val().dport;
            }
            if self.l4_rec.val().is_ndp {
                self.pack.l4.next = PHV_L4_NDP.into();
                self.pack.l4_off.next = self.l4_rec.val().l4o;
                self.pack.sport.next = self.l4_rec.val().ndp_sport;
                self.pack.dport.next = self.l4_rec.val().ndp_dport;
                self.pack.ndp_flags.next = self.l4_rec.val().nflags;
            }
        }
        if self.l3_rec.val().is_pl2 {
            self.pack.pl2_kind.next = self.pl2w.val().get_bits::<8>(PL2_KIND_AT);
            self.pack.pl2_demand.next = self.pl2w.val().get_bits::<8>(PL2_DEMAND_AT);
            self.pack.pl2_src.next = self.pl2w.val().get_bits::<8>(PL2_SRC_AT);
            self.pack.pl2_dst.next = self.pl2w.val().get_bits::<8>(PL2_DST_AT);
            // The source MAC in fields PL2 does not use (`field::PL2_SMAC_LO`).
            self.pack.ipv4_dst.next = self.l2_rec.val().smac.get_bits::<32>(0);
            self.pack.sport.next = self.l2_rec.val().smac.get_bits::<16>(32);
        }
        self.phv.next = self.pack.phv.val();
    }
}
