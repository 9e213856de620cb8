//! `ts_gmii_tx`, `ts_gmii_rx`: a 1G Ethernet MAC on GMII (IEEE 802.3 clause
//! 35: 8 bits per cycle at 125 MHz, `TX_EN`/`TX_ER`, `RX_DV`/`RX_ER`), for
//! boards with 1G PHYs (the ECP5 board's RGMII PHYs, behind the DDR layer
//! [`super::rgmii`]). The frame format is 802.3 clause 4's, as for the 10G
//! MACs: preamble (seven 0x55) and SFD (0xD5), the frame padded to 60
//! bytes, the FCS (4.2.9), and an inter-frame gap of at least 12 byte times
//! (4.4.2, 96 bit times).
//!
//! The FCS runs a byte per cycle through a 256-entry table (the register
//! shifted right by 8, XOR the table at the low byte XOR the data byte):
//! one ROM read and two XORs a cycle, well inside 125 MHz.
use crate::prim::crc::crc32_update;
use crate::prim::widgets::DffR;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// The shortest frame, the FCS included (4.2.4.2.2).
pub const MIN_FRAME: u64 = 64;

/// The byte-wise CRC table: entry `i` is the register change of a byte `i`
/// entering a zero register (the reflected CRC-32 of 4.2.9).
fn crc_table() -> BTreeMap<Bits<8>, Bits<32>> {
    (0..256u64)
        .map(|i| {
            // crc32_update runs from a given state: from 0, one byte `i`
            // gives exactly the table entry (the complement is the caller's).
            let v = crc32_update(0, &[i as u8]) as u64;
            (i.to_bits(), v.to_bits())
        })
        .collect()
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Tx {
    Idle,
    Pre,
    Data,
    Pad,
    Fcs,
    Ifg,
    /// Taking and dropping the rest of a cut frame.
    Drain,
}

/// A 1G transmit MAC on GMII (module docs).
///
/// Ports:
/// - `clock`, `reset`: the GMII transmit clock (125 MHz); synchronous
///   active-high reset (idle out, counters zero).
/// - `s_tdata` (8), `s_tlast`, `s_tuser`, `s_tvalid` in, `s_tready` out: the
///   frame without its FCS, a byte per beat. A frame must arrive without
///   gaps once started: a cycle with `s_tready` high and `s_tvalid` low
///   inside a frame is an underrun, and `s_tuser` on a byte marks an error
///   the sender knows of; either sends that byte time with `TX_ER` (35.2.2.5:
///   the receiver drops the frame), ends the frame and takes and drops its
///   rest. A frame of fewer than 60 bytes is padded with zeros.
/// - `txd` (8), `tx_en`, `tx_er` out, registered: the GMII.
/// - `frames`, `bytes` out (32 bits, wrap): frames sent whole and their
///   bytes from the destination address to the FCS; `underruns`, `errors`
///   out: frames cut for an underrun and for `s_tuser`.
#[derive(LogicBlock)]
pub struct GmiiTx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_tdata: Signal<In, Bits<8>>,
    pub s_tlast: Signal<In, Bit>,
    pub s_tuser: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tready: Signal<Out, Bit>,
    pub txd: Signal<Out, Bits<8>>,
    pub tx_en: Signal<Out, Bit>,
    pub tx_er: Signal<Out, Bit>,
    pub frames: Signal<Out, Bits<32>>,
    pub bytes: Signal<Out, Bits<32>>,
    pub underruns: Signal<Out, Bits<32>>,
    pub errors: Signal<Out, Bits<32>>,
    crc_rom: ROM<Bits<32>, 8>,
    st: DffR<Tx>,
    /// Bytes of the current state (preamble, frame, FCS, gap).
    cnt: DffR<Bits<16>>,
    crc: DffR<Bits<32>>,
    txd_q: DffR<Bits<8>>,
    txen_q: DffR<Bit>,
    txer_q: DffR<Bit>,
    n_frames: DffR<Bits<32>>,
    n_bytes: DffR<Bits<32>>,
    n_under: DffR<Bits<32>>,
    n_err: DffR<Bits<32>>,
    /// The byte going out this cycle (frame or padding) and its CRC.
    tx_byte: Signal<Local, Bits<8>>,
    crc_next: Signal<Local, Bits<32>>,
}

