//! `ts_protego_tag_ins`: puts Protego's 5-byte tag into a stream, after the
//! MAC addresses and up to two VLAN tags (`docs/protocols.md`, "Protego";
//! `PL2-PROTEGO.md` B.1; 004 §3.5), for the sender side before the MAC
//! (`docs/protego.md`). Golden model: `trimswitch_sim::model::protego::insert_tag`.
//!
//! The insertion point is byte `12 + 4v`, `v` the frame's VLAN tags (TPID
//! 0x8100 or 0x88A8 at byte 12, then at byte 16, with the tag's four bytes
//! in the frame; at most two), found in the beat that holds those bytes. Output byte `a` of a frame is input byte
//! `a` before the insertion point, tag byte `a − off` in the five after it,
//! and input byte `a − 5` from there on: each output beat is the input beat
//! and the last five bytes of the one before ([`TagInsLanes`]). A frame whose
//! last beat then needs more than the bus holds gets one more output beat,
//! during which the input waits (`s_tready` low for a cycle); a frame that
//! ends before its insertion point passes unchanged and is counted.
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset
//!   (drops the beat inside and the frame under way).
//! - `s_*` in, `s_tready` out: the frames, `tkeep` packed; `s_tag` in (24
//!   bits: the tag's type/era byte in bits 23:16, `seq` in 15:0) and
//!   `s_skip` in (the frame passes unchanged, no `untagged` pulse: the
//!   sender side's frames that carry no tag), sampled with a frame's first
//!   beat.
//! - `m_*` out (registered), `m_tready` in: the tagged frames; `tuser` as it
//!   came, on every beat (the extra last beat repeats it).
//! - `untagged` out (registered pulse): a frame passed untagged (it ended
//!   before its insertion point).
//!
//! Two stages: the first finds the insertion point in the beat (the VLAN
//! TPIDs, the point against the beat's position) and registers the beat with
//! its lanes' controls; the second moves the lanes ([`TagInsLanes`]) into
//! the output register. `s_tready` is two LUTs from `m_tready` (stage 1
//! loads when stage 2 takes its beat); put a skid after the block where
//! `m_tready` comes from logic. Latency 2 cycles.
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::prim::widgets::DffR;
use crate::proto::{ethertype, wire16};
use rust_hdl::prelude::*;

/// Bytes of the tag on the wire.
pub const TAG_BYTES: usize = 5;

/// The output beat's lanes (see the module): `mode` 0 = before the
/// insertion point (`cur`), 1 = after the tag (`cur` shifted by five bytes,
/// the first five from `carry`), 2 = the insertion point or the tag in this
/// beat, `dd = off − pos + 8` (the insertion point's lane plus 8, so the
/// tag's tail in a beat after the point is still positive).
///
/// Ports: `cur` (`D`), `carry` (40 bits: the previous beat's lanes `K − 5 ..
/// K`), `tag` (40 bits, byte 0 in bits 7:0), `mode` (2), `dd` (8) in;
/// `data` (`D`) out.
#[derive(LogicBlock, Default)]
pub struct TagInsLanes<const D: usize, const K: usize> {
    pub cur: Signal<In, Bits<D>>,
    pub carry: Signal<In, Bits<40>>,
    pub tag: Signal<In, Bits<40>>,
    pub mode: Signal<In, Bits<2>>,
    pub dd: Signal<In, Bits<8>>,
    pub data: Signal<Out, Bits<D>>,
}

