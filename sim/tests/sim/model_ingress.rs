//! The golden ingress model (`sim/src/model/`) against `docs/ingress.md`: the
//! malformed corpus, an independent parser (etherparse), LPM/L2 lookup
//! semantics, the MAC rewrite, classification, counter conservation on random
//! traffic, and robustness on arbitrary bytes.
use etherparse::{LaxPacketHeaders, LaxPayloadSlice, LinkExtHeader, NetHeaders, TransportHeader};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::path::Path;
use trimswitch_hdl::config::Config;
use trimswitch_hdl::ingress::phv::{l3, l4, malformed, Phv};
use trimswitch_hdl::ingress::IngressRegs;
use trimswitch_sim::model::gen::{malformed_corpus, random_frame, Expect, GenOpts};
use trimswitch_sim::model::lookup::egress_rewrite;
use trimswitch_sim::model::{parse, run_model, Counters, Fate, IngressModel, Route, RxDrop, Settings, L2, PORT_COUNTERS};
use trimswitch_sim::packet::checksum::ones_sum;
use trimswitch_sim::packet::frame::ethertype;
use trimswitch_sim::packet::{Frame, Ipv4, Ipv6, Ndp, Pl2, Protego, Udp, Vlan, L3, L4};

fn config(name: &str) -> Config {
    Config::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(format!("{name}.toml"))).expect("config loads")
}

/// Counters that changed, with their increments.
fn diff(before: &Counters, after: &Counters) -> BTreeMap<String, u64> {
    assert_eq!(before.len(), after.len(), "the counter set never changes");
    after.iter().filter(|(k, v)| before[*k] != **v).map(|(k, v)| (k.clone(), v - before[k])).collect()
}

fn sum(c: &Counters, suffix: &str) -> u64 {
    c.iter().filter(|(k, _)| k.ends_with(&format!(".{suffix}"))).map(|(_, v)| v).sum()
}

/// Input frames accounted for: rx drops + drop_malformed + drop_no_port + ingress_out_pkts.
fn accounted(c: &Counters) -> u64 {
    RxDrop::ALL.iter().map(|d| sum(c, d.counter())).sum::<u64>()
        + sum(c, "drop_malformed")
        + sum(c, "drop_no_port")
        + sum(c, "ingress_out_pkts")
}