impl Default for GmiiTx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: Default::default(),
            s_tlast: Default::default(),
            s_tuser: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            txd: Default::default(),
            tx_en: Default::default(),
            tx_er: Default::default(),
            frames: Default::default(),
            bytes: Default::default(),
            underruns: Default::default(),
            errors: Default::default(),
            crc_rom: ROM::new(crc_table()),
            st: DffR::new(Tx::Idle),
            cnt: Default::default(),
            crc: Default::default(),
            txd_q: Default::default(),
            txen_q: Default::default(),
            txer_q: Default::default(),
            n_frames: Default::default(),
            n_bytes: Default::default(),
            n_under: Default::default(),
            n_err: Default::default(),
            tx_byte: Default::default(),
            crc_next: Default::default(),
        }
    }
}

impl Logic for GmiiTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, st, cnt, crc, txd_q, txen_q, txer_q, n_frames, n_bytes, n_under, n_err);
        self.st.reset.next = self.reset.val();
        self.cnt.reset.next = self.reset.val();
        self.crc.reset.next = self.reset.val();
        self.txd_q.reset.next = self.reset.val();
        self.txen_q.reset.next = self.reset.val();
        self.txer_q.reset.next = self.reset.val();
        self.n_frames.reset.next = self.reset.val();
        self.n_bytes.reset.next = self.reset.val();
        self.n_under.reset.next = self.reset.val();
        self.n_err.reset.next = self.reset.val();

        self.tx_byte.next = self.s_tdata.val();
        if self.st.q.val() == Tx::Pad {
            self.tx_byte.next = 0.into();
        }
        self.crc_rom.address.next = self.crc.q.val().get_bits::<8>(0) ^ self.tx_byte.val();
        self.crc_next.next = (self.crc.q.val() >> 8) ^ self.crc_rom.data.val();
        self.s_tready.next = false;
        self.txen_q.d.next = false;
        self.txer_q.d.next = false;
        self.txd_q.d.next = 0.into();
        self.cnt.d.next = self.cnt.q.val() + 1;

        match self.st.q.val() {
            Tx::Idle => {
                self.cnt.d.next = 0.into();
                if self.s_tvalid.val() & !self.reset.val() {
                    self.st.d.next = Tx::Pre;
                }
            }
            Tx::Pre => {
                self.txen_q.d.next = true;
                self.txd_q.d.next = 0x55.into();
                if self.cnt.q.val() == 7 {
                    self.txd_q.d.next = 0xD5.into();
                    self.cnt.d.next = 0.into();
                    self.crc.d.next = 0xFFFF_FFFF_u64.into();
                    self.st.d.next = Tx::Data;
                }
            }
            Tx::Data => {
                self.s_tready.next = true;
                self.txen_q.d.next = true;
                self.txd_q.d.next = self.s_tdata.val();
                self.crc.d.next = self.crc_next.val();
                if !self.s_tvalid.val() | self.s_tuser.val() {
                    // Cut: this byte time carries TX_ER.
                    self.txer_q.d.next = true;
                    if !self.s_tvalid.val() {
                        self.n_under.d.next = self.n_under.q.val() + 1;
                    } else {
                        self.n_err.d.next = self.n_err.q.val() + 1;
                    }
                    self.cnt.d.next = 0.into();
                    self.st.d.next = Tx::Drain;
                    if self.s_tvalid.val() & self.s_tlast.val() {
                        self.st.d.next = Tx::Ifg;
                    }
                } else if self.s_tlast.val() {
                    if self.cnt.q.val() < 59 {
                        self.st.d.next = Tx::Pad;
                    } else {
                        self.n_bytes.d.next = self.n_bytes.q.val() + bit_cast::<32, 16>(self.cnt.q.val()) + 5;
                        self.cnt.d.next = 0.into();
                        self.st.d.next = Tx::Fcs;
                    }
                }
            }
            Tx::Pad => {
                self.txen_q.d.next = true;
                self.crc.d.next = self.crc_next.val();
                if self.cnt.q.val() == 59 {
                    self.n_bytes.d.next = self.n_bytes.q.val() + 64;
                    self.cnt.d.next = 0.into();
                    self.st.d.next = Tx::Fcs;
                }
            }
            Tx::Fcs => {
                // The complemented register, low byte first (4.2.9).
                self.txen_q.d.next = true;
                self.txd_q.d.next = !self.crc.q.val().get_bits::<8>(0);
                self.crc.d.next = self.crc.q.val() >> 8;
                if self.cnt.q.val() == 3 {
                    self.n_frames.d.next = self.n_frames.q.val() + 1;
                    self.cnt.d.next = 0.into();
                    self.st.d.next = Tx::Ifg;
                }
            }
            Tx::Ifg => {
                // 12 idle byte times on the wire: 11 here, one in Idle.
                if self.cnt.q.val() == 10 {
                    self.st.d.next = Tx::Idle;
                }
            }
            Tx::Drain => {
                self.s_tready.next = true;
                self.cnt.d.next = 0.into();
                if self.s_tvalid.val() & self.s_tlast.val() {
                    self.st.d.next = Tx::Ifg;
                }
            }
        }
        self.txd.next = self.txd_q.q.val();
        self.tx_en.next = self.txen_q.q.val();
        self.tx_er.next = self.txer_q.q.val();
        self.frames.next = self.n_frames.q.val();
        self.bytes.next = self.n_bytes.q.val();
        self.underruns.next = self.n_under.q.val();
        self.errors.next = self.n_err.q.val();
    }
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
enum Rx {
    Idle,
    Pre,
    Data,
    /// The rest of a frame already ended (a jabber, a bad preamble).
    Drop,
}

