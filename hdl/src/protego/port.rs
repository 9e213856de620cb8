//! `ts_protego_port`: Protego on one switch port (`docs/protego.md`, "The
//! port"; `PL2-PROTEGO.md` B.7): the receiver side ([`ProtegoRx`], after
//! the port's `rx_fcs`), the sender side ([`ProtegoTx`], before its MAC),
//! what each tells the other (the peer's ACK, LOSS and PFC; this side's
//! LOSS, pending ACK and PFC to send), and the port's registers
//! ([`PortRegs`]) behind one AXI4-Lite window.
//!
//! With `CTRL` tx and rx off the port forwards both ways as the switch
//! without Protego: frames untouched (the receiver side passes a tagged
//! frame untagged and counts it: decision 7), PFC frames included
//! (decision 13); each side adds its store's latency.
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset
//!   (registers to the values [`PortRegs::rw_reset`] gives, frames inside
//!   dropped, counters zero; both sides clear their tables, a cycle per
//!   entry, before they take a frame).
//! - `s_axil_*`: the register window ([`PortRegs`], [`PORT_REG_BITS`]
//!   address bits).
//! - `rx_s_*` in, `rx_s_tready` out: frames from the port's `rx_fcs` (good
//!   frames, FCS removed, `tkeep` packed, `tuser` as `rx_fcs` sets it).
//! - `rx_m_*` out (registered), `rx_m_tready` in: frames for the ingress
//!   pipeline, tags removed, in Protego's order, `tuser.length` the
//!   frame's; `rx_m_bytes` (8) out: the beat's byte count.
//! - `tx_s_*` in, `tx_s_tready` out: frames for the link (from the egress
//!   rewrite: no FCS, the MAC appends it).
//! - `tx_m_*` out (registered), `tx_m_tready` in: to the MAC: DATA tagged,
//!   retransmissions, LOSS, ACK, PFC and dummy frames, in B.1's priority.
use super::rx::ProtegoRx;
use super::rx_seq::RxNotes;
use super::tx::ProtegoTx;
use crate::axil::bundle::AxilSlave;
use crate::axil::regs::AxilRegs;
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::config::{parse_mac, Config};
use crate::protego::rx::PeerNotes;
use rust_hdl::prelude::*;

/// Address bits of a port's register window (256 bytes, 64 registers).
pub const PORT_REG_BITS: usize = 8;

/// A port's registers (byte offsets; B.7). Read/write, reset from the
/// configuration's `[protego]` ([`PortRegs::rw_reset`]):
///
/// | offset | name | bits |
/// |---|---|---|
/// | 0x00 | `CTRL` | 0 tx (sender side on), 1 rx (receiver side on), 2 NB (ProtegoNB), 3 tag_drop (receiver off: a tagged frame dropped, not forwarded untagged; counted either way) |
/// | 0x04 | `COPIES` | \[1:0\] RETX copies per requested frame (Eq. 1) |
/// | 0x08 | `ACKNO_TIMEOUT` | `ackNoTimeout` in cycles (§3.5) |
/// | 0x0C | `BUF_BYTES` | \[23:0\] reordering buffer bytes (a frame that does not fit is dropped and counted) |
/// | 0x10 | `PAUSE_B` | \[23:0\] PFC pause above these buffered bytes (Alg. 2) |
/// | 0x14 | `RESUME_B` | \[23:0\] PFC resume at or below these |
/// | 0x18 | `PFC_CLASS` | \[2:0\] the class Protego pauses and obeys |
/// | 0x1C | `DUMMY_MAX` | \[7:0\] dummies after each DATA (0: no limit) |
/// | 0x20 | `MAX_HOLE` | \[7:0\] the largest hole one LOSS requests |
/// | 0x24 | `RING_BYTES` | \[23:0\] the sender's ring budget (a normal frame waits while it does not fit) |
/// | 0x28, 0x2C | `MAC_LO`, `MAC_HI` | the port's MAC (source of its control frames), \[31:0\] and \[47:32\] |
/// | 0x30 | `ACK_EVERY` | \[7:0\] with tx and rx on, normal frames after which a pending explicit ACK goes first (0: never; decision 15) |
///
/// Then, read-only from 0x34, in the order of [`PortRegs::RO`]: the
/// receiver side's state and counters, its frame store's, the sender
/// side's. Counters are 32 bits, wrapping, zero at reset (a write changes
/// nothing). A value written outside the ranges the configuration checks
/// (`crate::config::Protego`) is the host's error: the blocks use the low
/// bits the table names.
pub struct PortRegs;

