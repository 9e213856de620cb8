//! The packet library against an independent parser (etherparse) and against
//! the byte layouts of `docs/protocols.md`.
use anyhow::{ensure, Result};
use etherparse::{LinkExtHeader, NetHeaders, PacketHeaders, TransportHeader};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_sim::packet::crc::fcs_ok;
use trimswitch_sim::packet::frame::{ethertype, MIN_FRAME};
use trimswitch_sim::packet::{describe, pcap, Frame, Ipv4, Ipv6, Ndp, Pl2, Protego, Udp, Vlan, L3, L4};

fn random_frame(rng: &mut SmallRng) -> Frame {
    let vlans = (0..rng.gen_range(0..=2))
        .map(|_| Vlan { tpid: ethertype::VLAN, pcp: rng.gen_range(0..8), dei: rng.gen(), vid: rng.gen_range(0..4096) })
        .collect();
    let l4 = match rng.gen_range(0..3) {
        0 => L4::Udp(Udp { sport: rng.gen(), dport: rng.gen() }),
        1 => L4::Ndp(Ndp {
            flags: rng.gen(),
            src_port: rng.gen(),
            dst_port: rng.gen(),
            path_id: rng.gen(),
            seq: rng.gen(),
            ack_or_pull: rng.gen(),
        }),
        _ => L4::None,
    };
    let l3 = if rng.gen() {
        L3::Ipv4(Ipv4 {
            dscp: rng.gen_range(0..64),
            ecn: rng.gen_range(0..4),
            id: rng.gen(),
            dont_fragment: rng.gen(),
            ttl: rng.gen(),
            protocol: 253,
            src: rng.gen(),
            dst: rng.gen(),
            options: vec![1; 4 * rng.gen_range(0..=2)], // NOP options
        })
    } else {
        L3::Ipv6(Ipv6 {
            dscp: rng.gen_range(0..64),
            ecn: rng.gen_range(0..4),
            flow_label: rng.gen_range(0..1 << 20),
            hop_limit: rng.gen(),
            next_header: 253,
            src: rng.gen(),
            dst: rng.gen(),
        })
    };
    let len = [0, 1, 7, 100, 1400, 8950][rng.gen_range(0..6)];
    Frame { dst: rng.gen(), src: rng.gen(), vlans, protego: None, l3, l4, payload: (0..len).map(|_| rng.gen()).collect() }
}