/// A 1G receive MAC on GMII (module docs).
///
/// Ports:
/// - `clock`, `reset`: the GMII receive clock; synchronous active-high reset.
/// - `rxd` (8), `rx_dv`, `rx_er` in: the GMII.
/// - `max_bytes` in (16 bits): the longest frame taken whole, FCS included.
/// - `m_tdata` (8), `m_tlast`, `m_tuser`, `m_tvalid` out, registered: the
///   frame from the destination address to the FCS (kept), a byte per beat,
///   no back-pressure; `m_tuser` on the last byte: drop this frame. A frame
///   is counted once, in the first of these that holds: `errors` (a
///   preamble byte other than 0x55 before the SFD, or `RX_ER` with `RX_DV`,
///   35.2.2.8), `jabbers` (longer than `max_bytes`: the byte past the limit
///   is the packet's last, flagged, the rest dropped), `runts` (below 64 bytes; a
///   frame of no bytes leaves no packet), `fcs_errors`, else `frames` and
///   `bytes`. Preambles of any length (0x55 bytes, clause 35 lets a PHY eat
///   some) before the SFD are taken.
#[derive(LogicBlock)]
pub struct GmiiRx {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rxd: Signal<In, Bits<8>>,
    pub rx_dv: Signal<In, Bit>,
    pub rx_er: Signal<In, Bit>,
    pub max_bytes: Signal<In, Bits<16>>,
    pub m_tdata: Signal<Out, Bits<8>>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub frames: Signal<Out, Bits<32>>,
    pub bytes: Signal<Out, Bits<32>>,
    pub fcs_errors: Signal<Out, Bits<32>>,
    pub runts: Signal<Out, Bits<32>>,
    pub jabbers: Signal<Out, Bits<32>>,
    pub errors: Signal<Out, Bits<32>>,
    crc_rom: ROM<Bits<32>, 8>,
    residue: Constant<Bits<32>>,
    // The GMII registered.
    i_d: DffR<Bits<8>>,
    i_dv: DffR<Bit>,
    i_er: DffR<Bit>,
    st: DffR<Rx>,
    crc: DffR<Bits<32>>,
    cnt: DffR<Bits<16>>,
    bad: DffR<Bit>,
    /// The byte held until the next shows whether it is the last.
    h_v: DffR<Bit>,
    h_d: DffR<Bits<8>>,
    o_v: DffR<Bit>,
    o_d: DffR<Bits<8>>,
    o_last: DffR<Bit>,
    o_user: DffR<Bit>,
    n_frames: DffR<Bits<32>>,
    n_bytes: DffR<Bits<32>>,
    n_fcs: DffR<Bits<32>>,
    n_runt: DffR<Bits<32>>,
    n_jab: DffR<Bits<32>>,
    n_err: DffR<Bits<32>>,
    crc_next: Signal<Local, Bits<32>>,
    runt: Signal<Local, Bit>,
}

