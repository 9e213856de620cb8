//! Golden model of classify (`docs/ingress.md`, "classify"): traffic class,
//! priority (header/control queue), trimmability, NDP data and router MAC hit,
//! from the PHV and the run-time registers.
use super::{Settings, MAC_MASK};
use crate::packet::Ndp;
use trimswitch_hdl::ingress::phv::{l3, l4, Phv};

/// What classify decides for one packet (`docs/ingress.md`, "classify"); the
/// first four become `tuser` fields (`hdl/src/meta.rs`), `router_hit` feeds lookup.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Class {
    /// Traffic class: `pcp_tc[pcp]` for tagged frames, `default_tc` otherwise.
    pub tc: u8,
    /// Header/control (high-priority) queue.
    pub prio: bool,
    /// May be trimmed.
    pub trim_ok: bool,
    /// NDP data packet (DATA set, TRIMMED clear).
    pub ndp_data: bool,
    /// `dst_mac == router_mac`.
    pub router_hit: bool,
}

/// Classifies a parsed packet (`docs/ingress.md`, "classify"):
///
/// - `tc` = `pcp_tc[pcp]` when `vlans > 0` (malformed frames included: VLAN_DEPTH
///   frames are tagged), else `default_tc`;
/// - `ip` = IPv4 or IPv6 and well formed; `dscp_is(X)` = `ip`, X enabled
///   (`Some`) and `dscp == X`;
/// - `ndp` = `l4 == NDP` (never for a malformed PHV: `l4` is zeroed);
///   `ndp_data` = `ndp`, DATA and not TRIMMED;
/// - `prio` = (`ndp` and (not DATA or TRIMMED)) or `dscp_is(CONTROL)` or
///   `dscp_is(TRIMMED)` or (`l3` PL2 or PROTEGO_CTL, well formed);
/// - `trim_ok` = `ndp_data` or (not `ndp` and `dscp_is(TRIMMABLE)`);
/// - `router_hit` = `dst_mac == router_mac` (48 bits), malformed or not.
pub fn classify(phv: &Phv, s: &Settings) -> Class {
    let ok = phv.malformed == 0;
    let tc = if phv.vlans > 0 { s.pcp_tc[(phv.pcp & 7) as usize] } else { s.default_tc };
    let ip = ok && (phv.l3 == l3::IPV4 || phv.l3 == l3::IPV6);
    let dscp_is = |x: Option<u8>| ip && x == Some(phv.dscp);
    let ndp = phv.l4 == l4::NDP;
    let data = phv.ndp_flags & Ndp::DATA != 0;
    let trimmed = phv.ndp_flags & Ndp::TRIMMED != 0;
    let ndp_data = ndp && data && !trimmed;
    let prio = (ndp && (!data || trimmed))
        || dscp_is(s.dscp_control)
        || dscp_is(s.dscp_trimmed)
        || (ok && (phv.l3 == l3::PL2 || phv.l3 == l3::PROTEGO_CTL));
    let trim_ok = ndp_data || (!ndp && dscp_is(s.dscp_trimmable));
    Class { tc, prio, trim_ok, ndp_data, router_hit: phv.dst_mac == s.router_mac & MAC_MASK }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trimswitch_hdl::ingress::phv::malformed;

    fn s() -> Settings {
        Settings {
            dscp_trimmable: Some(10),
            dscp_trimmed: Some(12),
            dscp_control: Some(48),
            pcp_tc: [7, 6, 5, 4, 3, 2, 1, 0],
            default_tc: 3,
            ..Settings::default()
        }
    }

    fn ip(dscp: u8) -> Phv {
        Phv { l3: l3::IPV4, dscp, ..Phv::default() }
    }

    #[test]
    fn codepoints_and_tc() {
        let s = s();
        let c = classify(&ip(10), &s);
        assert_eq!((c.tc, c.prio, c.trim_ok, c.ndp_data), (3, false, true, false));
        assert!(classify(&ip(12), &s).prio && !classify(&ip(12), &s).trim_ok);
        assert!(classify(&ip(48), &s).prio);
        assert_eq!(classify(&ip(0), &s), Class { tc: 3, ..Class::default() });
        let tagged = Phv { vlans: 1, pcp: 1, ..ip(0) };
        assert_eq!(classify(&tagged, &s).tc, 6);
        // Disabled codepoints match nothing, not even DSCP 0.
        let off = Settings { dscp_trimmable: None, dscp_trimmed: None, dscp_control: None, ..s.clone() };
        for d in [0, 10, 12, 48] {
            assert_eq!(classify(&ip(d), &off), Class { tc: 3, ..Class::default() });
        }
        // Malformed IP: no DSCP match (the DSCP is zeroed anyway, and `ip` is false).
        let bad = Phv { malformed: malformed::IPV4_CHECKSUM, ..ip(10) };
        assert!(!classify(&bad, &s).trim_ok);
    }

    #[test]
    fn ndp_and_l2_protocols() {
        let s = s();
        let ndp = |flags: u8, dscp: u8| Phv { l4: l4::NDP, ndp_flags: flags, ..ip(dscp) };
        let c = classify(&ndp(Ndp::DATA | Ndp::LAST, 12), &s);
        assert!(c.ndp_data && c.trim_ok && c.prio, "data is trimmable; DSCP TRIMMED still makes it prio");
        let c = classify(&ndp(Ndp::DATA | Ndp::TRIMMED, 0), &s);
        assert!(!c.ndp_data && !c.trim_ok && c.prio);
        let c = classify(&ndp(Ndp::PULL, 10), &s);
        assert!(!c.ndp_data && !c.trim_ok && c.prio, "NDP control is never trimmable, whatever its DSCP");
        let pl2 = Phv { l3: l3::PL2, ..Phv::default() };
        assert!(classify(&pl2, &s).prio);
        assert!(!classify(&Phv { malformed: malformed::PL2_KIND, ..pl2 }, &s).prio);
        assert!(classify(&Phv { l3: l3::PROTEGO_CTL, protego: true, ..Phv::default() }, &s).prio);
        let hit = Phv { dst_mac: s.router_mac, malformed: malformed::VLAN_DEPTH, ..Phv::default() };
        assert!(classify(&hit, &s).router_hit);
    }
}