/// Frames with random headers and payloads parse in etherparse to the same
/// fields, with valid IPv4 header and UDP checksums and a valid FCS.
#[test]
fn frames_match_an_independent_parser() -> Result<()> {
    let mut rng = SmallRng::seed_from_u64(1);
    for n in 0..2000 {
        let f = random_frame(&mut rng);
        let wire = f.to_wire();
        ensure!(fcs_ok(&wire), "frame {n}: bad FCS");
        let bytes = f.to_bytes();
        ensure!(bytes.len() >= MIN_FRAME);
        let h = PacketHeaders::from_ethernet_slice(&bytes).map_err(|e| anyhow::anyhow!("frame {n}: etherparse: {e:?}"))?;
        let eth = h.link.clone().and_then(|l| l.ethernet2()).ok_or_else(|| anyhow::anyhow!("frame {n}: no Ethernet"))?;
        ensure!(eth.source == f.src && eth.destination == f.dst, "frame {n}: MACs");
        ensure!(h.link_exts.len() == f.vlans.len(), "frame {n}: {} tags, expected {}", h.link_exts.len(), f.vlans.len());
        for (x, v) in h.link_exts.iter().zip(&f.vlans) {
            let LinkExtHeader::Vlan(t) = x else { anyhow::bail!("frame {n}: not a VLAN tag") };
            ensure!(t.vlan_id.value() == v.vid && t.pcp.value() == v.pcp && t.drop_eligible_indicator == v.dei, "frame {n}: VLAN tag");
        }
        let l4_len = match &f.l4 {
            L4::Udp(_) => 8,
            L4::Ndp(_) => Ndp::LEN,
            L4::None => 0,
        } + f.payload.len();
        match (&f.l3, h.net.as_ref()) {
            (L3::Ipv4(ip), Some(NetHeaders::Ipv4(p, _))) => {
                ensure!(
                    p.source == ip.src && p.destination == ip.dst && p.dscp.value() == ip.dscp && p.ecn.value() == ip.ecn,
                    "frame {n}: IPv4 fields"
                );
                ensure!(p.header_checksum == p.calc_header_checksum(), "frame {n}: IPv4 checksum");
                ensure!(p.total_len as usize == 20 + ip.options.len() + l4_len, "frame {n}: IPv4 total length {}", p.total_len);
                if let Some(TransportHeader::Udp(u)) = &h.transport {
                    ensure!(u.checksum == u.calc_checksum_ipv4(p, &f.payload).unwrap(), "frame {n}: UDP checksum over IPv4");
                    ensure!(u.length as usize == 8 + f.payload.len(), "frame {n}: UDP length");
                }
            }
            (L3::Ipv6(ip), Some(NetHeaders::Ipv6(p, _))) => {
                ensure!(
                    p.source == ip.src && p.destination == ip.dst && p.traffic_class == (ip.dscp << 2 | ip.ecn),
                    "frame {n}: IPv6 fields"
                );
                ensure!(p.payload_length as usize == l4_len, "frame {n}: IPv6 payload length");
                if let Some(TransportHeader::Udp(u)) = &h.transport {
                    ensure!(u.checksum == u.calc_checksum_ipv6(p, &f.payload).unwrap(), "frame {n}: UDP checksum over IPv6");
                }
            }
            (l3, net) => anyhow::bail!("frame {n}: built {l3:?}, parsed {net:?}"),
        }
        ensure!(matches!(f.l4, L4::Udp(_)) == matches!(h.transport, Some(TransportHeader::Udp(_))), "frame {n}: UDP presence");
    }
    Ok(())
}

fn base(l3: L3, l4: L4) -> Frame {
    Frame { dst: [2, 0, 0, 0, 0, 2], src: [2, 0, 0, 0, 0, 1], vlans: vec![], protego: None, l3, l4, payload: vec![] }
}

fn v4() -> Ipv4 {
    Ipv4 { dscp: 0, ecn: 0, id: 0, dont_fragment: true, ttl: 64, protocol: 0, src: [10, 0, 0, 1], dst: [10, 0, 0, 2], options: vec![] }
}