impl PortRegs {
    pub const CTRL: u32 = 0x00;
    pub const COPIES: u32 = 0x04;
    pub const ACKNO_TIMEOUT: u32 = 0x08;
    pub const BUF_BYTES: u32 = 0x0C;
    pub const PAUSE_B: u32 = 0x10;
    pub const RESUME_B: u32 = 0x14;
    pub const PFC_CLASS: u32 = 0x18;
    pub const DUMMY_MAX: u32 = 0x1C;
    pub const MAX_HOLE: u32 = 0x20;
    pub const RING_BYTES: u32 = 0x24;
    pub const MAC_LO: u32 = 0x28;
    pub const MAC_HI: u32 = 0x2C;
    pub const ACK_EVERY: u32 = 0x30;
    /// `CTRL` bits.
    pub const CTRL_TX: u32 = 1;
    pub const CTRL_RX: u32 = 2;
    pub const CTRL_NB: u32 = 4;
    pub const CTRL_TAG_DROP: u32 = 8;
    /// Read/write registers.
    pub const N_RW: usize = 13;
    /// The read-only registers from [`PortRegs::RO_BASE`], in order: the
    /// receiver side's (`rx_`: `expected` and `ack_no` as 17-bit numbers,
    /// era in bit 16; `buf_used`, `buf_high` in bytes; `dly_min`/`dly_max`
    /// the retransmission delay in cycles, 0xFFFFFFFF and 0 until a copy
    /// arrived), its store's (`rx_ring_used` words, `rx_held` frames,
    /// `rx_ring_high` words), the sender side's (`tx_`: `ring_used` and
    /// `ring_high` in bytes, `next_seq` 17 bits, `paused` 1 bit,
    /// `ring_words`, `ring_frames` the store's). Meanings:
    /// `docs/protego.md`, "Counters".
    pub const RO: [&'static str; 45] = [
        "rx_expected",
        "rx_ack_no",
        "rx_buf_used",
        "rx_data",
        "rx_retx",
        "rx_dummy",
        "rx_delivered",
        "rx_lost",
        "rx_recovered",
        "rx_duplicates",
        "rx_timeouts",
        "rx_pauses",
        "rx_resumes",
        "rx_untagged",
        "rx_tag_off",
        "rx_truncated",
        "rx_resync",
        "rx_buffer_drop",
        "rx_buf_high",
        "rx_dly_min",
        "rx_dly_max",
        "rx_ring_used",
        "rx_held",
        "rx_ring_high",
        "tx_data",
        "tx_retx",
        "tx_dummy",
        "tx_ack_explicit",
        "tx_ack_piggy",
        "tx_loss_sent",
        "tx_pfc_sent",
        "tx_ack_rx",
        "tx_loss_rx",
        "tx_loss_stale",
        "tx_freed",
        "tx_untaggable",
        "tx_retx_frames",
        "tx_paused_cycles",
        "tx_ring_used",
        "tx_ring_high",
        "tx_next_seq",
        "tx_paused",
        "tx_ring_words",
        "tx_ring_frames",
        "tx_keepalives",
    ];
    /// What each of [`PortRegs::RO`] holds (the register map's words).
    pub const RO_DOC: [&'static str; 45] = [
        "the receiver's next expected sequence number (17 bits: era in bit 16)",
        "the receiver's ackNo, the highest number delivered in order (17 bits)",
        "bytes in the reordering buffer now",
        "DATA frames received (counter)",
        "RETX copies received (counter)",
        "dummy frames received (counter)",
        "frames delivered to the ingress pipeline (counter)",
        "sequence numbers found missing (counter)",
        "missing numbers a RETX copy filled (counter)",
        "copies removed as duplicates (counter)",
        "numbers skipped by ackNoTimeout (counter; each a frame lost for good)",
        "PFC pauses sent (Alg. 2) (counter)",
        "PFC resumes sent (counter)",
        "untagged frames passed on untouched (counter)",
        "tagged frames while the receiver side is off (forwarded untagged; counter)",
        "control frames too short to parse, dropped (counter)",
        "re-synchronisations on a DATA behind `expected` or far outside the window: the peer restarted (counter)",
        "frames that did not fit in BUF_BYTES, dropped (counter)",
        "high-water mark of the reordering buffer, bytes",
        "fewest cycles from a loss detected to its RETX copy received (0xFFFFFFFF until one)",
        "most such cycles (0 until one)",
        "the frame store's words in use now",
        "frames in the frame store now",
        "high-water mark of the frame store, words",
        "DATA frames sent (counter)",
        "RETX copies sent (counter)",
        "dummy frames sent (counter)",
        "explicit ACK frames sent (counter)",
        "ACKs piggybacked on DATA (counter)",
        "LOSS notifications sent (counter)",
        "PFC frames sent (counter)",
        "ACKs received from the peer (counter)",
        "LOSS notifications received from the peer (counter)",
        "requested numbers no longer in the ring (counter)",
        "frames freed from the ring by an ACK (counter)",
        "frames sent untagged: no EtherType to tag (counter)",
        "frames retransmitted (each counted once, whatever COPIES) (counter)",
        "cycles a normal frame waited for a PFC pause (counter)",
        "bytes in the sender's ring now",
        "high-water mark of the sender's ring, bytes",
        "the next sequence number (17 bits)",
        "1 while the peer's PFC pause holds",
        "the sender's store's words in use now",
        "frames in the sender's store now",
        "keepalives: ACKNO_TIMEOUT quiet with frames waiting for their ACK, the dummies started again asking for one (decision 16; counter)",
    ];
    /// The first read-only register.
    pub const RO_BASE: u32 = 4 * Self::N_RW as u32;

