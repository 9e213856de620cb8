//! Golden model of lookup (`docs/ingress.md`, "lookup"): malformed drop, IPv4
//! longest-prefix match for packets to the router MAC, L2 exact match for the
//! rest, the miss action, the no-port drop, and the MAC rewrite of routed
//! packets.
use super::{Class, Settings, MAC_MASK};
use trimswitch_hdl::ingress::phv::{l3, Phv};

/// One longest-prefix-match entry (a valid row of the route table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Route {
    /// IPv4 prefix, first byte in bits 31:24. Only the top `len` bits are compared.
    pub prefix: u32,
    /// Prefix length, 0..=32 (0 matches every address). Larger values are
    /// outside the contract; the model treats them as 32.
    pub len: u8,
    /// Egress port (`>= ports`, 255 included, drops with `drop_no_port`).
    pub port: u8,
    /// Next-hop index: `tuser.nexthop`, and the `nexthop_mac` row for the rewrite.
    pub nexthop: u8,
}

impl Route {
    /// The mask of the top `len` bits.
    pub fn mask(&self) -> u32 {
        match self.len.min(32) {
            0 => 0,
            n => u32::MAX << (32 - n),
        }
    }

    /// True when the top `len` bits of `addr` equal the prefix's
    /// (`docs/ingress.md`, "lookup").
    pub fn matches(&self, addr: u32) -> bool {
        (addr ^ self.prefix) & self.mask() == 0
    }
}

/// One L2 exact-match entry (a valid row of the L2 table).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct L2 {
    /// 48-bit MAC, first byte on the wire in bits 47:40 (bits above 47 ignored).
    pub mac: u64,
    /// Egress port (`>= ports`, 255 included, drops with `drop_no_port`).
    pub port: u8,
}

/// Longest-prefix match of `addr` over the valid (`Some`) entries: the longest
/// matching `len` wins, ties go to the lowest index (`docs/ingress.md`,
/// "lookup"). Returns the winning index.
pub fn lpm(routes: &[Option<Route>], addr: u32) -> Option<usize> {
    let mut best: Option<(usize, u8)> = None;
    for (i, r) in routes.iter().enumerate() {
        if let Some(r) = r {
            let len = r.len.min(32);
            let better = match best {
                None => true,
                Some((_, l)) => len > l,
            };
            if better && r.matches(addr) {
                best = Some((i, len));
            }
        }
    }
    best.map(|(i, _)| i)
}

/// L2 exact match of `mac` (48 bits) over the valid entries; the lowest index
/// wins (`docs/ingress.md`, "lookup").
pub fn l2_match(table: &[Option<L2>], mac: u64) -> Option<usize> {
    table.iter().position(|e| e.is_some_and(|e| e.mac & MAC_MASK == mac & MAC_MASK))
}

/// Which way a packet went through lookup; each variant is one counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Path {
    /// Malformed with `malformed_drop` set: `drop_malformed` (no other lookup counter).
    DropMalformed,
    /// Routed candidate, LPM hit: `lookup_routed`.
    Routed {
        /// The winning route row.
        entry: usize,
    },
    /// Routed candidate, LPM miss: `lookup_lpm_miss`, then the miss action.
    LpmMiss,
    /// L2 hit: `lookup_l2_hit`.
    L2Hit {
        /// The winning L2 row.
        entry: usize,
    },
    /// L2 miss: `lookup_l2_miss`, then the miss action.
    L2Miss,
}

impl Path {
    /// The per-pipeline counter of this path (without the `pipe{i}.` prefix).
    pub fn counter(self) -> &'static str {
        match self {
            Path::DropMalformed => "drop_malformed",
            Path::Routed { .. } => "lookup_routed",
            Path::LpmMiss => "lookup_lpm_miss",
            Path::L2Hit { .. } => "lookup_l2_hit",
            Path::L2Miss => "lookup_l2_miss",
        }
    }
}

/// The lookup result for one packet (`docs/ingress.md`, "lookup").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lookup {
    /// Which counter the packet takes in lookup.
    pub path: Path,
    /// `tuser.dest_port` (0 for [`Path::DropMalformed`]).
    pub dest_port: u8,
    /// `tuser.nexthop`: the route's next hop when routed, else 0.
    pub nexthop: u8,
    /// `tuser.routed`: LPM hit (the MACs are rewritten if the packet leaves).
    pub routed: bool,
    /// The packet leaves the pipeline: not dropped as malformed, and
    /// `dest_port < ports`. Otherwise it is dropped, counted by `drop_malformed`
    /// or `drop_no_port`.
    pub forward: bool,
}

/// Looks a classified packet up (`docs/ingress.md`, "lookup"):
///
/// 1. malformed and `malformed_drop`: dropped ([`Path::DropMalformed`]);
/// 2. routed candidate (`router_hit`, `l3` IPv4, well formed): LPM; a hit sets
///    `dest_port`, `nexthop` and `routed`; a miss takes the miss action;
/// 3. otherwise (malformed-and-forwarded packets included): L2 exact match of
///    `dst_mac`; a miss takes the miss action;
/// 4. miss action: `dest_port = miss_port`;
/// 5. `dest_port >= ports` drops (`drop_no_port`), whatever the path — a route
///    or L2 entry with port 255 too.
pub fn lookup(phv: &Phv, class: &Class, s: &Settings) -> Lookup {
    let ok = phv.malformed == 0;
    if !ok && s.malformed_drop {
        return Lookup { path: Path::DropMalformed, dest_port: 0, nexthop: 0, routed: false, forward: false };
    }
    let (path, dest_port, nexthop) = if class.router_hit && phv.l3 == l3::IPV4 && ok {
        match lpm(&s.routes, phv.ipv4_dst) {
            Some(i) => {
                let r = s.routes[i].expect("lpm returns a valid entry");
                (Path::Routed { entry: i }, r.port, r.nexthop)
            }
            None => (Path::LpmMiss, s.miss_port, 0),
        }
    } else {
        match l2_match(&s.l2, phv.dst_mac) {
            Some(i) => (Path::L2Hit { entry: i }, s.l2[i].expect("l2_match returns a valid entry").port, 0),
            None => (Path::L2Miss, s.miss_port, 0),
        }
    };
    let routed = matches!(path, Path::Routed { .. });
    Lookup { path, dest_port, nexthop, routed, forward: (dest_port as usize) < s.ports }
}