fn mac(m: u64) -> [u8; 6] {
    let b = m.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

fn ipv4(dst: u32, dscp: u8) -> Ipv4 {
    Ipv4 { dscp, ecn: 0, id: 7, dont_fragment: true, ttl: 64, protocol: 253, src: [10, 9, 9, 9], dst: dst.to_be_bytes(), options: vec![] }
}

fn ipv6(dscp: u8) -> Ipv6 {
    Ipv6 { dscp, ecn: 1, flow_label: 5, hop_limit: 64, next_header: 253, src: [1; 16], dst: [2; 16] }
}

fn frame(dst: u64, l3: L3, l4: L4, payload: usize) -> Frame {
    Frame {
        dst: mac(dst),
        src: [2, 0, 0, 0, 0, 0x77],
        vlans: vec![],
        protego: None,
        l3,
        l4,
        payload: (0..payload).map(|i| i as u8).collect(),
    }
}

fn udp() -> L4 {
    L4::Udp(Udp { sport: 1111, dport: 2222 })
}

const ROUTER: u64 = 0x0200_0000_00fe;

/// Every corpus case gets its expected outcome and exactly its counters, under
/// both malformed policies and both FCS settings; the counters account for
/// every frame.
#[test]
fn corpus_cases_get_their_outcome_and_counters() {
    let cfg = config("netfpga-sume");
    let required = [
        "bad_fcs_flipped_bit",
        "runt_min_minus_1",
        "runt_bad_fcs",
        "runt_fcs_only",
        "empty",
        "jumbo_oversize",
        "ipv4_header_truncated",
        "ipv4_ihl_below_5",
        "ipv4_total_length_too_large",
        "ipv4_total_length_below_header",
        "ipv4_bad_checksum",
        "ipv4_version_mismatch",
        "ipv6_version_mismatch",
        "ipv6_header_truncated",
        "ipv6_payload_length_too_large",
        "udp_header_truncated_ipv4",
        "ndp_header_truncated_ipv4",
        "udp_header_truncated_ipv6",
        "ndp_header_truncated_ipv6",
        "udp_length_below_8",
        "udp_length_too_large",
        "triple_vlan",
        "pl2_kind_3",
        "arp",
        "pfc_8808",
        "unknown_ethertype_1234",
    ];
    for (min_frame, strip_fcs, malformed_drop) in
        [(64, true, true), (64, true, false), (64, false, true), (0, true, true), (0, false, false)]
    {
        let s = Settings { min_frame, strip_fcs, malformed_drop, ..Settings::from_config(&cfg) };
        let corpus = malformed_corpus(&s);
        let names: Vec<&str> = corpus.iter().map(|c| c.name).collect();
        for r in required {
            assert!(names.contains(&r), "corpus lacks {r}");
        }
        let codes: std::collections::BTreeSet<u8> =
            corpus.iter().filter_map(|c| if let Expect::Malformed(m) = c.expect { Some(m) } else { None }).collect();
        let want = if min_frame == 0 { 13 } else { 11 }; // L2 and PL2 truncation need frames under 64 B
        assert_eq!(codes.len(), want, "codes covered: {codes:?}");
        let mut m = IngressModel::with_settings(&cfg, s.clone());
        for (i, c) in corpus.iter().enumerate() {
            let port = i % 4;
            let before = m.counters().clone();
            let t = m.trace(port, &c.wire);
            let d = diff(&before, m.counters());
            let pk = |n: &str| format!("port{port}.{n}");
            let ctx = format!("case {} (min {min_frame} strip {strip_fcs} drop {malformed_drop}): {t:?}, counters {d:?}", c.name);
            let mut want: BTreeMap<String, u64> = BTreeMap::new();
            match c.expect {
                Expect::RxDrop(r) => {
                    assert_eq!(t.fate, Fate::RxDrop(r), "{ctx}");
                    want.insert(pk(r.counter()), 1);
                }
                Expect::Malformed(_) | Expect::Ok => {
                    let code = if let Expect::Malformed(code) = c.expect { code } else { 0 };
                    let phv = t.phv.expect("parsed");
                    assert_eq!(phv.malformed, code, "{ctx}");
                    let len = c.wire.len() - if strip_fcs { 4 } else { 0 };
                    want.insert(pk("rx_pkts"), 1);
                    want.insert(pk("rx_bytes"), len as u64);
                    want.insert("pipe0.parser_pkts".into(), 1);
                    let cl = t.class.expect("classified");
                    for (on, n) in
                        [(cl.prio, "class_prio_pkts"), (cl.trim_ok, "class_trim_ok_pkts"), (cl.router_hit, "class_router_hit_pkts")]
                    {
                        if on {
                            want.insert(format!("pipe0.{n}"), 1);
                        }
                    }
                    if code != 0 {
                        assert!(!cl.prio && !cl.trim_ok && !cl.router_hit, "{ctx}");
                        want.insert(format!("pipe0.malformed_{}", malformed::NAMES[code as usize]), 1);
                    }
                    if code != 0 && malformed_drop {
                        assert_eq!(t.fate, Fate::DropMalformed, "{ctx}");
                        want.insert("pipe0.drop_malformed".into(), 1);
                    } else {
                        // Corpus frames go to an L2 entry's MAC: an L2 hit, forwarded untouched.
                        assert_eq!(t.fate, Fate::Out, "{ctx}");
                        let out = t.out.expect("out");
                        assert_eq!(out.frame, c.wire[..len], "{ctx}");
                        assert_eq!(
                            (out.meta.malformed, out.meta.routed, out.meta.length as usize, out.meta.src_port as usize),
                            (code != 0, false, len, port),
                            "{ctx}"
                        );
                        assert_eq!(out.meta.dest_port, 0, "{ctx}: L2 entry 0 (02:00:00:00:00:00) is port 0");
                        want.insert("pipe0.lookup_l2_hit".into(), 1);
                        want.insert("pipe0.ingress_out_pkts".into(), 1);
                    }
                }
            }
            assert_eq!(d, want, "{ctx}");
        }
        assert_eq!(accounted(m.counters()), corpus.len() as u64);
        assert_eq!(sum(m.counters(), "parser_pkts"), sum(m.counters(), "rx_pkts"));
        assert!(corpus.len() >= 45, "{} cases", corpus.len());
    }
}

/// Parses a frame (without FCS) with etherparse and compares every field the
/// two decodes share. Returns what was compared: (IPv4, IPv6, UDP, NDP, Protego).
fn compare_with_etherparse(n: usize, bytes: &[u8], p: &Phv) -> (bool, bool, bool, bool, bool) {
    let h = LaxPacketHeaders::from_ethernet(bytes).unwrap_or_else(|e| panic!("frame {n}: etherparse: {e:?}"));
    let eth = h.link.clone().and_then(|l| l.ethernet2()).expect("Ethernet II");
    assert_eq!(
        p.dst_mac,
        u64::from_be_bytes([
            0,
            0,
            eth.destination[0],
            eth.destination[1],
            eth.destination[2],
            eth.destination[3],
            eth.destination[4],
            eth.destination[5]
        ]),
        "frame {n}: dst MAC"
    );
    let tags: Vec<_> =
        h.link_exts.iter().map(|x| if let LinkExtHeader::Vlan(v) = x { v.clone() } else { panic!("frame {n}: MACsec?") }).collect();
    assert_eq!(p.vlans as usize, tags.len(), "frame {n}: VLAN count");
    if let Some(t) = tags.first() {
        assert_eq!((p.pcp, p.vid), (t.pcp.value(), t.vlan_id.value()), "frame {n}: outer PCP/VID");
    } else {
        assert_eq!((p.pcp, p.vid), (0, 0), "frame {n}");
    }
    let et = tags.last().map_or(eth.ether_type, |t| t.ether_type).0;
    if et == ethertype::PROTEGO {
        // etherparse does not know our tag: splice it out and decode again.
        let at = 12 + 4 * tags.len();
        assert!(p.protego && p.protego_kind == bytes[at + 2] >> 6, "frame {n}: Protego");
        let inner_et = u16::from_be_bytes([bytes[at + 5], bytes[at + 6]]);
        if inner_et == ethertype::PROTEGO {
            assert_eq!((p.l3, p.ethertype, p.l3_off as usize), (l3::PROTEGO_CTL, inner_et, at + 7), "frame {n}: Protego control");
            return (false, false, false, false, true);
        }
        let spliced: Vec<u8> = bytes[..at].iter().chain(&bytes[at + 5..]).copied().collect();
        let inner = Phv { protego: false, protego_kind: 0, l3_off: p.l3_off - 5, l4_off: p.l4_off.saturating_sub(5), ..*p };
        let inner = if p.l3 == l3::PROTEGO_CTL { Phv { l3: l3::OTHER, ..inner } } else { inner };
        let r = compare_with_etherparse(n, &spliced, &inner);
        return (r.0, r.1, r.2, r.3, true);
    }
    assert!(!p.protego, "frame {n}");
    assert_eq!(p.ethertype, et, "frame {n}: EtherType");
    assert_eq!(p.l3_off as usize, 14 + 4 * tags.len(), "frame {n}: l3_off");
    let mut seen = (false, false, false, false, false);
    match &h.net {
        Some(NetHeaders::Ipv4(ip, _)) => {
            seen.0 = true;
            assert_eq!(p.l3, l3::IPV4, "frame {n}");
            assert_eq!((p.dscp, p.ecn, p.proto), (ip.dscp.value(), ip.ecn.value(), ip.protocol.0), "frame {n}: IPv4 DSCP/ECN/protocol");
            assert_eq!(
                (p.ip_len, p.ihl, p.ipv4_dst),
                (ip.total_len, ip.ihl(), u32::from_be_bytes(ip.destination)),
                "frame {n}: IPv4 length/IHL/dst"
            );
            assert_eq!(ip.header_checksum, ip.calc_header_checksum(), "frame {n}");
        }
        Some(NetHeaders::Ipv6(ip, _)) => {
            seen.1 = true;
            assert_eq!(p.l3, l3::IPV6, "frame {n}");
            assert_eq!(
                (p.dscp, p.ecn, p.proto, p.ip_len),
                (ip.traffic_class >> 2, ip.traffic_class & 3, ip.next_header.0, ip.payload_length),
                "frame {n}: IPv6"
            );
            assert_eq!((p.ihl, p.ipv4_dst), (0, 0), "frame {n}");
        }
        _ => {
            let want = match et {
                ethertype::PL2 => l3::PL2,
                _ => l3::OTHER,
            };
            assert_eq!(p.l3, want, "frame {n}: L3 of EtherType {et:#06x}");
            assert_eq!((p.dscp, p.proto, p.ip_len, p.l4), (0, 0, 0, l4::NONE), "frame {n}");
            // A well-formed PL2 frame carries its source MAC (the GRT's
            // destination) in `ipv4_dst` and `sport` (docs/pl2.md).
            if p.l3 == l3::PL2 && p.malformed == 0 {
                let smac = eth.source;
                assert_eq!(p.pl2_smac(), u64::from_be_bytes([0, 0, smac[0], smac[1], smac[2], smac[3], smac[4], smac[5]]), "frame {n}");
            }
        }
    }
    match (&h.transport, &h.payload) {
        (Some(TransportHeader::Udp(u)), _) => {
            seen.2 = true;
            assert_eq!((p.l4, p.sport, p.dport), (l4::UDP, u.source_port, u.destination_port), "frame {n}: UDP ports");
            let hl = if p.l3 == l3::IPV4 { 4 * p.ihl as usize } else { 40 };
            assert_eq!(p.l4_off as usize, p.l3_off as usize + hl, "frame {n}: l4_off");
        }
        (None, LaxPayloadSlice::Ip(ip)) if ip.ip_number.0 == 199 => {
            seen.3 = true;
            let b = ip.payload;
            assert_eq!((p.l4, p.ndp_flags), (l4::NDP, b[0]), "frame {n}: NDP flags");
            assert_eq!((p.sport, p.dport), (u16::from_be_bytes([b[2], b[3]]), u16::from_be_bytes([b[4], b[5]])), "frame {n}: NDP ports");
        }
        // A PL2 frame's `sport` holds its source MAC's top bits (above).
        _ if p.l3 == l3::PL2 && p.malformed == 0 => assert_eq!((p.l4, p.l4_off, p.dport), (l4::NONE, 0, 0), "frame {n}"),
        _ => assert_eq!((p.l4, p.l4_off, p.sport, p.dport), (l4::NONE, 0, 0, 0), "frame {n}"),
    }
    seen
}

/// `parse` agrees with etherparse on 4000 random well-formed frames.
#[test]
fn parse_agrees_with_etherparse() {
    let s = Settings::from_config(&config("sim-16x100g"));
    let o = GenOpts::from_settings(&s);
    let mut rng = SmallRng::seed_from_u64(11);
    let mut counts = [0usize; 5];
    let (mut small, mut large, mut tagged2) = (0, 0, 0);
    for n in 0..4000 {
        let wire = random_frame(&mut rng, &o);
        assert!((64..=9018).contains(&wire.len()), "frame {n}: {} bytes", wire.len());
        small += (wire.len() <= 128) as usize;
        large += (wire.len() > 1518) as usize;
        let bytes = &wire[..wire.len() - 4];
        let p = parse(bytes, bytes.len());
        assert_eq!(p.malformed, 0, "frame {n}: generated good frames are well formed: {p:?}");
        tagged2 += (p.vlans == 2) as usize;
        let seen = compare_with_etherparse(n, bytes, &p);
        for (c, s) in counts.iter_mut().zip([seen.0, seen.1, seen.2, seen.3, seen.4]) {
            *c += s as usize;
        }
    }
    let [v4, v6, udp, ndp, protego] = counts;
    assert!(v4 > 1200 && v6 > 700 && udp > 600 && ndp > 600 && protego > 300, "compared: {counts:?}");
    assert!(small > 1000 && large > 500 && tagged2 > 400, "sizes small {small} large {large}, two tags {tagged2}");
}

fn lpm_settings(cfg: &Config) -> Settings {
    let mut s = Settings { miss_port: 255, ..Settings::from_config(cfg) };
    s.routes = vec![None; 64];
    let r = |p: [u8; 4], len: u8, port: u8, nexthop: u8| Some(Route { prefix: u32::from_be_bytes(p), len, port, nexthop });
    s.routes[0] = r([10, 0, 0, 0], 8, 1, 1);
    s.routes[1] = r([10, 1, 0, 0], 16, 2, 2);
    s.routes[2] = r([10, 1, 2, 128], 25, 3, 7);
    s.routes[3] = r([10, 1, 0, 0], 16, 3, 3);
    s.routes[4] = r([10, 1, 2, 0], 24, 0, 4);
    s.routes[5] = r([10, 1, 2, 3], 32, 3, 5);
    s.routes[9] = r([0, 0, 0, 0], 0, 2, 6);
    s.routes[63] = r([192, 168, 0, 0], 16, 255, 8);
    s.nexthop_mac = (0..16).map(|i| 0x0200_0000_0100 + i).collect();
    s
}

/// Longest prefix wins; ties go to the lowest index; invalid rows are skipped;
/// /0 and /32 work; misses take the miss port, and 255 (or any port past the
/// last) drops and counts.
#[test]
fn lpm_semantics() {
    let cfg = config("netfpga-sume");
    let mut s = lpm_settings(&cfg);
    let ip = |a: [u8; 4]| u32::from_be_bytes(a);
    let mut m = IngressModel::with_settings(&cfg, s.clone());
    // (dst, expected (port, nexthop) or None for a drop)
    type Case = ([u8; 4], Option<(u8, u8)>);
    let cases: [Case; 8] = [
        ([10, 1, 2, 3], Some((3, 5))),   // /32 host route
        ([10, 1, 2, 4], Some((0, 4))),   // /24 over /16 and /8
        ([10, 1, 2, 200], Some((3, 7))), // /25 over /24
        ([10, 1, 9, 9], Some((2, 2))),   // /16 tie: entry 1 over entry 3
        ([10, 200, 0, 1], Some((1, 1))), // /8
        ([11, 0, 0, 1], Some((2, 6))),   // /0 default at index 9
        ([192, 168, 7, 7], None),        // /16 to port 255: routed, then dropped
        ([255, 255, 255, 255], Some((2, 6))),
    ];
    for (dst, want) in cases {
        let before = m.counters().clone();
        let w = frame(ROUTER, L3::Ipv4(ipv4(ip(dst), 0)), udp(), 30).to_wire();
        let t = m.trace(1, &w);
        let d = diff(&before, m.counters());
        assert_eq!(d.get("pipe0.lookup_routed"), Some(&1), "{dst:?}");
        match want {
            Some((port, nh)) => {
                let out = t.out.unwrap_or_else(|| panic!("{dst:?}: dropped"));
                assert_eq!((out.meta.dest_port, out.meta.nexthop, out.meta.routed), (port, nh, true), "{dst:?}");
            }
            None => {
                assert_eq!(t.fate, Fate::DropNoPort, "{dst:?}");
                assert_eq!(d.get("pipe0.drop_no_port"), Some(&1));
            }
        }
    }
    // Invalidate the /25 and the default route: they are skipped.
    s.routes[2] = None;
    s.routes[9] = None;
    *m.settings_mut() = s.clone();
    let route = |m: &mut IngressModel, dst: [u8; 4]| m.trace(0, &frame(ROUTER, L3::Ipv4(ipv4(ip(dst), 0)), udp(), 0).to_wire());
    let t = route(&mut m, [10, 1, 2, 200]);
    assert_eq!(t.out.map(|o| (o.meta.dest_port, o.meta.nexthop)), Some((0, 4)));
    // Miss with miss_port 255: counted as an LPM miss, then dropped.
    let before = m.counters().clone();
    let t = route(&mut m, [11, 0, 0, 1]);
    assert_eq!(t.fate, Fate::DropNoPort);
    let d = diff(&before, m.counters());
    assert_eq!((d.get("pipe0.lookup_lpm_miss"), d.get("pipe0.drop_no_port"), d.get("pipe0.lookup_routed")), (Some(&1), Some(&1), None));
    // Miss with a real miss port: forwarded unrouted and untouched.
    m.settings_mut().miss_port = 3;
    let w = frame(ROUTER, L3::Ipv4(ipv4(ip([11, 0, 0, 1]), 0)), udp(), 0).to_wire();
    let out = m.process(2, &w).expect("miss port 3");
    assert_eq!((out.meta.dest_port, out.meta.routed, out.meta.nexthop), (3, false, 0));
    assert_eq!(out.frame, w[..w.len() - 4], "a miss is not rewritten");
    // A miss port past the last port drops too.
    m.settings_mut().miss_port = 4;
    assert_eq!(route(&mut m, [11, 0, 0, 1]).fate, Fate::DropNoPort);
    // An empty table: every routed candidate misses.
    m.settings_mut().routes = vec![None; 64];
    assert_eq!(route(&mut m, [10, 1, 2, 3]).lookup.map(|l| l.path), Some(trimswitch_sim::model::Path::LpmMiss));
}

/// Packets that are not routed candidates take the L2 table (lowest index
/// wins, invalid rows skipped), then the miss action.
#[test]
fn l2_fallback() {
    let cfg = config("netfpga-sume");
    let mut s = lpm_settings(&cfg);
    s.malformed_drop = false;
    s.miss_port = 2;
    s.l2 = vec![None; 16];
    s.l2[1] = Some(L2 { mac: 0x0200_0000_0001, port: 1 });
    s.l2[2] = Some(L2 { mac: 0x0200_0000_0001, port: 3 });
    s.l2[5] = Some(L2 { mac: ROUTER, port: 0 });
    s.l2[6] = Some(L2 { mac: 0x0200_0000_0009, port: 255 });
    let mut m = IngressModel::with_settings(&cfg, s.clone());
    let go = |m: &mut IngressModel, f: &Frame| {
        let w = f.to_wire();
        let t = m.trace(0, &w);
        (t.fate, t.lookup.map(|l| l.path), t.out.map(|o| (o.meta.dest_port, o.meta.routed, o.meta.malformed, o.frame == w[..w.len() - 4])))
    };
    use trimswitch_sim::model::Path::*;
    let v4 = L3::Ipv4(ipv4(0x0a01_0203, 0));
    // Duplicate entries: the lowest index wins.
    assert_eq!(
        go(&mut m, &frame(0x0200_0000_0001, v4.clone(), udp(), 0)),
        (Fate::Out, Some(L2Hit { entry: 1 }), Some((1, false, false, true)))
    );
    // IPv4 to another MAC is switched, not routed, even when a route matches.
    assert_eq!(go(&mut m, &frame(0x0200_0000_0003, v4.clone(), udp(), 0)).1, Some(L2Miss));
    // IPv6, PL2 and Protego control to the router MAC: L2 (here entry 5).
    assert_eq!(go(&mut m, &frame(ROUTER, L3::Ipv6(ipv6(0)), udp(), 0)).2, Some((0, false, false, true)));
    let pl2 = L3::Pl2(Pl2 { kind: Pl2::RSV, demand: 1, ..Pl2::default() });
    assert_eq!(go(&mut m, &frame(ROUTER, pl2, L4::None, 0)).1, Some(L2Hit { entry: 5 }));
    // Malformed IPv4 to the router MAC, forwarded: L2, flagged, untouched.
    let mut bad = frame(ROUTER, v4.clone(), udp(), 10).to_bytes();
    bad[14 + 10] ^= 0x55; // header checksum
    let mut w = bad.clone();
    trimswitch_sim::packet::crc::append_fcs(&mut w);
    let t = m.trace(0, &w);
    assert_eq!(t.phv.map(|p| p.malformed), Some(malformed::IPV4_CHECKSUM));
    assert_eq!(t.lookup.map(|l| l.path), Some(L2Hit { entry: 5 }));
    let out = t.out.expect("forwarded malformed");
    assert_eq!((out.meta.malformed, out.meta.routed, out.meta.nexthop, out.frame), (true, false, 0, bad));
    // L2 miss: miss port; an entry with port 255 drops.
    assert_eq!(go(&mut m, &frame(0x0200_0000_0042, L3::Other(0x0806), L4::None, 28)).2, Some((2, false, false, true)));
    assert_eq!(go(&mut m, &frame(0x0200_0000_0009, L3::Other(0x0806), L4::None, 28)).0, Fate::DropNoPort);
    // Invalidating entry 1 exposes entry 2.
    m.settings_mut().l2[1] = None;
    assert_eq!(go(&mut m, &frame(0x0200_0000_0001, v4, udp(), 0)).1, Some(L2Hit { entry: 2 }));
    let c = m.counters();
    assert_eq!((c["pipe0.lookup_l2_hit"], c["pipe0.lookup_l2_miss"], c["pipe0.lookup_routed"], c["pipe0.drop_no_port"]), (6, 2, 0, 1));
}

/// Routed packets get the next hop's MAC as destination at ingress; the
/// source MAC stays (the router MAC is written at egress, `egress_rewrite`);
/// nothing else changes (no TTL, no checksum; a kept FCS goes stale).
#[test]
fn mac_rewrite_of_routed_packets() {
    let cfg = config("netfpga-sume");
    for strip in [true, false] {
        let s = Settings { strip_fcs: strip, ..lpm_settings(&cfg) };
        let mut m = IngressModel::with_settings(&cfg, s);
        let mut f = frame(ROUTER, L3::Ipv4(ipv4(0x0a01_0203, 10)), L4::Ndp(Ndp { flags: Ndp::DATA, ..Ndp::default() }), 200);
        f.vlans.push(Vlan { tpid: ethertype::VLAN, pcp: 3, dei: false, vid: 10 });
        f.protego = Some(Protego { kind: 0, era: false, seq: 1 });
        let w = f.to_wire();
        let out = m.process(3, &w).expect("routed");
        let keep = if strip { w.len() - 4 } else { w.len() };
        assert_eq!((out.meta.routed, out.meta.nexthop, out.meta.dest_port, out.meta.length as usize), (true, 5, 3, keep));
        assert_eq!(out.frame[..6], [2, 0, 0, 0, 1, 5], "nexthop_mac[5]");
        assert_eq!(out.frame[6..], w[6..keep], "the rest (source MAC; FCS included when kept) is unchanged");
        let mut e = out.frame.clone();
        egress_rewrite(&mut e, out.meta.routed, m.settings());
        assert_eq!(e[6..12], mac(ROUTER), "the router MAC as source at egress");
        assert_eq!(out.frame.len(), keep);
    }
}

/// Classification through the whole model: codepoints (and disabling them),
/// NDP data, trimmed and control, PL2 and Protego control, traffic classes.
#[test]
fn classify_codepoints_and_ndp() {
    let cfg = config("netfpga-sume");
    let s = Settings { pcp_tc: [1, 2, 3, 4, 5, 6, 7, 0], default_tc: 5, malformed_drop: false, ..Settings::from_config(&cfg) };
    let mut m = IngressModel::with_settings(&cfg, s.clone());
    let dst = 0x0200_0000_0002;
    let ndp = |flags: u8| L4::Ndp(Ndp { flags, src_port: 5, dst_port: 6, ..Ndp::default() });
    // (frame, tc, prio, trim_ok, ndp_data)
    let mut cases: Vec<(Frame, u8, bool, bool, bool)> = vec![
        (frame(dst, L3::Ipv4(ipv4(1, 10)), udp(), 0), 5, false, true, false),
        (frame(dst, L3::Ipv6(ipv6(10)), udp(), 0), 5, false, true, false),
        (frame(dst, L3::Ipv4(ipv4(1, 12)), udp(), 0), 5, true, false, false),
        (frame(dst, L3::Ipv6(ipv6(48)), L4::None, 0), 5, true, false, false),
        (frame(dst, L3::Ipv4(ipv4(1, 0)), udp(), 0), 5, false, false, false),
        (frame(dst, L3::Ipv4(ipv4(1, 11)), udp(), 0), 5, false, false, false),
        (frame(dst, L3::Ipv4(ipv4(1, 0)), ndp(Ndp::DATA), 100), 5, false, true, true),
        (frame(dst, L3::Ipv6(ipv6(0)), ndp(Ndp::DATA | Ndp::LAST), 100), 5, false, true, true),
        (frame(dst, L3::Ipv4(ipv4(1, 12)), ndp(Ndp::DATA), 100), 5, true, true, true),
        (frame(dst, L3::Ipv4(ipv4(1, 0)), ndp(Ndp::DATA | Ndp::TRIMMED), 30), 5, true, false, false),
        (frame(dst, L3::Ipv4(ipv4(1, 10)), ndp(Ndp::ACK), 0), 5, true, false, false),
        (frame(dst, L3::Ipv6(ipv6(10)), ndp(Ndp::NACK), 0), 5, true, false, false),
        (frame(dst, L3::Ipv4(ipv4(1, 0)), ndp(Ndp::PULL), 0), 5, true, false, false),
        (frame(dst, L3::Pl2(Pl2 { kind: Pl2::GRT, demand: 2, ..Pl2::default() }), L4::None, 0), 5, true, false, false),
        (frame(dst, L3::Other(0x0806), L4::None, 28), 5, false, false, false),
    ];
    let mut ctl = frame(dst, L3::Other(ethertype::PROTEGO), L4::None, 0);
    ctl.protego = Some(Protego { kind: 2, era: false, seq: 9 });
    cases.push((ctl, 5, true, false, false));
    for pcp in 0..8u8 {
        let mut f = frame(dst, L3::Ipv4(ipv4(1, 10)), udp(), 0);
        f.vlans =
            vec![Vlan { tpid: ethertype::QINQ, pcp, dei: false, vid: 1 }, Vlan { tpid: ethertype::VLAN, pcp: 7 - pcp, dei: false, vid: 2 }];
        cases.push((f, (pcp + 1) % 8, false, true, false));
    }
    // Malformed and forwarded: never prio or trimmable, even with DSCP 10; the
    // traffic class still comes from the tag.
    let mut bad = frame(dst, L3::Ipv4(ipv4(1, 10)), ndp(Ndp::DATA), 0);
    bad.vlans = vec![Vlan { tpid: ethertype::VLAN, pcp: 6, dei: false, vid: 3 }];
    let mut bad = bad.to_bytes();
    bad[18 + 2..18 + 4].copy_from_slice(&1000u16.to_be_bytes());
    let mut bad_wire = bad.clone();
    trimswitch_sim::packet::crc::append_fcs(&mut bad_wire);
    let (mut prio, mut trim) = (0, 0);
    for (i, (f, tc, p, t, d)) in cases.iter().enumerate() {
        let out = m.process(0, &f.to_wire()).unwrap_or_else(|| panic!("case {i} dropped"));
        assert_eq!((out.meta.tc, out.meta.prio, out.meta.trim_ok, out.meta.ndp_data), (*tc, *p, *t, *d), "case {i}: {f:?}");
        prio += *p as u64;
        trim += *t as u64;
    }
    let out = m.process(0, &bad_wire).expect("forwarded malformed");
    assert_eq!((out.meta.malformed, out.meta.prio, out.meta.trim_ok, out.meta.ndp_data, out.meta.tc), (true, false, false, false, 7));
    assert_eq!((m.counters()["pipe0.class_prio_pkts"], m.counters()["pipe0.class_trim_ok_pkts"]), (prio, trim));
    // Disabled codepoints (-1 in the config) match nothing.
    m.settings_mut().dscp_trimmable = None;
    m.settings_mut().dscp_control = None;
    for (f, p, t) in [
        (frame(dst, L3::Ipv4(ipv4(1, 10)), udp(), 0), false, false),
        (frame(dst, L3::Ipv4(ipv4(1, 48)), udp(), 0), false, false),
        (frame(dst, L3::Ipv4(ipv4(1, 12)), udp(), 0), true, false),
    ] {
        let out = m.process(0, &f.to_wire()).expect("out");
        assert_eq!((out.meta.prio, out.meta.trim_ok), (p, t), "{f:?}");
    }
}

/// 20,000 random frames (20% faults) over 16 ports and 4 pipelines: every frame
/// is counted exactly once, the counters agree with each other and with an
/// independent rx check, and the outputs do not depend on the interleave.
#[test]
fn conservation_on_random_traffic() {
    let cfg = config("sim-16x100g");
    for (seed, malformed_drop, min_frame) in [(21u64, true, 64u16), (22, false, 0)] {
        let s = Settings { malformed_drop, min_frame, ..Settings::from_config(&cfg) };
        let o = GenOpts::from_settings(&s).with_faults(0.2);
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut inputs: Vec<Vec<Vec<u8>>> = vec![vec![]; 16];
        for _ in 0..20_000 {
            let port = rng.gen_range(0..16);
            let f = random_frame(&mut rng, &o);
            inputs[port].push(f);
        }
        let (outs, c) = run_model(&cfg, &s, &inputs);
        let ctx = format!("seed {seed}");
        assert_eq!(accounted(&c), 20_000, "{ctx}");
        assert_eq!(c.len(), 16 * PORT_COUNTERS.len() + 4 * IngressRegs::COUNTERS.len(), "{ctx}: every counter, no more");
        for (p, frames) in inputs.iter().enumerate() {
            let k = |n: &str| c[&format!("port{p}.{n}")];
            let good: Vec<&Vec<u8>> = frames
                .iter()
                .filter(|w| w.len() > 4 && w.len() >= min_frame as usize && w.len() <= 9018 && trimswitch_sim::packet::crc::fcs_ok(w))
                .collect();
            assert_eq!(k("rx_pkts"), good.len() as u64, "{ctx} port {p}");
            assert_eq!(k("rx_bytes"), good.iter().map(|w| w.len() as u64 - 4).sum::<u64>(), "{ctx} port {p}");
            assert_eq!(k("rx_drop_empty"), frames.iter().filter(|w| w.is_empty()).count() as u64, "{ctx} port {p}");
            assert_eq!(k("rx_drop_overflow"), 0);
            assert_eq!(RxDrop::ALL.iter().map(|d| k(d.counter())).sum::<u64>() + k("rx_pkts"), frames.len() as u64, "{ctx} port {p}");
        }
        for i in 0..4 {
            let k = |n: &str| c[&format!("pipe{i}.{n}")];
            let rx: u64 = (4 * i..4 * i + 4).map(|p| c[&format!("port{p}.rx_pkts")]).sum();
            let mal: u64 = malformed::NAMES[1..].iter().map(|n| k(&format!("malformed_{n}"))).sum();
            let looked = k("lookup_routed") + k("lookup_lpm_miss") + k("lookup_l2_hit") + k("lookup_l2_miss");
            assert_eq!(k("parser_pkts"), rx, "{ctx} pipe {i}");
            assert_eq!(k("drop_malformed"), if malformed_drop { mal } else { 0 }, "{ctx} pipe {i}");
            assert_eq!(looked + k("drop_malformed"), rx, "{ctx} pipe {i}");
            assert_eq!(k("drop_no_port") + k("ingress_out_pkts"), looked, "{ctx} pipe {i}");
            assert_eq!(outs.iter().filter(|o| o.meta.src_port as usize / 4 == i).count() as u64, k("ingress_out_pkts"));
            assert!(
                k("lookup_routed") > 200 && k("lookup_l2_hit") > 200 && k("lookup_l2_miss") > 100 && k("drop_no_port") > 100,
                "{ctx} pipe {i}: {c:?}"
            );
            assert!(k("class_prio_pkts") > 100 && k("class_trim_ok_pkts") > 100 && k("class_router_hit_pkts") > 500, "{ctx} pipe {i}");
        }
        // Every fate and every reachable malformed reason occurs.
        for d in [RxDrop::Empty, RxDrop::Runt, RxDrop::Oversize, RxDrop::Fcs] {
            assert!(sum(&c, d.counter()) > 20, "{ctx}: {d:?}");
        }
        let reachable = if min_frame == 0 { 1..14 } else { 2..12 };
        for code in reachable {
            assert!(sum(&c, &format!("malformed_{}", malformed::NAMES[code])) > 5, "{ctx}: code {code}");
        }
        if min_frame == 64 {
            assert!(sum(&c, "malformed_pl2_kind") > 5 && sum(&c, "malformed_l2_truncated") == 0 && sum(&c, "malformed_pl2_truncated") == 0);
        }
        // Outputs: meta consistent with the frame, forwarded malformed flagged.
        for out in &outs {
            assert_eq!(out.meta.length as usize, out.frame.len());
            assert!((out.meta.dest_port as usize) < 16 && out.meta.flags == 0);
            assert!(out.meta.routed || out.meta.nexthop == 0);
            assert!(!(out.meta.malformed && (out.meta.prio || out.meta.trim_ok || out.meta.routed)));
        }
        assert_eq!(outs.iter().any(|o| o.meta.malformed), !malformed_drop, "{ctx}");
        // The same frames fed round-robin across ports: the same per-port
        // outputs and the same counters.
        let mut m = IngressModel::with_settings(&cfg, s.clone());
        let mut per_port: Vec<Vec<_>> = vec![vec![]; 16];
        let longest = inputs.iter().map(Vec::len).max().unwrap_or(0);
        for j in 0..longest {
            for (p, frames) in inputs.iter().enumerate() {
                if let Some(f) = frames.get(j) {
                    per_port[p].extend(m.process(p, f));
                }
            }
        }
        assert_eq!(m.counters(), &c, "{ctx}");
        for (p, want) in per_port.iter().enumerate() {
            let got: Vec<_> = outs.iter().filter(|o| o.meta.src_port as usize == p).cloned().collect();
            assert!(got == *want, "{ctx}: port {p} outputs differ by interleave");
        }
    }
}

/// Arbitrary bytes never panic the parser or the model, and the PHV invariants
/// of `docs/ingress.md` hold on all of them.
#[test]
fn arbitrary_bytes_never_panic() {
    let cfg = config("netfpga-sume");
    let mut rng = SmallRng::seed_from_u64(31);
    let s = Settings { min_frame: 0, max_frame: 16383, ..Settings::from_config(&cfg) };
    let mut m = IngressModel::with_settings(&cfg, s.clone());
    // Good frames and the whole corpus (every malformed reason), to mutate.
    let goods: Vec<Vec<u8>> = {
        let o = GenOpts { max_size: 300, ..GenOpts::from_settings(&s) };
        let mut g: Vec<Vec<u8>> = (0..200).map(|_| random_frame(&mut rng, &o)).collect();
        g.extend(malformed_corpus(&s).into_iter().map(|c| c.wire).filter(|w| w.len() > 4 && w.len() < 300));
        g
    };
    let mut codes = [0usize; malformed::COUNT];
    for n in 0..60_000 {
        // Random bytes, or a good frame with a few bytes of its headers overwritten.
        let mut b: Vec<u8> = if n % 2 == 0 {
            let len = rng.gen_range(0..200);
            (0..len)
                .map(|_| {
                    if rng.gen_bool(0.3) {
                        [0x81, 0x00, 0x88, 0xa8, 0xb6, 0xb5, 0x08, 0x86, 0xdd, 0x45, 0x60, 17, 199][rng.gen_range(0..13)]
                    } else {
                        rng.gen()
                    }
                })
                .collect()
        } else {
            let mut g = goods[rng.gen_range(0..goods.len())].clone();
            g.truncate(g.len() - 4);
            for _ in 0..rng.gen_range(0..4) {
                let i = rng.gen_range(0..g.len().min(100));
                g[i] = rng.gen();
            }
            g
        };
        let len = if rng.gen_bool(0.8) { b.len() } else { rng.gen_range(0..250) };
        let p = parse(&b, len);
        codes[p.malformed as usize] += 1;
        assert!((p.malformed as usize) < malformed::COUNT && p.vlans <= 2 && p.l3 <= l3::PROTEGO_CTL && p.l3_off <= 27);
        assert_eq!(p, Phv::unpack(&p.pack()), "every field fits its PHV width");
        if p.l4 == l4::NONE {
            // A PL2 frame's `sport` holds its source MAC's top bits.
            let sport = if p.l3 == l3::PL2 { 0 } else { p.sport };
            assert_eq!((p.l4_off, sport, p.dport, p.ndp_flags), (0, 0, 0, 0));
        }
        if p.malformed != 0 {
            let kept = Phv {
                dst_mac: p.dst_mac,
                ethertype: p.ethertype,
                vlans: p.vlans,
                pcp: p.pcp,
                vid: p.vid,
                protego: p.protego,
                protego_kind: p.protego_kind,
                l3: p.l3,
                l3_off: p.l3_off,
                malformed: p.malformed,
                ..Phv::default()
            };
            assert_eq!(p, kept, "malformed PHVs are zero from dscp on");
        } else if p.l3 == l3::IPV4 {
            // Independent checks of a well-formed IPv4 header.
            let at = |i: usize| if i < len { b.get(i).copied().unwrap_or(0) } else { 0 };
            let o = p.l3_off as usize;
            let hdr: Vec<u8> = (o..o + 4 * p.ihl as usize).map(at).collect();
            assert_eq!(ones_sum(0, &hdr), 0xffff);
            assert!(o + p.ip_len as usize <= len && p.ip_len as usize >= 4 * p.ihl as usize);
        }
        // The whole model: no panic, and the frame lands somewhere.
        let before = accounted(m.counters());
        if n % 3 == 0 {
            trimswitch_sim::packet::crc::append_fcs(&mut b);
        }
        let _ = m.process(n % 4, &b);
        assert_eq!(accounted(m.counters()), before + 1);
    }
    assert!(codes.iter().all(|&c| c > 0), "every code seen on arbitrary input: {codes:?}");
}

/// `Settings::from_config` loads the reset values and the tables row by row.
#[test]
fn settings_from_config() {
    let cfg = config("netfpga-sume");
    let s = Settings::from_config(&cfg);
    assert_eq!((s.ports, s.min_frame, s.max_frame, s.strip_fcs, s.malformed_drop, s.miss_port), (4, 64, 9018, true, true, 255));
    assert_eq!((s.router_mac, s.dscp_trimmable, s.dscp_trimmed, s.dscp_control, s.default_tc), (ROUTER, Some(10), Some(12), Some(48), 0));
    assert_eq!((s.routes.len(), s.l2.len(), s.nexthop_mac.len()), (64, 16, 16));
    assert_eq!(s.routes[3], Some(Route { prefix: 0x0a00_0300, len: 24, port: 3, nexthop: 3 }));
    assert_eq!(s.routes[4], Some(Route { prefix: 0, len: 0, port: 0, nexthop: 0 }));
    assert!(s.routes[5..].iter().all(Option::is_none) && s.l2[4..].iter().all(Option::is_none));
    assert_eq!(s.l2[2], Some(L2 { mac: 0x0200_0000_0002, port: 2 }));
    assert_eq!((s.nexthop_mac[3], s.nexthop_mac[4]), (0x0200_0000_0103, 0));
    let mut c = cfg.clone();
    c.ingress.dscp_control = -1;
    assert_eq!(Settings::from_config(&c).dscp_control, None);
    // Every counter exists from the start, at zero.
    let m = IngressModel::new(&config("sim-16x100g"));
    assert_eq!(m.counters().len(), 16 * 7 + 4 * IngressRegs::COUNTERS.len());
    assert!(m.counters().values().all(|&v| v == 0));
    assert!(m.counters().contains_key("port15.rx_drop_overflow") && m.counters().contains_key("pipe3.malformed_pl2_kind"));
    assert_eq!((m.pipeline_of(3), m.pipeline_of(4), m.pipeline_of(15)), (0, 1, 3));
}

/// Every length check of the parser at its exact boundary: one byte more is
/// well formed, one byte less fails with that check's code (`parse(frame, L)`
/// with the bytes past `L` reading as zero).
#[test]
fn parser_checks_at_their_boundaries() {
    use malformed::*;
    let code = |f: &[u8], len: usize| parse(f, len).malformed;
    // Tag chain: l3_off == L is fine, one less is L2_TRUNCATED (before VLAN_DEPTH).
    let mut f = frame(1, L3::Other(0x1234), L4::None, 0);
    f.vlans = vec![Vlan { tpid: ethertype::VLAN, pcp: 1, dei: false, vid: 1 }; 2];
    f.protego = Some(Protego::default());
    let b = f.to_bytes();
    assert_eq!((code(&b, 27), code(&b, 26)), (NONE, L2_TRUNCATED));
    // A third 0x8100 still reads as a TPID when its second byte lies past L.
    f.vlans.push(Vlan { tpid: ethertype::VLAN, pcp: 0, dei: false, vid: 0 });
    let b = f.to_bytes();
    assert_eq!((code(&b, 22), code(&b, 21), code(&b, 60)), (VLAN_DEPTH, L2_TRUNCATED, VLAN_DEPTH));
    assert_eq!((parse(&b, 21).ethertype, parse(&b, 21).l3_off), (0x8100, 22));
    // IPv4: the header exactly fits, total length exactly fits.
    let mut v4 = frame(1, L3::Ipv4(ipv4(5, 0)), L4::None, 0).to_bytes();
    assert_eq!((code(&v4, 34), code(&v4, 33)), (NONE, IPV4_TRUNCATED));
    v4[14..16].copy_from_slice(&[0x44, 0]);
    assert_eq!(code(&v4, 60), IPV4_IHL, "IHL 4");
    let with_total = |total: u16, proto: u8| {
        let mut g = frame(1, L3::Ipv4(ipv4(5, 0)), L4::None, 40).to_bytes();
        g[16..18].copy_from_slice(&total.to_be_bytes());
        g[23] = proto;
        g[24..26].copy_from_slice(&[0, 0]);
        let c = trimswitch_sim::packet::checksum::ipv4_header(&g[14..34]);
        g[24..26].copy_from_slice(&c.to_be_bytes());
        g
    };
    let g = with_total(40, 253);
    assert_eq!((code(&g, 54), code(&g, 53)), (NONE, IPV4_LENGTH));
    assert_eq!((code(&with_total(20, 253), 60), code(&with_total(19, 253), 60)), (NONE, IPV4_LENGTH));
    // L4 headers against the IP end: UDP 8 bytes, NDP 16.
    let udp_len = |total: u16, ulen: u16| {
        let mut g = with_total(total, 17);
        g[38..40].copy_from_slice(&ulen.to_be_bytes());
        g
    };
    assert_eq!((code(&udp_len(28, 8), 60), code(&udp_len(27, 8), 60)), (NONE, L4_TRUNCATED));
    assert_eq!((code(&with_total(36, 199), 60), code(&with_total(35, 199), 60)), (NONE, L4_TRUNCATED));
    assert_eq!((code(&udp_len(40, 20), 60), code(&udp_len(40, 21), 60), code(&udp_len(40, 7), 60)), (NONE, UDP_LENGTH, UDP_LENGTH));
    // IPv6: the 40-byte header, then the payload length.
    let mut v6 = frame(1, L3::Ipv6(ipv6(0)), L4::None, 0).to_bytes();
    assert_eq!((code(&v6, 54), code(&v6, 53)), (NONE, IPV6_TRUNCATED));
    v6[18..20].copy_from_slice(&6u16.to_be_bytes());
    assert_eq!((code(&v6, 60), code(&v6, 59)), (NONE, IPV6_LENGTH));
    v6[14] = 0x40;
    assert_eq!(code(&v6, 60), IP_VERSION);
    // PL2: 16 bytes after the EtherType.
    let pl2 = frame(1, L3::Pl2(Pl2 { kind: Pl2::GRT, ..Pl2::default() }), L4::None, 0).to_bytes();
    assert_eq!((code(&pl2, 30), code(&pl2, 29)), (NONE, PL2_TRUNCATED));
}

/// classify counts every parsed packet, also those lookup then drops.
#[test]
fn class_counters_include_dropped_packets() {
    let cfg = config("netfpga-sume");
    let mut m = IngressModel::new(&cfg);
    let mut bad = frame(ROUTER, L3::Ipv4(ipv4(0x0a00_0001, 0)), udp(), 0).to_bytes();
    bad[14 + 8] ^= 1; // TTL: checksum now wrong
    trimswitch_sim::packet::crc::append_fcs(&mut bad);
    assert_eq!(m.trace(0, &bad).fate, Fate::DropMalformed);
    // A PL2 frame to an unknown MAC: prio, then dropped for want of a port.
    let pl2 = frame(0x0200_0000_0099, L3::Pl2(Pl2 { kind: Pl2::RSV, ..Pl2::default() }), L4::None, 0).to_wire();
    assert_eq!(m.trace(0, &pl2).fate, Fate::DropNoPort);
    let c = m.counters();
    assert_eq!(
        (c["pipe0.class_router_hit_pkts"], c["pipe0.class_prio_pkts"], c["pipe0.drop_malformed"], c["pipe0.drop_no_port"]),
        (1, 1, 1, 1)
    );
}