    /// The byte offset of read-only register `name` of [`PortRegs::RO`].
    pub fn ro(name: &str) -> Option<u32> {
        Self::RO.iter().position(|n| *n == name).map(|i| Self::RO_BASE + 4 * i as u32)
    }

    /// Reset values of the read/write registers, from `cfg.protego` (the
    /// port's MAC: `ingress.router_mac`).
    pub fn rw_reset(cfg: &Config) -> Vec<u32> {
        let p = &cfg.protego;
        let mac = parse_mac(&cfg.ingress.router_mac).expect("validated router_mac");
        let ctrl = if p.enable { Self::CTRL_TX | Self::CTRL_RX } else { 0 }
            | if p.mode == "nb" { Self::CTRL_NB } else { 0 }
            | if p.tag_off == "drop" { Self::CTRL_TAG_DROP } else { 0 };
        vec![
            ctrl,
            p.copies,
            (p.ack_timeout_us * cfg.target.clock_mhz).round() as u32,
            p.buffer_bytes,
            p.pause_bytes,
            p.resume_bytes,
            p.pfc_class,
            p.dummy_max,
            p.max_hole,
            p.tx_ring_bytes.min((1 << 24) - 1),
            mac as u32,
            (mac >> 32) as u32,
            p.ack_every,
        ]
    }
}

const _: () = assert!(PortRegs::ACK_EVERY as usize == 4 * (PortRegs::N_RW - 1));
const _: () = assert!(4 * (PortRegs::N_RW + PortRegs::RO.len()) <= 1 << PORT_REG_BITS);

/// Protego on one port (module documentation).
#[derive(LogicBlock)]
pub struct ProtegoPort<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil: AxilSlave<PORT_REG_BITS>,
    pub rx_s: AxisSink<D, K, U>,
    pub rx_m: AxisSource<D, K, U>,
    pub rx_m_bytes: Signal<Out, Bits<8>>,
    pub tx_s: AxisSink<D, K, U>,
    pub tx_m: AxisSource<D, K, U>,
    rx: ProtegoRx<D, K, U>,
    tx: ProtegoTx<D, K, U>,
    regs: AxilRegs<PORT_REG_BITS>,
}