impl<const D: usize, const K: usize> Logic for TagInsLanes<D, K> {
    fn update(&mut self) {
        let (cur, carry, tag) = (self.cur.val(), self.carry.val(), self.tag.val());
        let (mode, dd) = (self.mode.val().index(), self.dd.val().index());
        let shifted = |j: usize| if j >= TAG_BYTES { cur.get_bits::<8>(8 * (j - TAG_BYTES)) } else { carry.get_bits::<8>(8 * j) };
        let mut v = Bits::<D>::default();
        for j in 0..K {
            let b = match mode {
                0 => cur.get_bits::<8>(8 * j),
                1 => shifted(j),
                _ if dd > j + 8 => cur.get_bits::<8>(8 * j),
                _ if dd > j + 3 => tag.get_bits::<8>(8 * (j + 8 - dd)),
                _ => shifted(j),
            };
            v.set_bits::<8>(8 * j, b);
        }
        self.data.next = v;
    }
    fn connect(&mut self) {
        self.data.connect();
    }
    fn hdl(&self) -> Verilog {
        assert!(K * 8 == D && K >= 8 && K <= 64, "TagInsLanes: K = D / 8 in 8..=64");
        let byte = |s: &str, j: usize| format!("{s}[{}:{}]", 8 * j + 7, 8 * j);
        let shifted = |j: usize| if j >= TAG_BYTES { byte("cur", j - TAG_BYTES) } else { byte("carry", j) };
        // The lanes' choice by `dd` for the values the table holds (an
        // equality decode, no magnitude compare: no carry chain before the
        // multiplexers).
        let dds = mode2_dds(K);
        let mut v = String::from("always @(*) begin\n");
        for j in 0..K {
            let (hi, lo) = (8 * j + 7, 8 * j);
            let mut arms = String::new();
            for &d in &dds {
                let src = if d > j + 8 {
                    byte("cur", j)
                } else if d > j + 3 {
                    byte("tag", j + 8 - d)
                } else {
                    shifted(j)
                };
                arms += &format!("         8'd{d}: data[{hi}:{lo}] = {src};\n");
            }
            v += &format!(
                "   case (mode)\n      2'd0: data[{hi}:{lo}] = {c};\n      2'd1: data[{hi}:{lo}] = {s};\n      default: case (dd)\n{arms}         default: data[{hi}:{lo}] = {s};\n      endcase\n   endcase\n",
                c = byte("cur", j),
                s = shifted(j),
            );
        }
        v += "end\n";
        Verilog::Custom(v)
    }
}

/// For a last beat at index `bi` (0..=4) with `tkeep` `keep`: whether it
/// ends at or before each insertion point `12 + 4v` (bit `v`), i.e. its
/// bytes stop at or before the point's lane `off − pos`: that lane's `keep`
/// bit is 0 (a point beyond the beat: always). One multiplexer on `bi` of
/// fixed `keep` bits, no byte count.
///
/// Ports: `tkeep_lanes` (`K`: `tkeep`, of which the lanes at the points
/// are read), `bi` (3) in; `ends` (3) out.
#[derive(LogicBlock, Default)]
pub struct TagInsShort<const K: usize> {
    pub tkeep_lanes: Signal<In, Bits<K>>,
    pub bi: Signal<In, Bits<3>>,
    pub ends: Signal<Out, Bits<3>>,
}

/// The lane of insertion point `v` in beat `b` of `k`-byte beats: `None`
/// beyond the beat (ends before it whatever `keep` is), `Some(None)` at or
/// before its first lane (never ends before it), else the lane.
fn point_lane(k: usize, b: usize, v: usize) -> Option<Option<usize>> {
    let (off, pos) = (12 + 4 * v as i64, (b * k) as i64);
    match off - pos {
        d if d >= k as i64 => None,
        d if d <= 0 => Some(None),
        d => Some(Some(d as usize)),
    }
}

impl<const K: usize> Logic for TagInsShort<K> {
    fn update(&mut self) {
        let b = self.bi.val().index().min(4);
        let mut e = Bits::<3>::default();
        for v in 0..3 {
            let end = match point_lane(K, b, v) {
                None => true,
                Some(None) => false,
                Some(Some(l)) => !self.tkeep_lanes.val().get_bit(l),
            };
            e = e.replace_bit(v, end);
        }
        self.ends.next = e;
    }
    fn connect(&mut self) {
        self.ends.connect();
    }
    fn hdl(&self) -> Verilog {
        let mut v = String::from("always @(*) begin\n   case (bi)\n");
        for b in 0..5 {
            let bits: Vec<String> = (0..3)
                .rev()
                .map(|x| match point_lane(K, b, x) {
                    None => "1'b1".to_string(),
                    Some(None) => "1'b0".to_string(),
                    Some(Some(l)) => format!("~tkeep_lanes[{l}]"),
                })
                .collect();
            let label = if b == 4 { "default".to_string() } else { format!("3'd{b}") };
            v += &format!("      {label}: ends = {{{}}};\n", bits.join(", "));
        }
        v += "   endcase\nend\n";
        Verilog::Custom(v)
    }
}

