//! `ts_parser`: builds the parsed header vector (PHV, [`crate::ingress::phv`]) of every
//! packet and hands it on beside the packet. Behaviour: `docs/ingress.md`,
//! "parser"; the golden model is `sim/src/model/parser.rs`.
//!
//! The first 128 bytes of a packet (16 beats at 64 bits, 2 at 512) are kept in a
//! window of per-beat slots while the packet itself streams into a small
//! cut-through FIFO. When the window is complete (its last slot or the
//! packet's last beat) a five-stage pipeline (seven cycles) parses it, one block per stage
//! (each registers its outputs; field positions are named in [`layout`]):
//! - S0 [`tags::ParseTags`]: the tag chain (two VLAN tags, a Protego tag),
//!   from the window masked to the frame length (`tuser.length`; bytes past
//!   it read as zero), in two cycles (the tag tests, then the fields);
//! - S1 [`align::ParseAlign`]: the L3 header aligned to byte 0 (six possible offsets);
//! - S2 [`l3::ParseL3`]: IPv4/IPv6/PL2 fields, the IPv4 checksum in eight
//!   partial sums, the L4 header aligned (twelve possible offsets);
//! - S3 [`checks::ParseChecks`]: checksum fold, lengths and offsets, every
//!   check as a flag, in two cycles (the fold to two words, then the tests);
//! - S4 [`decide::ParseDecide`]: the first failing check in specification
//!   order, the PHV fields; registered here (`r_phv`, `r_code`, `r_ok`)
//!   before the PHV FIFO and the match stage. The fields only a well-formed
//!   packet fills are cleared after the register, by `r_ok`.
//!
//! The PHV goes into a 32-entry PHV FIFO; the output joins each packet's first
//! beat with its PHV. A new packet is admitted only while fewer than 31 are
//! between input and output, so the PHV FIFO never overflows.
//!
//! Built [`Parser::with_match`], the PHV leaves on `x_phv` instead and comes
//! back on `x_res_phv` with a match result `x_res` (classify and lookup run
//! there, on the PHV alone, while the packet waits in the FIFO: the
//! match-action layout of a switch ASIC). The PHV stages must then keep order,
//! take one PHV per cycle and never stall. Every stage takes
//! one packet per cycle: back-to-back single-beat packets flow at one per cycle.
pub mod align;
pub mod checks;
pub mod decide;
pub mod l3;
pub mod layout;
pub mod pack;
pub mod tags;

pub use layout::code;
pub use pack::PhvPack;

use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::pkt_fifo::PktFifo;
use crate::ingress::phv::PHV_BITS;
use crate::meta::LENGTH_LSB;
use crate::prim::widgets::{vec_of, DffR, KeepExpand};
use layout::WIN_BITS;
use rust_hdl::prelude::*;

/// Bytes of a packet the parser reads (the deepest header stack is 103 bytes:
/// Ethernet, two VLAN tags, Protego, IPv4 with 40 bytes of options, NDP).
pub const WINDOW_BYTES: usize = 128;
/// Depth of the PHV FIFO (packets between input and output, plus one).
pub const PHV_DEPTH: usize = 32;
/// Width of the match result an external match stage returns with the PHV
/// (`m_res`; [`crate::ingress::lookup::res`]).
pub const RES_BITS: usize = 128;
/// Depth of the packet FIFO in beats.
pub const DATA_DEPTH: usize = 64;
/// Malformed reason counters (codes 1..=13 of [`crate::ingress::phv::malformed`]).
pub const REASONS: usize = crate::ingress::phv::malformed::COUNT - 1;

