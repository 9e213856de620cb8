//! The PHV packer: the PHV's fields into one vector.
use crate::ingress::phv::{field, PHV_BITS};
use rust_hdl::prelude::*;

/// Packs the PHV fields into the [`PHV_BITS`]-bit vector at the positions of
/// [`crate::ingress::phv::field`] (pure wiring; one definition of the layout).
///
/// Ports: one input per PHV field (named as in [`crate::ingress::phv::Phv`]); `phv` out.
#[derive(LogicBlock, Default)]
pub struct PhvPack {
    pub dst_mac: Signal<In, Bits<48>>,
    pub ethertype: Signal<In, Bits<16>>,
    pub vlans: Signal<In, Bits<2>>,
    pub pcp: Signal<In, Bits<3>>,
    pub vid: Signal<In, Bits<12>>,
    pub protego: Signal<In, Bit>,
    pub protego_kind: Signal<In, Bits<2>>,
    pub l3: Signal<In, Bits<3>>,
    pub l3_off: Signal<In, Bits<7>>,
    pub dscp: Signal<In, Bits<6>>,
    pub ecn: Signal<In, Bits<2>>,
    pub proto: Signal<In, Bits<8>>,
    pub ip_len: Signal<In, Bits<16>>,
    pub ihl: Signal<In, Bits<4>>,
    pub ipv4_dst: Signal<In, Bits<32>>,
    pub l4: Signal<In, Bits<2>>,
    pub l4_off: Signal<In, Bits<7>>,
    pub sport: Signal<In, Bits<16>>,
    pub dport: Signal<In, Bits<16>>,
    pub ndp_flags: Signal<In, Bits<8>>,
    pub pl2_kind: Signal<In, Bits<8>>,
    pub pl2_demand: Signal<In, Bits<8>>,
    pub pl2_src: Signal<In, Bits<8>>,
    pub pl2_dst: Signal<In, Bits<8>>,
    pub malformed: Signal<In, Bits<4>>,
    pub in_port: Signal<In, Bits<8>>,
    pub phv: Signal<Out, Bits<PHV_BITS>>,
}

impl Logic for PhvPack {
    fn update(&mut self) {
        let mut v = Bits::<PHV_BITS>::default();
        v = v | (bit_cast::<PHV_BITS, 48>(self.dst_mac.val()) << field::DST_MAC.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 16>(self.ethertype.val()) << field::ETHERTYPE.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 2>(self.vlans.val()) << field::VLANS.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 3>(self.pcp.val()) << field::PCP.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 12>(self.vid.val()) << field::VID.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 1>(self.protego.val().into()) << field::PROTEGO.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 2>(self.protego_kind.val()) << field::PROTEGO_KIND.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 3>(self.l3.val()) << field::L3.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 7>(self.l3_off.val()) << field::L3_OFF.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 6>(self.dscp.val()) << field::DSCP.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 2>(self.ecn.val()) << field::ECN.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.proto.val()) << field::PROTO.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 16>(self.ip_len.val()) << field::IP_LEN.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 4>(self.ihl.val()) << field::IHL.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 32>(self.ipv4_dst.val()) << field::IPV4_DST.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 2>(self.l4.val()) << field::L4.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 7>(self.l4_off.val()) << field::L4_OFF.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 16>(self.sport.val()) << field::SPORT.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 16>(self.dport.val()) << field::DPORT.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.ndp_flags.val()) << field::NDP_FLAGS.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.pl2_kind.val()) << field::PL2_KIND.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.pl2_demand.val()) << field::PL2_DEMAND.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.pl2_src.val()) << field::PL2_SRC.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.pl2_dst.val()) << field::PL2_DST.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 4>(self.malformed.val()) << field::MALFORMED.0 as u64);
        v = v | (bit_cast::<PHV_BITS, 8>(self.in_port.val()) << field::IN_PORT.0 as u64);
        self.phv.next = v;
    }
    fn connect(&mut self) {
        self.phv.connect();
    }
    fn hdl(&self) -> Verilog {
        let fields = [
            (field::DST_MAC, "dst_mac"),
            (field::ETHERTYPE, "ethertype"),
            (field::VLANS, "vlans"),
            (field::PCP, "pcp"),
            (field::VID, "vid"),
            (field::PROTEGO, "protego"),
            (field::PROTEGO_KIND, "protego_kind"),
            (field::L3, "l3"),
            (field::L3_OFF, "l3_off"),
            (field::DSCP, "dscp"),
            (field::ECN, "ecn"),
            (field::PROTO, "proto"),
            (field::IP_LEN, "ip_len"),
            (field::IHL, "ihl"),
            (field::IPV4_DST, "ipv4_dst"),
            (field::L4, "l4"),
            (field::L4_OFF, "l4_off"),
            (field::SPORT, "sport"),
            (field::DPORT, "dport"),
            (field::NDP_FLAGS, "ndp_flags"),
            (field::PL2_KIND, "pl2_kind"),
            (field::PL2_DEMAND, "pl2_demand"),
            (field::PL2_SRC, "pl2_src"),
            (field::PL2_DST, "pl2_dst"),
            (field::MALFORMED, "malformed"),
            (field::IN_PORT, "in_port"),
        ];
        let mut parts = vec![];
        let mut next = 0;
        for ((lsb, w), name) in fields {
            assert_eq!(lsb, next, "PHV fields must tile");
            parts.push(if w == 1 { name.to_string() } else { format!("{name}[{}:0]", w - 1) });
            next = lsb + w;
        }
        parts.push(format!("{}'d0", PHV_BITS - next));
        parts.reverse();
        Verilog::Custom(format!("always @(*) phv = {{{}}};\n", parts.join(", ")))
    }
}