/// The next beat's index after beat `a` (0..=4), held at 4: the inserter's
/// and the remover's `bi`. Written as bit logic, one LUT a bit (`a + 1` with
/// a compare became a carry chain and two LUT levels).
///
/// Ports: `a` (3) in; `y` (3) out.
#[derive(LogicBlock, Default)]
pub struct BeatStep {
    pub a: Signal<In, Bits<3>>,
    pub y: Signal<Out, Bits<3>>,
}

impl Logic for BeatStep {
    #[hdl_gen]
    fn update(&mut self) {
        // 0 -> 1 -> 2 -> 3 -> 4 -> 4.
        self.y.next = 0.into();
        self.y.next = self.y.val().replace_bit(0, !(self.a.val().get_bit(0) | self.a.val().get_bit(2)));
        self.y.next = self.y.val().replace_bit(1, self.a.val().get_bit(0) ^ self.a.val().get_bit(1));
        self.y.next = self.y.val().replace_bit(2, self.a.val().get_bit(2) | (self.a.val().get_bit(1) & self.a.val().get_bit(0)));
    }
}

/// A frame's VLAN tags as its beats pass, for the Protego tag's position
/// (the inserter and the remover): a TPID (0x8100 or 0x88A8) at byte 12,
/// then at byte 16, that counts when the tag's four bytes are in the frame
/// (as the golden model's `ethertype_offset`), from the beat that holds it,
/// else as an earlier beat found it (`t1_r`, `t2_r`: the parent's
/// registers, loaded with `t1`, `t2` as each beat goes in).
///
/// Ports: `tdata_lanes` (`D`), `tkeep_lanes` (`K`: of both, the lanes of
/// bytes 12..19 are read), `bi` (3: the beat's index in its
/// frame, held at 4), `t1_r`, `t2_r` in; `t1` (a VLAN tag at byte 12), `t2`
/// (a TPID at byte 16 with its four bytes; the second tag when `t1`) out.
#[derive(LogicBlock)]
pub struct VlanScan<const D: usize, const K: usize> {
    pub tdata_lanes: Signal<In, Bits<D>>,
    pub tkeep_lanes: Signal<In, Bits<K>>,
    pub bi: Signal<In, Bits<3>>,
    pub t1_r: Signal<In, Bit>,
    pub t2_r: Signal<In, Bit>,
    pub t1: Signal<Out, Bit>,
    pub t2: Signal<Out, Bit>,
    /// The beats that hold bytes 12..13 and 16..17, the bit offsets of those
    /// bytes in them, the lanes of bytes 15 and 19, the TPIDs as they read
    /// from `tdata` (byte 12 in the low byte).
    c_b12: Constant<Bits<3>>,
    c_b16: Constant<Bits<3>>,
    c_l12: Constant<Bits<16>>,
    c_l16: Constant<Bits<16>>,
    c_k15: Constant<Bits<8>>,
    c_k19: Constant<Bits<8>>,
    c_vlan: Constant<Bits<16>>,
    c_qinq: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize> Default for VlanScan<D, K> {
    fn default() -> Self {
        assert!(K * 8 == D && (8..=64).contains(&K), "VlanScan: K = D / 8 in 8..=64");
        let lane = |b: usize| Constant::new((8 * (b % K)).to_bits());
        Self {
            tdata_lanes: Default::default(),
            tkeep_lanes: Default::default(),
            bi: Default::default(),
            t1_r: Default::default(),
            t2_r: Default::default(),
            t1: Default::default(),
            t2: Default::default(),
            c_b12: Constant::new((12 / K).to_bits()),
            c_b16: Constant::new((16 / K).to_bits()),
            c_l12: lane(12),
            c_l16: lane(16),
            c_k15: Constant::new((15 % K).to_bits()),
            c_k19: Constant::new((19 % K).to_bits()),
            c_vlan: Constant::new(wire16(ethertype::VLAN).to_bits()),
            c_qinq: Constant::new(wire16(ethertype::QINQ).to_bits()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for VlanScan<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.t1.next = self.t1_r.val();
        if self.bi.val() == self.c_b12.val() {
            self.t1.next = ((self.tdata_lanes.val().get_bits::<16>(self.c_l12.val().index()) == self.c_vlan.val())
                | (self.tdata_lanes.val().get_bits::<16>(self.c_l12.val().index()) == self.c_qinq.val()))
                & self.tkeep_lanes.val().get_bit(self.c_k15.val().index());
        }
        self.t2.next = self.t2_r.val();
        if self.bi.val() == self.c_b16.val() {
            self.t2.next = ((self.tdata_lanes.val().get_bits::<16>(self.c_l16.val().index()) == self.c_vlan.val())
                | (self.tdata_lanes.val().get_bits::<16>(self.c_l16.val().index()) == self.c_qinq.val()))
                & self.tkeep_lanes.val().get_bit(self.c_k19.val().index());
        }
    }
}

/// Bits of an entry of the inserter's table: `mode` (2: the lanes' mode for
/// a beat that is not a short last one), `dd` (8), the extra beat's `mode`
/// (2) and `dd` (8).
pub const ENTRY: usize = 20;

/// The `dd` values of the table's entries in mode 2 (the insertion point or
/// the tag in the beat, or in the extra beat), for [`TagInsLanes`]'s decode.
fn mode2_dds(k: usize) -> std::collections::BTreeSet<usize> {
    let t = table(k);
    let mut v = std::collections::BTreeSet::new();
    for b in 0..5 {
        for p in 0..3 {
            let at = 128 * b + p * ENTRY;
            if t.get_bits::<2>(at).index() == 2 {
                v.insert(t.get_bits::<8>(at + 2).index());
            }
            if t.get_bits::<2>(at + 10).index() == 2 {
                v.insert(t.get_bits::<8>(at + 12).index());
            }
        }
    }
    v
}

/// The inserter's table for `K`-byte beats: the entry at bit `128b + 20v`
/// for beat index `b` (0..=4, 4 standing for every later beat) and
/// insertion point `12 + 4v`.
fn table(k: usize) -> Bits<640> {
    let mut t = Bits::<640>::default();
    for b in 0..5 {
        for v in 0..3 {
            let (off, pos) = (12 + 4 * v as i64, (b * k) as i64);
            let after = off + 5 <= pos;
            let ins = !after && off < pos + k as i64;
            let mode = if after {
                1
            } else if ins {
                2
            } else {
                0
            };
            let after_n = off + 5 <= pos + k as i64;
            let fields = [
                (mode, 2),
                ((off + 8 - pos) as u64 & 0xFF, 8),
                (if after_n { 1 } else { 2 }, 2),
                ((off + 8 - pos - k as i64) as u64 & 0xFF, 8),
            ];
            let mut at = 128 * b + v * ENTRY;
            for (val, w) in fields {
                for i in 0..w {
                    t = t.replace_bit(at + i, val >> i & 1 == 1);
                }
                at += w;
            }
        }
    }
    t
}

/// The tag inserter (module documentation).
#[derive(LogicBlock)]
pub struct ProtegoTagIns<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub s_tag: Signal<In, Bits<24>>,
    pub s_skip: Signal<In, Bit>,
    pub m: AxisSource<D, K, U>,
    pub untagged: Signal<Out, Bit>,
    lanes: TagInsLanes<D, K>,
    ends_at: TagInsShort<K>,
    vlans: VlanScan<D, K>,
    step: BeatStep,
    // ---- stage 1: where the tag goes in this beat
    /// Inside a frame (the next beat is not a first one).
    mid: DffR<Bit>,
    /// The input beat's index in its frame, held at 4 (from there on every
    /// beat is behind the tag: `4K >= 32 > 20 + 5`).
    bi: DffR<Bits<3>>,
    /// A VLAN TPID at byte 12 / 16, seen in an earlier beat.
    t1_r: DFF<Bit>,
    t2_r: DFF<Bit>,
    /// The tag's five bytes, byte 0 in bits 7:0, for the frame under way;
    /// the frame passes untagged (`s_skip`).
    tag_r: DFF<Bits<40>>,
    skip_r: DFF<Bit>,
    /// The beat, registered with its lanes' controls.
    a_valid: DffR<Bit>,
    a_data: DFF<Bits<D>>,
    a_last: DFF<Bit>,
    a_user: DFF<Bits<U>>,
    a_tag: DFF<Bits<40>>,
    a_mode: DFF<Bits<2>>,
    a_dd: DFF<Bits<8>>,
    a_keep: DFF<Bits<K>>,
    /// An extra beat follows this last one, with `tkeep` `a_xkeep` and lanes
    /// `a_xmode`/`a_xdd`; the frame went untagged.
    a_extra: DFF<Bit>,
    a_xkeep: DFF<Bits<K>>,
    a_xmode: DFF<Bits<2>>,
    a_xdd: DFF<Bits<8>>,
    a_untagged: DFF<Bit>,
    // ---- stage 2: the lanes
    /// The last five bytes of the beat before stage 1's.
    carry: DFF<Bits<40>>,
    o_valid: DffR<Bit>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_last: DFF<Bit>,
    o_user: DFF<Bits<U>>,
    short_r: DffR<Bit>,
    // ---- combinational
    first: Signal<Local, Bit>,
    tagnow: Signal<Local, Bits<40>>,
    skipnow: Signal<Local, Bit>,
    /// [`ENTRY`]: the insertion point's entry of [`Self::c_tab`] for this
    /// beat, for each of the three points (`e0` none, `e1` one VLAN tag,
    /// `e2` two) and the one that holds.
    /// The beat's entries' first bit, `128 bi` (10 bits: the shift is
    /// written on a value wide enough to hold it).
    ti: Signal<Local, Bits<10>>,
    e0: Signal<Local, Bits<20>>,
    e1: Signal<Local, Bits<20>>,
    e2: Signal<Local, Bits<20>>,
    e: Signal<Local, Bits<20>>,
    sh0: Signal<Local, Bit>,
    sh1: Signal<Local, Bit>,
    sh2: Signal<Local, Bit>,
    short: Signal<Local, Bit>,
    /// The input's last lanes with the tag's five before them, packed
    /// (`keep << 5 | 0x1F`), and what overflows into the extra beat
    /// (`keep >> (K − 5)`).
    keep5: Signal<Local, Bits<K>>,
    keepx: Signal<Local, Bits<K>>,
    tg: Signal<Local, Bit>,
    okeep: Signal<Local, Bits<K>>,
    /// Stage 2 takes stage 1's beat / the extra beat goes; stage 1 loads.
    b_take: Signal<Local, Bit>,
    b_free: Signal<Local, Bit>,
    a_free: Signal<Local, Bit>,
    // ---- constants (the bus's geometry, as `Constant`s: issue 39)
    c_ones: Constant<Bits<K>>,
    c_five: Constant<Bits<K>>,
    /// `K − 5`: a last beat with lane `K − 5` overflows with the tag.
    c_k5sh: Constant<Bits<8>>,
    /// Per beat index `b` (0..=4) and insertion point `12 + 4v`, the entry
    /// at bit `128b + 20v` ([`ENTRY`] bits; 128 so the index is a shift,
    /// not a multiplier): the lanes' controls, computed here.
    c_tab: Constant<Bits<640>>,
    /// The bit offset of the beat's last five bytes.
    c_tail: Constant<Bits<16>>,
    c_proto: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const U: usize> Default for ProtegoTagIns<D, K, U> {
    fn default() -> Self {
        assert!(K * 8 == D && (8..=64).contains(&K), "ProtegoTagIns: K = D / 8 in 8..=64");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            s_tag: Default::default(),
            s_skip: Default::default(),
            m: Default::default(),
            untagged: Default::default(),
            lanes: Default::default(),
            ends_at: Default::default(),
            vlans: Default::default(),
            step: Default::default(),
            mid: Default::default(),
            bi: Default::default(),
            t1_r: Default::default(),
            t2_r: Default::default(),
            tag_r: Default::default(),
            skip_r: Default::default(),
            a_valid: Default::default(),
            a_data: Default::default(),
            a_last: Default::default(),
            a_user: Default::default(),
            a_tag: Default::default(),
            a_mode: Default::default(),
            a_dd: Default::default(),
            a_keep: Default::default(),
            a_extra: Default::default(),
            a_xkeep: Default::default(),
            a_xmode: Default::default(),
            a_xdd: Default::default(),
            a_untagged: Default::default(),
            carry: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            short_r: Default::default(),
            first: Default::default(),
            tagnow: Default::default(),
            skipnow: Default::default(),
            ti: Default::default(),
            e0: Default::default(),
            e1: Default::default(),
            e2: Default::default(),
            e: Default::default(),
            sh0: Default::default(),
            sh1: Default::default(),
            sh2: Default::default(),
            short: Default::default(),
            keep5: Default::default(),
            keepx: Default::default(),
            tg: Default::default(),
            okeep: Default::default(),
            b_take: Default::default(),
            b_free: Default::default(),
            a_free: Default::default(),
            c_ones: Constant::new(Bits::<K>::mask()),
            c_five: Constant::new(0x1Fu64.to_bits()),
            c_k5sh: Constant::new((K - TAG_BYTES).to_bits()),
            c_tab: Constant::new(table(K)),
            c_tail: Constant::new((8 * (K - TAG_BYTES)).to_bits()),
            c_proto: Constant::new(wire16(ethertype::PROTEGO).to_bits()),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for ProtegoTagIns<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, mid, bi, t1_r, t2_r, tag_r, skip_r, a_valid, a_data, a_last, a_user, a_tag, a_mode, a_dd, a_keep, a_extra,
            a_xkeep, a_xmode, a_xdd, a_untagged, carry, o_valid, o_data, o_keep, o_last, o_user, short_r
        );
        self.mid.reset.next = self.reset.val();
        self.bi.reset.next = self.reset.val();
        self.a_valid.reset.next = self.reset.val();
        self.o_valid.reset.next = self.reset.val();
        self.short_r.reset.next = self.reset.val();
        // ================================================= stage 1
        self.first.next = !self.mid.q.val();
        // The tag: 0x88B6, then `s_tag`'s three bytes (type/era, seq high,
        // seq low), byte 0 in bits 7:0.
        self.tagnow.next = self.tag_r.q.val();
        self.skipnow.next = self.skip_r.q.val();
        if self.first.val() {
            self.skipnow.next = self.s_skip.val();
            self.tagnow.next = bit_cast::<40, 16>(self.c_proto.val())
                | (bit_cast::<40, 8>(self.s_tag.val().get_bits::<8>(16)) << 16)
                | (bit_cast::<40, 8>(self.s_tag.val().get_bits::<8>(8)) << 24)
                | (bit_cast::<40, 8>(self.s_tag.val().get_bits::<8>(0)) << 32);
        }
        // The VLAN tags: from this beat where it holds their TPIDs, else as
        // an earlier beat found them (a value left from the frame before
        // only reaches beats that end before byte 12 or 16, where the three
        // insertion points give the same lanes).
        self.vlans.tdata_lanes.next = self.s.tdata.val();
        self.vlans.tkeep_lanes.next = self.s.tkeep.val();
        self.vlans.bi.next = self.bi.q.val();
        self.vlans.t1_r.next = self.t1_r.q.val();
        self.vlans.t2_r.next = self.t2_r.q.val();
        self.step.a.next = self.bi.q.val();
        // The beat's entry for each insertion point (from the beat index, a
        // register), then the one the VLAN tags choose.
        self.ti.next = bit_cast::<10, 3>(self.bi.q.val()) << 7;
        self.e0.next = self.c_tab.val().get_bits::<20>(self.ti.val().index());
        self.e1.next = self.c_tab.val().get_bits::<20>(self.ti.val().index() + 20);
        self.e2.next = self.c_tab.val().get_bits::<20>(self.ti.val().index() + 40);
        // A last beat that ends at or before the insertion point leaves the
        // frame untagged; else the frame is tagged from the beat that holds
        // the point on. Each for the three points beside each other, then
        // the one the VLAN tags choose.
        self.ends_at.tkeep_lanes.next = self.s.tkeep.val();
        self.ends_at.bi.next = self.bi.q.val();
        self.sh0.next = self.s.tlast.val() & self.ends_at.ends.val().get_bit(0);
        self.sh1.next = self.s.tlast.val() & self.ends_at.ends.val().get_bit(1);
        self.sh2.next = self.s.tlast.val() & self.ends_at.ends.val().get_bit(2);
        self.e.next = self.e0.val();
        self.short.next = self.sh0.val();
        if self.vlans.t1.val() {
            self.e.next = self.e1.val();
            self.short.next = self.sh1.val();
            if self.vlans.t2.val() {
                self.e.next = self.e2.val();
                self.short.next = self.sh2.val();
            }
        }
        // (A skipped frame: `tg` as for any frame, and each of its uses
        // below also tests `skipnow`, one input more in their last LUT.)
        self.tg.next = self.e.val().get_bits::<2>(0).any() & !self.short.val();
        self.keep5.next = (self.s.tkeep.val() << 5) | self.c_five.val();
        self.keepx.next = self.s.tkeep.val() >> self.c_k5sh.val();
        // The output beat's bytes: a whole beat, or the last one's `nb`
        // (plus the tag's five when it is in, at most a beat: the rest in
        // the extra beat).
        self.okeep.next = self.c_ones.val();
        if self.s.tlast.val() {
            self.okeep.next = self.s.tkeep.val();
            if self.tg.val() & !self.skipnow.val() {
                self.okeep.next = self.keep5.val();
            }
        }
        // ================================================= stage 2
        // The lanes of stage 1's beat (the extra beat is one too: the last
        // input beat's tail, in `carry`, behind the frame's tag).
        self.lanes.cur.next = self.a_data.q.val();
        self.lanes.carry.next = self.carry.q.val();
        self.lanes.tag.next = self.a_tag.q.val();
        self.lanes.mode.next = self.a_mode.q.val();
        self.lanes.dd.next = self.a_dd.q.val();
        // ================================================= handshake
        self.b_free.next = !self.o_valid.q.val() | self.m.tready.val();
        self.b_take.next = self.a_valid.q.val() & self.b_free.val();
        self.a_free.next = !self.a_valid.q.val() | (self.b_take.val() & !self.a_extra.q.val());
        self.s.tready.next = self.a_free.val();
        self.short_r.d.next = false;
        if self.b_take.val() {
            self.o_valid.d.next = true;
            self.o_data.d.next = self.lanes.data.val();
            self.o_keep.d.next = self.a_keep.q.val();
            self.o_last.d.next = self.a_last.q.val() & !self.a_extra.q.val();
            self.o_user.d.next = self.a_user.q.val();
            self.carry.d.next = self.a_data.q.val().get_bits::<40>(self.c_tail.val().index());
            self.short_r.d.next = self.a_last.q.val() & self.a_untagged.q.val();
            self.a_valid.d.next = false;
            if self.a_extra.q.val() {
                // Stage 1 now holds the extra beat (no input this cycle).
                self.a_valid.d.next = true;
                self.a_data.d.next = 0.into();
                self.a_mode.d.next = self.a_xmode.q.val();
                self.a_dd.d.next = self.a_xdd.q.val();
                self.a_keep.d.next = self.a_xkeep.q.val();
                self.a_extra.d.next = false;
                self.a_untagged.d.next = false;
            }
        } else if self.m.tready.val() {
            self.o_valid.d.next = false;
        }
        if self.s.tvalid.val() & self.a_free.val() {
            self.a_valid.d.next = true;
            self.a_data.d.next = self.s.tdata.val();
            self.a_last.d.next = self.s.tlast.val();
            self.a_user.d.next = self.s.tuser.val();
            self.a_tag.d.next = self.tagnow.val();
            self.a_mode.d.next = self.e.val().get_bits::<2>(0);
            if self.short.val() | self.skipnow.val() {
                self.a_mode.d.next = 0.into();
            }
            self.a_dd.d.next = self.e.val().get_bits::<8>(2);
            self.a_keep.d.next = self.okeep.val();
            self.a_extra.d.next =
                self.s.tlast.val() & self.tg.val() & !self.skipnow.val() & self.s.tkeep.val().get_bit(self.c_k5sh.val().index());
            self.a_xkeep.d.next = self.keepx.val();
            self.a_xmode.d.next = self.e.val().get_bits::<2>(10);
            self.a_xdd.d.next = self.e.val().get_bits::<8>(12);
            self.a_untagged.d.next = !self.tg.val() & !self.skipnow.val();
            self.tag_r.d.next = self.tagnow.val();
            self.skip_r.d.next = self.skipnow.val();
            self.t1_r.d.next = self.vlans.t1.val();
            self.t2_r.d.next = self.vlans.t2.val();
            self.bi.d.next = self.step.y.val();
            self.mid.d.next = !self.s.tlast.val();
            if self.s.tlast.val() {
                self.bi.d.next = 0.into();
            }
        }
        self.m.tvalid.next = self.o_valid.q.val();
        self.m.tdata.next = self.o_data.q.val();
        self.m.tkeep.next = self.o_keep.q.val();
        self.m.tlast.next = self.o_last.q.val();
        self.m.tuser.next = self.o_user.q.val();
        self.untagged.next = self.short_r.q.val();
    }
}