impl Default for GmiiRx {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rxd: Default::default(),
            rx_dv: Default::default(),
            rx_er: Default::default(),
            max_bytes: Default::default(),
            m_tdata: Default::default(),
            m_tlast: Default::default(),
            m_tuser: Default::default(),
            m_tvalid: Default::default(),
            frames: Default::default(),
            bytes: Default::default(),
            fcs_errors: Default::default(),
            runts: Default::default(),
            jabbers: Default::default(),
            errors: Default::default(),
            crc_rom: ROM::new(crc_table()),
            residue: Constant::new((crate::prim::crc::RESIDUE as u64).to_bits()),
            i_d: Default::default(),
            i_dv: Default::default(),
            i_er: Default::default(),
            st: DffR::new(Rx::Idle),
            crc: Default::default(),
            cnt: Default::default(),
            bad: Default::default(),
            h_v: Default::default(),
            h_d: Default::default(),
            o_v: Default::default(),
            o_d: Default::default(),
            o_last: Default::default(),
            o_user: Default::default(),
            n_frames: Default::default(),
            n_bytes: Default::default(),
            n_fcs: Default::default(),
            n_runt: Default::default(),
            n_jab: Default::default(),
            n_err: Default::default(),
            crc_next: Default::default(),
            runt: Default::default(),
        }
    }
}

