//! The ingress PL2 stage (`docs/pl2.md`, "In the switch"; the specification
//! `PL2-PROTEGO.md` A.2-A.4): which packets leaving lookup are ALU ops, and
//! how a granted RSV becomes its GRT in place. The ALU itself is
//! [`super::pl2::Pl2Model`]; [`super::IngressModel`] runs the two together.
use super::lookup::Lookup;
use super::pl2::{Grant, Op, Pl2Config, Pl2Mode, Rsv};
use crate::packet::frame::ethertype;
use crate::packet::Pl2;
use trimswitch_hdl::config::Config;
use trimswitch_hdl::ingress::phv::{l3, Phv};

/// The PL2 registers the ingress uses beside the ALU's own (A.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pl2Settings {
    /// `CTRL` bit 0: PL2 on. Off, no packet is an op: RSV and GRT frames are
    /// forwarded as any Ethernet frame.
    pub enable: bool,
    /// `DSCP_UNSOL`: the DSCP that marks an IP packet unsolicited (A.4).
    pub dscp_unsol: Option<u8>,
    /// The PCP that marks a VLAN-tagged non-IP frame unsolicited (A.4).
    pub pcp_unsol: Option<u8>,
    /// The ALU's registers.
    pub alu: Pl2Config,
}

impl Pl2Settings {
    /// PL2 off with the defaults of `[pl2]` ([`trimswitch_hdl::config::Pl2`])
    /// for `ports` ports, every port on.
    pub fn off(ports: usize) -> Pl2Settings {
        let d = trimswitch_hdl::config::Pl2::default();
        let code = |v: i32| (v >= 0).then_some(v as u8);
        Pl2Settings {
            enable: d.enable,
            dscp_unsol: code(d.dscp_unsol),
            pcp_unsol: code(d.pcp_unsol),
            alu: Pl2Config { ports, k: d.k, t_drop: d.t_drop, port_en: (u64::MAX >> (64 - ports)), ..Pl2Config::default() },
        }
    }

    /// The reset values of `cfg.pl2` (a validated configuration).
    pub fn from_config(cfg: &Config) -> Pl2Settings {
        let p = &cfg.pl2;
        let code = |v: i32| (v >= 0).then_some(v as u8);
        Pl2Settings {
            enable: p.enable,
            dscp_unsol: code(p.dscp_unsol),
            pcp_unsol: code(p.pcp_unsol),
            alu: Pl2Config {
                ports: cfg.datapath.ports,
                k: p.k,
                t_drop: p.t_drop,
                mode: if p.mode == "joint" { Pl2Mode::Joint } else { Pl2Mode::Paper },
                port_en: cfg.pl2_port_en(),
                slot_cycles: cfg.pl2_slot_cycles(),
                slot_run: true,
            },
        }
    }
}