/// The destination MAC of a packet routed via next hop `nexthop`:
/// `nexthop_mac[nexthop]`, and 0 for a next hop past the table (a route
/// written over AXI-Lite may hold any 8-bit next hop; configurations only hold
/// `nexthop < nexthops`). `tuser.nexthop` carries the full 8-bit value either way.
pub fn nexthop_mac(s: &Settings, nexthop: u8) -> u64 {
    s.nexthop_mac.get(nexthop as usize).map_or(0, |m| m & MAC_MASK)
}

/// The ingress rewrite of a routed packet (`docs/ingress.md`, "lookup"):
/// destination MAC (bytes 0..6) := `nexthop_mac[nexthop]`. The source MAC
/// becomes the router MAC later, at egress ([`egress_rewrite`]), so that a
/// packet returned to its sender still carries the MAC it came from. Nothing
/// else changes: no TTL decrement, no checksum, and when the FCS is kept
/// (`strip_fcs` clear) it is *not* recomputed (it goes stale; the egress MAC
/// regenerates it). Bytes past the end of `frame` are skipped.
pub fn rewrite_dst_mac(frame: &mut [u8], nexthop: u8, s: &Settings) {
    let dst = nexthop_mac(s, nexthop).to_be_bytes();
    for (i, b) in frame.iter_mut().take(6).enumerate() {
        *b = dst[2 + i];
    }
}

/// The egress rewrite of a packet leaving the switch (`docs/switch.md`, "Data
/// path"; `hdl/src/egress/rewrite.rs`): when `routed` (`tuser.routed`), source MAC
/// (bytes 6..12) := `router_mac`. Applied after the traffic manager, so a
/// packet returned to its sender (addresses swapped by the trimmer) leaves
/// with the MAC it arrived from as destination and the router's as source.
/// Bytes past the end of `frame` are skipped.
pub fn egress_rewrite(frame: &mut [u8], routed: bool, s: &Settings) {
    if routed {
        let src = (s.router_mac & MAC_MASK).to_be_bytes();
        for (i, b) in frame.iter_mut().enumerate().take(12).skip(6) {
            *b = src[2 + i - 6];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(prefix: u32, len: u8, port: u8) -> Option<Route> {
        Some(Route { prefix, len, port, nexthop: port })
    }

    #[test]
    fn longest_then_lowest_index() {
        let t = vec![r(0x0a00_0000, 8, 1), r(0x0a01_0000, 16, 2), None, r(0x0a01_0000, 16, 3), r(0, 0, 4), r(0x0a01_0203, 32, 5)];
        assert_eq!(lpm(&t, 0x0a01_0203), Some(5));
        assert_eq!(lpm(&t, 0x0a01_0204), Some(1), "tie at /16: lowest index");
        assert_eq!(lpm(&t, 0x0a02_0000), Some(0));
        assert_eq!(lpm(&t, 0x0b00_0000), Some(4), "/0 default");
        assert_eq!(lpm(&t[..4], 0x0b00_0000), None);
        // Host bits in a stored prefix are not compared.
        assert!(Route { prefix: 0x0a01_02ff, len: 24, port: 0, nexthop: 0 }.matches(0x0a01_0201));
    }

    #[test]
    fn l2_lowest_index_and_rewrite() {
        let t = vec![None, Some(L2 { mac: 5, port: 1 }), Some(L2 { mac: 5, port: 2 })];
        assert_eq!(l2_match(&t, 5), Some(1));
        assert_eq!(l2_match(&t, 6), None);
        let s = Settings { router_mac: 0x0200_0000_00fe, nexthop_mac: vec![0, 0x0a0b_0c0d_0e0f], ..Settings::default() };
        let mut f: Vec<u8> = (1..=16).collect();
        rewrite_dst_mac(&mut f, 1, &s);
        assert_eq!(f[..12], [0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 7, 8, 9, 10, 11, 12], "ingress: destination only");
        egress_rewrite(&mut f, false, &s);
        assert_eq!(f[6..12], [7, 8, 9, 10, 11, 12], "egress: not routed, untouched");
        egress_rewrite(&mut f, true, &s);
        assert_eq!(f[..12], [0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 2, 0, 0, 0, 0, 0xfe]);
        assert_eq!(f[12..], [13, 14, 15, 16]);
        rewrite_dst_mac(&mut f, 3, &s);
        assert_eq!(f[..6], [0; 6], "a next hop past the table reads as MAC 0");
        let mut short = vec![1u8; 9];
        egress_rewrite(&mut short, true, &s);
        assert_eq!(short, [1, 1, 1, 1, 1, 1, 2, 0, 0], "bytes past the end skipped");
    }
}