impl<const D: usize, const K: usize, const U: usize> ProtegoPort<D, K, U> {
    /// The port `cfg` describes (`[protego]`: the tables' sizes, the
    /// registers' reset values; `datapath.data_width` is `D`).
    pub fn new(cfg: &Config) -> Self {
        let p = &cfg.protego;
        assert_eq!(cfg.datapath.data_width, D, "ProtegoPort: data_width");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            rx_s: Default::default(),
            rx_m: Default::default(),
            rx_m_bytes: Default::default(),
            tx_s: Default::default(),
            tx_m: Default::default(),
            rx: ProtegoRx::new(p.rx_slots as usize, p.miss_slots as usize, p.rx_ring_bytes as usize / K, p.rx_frames as usize),
            tx: ProtegoTx::new(p.tx_ring_bytes as usize / K, p.tx_frames as usize),
            regs: AxilRegs::new(&PortRegs::rw_reset(cfg), PortRegs::RO.len()),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for ProtegoPort<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        self.rx.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        self.tx.clock.next = self.clock.val();
        self.tx.reset.next = self.reset.val();
        self.regs.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        AxilSlave::<PORT_REG_BITS>::link(&mut self.s_axil, &mut self.regs.s_axil);
        // The data paths.
        AxisSink::<D, K, U>::link(&mut self.rx_s, &mut self.rx.s);
        AxisSource::<D, K, U>::link(&mut self.rx_m, &mut self.rx.m);
        self.rx_m_bytes.next = self.rx.m_bytes.val();
        AxisSink::<D, K, U>::link(&mut self.tx_s, &mut self.tx.s);
        AxisSource::<D, K, U>::link(&mut self.tx_m, &mut self.tx.m);
        // What the receiver side tells the sender side.
        PeerNotes::join(&mut self.rx.peer, &mut self.tx.peer);
        RxNotes::join(&mut self.rx.note, &mut self.tx.note);
        // The registers (indices: PortRegs offsets / 4).
        self.rx.tx_en.next = self.regs.rw[0].val().get_bit(0);
        self.rx.cfg.rx_en.next = self.regs.rw[0].val().get_bit(1);
        self.rx.cfg.nb.next = self.regs.rw[0].val().get_bit(2);
        self.rx.cfg.tag_drop.next = self.regs.rw[0].val().get_bit(3);
        self.tx.tcfg.tx_en.next = self.regs.rw[0].val().get_bit(0);
        self.tx.tcfg.rx_en.next = self.regs.rw[0].val().get_bit(1);
        self.tx.tcfg.copies.next = self.regs.rw[1].val().get_bits::<2>(0);
        self.rx.cfg.ack_timeout.next = self.regs.rw[2].val();
        self.tx.tcfg.ka_cycles.next = self.regs.rw[2].val();
        self.rx.cfg.buf_bytes.next = self.regs.rw[3].val().get_bits::<24>(0);
        self.rx.cfg.pause_bytes.next = self.regs.rw[4].val().get_bits::<24>(0);
        self.rx.cfg.resume_bytes.next = self.regs.rw[5].val().get_bits::<24>(0);
        self.rx.pfc_class.next = self.regs.rw[6].val().get_bits::<3>(0);
        self.tx.tcfg.pfc_class.next = self.regs.rw[6].val().get_bits::<3>(0);
        self.tx.tcfg.dummy_max.next = self.regs.rw[7].val().get_bits::<8>(0);
        self.rx.cfg.max_hole.next = self.regs.rw[8].val().get_bits::<8>(0);
        self.tx.tcfg.ring_bytes.next = self.regs.rw[9].val().get_bits::<24>(0);
        self.tx.tcfg.mac.next =
            bit_cast::<48, 32>(self.regs.rw[10].val()) | (bit_cast::<48, 16>(self.regs.rw[11].val().get_bits::<16>(0)) << 32);
        self.tx.tcfg.ack_every.next = self.regs.rw[12].val().get_bits::<8>(0);
        // Read-only, in the order of PortRegs::RO.
        self.regs.ro[0].next = bit_cast::<32, 17>(self.rx.stats.expected.val());
        self.regs.ro[1].next = bit_cast::<32, 17>(self.rx.stats.ack_no.val());
        self.regs.ro[2].next = bit_cast::<32, 24>(self.rx.stats.buf_used.val());
        self.regs.ro[3].next = self.rx.stats.n_data.val();
        self.regs.ro[4].next = self.rx.stats.n_retx.val();
        self.regs.ro[5].next = self.rx.stats.n_dummy.val();
        self.regs.ro[6].next = self.rx.stats.n_delivered.val();
        self.regs.ro[7].next = self.rx.stats.n_lost.val();
        self.regs.ro[8].next = self.rx.stats.n_recovered.val();
        self.regs.ro[9].next = self.rx.stats.n_duplicates.val();
        self.regs.ro[10].next = self.rx.stats.n_timeouts.val();
        self.regs.ro[11].next = self.rx.stats.n_pauses.val();
        self.regs.ro[12].next = self.rx.stats.n_resumes.val();
        self.regs.ro[13].next = self.rx.stats.n_untagged.val();
        self.regs.ro[14].next = self.rx.stats.n_tag_off.val();
        self.regs.ro[15].next = self.rx.stats.n_truncated.val();
        self.regs.ro[16].next = self.rx.stats.n_resync.val();
        self.regs.ro[17].next = self.rx.stats.n_buffer_drop.val();
        self.regs.ro[18].next = self.rx.stats.buf_high.val();
        self.regs.ro[19].next = self.rx.stats.dly_min.val();
        self.regs.ro[20].next = self.rx.stats.dly_max.val();
        self.regs.ro[21].next = bit_cast::<32, 16>(self.rx.ring_used.val());
        self.regs.ro[22].next = bit_cast::<32, 16>(self.rx.held.val());
        self.regs.ro[23].next = bit_cast::<32, 16>(self.rx.ring_high.val());
        self.regs.ro[24].next = self.tx.tstats.n_data.val();
        self.regs.ro[25].next = self.tx.tstats.n_retx.val();
        self.regs.ro[26].next = self.tx.tstats.n_dummy.val();
        self.regs.ro[27].next = self.tx.tstats.n_ack_explicit.val();
        self.regs.ro[28].next = self.tx.tstats.n_ack_piggy.val();
        self.regs.ro[29].next = self.tx.tstats.n_loss_sent.val();
        self.regs.ro[30].next = self.tx.tstats.n_pfc_sent.val();
        self.regs.ro[31].next = self.tx.tstats.n_ack_rx.val();
        self.regs.ro[32].next = self.tx.tstats.n_loss_rx.val();
        self.regs.ro[33].next = self.tx.tstats.n_loss_stale.val();
        self.regs.ro[34].next = self.tx.tstats.n_freed.val();
        self.regs.ro[35].next = self.tx.tstats.n_untaggable.val();
        self.regs.ro[36].next = self.tx.tstats.n_retx_frames.val();
        self.regs.ro[37].next = self.tx.tstats.n_paused.val();
        self.regs.ro[38].next = bit_cast::<32, 24>(self.tx.tstats.ring_used.val());
        self.regs.ro[39].next = self.tx.tstats.ring_high.val();
        self.regs.ro[40].next = bit_cast::<32, 17>(self.tx.tstats.next_seq.val());
        self.regs.ro[41].next = 0.into();
        if self.tx.tstats.paused.val() {
            self.regs.ro[41].next = 1.into();
        }
        self.regs.ro[42].next = bit_cast::<32, 16>(self.tx.tstats.ring_words.val());
        self.regs.ro[43].next = bit_cast::<32, 16>(self.tx.tstats.ring_frames.val());
        self.regs.ro[44].next = self.tx.tstats.n_keepalive.val();
    }
}