/// The ALU op of a packet that arrived on `port` with PHV `phv` and lookup
/// result `lk` (`frame` is the packet, for an RSV's cookie), or `None` when
/// it is none (A.3):
/// - PL2 off, or a malformed packet (lookup drops or forwards it untouched);
/// - a well-formed PL2 frame: RSV or a GRT from a host, whatever lookup
///   decided (lookup's miss drop is bypassed, A.2); one carrying a Protego
///   tag is no op (a tag reaching the pipeline means Protego is off at that
///   port, issue 16: the frame is forwarded as any other);
/// - Protego control and PFC (MAC control) frames: no op;
/// - any other packet lookup forwards (`dest_port < ports`): DATA, or UNSOL
///   when marked (A.4: an IP packet by its DSCP, a tagged non-IP frame by its
///   PCP); a packet lookup drops is no op.
pub fn op_of(phv: &Phv, lk: &Lookup, port: u8, frame: &[u8], s: &Pl2Settings) -> Option<Op> {
    if !s.enable || phv.malformed != 0 {
        return None;
    }
    if phv.l3 == l3::PL2 {
        if phv.protego {
            return None;
        }
        if phv.pl2_kind != Pl2::RSV {
            return Some(Op::GrtFromHost);
        }
        let at = phv.l3_off as usize + 12;
        let cookie = frame.get(at..at + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
        return Some(Op::Rsv(Rsv { ingress_port: port, src_port: phv.pl2_src, dst_port: phv.pl2_dst, demand: phv.pl2_demand, cookie }));
    }
    let control = phv.l3 == l3::PROTEGO_CTL || (phv.protego && phv.protego_kind >= 2) || phv.ethertype == ethertype::MAC_CONTROL;
    if control || !lk.forward {
        return None;
    }
    let unsol = match phv.l3 {
        l3::IPV4 | l3::IPV6 => s.dscp_unsol == Some(phv.dscp),
        _ => phv.vlans > 0 && s.pcp_unsol == Some(phv.pcp),
    };
    let (src, dst) = (port, lk.dest_port);
    Some(if unsol { Op::Unsol { src, dst } } else { Op::Data { src, dst } })
}

/// The RSV `frame` (PHV `phv`) rewritten in place into the GRT `g` (A.2,
/// `docs/protocols.md`): destination MAC := the RSV's source MAC (the source
/// MAC becomes the router's at egress, as for a routed packet), `kind` 2,
/// `demand` the granted slots, `send_timeslot`, `recv_timeslot`;
/// `src_port`, `dst_port` and `cookie` stay as they came.
pub fn grt_rewrite(frame: &mut [u8], phv: &Phv, g: &Grant) {
    let smac: [u8; 6] = std::array::from_fn(|i| frame[6 + i]);
    frame[..6].copy_from_slice(&smac);
    let b = phv.l3_off as usize;
    frame[b] = Pl2::GRT;
    frame[b + 1] = g.demand;
    frame[b + 4..b + 8].copy_from_slice(&g.send.to_be_bytes());
    frame[b + 8..b + 12].copy_from_slice(&g.recv.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::lookup::Path;
    use trimswitch_hdl::ingress::phv::malformed;

    fn lk(dest_port: u8) -> Lookup {
        Lookup { path: Path::L2Miss, dest_port, nexthop: 0, routed: false, forward: dest_port < 4 }
    }

    fn on() -> Pl2Settings {
        Pl2Settings { enable: true, pcp_unsol: Some(5), ..Pl2Settings::off(4) }
    }

    #[test]
    fn which_packets_are_ops() {
        let s = on();
        let rsv = Phv { l3: l3::PL2, l3_off: 14, pl2_kind: Pl2::RSV, pl2_demand: 3, pl2_src: 1, pl2_dst: 2, ..Phv::default() };
        let mut frame = vec![0u8; 64];
        frame[26..30].copy_from_slice(&0xfeed_beefu32.to_be_bytes());
        // An RSV is an op whatever lookup decided (its miss drop is bypassed).
        let want = Op::Rsv(Rsv { ingress_port: 0, src_port: 1, dst_port: 2, demand: 3, cookie: 0xfeed_beef });
        assert_eq!(op_of(&rsv, &lk(255), 0, &frame, &s), Some(want));
        assert_eq!(op_of(&Phv { pl2_kind: Pl2::GRT, ..rsv }, &lk(1), 0, &frame, &s), Some(Op::GrtFromHost));
        assert_eq!(op_of(&rsv, &lk(255), 0, &frame, &Pl2Settings { enable: false, ..s }), None);
        assert_eq!(op_of(&Phv { malformed: malformed::PL2_TRUNCATED, ..rsv }, &lk(255), 0, &frame, &s), None);
        assert_eq!(op_of(&Phv { protego: true, ..rsv }, &lk(1), 0, &frame, &s), None);
        // Data: forwarded packets only; marked ones are UNSOL.
        let ip = Phv { l3: l3::IPV4, l3_off: 14, dscp: 0, ..Phv::default() };
        assert_eq!(op_of(&ip, &lk(3), 1, &frame, &s), Some(Op::Data { src: 1, dst: 3 }));
        assert_eq!(op_of(&ip, &lk(255), 1, &frame, &s), None);
        assert_eq!(op_of(&Phv { dscp: 14, ..ip }, &lk(3), 1, &frame, &s), Some(Op::Unsol { src: 1, dst: 3 }));
        let raw = Phv { l3: l3::OTHER, ethertype: 0x9000, vlans: 1, pcp: 5, ..Phv::default() };
        assert_eq!(op_of(&raw, &lk(2), 0, &frame, &s), Some(Op::Unsol { src: 0, dst: 2 }));
        assert_eq!(op_of(&Phv { pcp: 4, ..raw }, &lk(2), 0, &frame, &s), Some(Op::Data { src: 0, dst: 2 }));
        assert_eq!(op_of(&Phv { vlans: 0, ..raw }, &lk(2), 0, &frame, &s), Some(Op::Data { src: 0, dst: 2 }));
        // An IP packet's PCP does not mark it.
        assert_eq!(op_of(&Phv { vlans: 1, pcp: 5, ..ip }, &lk(3), 1, &frame, &s), Some(Op::Data { src: 1, dst: 3 }));
        // Control frames are no data.
        assert_eq!(op_of(&Phv { l3: l3::PROTEGO_CTL, ..raw }, &lk(2), 0, &frame, &s), None);
        assert_eq!(op_of(&Phv { protego: true, protego_kind: 2, ..ip }, &lk(3), 0, &frame, &s), None);
        assert_eq!(op_of(&Phv { protego: true, protego_kind: 1, ..ip }, &lk(3), 0, &frame, &s), Some(Op::Data { src: 0, dst: 3 }));
        assert_eq!(op_of(&Phv { ethertype: ethertype::MAC_CONTROL, vlans: 0, ..raw }, &lk(2), 0, &frame, &s), None);
    }

    #[test]
    fn grt_rewrite_swaps_the_mac_and_writes_the_slots() {
        // One VLAN tag: the PL2 message starts at byte 18.
        let mut f: Vec<u8> = (0..64).collect();
        let phv = Phv { l3: l3::PL2, l3_off: 18, ..Phv::default() };
        let g = Grant { demand: 4, send: 0x0102_0304, recv: 0xa0b0_c0d0, cookie: 0, out_port: 0 };
        grt_rewrite(&mut f, &phv, &g);
        let mut want: Vec<u8> = (0..64).collect();
        want[..6].copy_from_slice(&[6, 7, 8, 9, 10, 11]);
        want[18] = 2;
        want[19] = 4;
        want[22..26].copy_from_slice(&[1, 2, 3, 4]);
        want[26..30].copy_from_slice(&[0xa0, 0xb0, 0xc0, 0xd0]);
        assert_eq!(f, want);
    }
}