impl Logic for GmiiRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, i_d, i_dv, i_er, st, crc, cnt, bad, h_v, h_d, o_v, o_d, o_last, o_user, n_frames, n_bytes, n_fcs, n_runt, n_jab,
            n_err
        );
        self.i_d.reset.next = self.reset.val();
        self.i_dv.reset.next = self.reset.val();
        self.i_er.reset.next = self.reset.val();
        self.st.reset.next = self.reset.val();
        self.crc.reset.next = self.reset.val();
        self.cnt.reset.next = self.reset.val();
        self.bad.reset.next = self.reset.val();
        self.h_v.reset.next = self.reset.val();
        self.h_d.reset.next = self.reset.val();
        self.o_v.reset.next = self.reset.val();
        self.o_d.reset.next = self.reset.val();
        self.o_last.reset.next = self.reset.val();
        self.o_user.reset.next = self.reset.val();
        self.n_frames.reset.next = self.reset.val();
        self.n_bytes.reset.next = self.reset.val();
        self.n_fcs.reset.next = self.reset.val();
        self.n_runt.reset.next = self.reset.val();
        self.n_jab.reset.next = self.reset.val();
        self.n_err.reset.next = self.reset.val();

        self.i_d.d.next = self.rxd.val();
        self.i_dv.d.next = self.rx_dv.val();
        self.i_er.d.next = self.rx_er.val();
        self.crc_rom.address.next = self.crc.q.val().get_bits::<8>(0) ^ self.i_d.q.val();
        self.crc_next.next = (self.crc.q.val() >> 8) ^ self.crc_rom.data.val();
        self.runt.next = self.cnt.q.val() < 64;
        self.o_v.d.next = false;
        self.o_last.d.next = false;
        self.o_user.d.next = false;

        match self.st.q.val() {
            Rx::Idle => {
                self.bad.d.next = false;
                if self.i_dv.q.val() {
                    self.st.d.next = Rx::Pre;
                    if self.i_d.q.val() == 0xD5 {
                        self.st.d.next = Rx::Data;
                    } else if self.i_d.q.val() != 0x55 {
                        self.n_err.d.next = self.n_err.q.val() + 1;
                        self.st.d.next = Rx::Drop;
                    }
                    self.crc.d.next = 0xFFFF_FFFF_u64.into();
                    self.cnt.d.next = 0.into();
                    self.h_v.d.next = false;
                }
            }
            Rx::Pre => {
                self.crc.d.next = 0xFFFF_FFFF_u64.into();
                if !self.i_dv.q.val() {
                    // No SFD: a preamble only (a bad frame, no packet).
                    self.n_err.d.next = self.n_err.q.val() + 1;
                    self.st.d.next = Rx::Idle;
                } else if self.i_er.q.val() | ((self.i_d.q.val() != 0x55) & (self.i_d.q.val() != 0xD5)) {
                    self.n_err.d.next = self.n_err.q.val() + 1;
                    self.st.d.next = Rx::Drop;
                } else if self.i_d.q.val() == 0xD5 {
                    self.st.d.next = Rx::Data;
                }
            }
            Rx::Data => {
                if self.i_dv.q.val() {
                    self.crc.d.next = self.crc_next.val();
                    self.cnt.d.next = self.cnt.q.val() + 1;
                    self.h_v.d.next = true;
                    self.h_d.d.next = self.i_d.q.val();
                    if self.i_er.q.val() {
                        self.bad.d.next = true;
                    }
                    // The held byte goes out, not the last.
                    self.o_v.d.next = self.h_v.q.val();
                    self.o_d.d.next = self.h_d.q.val();
                    if self.cnt.q.val() == self.max_bytes.val() {
                        // A jabber: this byte, past the limit, is held as
                        // the packet's last (Drop sends it flagged).
                        self.st.d.next = Rx::Drop;
                        if self.bad.q.val() | self.i_er.q.val() {
                            self.n_err.d.next = self.n_err.q.val() + 1;
                        } else {
                            self.n_jab.d.next = self.n_jab.q.val() + 1;
                        }
                    }
                } else {
                    // The frame ended: the held byte is its last.
                    self.st.d.next = Rx::Idle;
                    self.h_v.d.next = false;
                    self.o_v.d.next = self.h_v.q.val();
                    self.o_d.d.next = self.h_d.q.val();
                    self.o_last.d.next = true;
                    self.o_user.d.next = true;
                    if self.bad.q.val() {
                        self.n_err.d.next = self.n_err.q.val() + 1;
                    } else if self.runt.val() {
                        self.n_runt.d.next = self.n_runt.q.val() + 1;
                    } else if self.crc.q.val() != self.residue.val() {
                        self.n_fcs.d.next = self.n_fcs.q.val() + 1;
                    } else {
                        self.o_user.d.next = false;
                        self.n_frames.d.next = self.n_frames.q.val() + 1;
                        self.n_bytes.d.next = self.n_bytes.q.val() + bit_cast::<32, 16>(self.cnt.q.val());
                    }
                }
            }
            Rx::Drop => {
                // A jabber's held byte leaves as its last, flagged.
                self.o_v.d.next = self.h_v.q.val();
                self.o_d.d.next = self.h_d.q.val();
                self.o_last.d.next = true;
                self.o_user.d.next = true;
                self.h_v.d.next = false;
                if !self.i_dv.q.val() {
                    self.st.d.next = Rx::Idle;
                }
            }
        }
        self.m_tdata.next = self.o_d.q.val();
        self.m_tlast.next = self.o_last.q.val();
        self.m_tuser.next = self.o_user.q.val();
        self.m_tvalid.next = self.o_v.q.val();
        self.frames.next = self.n_frames.q.val();
        self.bytes.next = self.n_bytes.q.val();
        self.fcs_errors.next = self.n_fcs.q.val();
        self.runts.next = self.n_runt.q.val();
        self.jabbers.next = self.n_jab.q.val();
        self.errors.next = self.n_err.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's update equals the byte-wise CRC for every byte from
    /// random registers.
    #[test]
    fn table_update_is_the_crc() {
        let t: Vec<u32> = crc_table().values().map(|v| v.index() as u32).collect();
        let mut s = 0x1234_5678u32;
        for b in 0..=255u8 {
            let want = crc32_update(s, &[b]);
            let got = (s >> 8) ^ t[((s ^ b as u32) & 0xff) as usize];
            assert_eq!(got, want, "byte {b}");
            s = s.wrapping_mul(0x9E37_79B9).rotate_left(7);
        }
    }
}
