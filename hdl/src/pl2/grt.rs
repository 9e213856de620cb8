//! `GrtLanes`: where a GRT's fields land in the frame (`docs/protocols.md`,
//! "PL2 reservation frames"; `docs/pl2.md`, "In the switch"). The ingress
//! apply stage ([`crate::ingress::apply`]) writes them into the RSV it turns
//! into its GRT: `kind` (message byte 0) := 2, `demand` (1), `send_timeslot`
//! (4..8) and `recv_timeslot` (8..12), big-endian, after the Ethernet header
//! and 0..2 VLAN tags (the PL2 message at byte 14 + 4 × `vlans`; a frame with
//! a Protego tag is no PL2 op). `src_port`, `dst_port` and the cookie stay.
use rust_hdl::prelude::*;

/// Message bytes a GRT rewrites, relative to the message's first byte.
pub const REWRITTEN: [usize; 10] = [0, 1, 4, 5, 6, 7, 8, 9, 10, 11];
/// Beats the widget knows by index; later beats hold no GRT field at any
/// width (the last field byte is byte 33 with two VLAN tags).
pub const BEATS: usize = 8;

/// For beat `beat` (0.., saturating at [`BEATS`] − 1) of a frame with `vlans`
/// VLAN tags: the lanes (`mask`, `K` bits) that hold a rewritten byte, and
/// their values in `data` (other lanes 0). Combinational; the Verilog is a
/// `case` on `{vlans, beat}` with constant lane masks.
///
/// Ports: `beat` (3 bits), `vlans` (2 bits), `demand` (8), `send` (32),
/// `recv` (32) in; `data` (`D` = 8 `K` bits), `mask` (`K` bits) out.
#[derive(LogicBlock, Default)]
pub struct GrtLanes<const K: usize, const D: usize> {
    pub beat: Signal<In, Bits<3>>,
    pub vlans: Signal<In, Bits<2>>,
    pub demand: Signal<In, Bits<8>>,
    pub send: Signal<In, Bits<32>>,
    pub recv: Signal<In, Bits<32>>,
    pub data: Signal<Out, Bits<D>>,
    pub mask: Signal<Out, Bits<K>>,
}

/// The lanes of beat `beat` that a GRT with `vlans` tags rewrites: (lane,
/// message byte).
pub fn lanes(k: usize, vlans: usize, beat: usize) -> Vec<(usize, usize)> {
    let base = 14 + 4 * vlans;
    (0..k).filter_map(|l| (beat * k + l).checked_sub(base).filter(|r| REWRITTEN.contains(r)).map(|r| (l, r))).collect()
}

/// The bytes beat `beat` of a GRT with these fields gets: (lane, value).
pub fn lane_bytes(k: usize, vlans: usize, beat: usize, demand: u8, send: u32, recv: u32) -> Vec<(usize, u8)> {
    lanes(k, vlans, beat)
        .into_iter()
        .map(|(l, r)| {
            let b = match r {
                0 => 2,
                1 => demand,
                4..=7 => send.to_be_bytes()[r - 4],
                _ => recv.to_be_bytes()[r - 8],
            };
            (l, b)
        })
        .collect()
}

impl<const K: usize, const D: usize> Logic for GrtLanes<K, D> {
    fn update(&mut self) {
        let (beat, vlans) = (self.beat.val().index(), self.vlans.val().index());
        let (d, s, r) = (self.demand.val().index() as u8, self.send.val().index() as u32, self.recv.val().index() as u32);
        let mut data = Bits::<D>::default();
        let mut mask = Bits::<K>::default();
        if vlans <= 2 {
            for (l, b) in lane_bytes(K, vlans, beat.min(BEATS - 1), d, s, r) {
                mask = mask.replace_bit(l, true);
                for i in 0..8 {
                    data = data.replace_bit(8 * l + i, b >> i & 1 == 1);
                }
            }
        }
        self.data.next = data;
        self.mask.next = mask;
    }
    fn connect(&mut self) {
        self.data.connect();
        self.mask.connect();
    }
    fn hdl(&self) -> Verilog {
        let src = |r: usize| match r {
            0 => "8'd2".to_string(),
            1 => "demand".to_string(),
            4..=7 => format!("send[{}:{}]", 31 - 8 * (r - 4), 24 - 8 * (r - 4)),
            _ => format!("recv[{}:{}]", 31 - 8 * (r - 8), 24 - 8 * (r - 8)),
        };
        let mut v = format!("always @(*) begin\n   data = {D}'d0;\n   mask = {K}'d0;\n   case ({{vlans, beat}})\n");
        for vl in 0..3 {
            for b in 0..BEATS {
                let ls = lanes(K, vl, b);
                if ls.is_empty() {
                    continue;
                }
                v += &format!("   5'd{}: begin\n", vl * BEATS + b);
                for (l, r) in ls {
                    v += &format!("      mask[{l}] = 1'b1;\n      data[{}:{}] = {};\n", 8 * l + 7, 8 * l, src(r));
                }
                v += "   end\n";
            }
        }
        v += "   default: ;\n   endcase\nend\n";
        Verilog::Custom(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_at_every_width_and_tag_count() {
        // 64 bits, untagged: message bytes 0,1 in beat 1 (lanes 6, 7),
        // 4..8 in beat 2 (lanes 2..6), 8..12 across beats 2 and 3.
        assert_eq!(lanes(8, 0, 0), vec![]);
        assert_eq!(lanes(8, 0, 1), vec![(6, 0), (7, 1)]);
        assert_eq!(lanes(8, 0, 2), vec![(2, 4), (3, 5), (4, 6), (5, 7), (6, 8), (7, 9)]);
        assert_eq!(lanes(8, 0, 3), vec![(0, 10), (1, 11)]);
        // Two tags at 64 bits: bytes 22..34, the last in beat 4.
        assert_eq!(lanes(8, 2, 4), vec![(0, 10), (1, 11)]);
        // 512 bits: everything in beat 0.
        assert_eq!(lanes(64, 1, 0).len(), 10);
        assert!(lanes(64, 1, 1).is_empty());
        // Every rewritten byte lands exactly once at every width.
        for k in [8, 16, 32, 64] {
            for v in 0..3 {
                let n: usize = (0..BEATS).map(|b| lanes(k, v, b).len()).sum();
                assert_eq!(n, REWRITTEN.len(), "K {k} vlans {v}");
            }
        }
    }

    #[test]
    fn fields_are_big_endian() {
        // Beat 1 at 128 bits holds bytes 16..32: message bytes 2..18.
        let got = lane_bytes(16, 0, 1, 3, 0x0102_0304, 0x0a0b_0c0d);
        assert_eq!(got, vec![(2, 1), (3, 2), (4, 3), (5, 4), (6, 10), (7, 11), (8, 12), (9, 13)]);
        assert_eq!(lane_bytes(16, 0, 0, 3, 0, 0), vec![(14, 2), (15, 3)]);
    }
}