/// The NDP, PL2 and Protego layouts are byte for byte what the docs say.
#[test]
fn own_formats_follow_the_documentation() -> Result<()> {
    let ndp =
        Ndp { flags: Ndp::DATA | Ndp::TRIMMED, src_port: 0x1234, dst_port: 0x5678, path_id: 9, seq: 0x0a0b0c0d, ack_or_pull: 0x01020304 };
    let b = base(L3::Ipv4(v4()), L4::Ndp(ndp)).to_bytes();
    ensure!(b[12..14] == [0x08, 0x00] && b[14 + 9] == 199, "NDP is IP protocol 199");
    ensure!(
        b[34..50] == [0x11, 0, 0x12, 0x34, 0x56, 0x78, 0, 9, 0x0a, 0x0b, 0x0c, 0x0d, 1, 2, 3, 4],
        "NDP header bytes {:02x?}",
        &b[34..50]
    );
    ensure!(describe(&b).ends_with("| NDP DATA|TRIMMED seq 168496141 path 9"), "{}", describe(&b));

    let grt = Pl2 { kind: Pl2::GRT, demand: 4, src_port: 1, dst_port: 3, send_timeslot: 7, recv_timeslot: 9, cookie: 0xdeadbeef };
    let b = base(L3::Pl2(grt), L4::None).to_bytes();
    ensure!(b.len() == MIN_FRAME && b[12..14] == [0x88, 0xb5], "PL2 EtherType and size");
    ensure!(
        b[14..30] == [2, 4, 1, 3, 0, 0, 0, 7, 0, 0, 0, 9, 0xde, 0xad, 0xbe, 0xef] && b[30..].iter().all(|&x| x == 0),
        "PL2 bytes {:02x?}",
        &b[14..30]
    );
    ensure!(describe(&b).ends_with("| PL2 GRT demand 4 1 > 3 slots 7/9"), "{}", describe(&b));

    let mut f = base(L3::Ipv4(v4()), L4::Udp(Udp { sport: 1, dport: 2 }));
    f.vlans.push(Vlan { tpid: ethertype::VLAN, pcp: 5, dei: false, vid: 100 });
    f.protego = Some(Protego { kind: 1, era: true, seq: 0xbeef });
    let b = f.to_bytes();
    ensure!(b[12..18] == [0x81, 0x00, 0xa0, 0x64, 0x88, 0xb6], "tag order {:02x?}", &b[12..18]);
    ensure!(b[18..21] == [0x60, 0xbe, 0xef] && b[21..23] == [0x08, 0x00], "Protego tag {:02x?}", &b[18..23]);
    ensure!(describe(&b).contains("| vlan 100 pcp 5 | protego RETX era 1 seq 48879 | IPv4 10.0.0.1 > 10.0.0.2"), "{}", describe(&b));
    Ok(())
}

/// pcap files round-trip, and malformed ones are rejected with the file and
/// the reason.
#[test]
fn pcap_round_trip_and_errors() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("ts-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("a.pcap");
    let mut rng = SmallRng::seed_from_u64(2);
    let frames: Vec<Vec<u8>> = (0..50).map(|_| random_frame(&mut rng).to_bytes()).collect();
    let mut w = pcap::PcapWriter::create(&path)?;
    for (i, f) in frames.iter().enumerate() {
        w.write(1_000_000_007 * i as u64, f)?;
    }
    w.finish()?;
    let recs = pcap::read(&path)?;
    ensure!(recs.len() == frames.len());
    for (i, (r, f)) in recs.iter().zip(&frames).enumerate() {
        ensure!(r.data == *f && r.time_ns == 1_000_000_007 * i as u64, "record {i}");
    }
    // A big-endian microsecond file (as some tools write) reads too.
    let mut be = vec![0xa1, 0xb2, 0xc3, 0xd4, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 1];
    be.extend_from_slice(&[0, 0, 0, 3, 0, 0, 0, 5, 0, 0, 0, 60, 0, 0, 0, 60]);
    be.extend_from_slice(&frames[0][..60]);
    std::fs::write(dir.join("be.pcap"), &be)?;
    let r = pcap::read(&dir.join("be.pcap"))?;
    ensure!(r.len() == 1 && r[0].time_ns == 3_000_005_000 && r[0].data == frames[0][..60]);
    // Errors name the file and the reason.
    let bytes = std::fs::read(&path)?;
    std::fs::write(dir.join("cut.pcap"), &bytes[..bytes.len() - 3])?;
    let e = pcap::read(&dir.join("cut.pcap")).unwrap_err().to_string();
    ensure!(e.contains("cut.pcap") && e.contains("record 49") && e.contains("file ends"), "{e}");
    std::fs::write(dir.join("x.pcap"), b"this is not a capture file")?;
    let e = pcap::read(&dir.join("x.pcap")).unwrap_err().to_string();
    ensure!(e.contains("x.pcap: not a pcap file"), "{e}");
    let mut snapped = bytes.clone();
    snapped[24 + 8] = 20; // incl_len 20 < orig_len
    std::fs::write(dir.join("snap.pcap"), &snapped[..24 + 16 + 20])?;
    let e = pcap::read(&dir.join("snap.pcap")).unwrap_err().to_string();
    ensure!(e.contains("truncated capture"), "{e}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
