//! `MacStats`: a board's MAC counters in its register map (issue 18,
//! `docs/boards.md`, "The board window").
//!
//! The MACs count on their own clocks (the XGMII clock, each CMAC's); the
//! host reads the switch's register map on the switch clock. A board core
//! puts this block between its AXI4-Lite port and the switch: one address
//! bit more than the switch's map, the switch's map below
//! [`BOARD_WINDOW`] (unchanged, every address as in `trimswitch regs`), the
//! board window from it (an [`AxilSplit`] of two windows). In the board
//! window, first the board's control registers (read/write, reset 0: the
//! Versa's self-test), then its words: word `k` (byte offset `4 (c + k)`
//! with `c` controls) is counter `k` as the board core lists them
//! ([`BoardWindow`]), carried into the switch clock whole by a
//! [`SnapshotSync`] (a few cycles old, never torn). The words are read only
//! and wrap; a write is accepted and changes nothing (they live on another
//! clock).
use crate::axil::bundle::{AxilMaster, AxilSlave};
use crate::axil::regs::AxilRegs;
use crate::axil::split::AxilSplit;
use crate::prim::snapshot::SnapshotSync;
use crate::prim::widgets::vec_of;
use crate::top::regmap::SWITCH_ADDR_BITS;
use rust_hdl::prelude::*;

/// Address bits of a board core's AXI4-Lite port: the switch's map and the
/// board window above it.
pub const BOARD_ADDR_BITS: usize = SWITCH_ADDR_BITS + 1;
/// Byte address of the board window.
pub const BOARD_WINDOW: u32 = 1 << SWITCH_ADDR_BITS;

/// What a board's window holds (module docs), for the register map
/// (`SwitchMap::with_board`): its control registers, its words that are
/// not per port, then each port's words; each (name, meaning).
#[derive(Clone, Copy, Debug)]
pub struct BoardWindow {
    /// The host reaches the switch's map below the window (false on a
    /// board where it does not fit: the Versa).
    pub switch_map: bool,
    pub controls: &'static [(&'static str, &'static str)],
    pub globals: &'static [(&'static str, &'static str)],
    pub per_port: &'static [(&'static str, &'static str)],
}

impl BoardWindow {
    /// Words of a board with `ports` ports (the block's `words`).
    pub fn words(&self, ports: usize) -> usize {
        self.globals.len() + ports * self.per_port.len()
    }
}

/// The board window (module docs).
///
/// Ports:
/// - `clock`, `reset`: the switch's clock and synchronous reset.
/// - `s_axil_*`: the board's AXI4-Lite slave (from the host),
///   [`BOARD_ADDR_BITS`]-bit addresses.
/// - `m_switch_*`: the switch's AXI4-Lite port (addresses below
///   [`BOARD_WINDOW`]).
/// - `control[i]` out (32 bits): control register `i` (switch clock).
/// - `word_clock[k]`, `word_reset[k]` (synchronous to it), `word[k]` in (32
///   bits): counter `k` and its clock.
#[derive(LogicBlock)]
pub struct MacStats {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axil: AxilSlave<BOARD_ADDR_BITS>,
    pub m_switch: AxilMaster<SWITCH_ADDR_BITS>,
    pub control: Vec<Signal<Out, Bits<32>>>,
    pub word_clock: Vec<Signal<In, Clock>>,
    pub word_reset: Vec<Signal<In, Bit>>,
    pub word: Vec<Signal<In, Bits<32>>>,
    split: AxilSplit<BOARD_ADDR_BITS, SWITCH_ADDR_BITS>,
    regs: AxilRegs<SWITCH_ADDR_BITS>,
    sync: Vec<SnapshotSync>,
}

impl MacStats {
    /// The window of `controls` control registers and `words` counters (at
    /// least one counter).
    pub fn new(controls: usize, words: usize) -> Self {
        assert!(words >= 1, "MacStats: at least one counter");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axil: Default::default(),
            m_switch: Default::default(),
            control: vec_of(controls),
            word_clock: vec_of(words),
            word_reset: vec_of(words),
            word: vec_of(words),
            split: AxilSplit::new(2),
            regs: AxilRegs::new(&vec![0; controls], words),
            sync: vec_of(words),
        }
    }
}

impl Logic for MacStats {
    #[hdl_gen]
    fn update(&mut self) {
        self.split.clock.next = self.clock.val();
        self.split.reset.next = self.reset.val();
        self.regs.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        AxilSlave::<BOARD_ADDR_BITS>::link(&mut self.s_axil, &mut self.split.s_axil);
        AxilMaster::<SWITCH_ADDR_BITS>::link(&mut self.m_switch, &mut self.split.m_axil[0]);
        AxilMaster::<SWITCH_ADDR_BITS>::join(&mut self.split.m_axil[1], &mut self.regs.s_axil);
        for i in 0..self.control.len() {
            self.control[i].next = self.regs.rw[i].val();
        }
        for k in 0..self.sync.len() {
            self.sync[k].src_clock.next = self.word_clock[k].val();
            self.sync[k].src_reset.next = self.word_reset[k].val();
            self.sync[k].d.next = self.word[k].val();
            self.sync[k].dst_clock.next = self.clock.val();
            self.sync[k].dst_reset.next = self.reset.val();
            self.regs.ro[k].next = self.sync[k].q.val();
        }
    }
}