/// The parser. Type parameters as for [`PktFifo`] (`U` at least 32: it reads
/// `tuser.length`).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset
///   (drops packets in flight, zeroes the counters).
/// - `s_tdata` … `s_tready`: packets in; `tuser.length` must hold the packet
///   length (as `ts_rx_fcs` sets it).
/// - `m_tdata` … `m_tready`: the same packets, `tuser` unchanged, and
///   `m_phv` out: the packet's PHV, valid with every beat.
/// - `m_res` out: the match result of the packet (zero without a match stage).
/// - `x_valid`, `x_phv` out: each PHV as it is built; `x_res_valid`,
///   `x_res_phv`, `x_res` in: the PHV and its result back from the match
///   stage (only with [`Parser::with_match`]; tie them low otherwise).
/// - `pkts` out: PHVs built; `malformed_<i>` out: PHVs with reason code `i + 1`
///   (32 bits, wrap). `clr_pkts`, `clr_malformed_<i>` in: zero them.
#[derive(LogicBlock)]
pub struct Parser<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub m_phv: Signal<Out, Bits<PHV_BITS>>,
    pub m_res: Signal<Out, Bits<RES_BITS>>,
    pub x_valid: Signal<Out, Bit>,
    pub x_phv: Signal<Out, Bits<PHV_BITS>>,
    pub x_res_valid: Signal<In, Bit>,
    pub x_res_phv: Signal<In, Bits<PHV_BITS>>,
    pub x_res: Signal<In, Bits<RES_BITS>>,
    pub pkts: Signal<Out, Bits<32>>,
    pub clr_pkts: Signal<In, Bit>,
    pub malformed: Vec<Signal<Out, Bits<32>>>,
    pub clr_malformed: Vec<Signal<In, Bit>>,
    // Configuration.
    nb_slots: Constant<Bits<8>>,
    last_slot: Constant<Bits<8>>,
    slot_shift: Vec<Constant<Bits<16>>>,
    all128: Constant<Bits<WINDOW_BYTES>>,
    length_lsb: Constant<Bits<16>>,
    phv_room_m1: Constant<Bits<8>>,
    phv_room_p1: Constant<Bits<8>>,
    external: Constant<Bit>,
    res_shift: Constant<Bits<16>>,
    // Blocks.
    data: PktFifo<D, K, U, M, W>,
    phvq: PktFifo<384, 48, 8, 7, 399>,
    lexp: KeepExpand<WINDOW_BYTES, WIN_BITS>,
    // Front.
    first: DffR<Bit>,
    widx: DffR<Bits<8>>,
    go: DffR<Bit>,
    inflight: DffR<Bits<8>>,
    /// `inflight < PHV_DEPTH - 1`, registered from `inflight`'s next value
    /// (the admission test leaves the input's ready path; issue 14).
    room: DffR<Bit>,
    start_pkt: Signal<Local, Bit>,
    /// Window slot j holds beat j of the packet, already in place (bits j*D up).
    slots: Vec<DFF<Bits<WIN_BITS>>>,
    n_pkts: DffR<Bits<32>>,
    n_malformed: Vec<DffR<Bits<32>>>,
    len_l: DFF<Bits<16>>,
    /// The packet's ingress port (`tuser.src_port`), latched at its first beat.
    port_l: DFF<Bits<8>>,
    lmask_l: DFF<Bits<128>>,
    // The stages.
    tags: tags::ParseTags,
    align: align::ParseAlign,
    ip: l3::ParseL3,
    checks: checks::ParseChecks,
    decide: decide::ParseDecide,
    /// S4's registers: the PHV (its [`decide::GATED`] fields not yet
    /// cleared), its malformed code, `code == 0`, valid.
    r_pv: DffR<Bit>,
    r_phv: DFF<Bits<PHV_BITS>>,
    r_code: DFF<Bits<4>>,
    r_ok: DFF<Bit>,
    /// The PHV bits a malformed packet keeps (all but [`decide::GATED`]).
    keep_bad: Constant<Bits<PHV_BITS>>,
    /// The PHV out of S4's registers, its gated fields cleared unless `r_ok`.
    phv_s4: Signal<Local, Bits<PHV_BITS>>,
    // Combinational.
    win: Signal<Local, Bits<WIN_BITS>>,
    beat_in: Signal<Local, Bit>,
    gate: Signal<Local, Bit>,
    cur: Signal<Local, Bits<8>>,
    len_in: Signal<Local, Bits<16>>,
    pop_pkt: Signal<Local, Bit>,
    din_wide: Signal<Local, Bits<WIN_BITS>>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Default for Parser<D, K, U, M, W> {
    fn default() -> Self {
        assert!(K * 8 == D && WINDOW_BYTES.is_multiple_of(K), "Parser: D = 8K with K dividing {WINDOW_BYTES}");
        assert!(U >= LENGTH_LSB + 16, "Parser: tuser must hold length");
        let nb = WINDOW_BYTES / K;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_phv: Default::default(),
            m_res: Default::default(),
            x_valid: Default::default(),
            x_phv: Default::default(),
            x_res_valid: Default::default(),
            x_res_phv: Default::default(),
            x_res: Default::default(),
            pkts: Default::default(),
            clr_pkts: Default::default(),
            malformed: vec_of(REASONS),
            clr_malformed: vec_of(REASONS),
            nb_slots: Constant::new((nb as u64).to_bits()),
            last_slot: Constant::new(((nb - 1) as u64).to_bits()),
            slot_shift: (0..nb).map(|j| Constant::new(((j * D) as u64).to_bits())).collect(),
            all128: Constant::new(Bits::<WINDOW_BYTES>::mask()),
            length_lsb: Constant::new((LENGTH_LSB as u64).to_bits()),
            phv_room_m1: Constant::new(((PHV_DEPTH - 2) as u64).to_bits()),
            phv_room_p1: Constant::new((PHV_DEPTH as u64).to_bits()),
            external: Constant::new(false),
            res_shift: Constant::new((PHV_BITS as u64).to_bits()),
            data: PktFifo::new(DATA_DEPTH, false),
            phvq: PktFifo::new(PHV_DEPTH, false).with_spare_slot(),
            lexp: Default::default(),
            first: DffR::new(true),
            widx: Default::default(),
            go: Default::default(),
            inflight: Default::default(),
            room: DffR::new(true),
            start_pkt: Default::default(),
            slots: vec_of(nb),
            n_pkts: Default::default(),
            n_malformed: vec_of(REASONS),
            len_l: Default::default(),
            port_l: Default::default(),
            lmask_l: Default::default(),
            tags: Default::default(),
            align: Default::default(),
            ip: Default::default(),
            checks: Default::default(),
            decide: Default::default(),
            r_pv: Default::default(),
            r_phv: Default::default(),
            r_code: Default::default(),
            r_ok: Default::default(),
            keep_bad: Constant::new({
                let (lsb, w) = decide::GATED;
                let mut m = Bits::<PHV_BITS>::mask();
                for b in lsb..lsb + w {
                    m = m.replace_bit(b, false);
                }
                m
            }),
            phv_s4: Default::default(),
            win: Default::default(),
            beat_in: Default::default(),
            gate: Default::default(),
            cur: Default::default(),
            len_in: Default::default(),
            pop_pkt: Default::default(),
            din_wide: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Parser<D, K, U, M, W> {
    /// A parser whose PHVs go through an external match stage (module docs).
    pub fn with_match(mut self) -> Self {
        self.external = Constant::new(true);
        self
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for Parser<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, first, widx, go, inflight, room, n_pkts, len_l, port_l, lmask_l);
        self.first.reset.next = self.reset.val();
        self.widx.reset.next = self.reset.val();
        self.go.reset.next = self.reset.val();
        self.inflight.reset.next = self.reset.val();
        self.room.reset.next = self.reset.val();
        self.n_pkts.reset.next = self.reset.val();
        for j in 0..self.slots.len() {
            self.slots[j].clock.next = self.clock.val();
            self.slots[j].d.next = self.slots[j].q.val();
        }
        for i in 0..self.n_malformed.len() {
            self.n_malformed[i].clock.next = self.clock.val();
            self.n_malformed[i].reset.next = self.reset.val();
            self.n_malformed[i].d.next = self.n_malformed[i].q.val();
        }
        self.data.clock.next = self.clock.val();
        self.data.reset.next = self.reset.val();
        self.phvq.clock.next = self.clock.val();
        self.phvq.reset.next = self.reset.val();

        // ---- input: admission, window slots, length mask ----
        self.gate.next = !self.first.q.val() | self.room.q.val();
        self.s.tready.next = self.data.s.tready.val() & self.gate.val() & !self.reset.val();
        self.beat_in.next = self.s.tvalid.val() & self.s.tready.val();
        self.data.s.tdata.next = self.s.tdata.val();
        self.data.s.tkeep.next = self.s.tkeep.val();
        self.data.s.tlast.next = self.s.tlast.val();
        self.data.s.tuser.next = self.s.tuser.val();
        self.data.s.tvalid.next = self.s.tvalid.val() & self.gate.val() & !self.reset.val();
        self.data.s_abort.next = false;
        self.data.clear_drops.next = false;
        self.cur.next = self.widx.q.val();
        if self.first.q.val() {
            self.cur.next = 0.into();
        }
        self.din_wide.next = bit_cast::<WIN_BITS, D>(self.s.tdata.val());
        self.len_in.next = self.s.tuser.val().get_bits::<16>(self.length_lsb.val().index());
        self.go.d.next = false;
        if self.beat_in.val() {
            self.first.d.next = self.s.tlast.val();
            if self.cur.val() < self.nb_slots.val() {
                self.widx.d.next = self.cur.val() + 1;
                self.go.d.next = self.s.tlast.val() | (self.cur.val() == self.last_slot.val());
            }
        }
        // The window's slot and the length load whenever a beat is offered,
        // accepted or not (issue 14: `s_tready`, the FIFO's room and the PHV
        // count stay off the 1 024 clock enables). A beat not taken is offered
        // again unchanged and loads the same values; the slot it writes is
        // not read before it is taken: a complete window is read by S0 in
        // the cycle `go` is high, and a beat offered then writes at that
        // cycle's end.
        if self.s.tvalid.val() {
            for j in 0..self.slots.len() {
                if self.cur.val().index() == j {
                    self.slots[j].d.next = self.din_wide.val() << self.slot_shift[j].val();
                }
            }
            if self.first.q.val() {
                self.len_l.d.next = self.len_in.val();
                self.port_l.d.next = self.s.tuser.val().get_bits::<8>(0);
                if self.len_in.val() >= 128 {
                    self.lmask_l.d.next = self.all128.val();
                } else {
                    self.lmask_l.d.next = !(self.all128.val() << self.len_in.val().get_bits::<7>(0));
                }
            }
        }
        self.lexp.keep.next = self.lmask_l.q.val();
        self.win.next = 0.into();
        for j in 0..self.slots.len() {
            self.win.next = self.win.val() | self.slots[j].q.val();
        }
        self.win.next = self.win.val() & self.lexp.mask.val();

        // ---- S0..S4 ----
        self.tags.clock.next = self.clock.val();
        self.tags.reset.next = self.reset.val();
        self.tags.go.next = self.go.q.val();
        self.tags.win.next = self.win.val();
        self.tags.len.next = self.len_l.q.val();
        self.tags.port.next = self.port_l.q.val();
        self.align.clock.next = self.clock.val();
        self.align.reset.next = self.reset.val();
        self.align.s_v.next = self.tags.v.val();
        self.align.s_win.next = self.tags.win_q.val();
        self.align.s_l2_rec.next = self.tags.l2_rec.val();
        self.ip.clock.next = self.clock.val();
        self.ip.reset.next = self.reset.val();
        self.ip.s_v.next = self.align.v.val();
        self.ip.s_hdr.next = self.align.a.val();
        self.ip.s_l3_off.next = self.align.l3_off.val();
        self.ip.s_l2_rec.next = self.align.l2_rec.val();
        self.checks.clock.next = self.clock.val();
        self.checks.reset.next = self.reset.val();
        self.checks.s_v.next = self.ip.v.val();
        self.checks.s_psum.next = self.ip.psum.val();
        self.checks.s_l4o.next = self.ip.l4o.val();
        self.checks.s_ip_end.next = self.ip.ip_end.val();
        self.checks.s_l3_rec.next = self.ip.l3_rec.val();
        self.checks.s_l4b.next = self.ip.l4b.val();
        self.checks.s_l2_rec.next = self.ip.l2_rec.val();
        self.decide.flags.next = self.checks.flags.val();
        self.decide.l4_rec.next = self.checks.l4_rec.val();
        self.decide.l3_rec.next = self.checks.l3_rec.val();
        self.decide.l2_rec.next = self.checks.l2_rec.val();
        self.r_pv.clock.next = self.clock.val();
        self.r_pv.reset.next = self.reset.val();
        self.r_pv.d.next = self.checks.v.val();
        self.r_phv.clock.next = self.clock.val();
        self.r_phv.d.next = self.r_phv.q.val();
        self.r_code.clock.next = self.clock.val();
        self.r_code.d.next = self.r_code.q.val();
        self.r_ok.clock.next = self.clock.val();
        self.r_ok.d.next = self.r_ok.q.val();
        if self.checks.v.val() {
            self.r_phv.d.next = self.decide.phv.val();
            self.r_code.d.next = self.decide.code.val();
            self.r_ok.d.next = self.decide.ok.val();
        }
        self.phv_s4.next = self.r_phv.q.val();
        if !self.r_ok.q.val() {
            self.phv_s4.next = self.r_phv.q.val() & self.keep_bad.val();
        }

        // ---- PHV FIFO, counters ----
        self.x_valid.next = self.r_pv.q.val();
        self.x_phv.next = self.phv_s4.val();
        if self.external.val() {
            self.phvq.s.tdata.next =
                bit_cast::<384, PHV_BITS>(self.x_res_phv.val()) | (bit_cast::<384, RES_BITS>(self.x_res.val()) << self.res_shift.val());
            self.phvq.s.tvalid.next = self.x_res_valid.val();
        } else {
            self.phvq.s.tdata.next = bit_cast::<384, PHV_BITS>(self.phv_s4.val());
            self.phvq.s.tvalid.next = self.r_pv.q.val();
        }
        self.phvq.s.tkeep.next = 0xFFFF_FFFF_FFFF_u64.into();
        self.phvq.s.tlast.next = true;
        self.phvq.s.tuser.next = 0.into();
        self.phvq.s_abort.next = false;
        self.phvq.clear_drops.next = false;
        if self.r_pv.q.val() {
            self.n_pkts.d.next = self.n_pkts.q.val() + 1;
            for i in 0..self.n_malformed.len() {
                if self.r_code.q.val().index() == i + 1 {
                    self.n_malformed[i].d.next = self.n_malformed[i].q.val() + 1;
                }
            }
        }
        if self.clr_pkts.val() {
            self.n_pkts.d.next = 0.into();
        }
        for i in 0..self.n_malformed.len() {
            if self.clr_malformed[i].val() {
                self.n_malformed[i].d.next = 0.into();
            }
            self.malformed[i].next = self.n_malformed[i].q.val();
        }
        self.pkts.next = self.n_pkts.q.val();

        // ---- output: each packet with its PHV ----
        self.m.tdata.next = self.data.m.tdata.val();
        self.m.tkeep.next = self.data.m.tkeep.val();
        self.m.tlast.next = self.data.m.tlast.val();
        self.m.tuser.next = self.data.m.tuser.val();
        self.m_phv.next = self.phvq.m.tdata.val().get_bits::<PHV_BITS>(0);
        self.m_res.next = self.phvq.m.tdata.val().get_bits::<RES_BITS>(self.res_shift.val().index());
        self.m.tvalid.next = self.data.m.tvalid.val() & self.phvq.m.tvalid.val();
        self.data.m.tready.next = self.m.tready.val() & self.phvq.m.tvalid.val();
        self.phvq.m.tready.next = self.m.tready.val() & self.data.m.tvalid.val() & self.data.m.tlast.val();
        self.pop_pkt.next = self.m.tvalid.val() & self.m.tready.val() & self.m.tlast.val();
        // The count's next value and its room test in each variant, from the
        // registers alone; the handshake only selects (issue 14: no add and
        // compare after `m_tready`). `room` equals `inflight < PHV_DEPTH - 1`,
        // so it is the variant of an unchanged count. A packet leaves only
        // after its first beat was counted, so `inflight >= 1` at `pop_pkt`.
        self.start_pkt.next = self.beat_in.val() & self.first.q.val();
        self.inflight.d.next = self.inflight.q.val();
        self.room.d.next = self.room.q.val();
        if self.start_pkt.val() & !self.pop_pkt.val() {
            self.inflight.d.next = self.inflight.q.val() + 1;
            self.room.d.next = self.inflight.q.val() < self.phv_room_m1.val();
        }
        if self.pop_pkt.val() & !self.start_pkt.val() {
            self.inflight.d.next = self.inflight.q.val() - 1;
            self.room.d.next = self.inflight.q.val() < self.phv_room_p1.val();
        }
    }
}
